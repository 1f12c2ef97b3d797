// The cpu-simd variant: the reference's sums in float (or double, where float cannot keep the
// 1 LSB contract) with SIMD vectors (Highway, dispatched at run time) on every core (oneTBB).
// Separable masks run as a column pass then a row pass; masks of low rank (Mask::lowRank(): sharpen,
// emboss, laplacian, many custom masks) as k such pairs, their row sums added; other masks as one 2D
// pass. Every tap is a load and an FMA.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "convlive/image.hpp"
#include "convlive/mask.hpp"
#include "convlive/problem.hpp"

namespace convlive {

// How cpu-simd sums a filter, chosen from a worst-case bound on the output error. With n taps
// summed one rounding each (unit roundoff u: 2^-24 float, 2^-53 double), gamma(n) = n*u/(1-n*u):
//   2D:        |error| <= gamma(n) * 255 * sum |w|
//   separable: |error| <= (gamma(nc) + gamma(nr) * (1 + gamma(nc))) * 255 * sum |col| * sum |row|
//   low rank:  LowRank::errorBound(u): the terms' truncation, each term's separable bound and the
//              k-term sum's rounding (convlive/low_rank.hpp)
// times sqrt(2) for a gradient magnitude. A mask that is neither separable nor of low rank takes
// the 2D sum; one of low rank takes its k terms when they cost fewer taps (lowRankPays), float
// first: low rank in float, else 2D in float, else low rank in double, else 2D in double, the
// first whose bound is within kCpuSimdErrorBudget; else refused (a 5x5 mask of equal weights from
// about 1.4e10 on).
struct CpuSimdPlan {
  enum class Precision { Float, Double, Refused };
  enum class Path { Separable, LowRank, Direct };
  Precision precision = Precision::Refused;
  Path path = Path::Direct;
  int terms = 0;             // the separable terms the sums take: 1 separable, k low rank, 0 in 2D
  double floatBound = 0.0;   // the bound with float sums, on this path
  double doubleBound = 0.0;  // with double sums
  std::string why;           // Refused: the reason
};

// An output within 0.5 of the exact sum rounds to the reference's byte or one next to it; half of
// that is left as margin for the reference's own rounding of its sums to float.
constexpr double kCpuSimdErrorBudget = 0.25;

CpuSimdPlan planCpuSimd(const Filter& filter);

// Whether k terms beat the 2D sum for this mask (the cut, measured at 720p on 2 cores against the
// 2D sum: docs/variants.md): radius 2 or more (3x3 masks keep their 9 taps), 1 <= k <= r + 1 (k
// dense terms read about the 2D sum's taps or fewer; more lost: r=16 with 20 terms took 1.07x the
// 2D time), and the terms' taps plus kTermOverheadTaps a term (its column rows written and read
// again, its sums added) under kDirectTapCost times the 2D sum's non-zero weights (what a 2D tap
// cost in a term's taps; this decides for sparse masks).
constexpr std::size_t kTermOverheadTaps = 2;
constexpr double kDirectTapCost = 1.5;
bool lowRankPays(const LowRank& lowRank, const Mask& mask);
// The plan's refusal as a Problem (setting "variant", the fix: the cpu variant); empty when it runs.
Problem cpuSimdWhyNot(const Filter& filter);

// out = filter(in) as planCpuSimd says, on all cores (the caller's thread helps). in and out: host
// memory, same size, pitch a multiple of 4 holding a whole row, not overlapping. Throws
// std::invalid_argument when they are not, ProblemError when the plan refuses the filter. Safe to
// call from several threads at once.
void cpuSimdFilter(const Filter& filter, Border border, bool filterAlpha, ConstImageView in, ImageView out);

// Frames of any description (convlive/image.hpp: u8, u16, f16, f32 values; 1, 3 or 4 channels;
// any row pitch; a batch), host memory, not overlapping. u8x4 frames with rows 4 bytes apart take
// cpuSimdFilter's path (and its plan), a batch's frames' bands in one parallel loop; the others widen each input row
// once to float or double (float where its worst-case error keeps the contract: integers within 0.45 of a level, f32
// within half of 1e-5 x sum|w| x max|x|; f16 always double, rounded once), sum separable masks as a column then a row
// pass and other masks row by mask row, and round once to the type as the reference does (4th channel copied where it
// is padding or alpha is kept). Throws ProblemError when cpuSimdImageWhyNot refuses the filter.
Problem cpuSimdImageWhyNot(const Filter& filter, const ImageDesc& image,
                           std::optional<PixelType> outType = std::nullopt);
void cpuSimdFrames(const Filter& filter, Border border, bool filterAlpha, const ImageDesc& image, const void* in,
                   void* out);
// The same into output frames laid out as `output` (outputDesc): f32 values from u8 frames (the
// sums as they are, within f32's bound; a copied 4th channel converted). Other pairs of types throw
// std::invalid_argument.
void cpuSimdFrames(const Filter& filter, Border border, bool filterAlpha, const ImageDesc& image, const void* in,
                   const ImageDesc& output, void* out);

// The instruction set the kernels run with on this CPU ("AVX3_ZEN4", "AVX2", ...).
const char* cpuSimdTarget();

}  // namespace convlive
