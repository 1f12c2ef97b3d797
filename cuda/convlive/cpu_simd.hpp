// The cpu-simd variant: the reference's sums in float (or double, where float cannot keep the
// 1 LSB contract) with SIMD vectors (Highway, dispatched at run time) on every core (oneTBB).
// Separable masks run as a column pass then a row pass, other masks as one 2D pass; both read rows
// that were widened to float once and padded by the border mode, so every tap is a load and an FMA.
#pragma once

#include <string>

#include "convlive/image.hpp"
#include "convlive/mask.hpp"
#include "convlive/problem.hpp"

namespace convlive {

// How cpu-simd sums a filter, chosen from a worst-case bound on the output error. With n taps
// summed one rounding each (unit roundoff u: 2^-24 float, 2^-53 double), gamma(n) = n*u/(1-n*u):
//   2D:        |error| <= gamma(n) * 255 * sum |w|
//   separable: |error| <= (gamma(nc) + gamma(nr) * (1 + gamma(nc))) * 255 * sum |col| * sum |row|
// times sqrt(2) for a gradient magnitude. Float when that is within kCpuSimdErrorBudget, else
// double, else refused (a 5x5 mask of equal weights from about 1.4e10 on).
struct CpuSimdPlan {
  enum class Precision { Float, Double, Refused };
  Precision precision = Precision::Refused;
  double floatBound = 0.0;   // the bound with float sums
  double doubleBound = 0.0;  // with double sums
  std::string why;           // Refused: the reason
};

// An output within 0.5 of the exact sum rounds to the reference's byte or one next to it; half of
// that is left as margin for the reference's own rounding of its sums to float.
constexpr double kCpuSimdErrorBudget = 0.25;

CpuSimdPlan planCpuSimd(const Filter& filter);
// The plan's refusal as a Problem (setting "variant", the fix: the cpu variant); empty when it runs.
Problem cpuSimdWhyNot(const Filter& filter);

// out = filter(in) as planCpuSimd says, on all cores (the caller's thread helps). in and out: host
// memory, same size, pitch a multiple of 4 holding a whole row, not overlapping. Throws
// std::invalid_argument when they are not, ProblemError when the plan refuses the filter. Safe to
// call from several threads at once.
void cpuSimdFilter(const Filter& filter, Border border, bool filterAlpha, ConstImageView in, ImageView out);

// The instruction set the kernels run with on this CPU ("AVX3_ZEN4", "AVX2", ...).
const char* cpuSimdTarget();

}  // namespace convlive
