// What fp16 costs in accuracy: the tensor-core variants multiply exact fp16 inputs (every byte
// 0..255 is exact in fp16) by fp16 weights and accumulate in fp32; stream may also sum in fp16
// (planHalfSums). Neither the weights nor fp16 sums are exact, so each mask gets a worst-case
// bound on the output error before it is accepted.
#pragma once

#include <string>
#include <vector>

#include "convlive/low_rank.hpp"
#include "convlive/mask.hpp"

namespace convlive {

struct HalfWeightsPlan {
  enum class Mode { Single, Split, Refused };
  Mode mode = Mode::Refused;
  double singleBound = 0.0;        // worst-case |output error| with one fp16 part per weight
  double splitBound = 0.0;         // with a high and a low fp16 part per weight (two products)
  double accumulationBound = 0.0;  // the tensor cores' fp32 sums (planHalfWeights: per fp16 part, twice when split)
  double bound = 0.0;              // the bound of the chosen mode: the weights' and the sums' together
  std::string why;                 // Refused: the reason
  // planHalfSeparable only: whether the intermediate (the row pass's sums) may be a single fp16
  // value instead of high + low parts, and the bound then (tensorstream uses it when it fits).
  bool halfIntermediate = false;
  double halfIntermediateBound = 0.0;
  // planHalfSeparable only: every sum, computed so (fp16 factors, the intermediate as chosen), stays
  // in [-0.5, 255.5) for 8-bit inputs, so rounding alone gives the saturated byte (no clamp needed).
  bool sumsInByteRange = false;
  // planF16Separable only: the error that does not scale with the frame's values (the intermediate's
  // low parts below fp16's normal range), absolute; its other bounds are over max |x|.
  double absoluteFloor = 0.0;
  bool split() const { return mode == Mode::Split; }
};

// An output within 0.5 of the exact sum rounds to the reference's byte or one next to it: the 1 LSB
// contract every variant keeps. The weights and (planHalfWeights) the tensor cores' truncating fp32
// sums may use 0.45 of that; the rest is left to the final fp32 steps.
constexpr double kHalfErrorBudget = 0.45;

// The bound for `mask` applied to 8-bit inputs (tensor2d): 255 * sum |w - its fp16 parts| (the most
// the weight rounding can move an output) plus the tensor cores' fp32 sums (per mask row dy,
// ceil((16 + 2r) / 16) products, each taken to move the sum by up to 2^-21 of 255 * the sum of |w|
// over rows 0..dy: mma.sync aligns its addends by truncation and normalises toward zero, so its
// errors add up instead of cancelling), times sqrt(2) for a gradient magnitude. Single fp16 weights
// when that bound is within the budget, else high + low parts (about 2^-22 relative, twice the
// sums), else (weights beyond fp16's range, 65504, or a weight sum too large) refused with the
// reason.
HalfWeightsPlan planHalfWeights(const Mask& mask, Combine combine);

// The same for a separable mask applied as two passes with fp16 factors (tensorsep): the row pass
// is off by at most 255 * sum |row - fp16(row)|, which the column pass scales by sum |col|; the
// column pass adds 255 * sum |row| * sum |col - fp16(col)|; the intermediate is kept as fp16 high +
// low parts (2^-21 of 255 * sum |row| * sum |col|); the tensor cores' sums add 3 ceil((16 + 2r) /
// 16) products' worth of 2^-21 of 255 * sum |row| * sum |col| (accumulationBound). Single, or
// Refused (the factors are not split): a mask that is not separable is refused too. (The row
// factor peaks at 1, so the row sums, at most 255 * 129, stay within fp16's range.)
// halfIntermediate: the bound with the intermediate as one fp16 value (2^-11 relative) is within
// the budget too.
HalfWeightsPlan planHalfSeparable(const Mask& mask, Combine combine);

// The same for u16 grey frames on tensorstream (kernels::tensorStreamTypedU16): the factors scaled
// as for bytes (2^S and 2^(24 - S)) and split into fp16 high + low parts, each value's high and low
// bytes summed by the row pass apart and joined in fp32 (256 high + low), the intermediate as fp16
// high + low parts, the column's low part times the intermediate's high part only. In levels of
// 65535 (M): the parts' rounding (M x (sum |row - parts| sum |col| + sum |row| sum |col - parts|)),
// the intermediate's split and the dropped low x low product (2^-22 each of M sum |row| sum |col|)
// and its floor below fp16's normal range (sum |col| 2^(-1 - S)), the join's and the store's fp32
// roundings (2^-24 each), and the tensor cores' truncating sums (2^-21 of M sum |row| sum |col| a
// product: the high bytes' high-part row products, ceil((16 + 2r) / 16) of them, and the three
// column products of as many blocks; the low parts' row products come first into each sum, 2^-11
// of those, and the low bytes' two a chunk have sums of their own, 2^-8 of those each). Split
// (accepted), else Refused with
// the reason: a mask that is not separable, a gradient magnitude or |sum|, r past `maxRadius`,
// factors no scale fits, or a bound past the budget.
HalfWeightsPlan planU16Separable(const Mask& mask, Combine combine, int maxRadius);

// The same for f16 grey frames on tensorstream (kernels::tensorStreamTypedF16): the factors scaled by
// 2^A and 2^-A (f16IntermediateScale: the row sums within fp16's range) and split into fp16 high +
// low parts, the values the row products' inputs as they are, the intermediate as fp16 high + low
// parts, the column's low part times the intermediate's high part only. Over max |x|, the frame's
// largest magnitude: the parts' rounding (sum |row - parts| sum |col| + sum |row| sum |col - parts|),
// the intermediate's split and the dropped low x low product (2^-22 each of sum |row| sum |col|), two
// fp32 roundings (2^-24 each), and the tensor cores' truncating sums (2^-21 of sum |row| sum |col| a
// product: ceil((16 + 2r) / 16) row products of the high parts, the low parts' first, 2^-11 of
// those, and three column products of as many blocks); apart, absoluteFloor: the intermediate's low
// parts below fp16's normal range, 2^(-25 - A) sum |col|. Split (accepted) where the bound is within
// the f32 contract's 1e-5 x sum |w| (convlive/reference.hpp f32Bound) and the floor within 2^-24 (an
// ulp of fp16's least subnormal), so that an output is within 1 ulp of the correctly rounded value
// where its ulp passes the bound, and within the bound plus an ulp below; else Refused with the
// reason: a mask that is not separable, a gradient magnitude or |sum|, r past `maxRadius`, factors
// past fp16's range so scaled, or a bound past the contract.
HalfWeightsPlan planF16Separable(const Mask& mask, Combine combine, int maxRadius);

// The same for f32 grey frames on tensorstream (kernels::tensorStreamTypedF32): the factors as for
// f16, each step's values multiplied by a power of two into [2^14, 2^15) of the step's largest and
// split into fp16 high + low parts (3 row products: low x low dropped). Over max |x|: f16's terms,
// plus the values' split and the dropped low x low product (2^-22 each of sum |row| sum |col|), the
// two small row products first into each sum (2^-11 of the high one's each); the floors (the
// values' and the intermediate's low parts below fp16's normal range) lie 2^-39 and below of the
// step's largest |value|, counted in the bound (a step whose largest |value| is below 2^-112 is
// scaled by 2^126 only, so that its outputs, f32 subnormals, may be an ulp off: not counted). The
// bound is over the largest |value| the output's products share, up to B0 + 1 steps of 16 rows and
// the warp's 48- or 64-pixel window, not only the output's own window: the frame's largest bounds
// it. Split (accepted) where the bound is within the f32 contract's 1e-5 x sum |w|; else Refused, as
// f16's.
HalfWeightsPlan planF32Separable(const Mask& mask, Combine combine, int maxRadius);

// The terms as tensorstream's kernels take them (kernels::MaskTerms). fp16 holds few weights of the
// form j / n (emboss's ramp, j / r: 1/3, 2/3 round by up to 2^-12), but n times them are integers it
// holds exactly: where every term's factors are that far from fp16's, one factor of each term
// (either) is multiplied by the smallest common n (2..kMaxTermsDivisor) that makes every term's fp16
// factors equal its own within 2^-20 of their absolute sums, and the kernel multiplies its sums by
// 1 / n in fp32 at the store. divisor 1 (the terms as they are): already so (sharpen, emboss r = 2,
// 4, 8), or no such n (the laplacian, the gaussian's factors, masks by SVD).
constexpr int kMaxTermsDivisor = 64;
struct HalfTerms {
  std::vector<SeparableTerm> terms;  // each lowRank term, one factor times the divisor where it is not 1
  std::vector<bool> rowScaled;       // per term: the row factor (true) or the column factor took it
  int divisor = 1;
};
HalfTerms halfTermsOf(const LowRank& lowRank);

// A mask of low rank (convlive/low_rank.hpp) as tensorstream runs it, every term in one pass: each
// term bounded as planHalfSeparable bounds a separable mask (its fp16 factors, its own input scale,
// its intermediate as one fp16 value or high + low parts), the terms' bounds added, plus the
// decomposition's truncation; the tensor cores' sums count every term's products in the same
// accumulators (chunks x (1 + 2k) products, each 2^-21 of 255 x sum over terms of sum |row| x
// sum |col|). Single (accepted, halfIntermediate where one fp16 intermediate fits too) or Refused
// with the reason. sumsInByteRange is false: the outputs are clamped.
// centreAtStore: the kernel adds the first centre-only term at the store, in fp32 from the input
// byte (kernels::tensorStreamCentreAtStore), not as products: that term is no product term (the
// accumulation counts k - 1 terms and their magnitudes) and adds its multiply-add's rounding, 2^-24
// of the output's largest magnitude, and its weight's (row x col in float, 2^-24 of it).
// The factors are halfTermsOf's: where its divisor n is not 1, the fp16 rounding is of the n-scaled
// factor (over n), and the store's multiply by 1 / n adds two roundings (1 / n's and the product's:
// 2 2^-24 of the output's largest magnitude; the centre's weight, times 1 / n, one more).
// divisor false: the kernel takes the terms as they are (a gradient magnitude's two terms).
HalfWeightsPlan planHalfTerms(const LowRank& lowRank, int radius, Combine combine, bool centreAtStore = false,
                              bool divisor = true);

// The gradient magnitude of a separable mask (sobel, scharr) as tensorstream runs it: gx = col (x)
// row and gy = row (x) col, each a term of its own in accumulators of its own, bounded as
// planHalfTerms bounds a mask of that one term (ex, ey), then sqrt(gx^2 + gy^2) in fp32, which is
// off by at most sqrt(ex^2 + ey^2) <= sqrt(2) max(ex, ey) plus its own rounding (3 2^-24 of the
// largest magnitude). Single (halfIntermediate where one fp16 intermediate fits both terms) or
// Refused with the reason; a mask that is not separable is refused too.
HalfWeightsPlan planHalfMagnitude(const Mask& mask);

// The largest |weight| of a factor (tensorstream's input scale, convlive/tensor_inputs.hpp).
double largestWeight(const std::vector<float>& factor);

// stream's fp16 sums: both passes summed in fp16 pairs (HFMA2), not only the weights. Two numbers
// less than 1 apart round to bytes at most 1 apart, so an output less than 1 from the exact sum is
// within 1 LSB of the reference's byte; stream takes fp16 sums for a mask whose bound is at most
// kHalfSumsBudget, the rest being margin for the reference's own (double) sums.
constexpr double kHalfSumsBudget = 0.75;

struct HalfSumsPlan {
  bool fits = false;  // bound <= kHalfSumsBudget: stream may sum in fp16
  // The most |255 s - the exact sum| can be, in levels, for the saturated fp16 result s (before the
  // byte's own rounding); infinite where a sum could leave fp16's range.
  double bound = 0.0;
  // The centring's offset in the column sums' units (over 255): 128 * sum fp16(row) * sum
  // fp16(col / 255), as a float; the kernel adds it rounded to fp16.
  float offset = 0.f;
  std::string why;  // !fits: the reason (stream then sums in fp32)
};

// The bound for exactly the steps stream's fp16 kernel takes, per channel: inputs centred (byte -
// 128, exact); the row sum h = fp16(row[0]) x_0, then + fp16(row[t]) x_t, each rounded to fp16; the
// column sum the same with fp16(col[t] / 255) and h; plus the fp16 offset, saturated to [0, 1];
// then 255 s rounded to the byte. It adds the weights' rounding (255 times the sum over the taps of
// |col row - 255 fp16(col / 255) fp16(row)|, all bytes 255 at most),
// each fp16 rounding (half a unit in the last place of the most its partial sum can hold, errors
// so far included) carried through the later weights, and the offset's. Saturation and |.| move
// nothing further apart. For a mask that is not separable, the reason.
HalfSumsPlan planHalfSums(const Mask& mask);

}  // namespace convlive
