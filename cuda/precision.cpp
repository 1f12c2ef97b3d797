#include "convlive/precision.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace convlive {
namespace {

// Round to nearest fp16 (ties to even, with subnormals), as the kernels' __float2half_rn does.
float toHalf(float w) { return static_cast<float>(static_cast<_Float16>(w)); }

// K chunks of 16 inputs a 16-output product needs at radius r (tensor2d's kChunks16; the separable
// kernels' bands are no deeper).
int productChunks(int r) { return (16 + 2 * r + 15) / 16; }

// The tensor cores' fp32 sums (tensor2d's order), one fp16 part per weight: each mask row dy adds
// ceil((16 + 2r) / 16) products (K chunks of 16 inputs) to an accumulator that holds at most
// 255 * the sum of |w| over the rows up to dy. An mma.sync is not IEEE: its products are exact,
// but its addends are aligned to the largest and truncated, and the sum is normalised toward zero
// (published bit-level models of the V100..H100 tensor cores), so the errors do not cancel as
// round-to-nearest ones do on average; each product is taken to move the sum by up to 2^-21 of
// that bound (4 units in the last place: an m16n8k16 step adds 17 addends, so this assumes the
// 2-3 extra alignment bits those models report for the A100 and H100). Measured: an emboss at r=25
// (sum |w| 1769) came out 2 levels off on the H200, where this bound is 28 with one fp16 part and
// 56 with two.
double accumulationBound(const Mask& mask) {
  const int r = mask.radius(), taps = 2 * r + 1, chunks = productChunks(r);
  const auto& w = mask.weights();
  double prefix = 0, bound = 0;
  for (int dy = 0; dy < taps; ++dy) {
    for (int dx = 0; dx < taps; ++dx) prefix += std::fabs(double(w[dy * taps + dx]));
    bound += chunks * 255.0 * prefix * std::ldexp(1.0, -21);
  }
  return bound;
}

}  // namespace

HalfWeightsPlan planHalfWeights(const Mask& mask, Combine combine) {
  HalfWeightsPlan plan;
  double single = 0.0, split = 0.0, absSum = 0.0;
  for (float w : mask.weights()) {
    absSum += std::fabs(double(w));
    const float hi = toHalf(w);
    if (!std::isfinite(hi)) {
      std::ostringstream s;
      s << "a weight (" << w << ") is beyond fp16's range (65504): the tensor cores cannot take this mask";
      plan.why = s.str();
      return plan;
    }
    const float lo = toHalf(w - hi);
    single += std::fabs(double(w) - hi);
    split += std::fabs(double(w) - hi - lo);
  }
  const double gain = combine == Combine::Magnitude ? std::sqrt(2.0) : 1.0;
  plan.singleBound = 255.0 * single * gain;
  plan.splitBound = 255.0 * split * gain;
  plan.accumulationBound = accumulationBound(mask) * gain;
  // Split weights make two products of each, so twice the sums.
  const double onePart = plan.singleBound + plan.accumulationBound,
               twoParts = plan.splitBound + 2 * plan.accumulationBound;
  if (onePart <= kHalfErrorBudget) {
    plan.mode = HalfWeightsPlan::Mode::Single;
    plan.bound = onePart;
  } else if (twoParts <= kHalfErrorBudget) {
    plan.mode = HalfWeightsPlan::Mode::Split;
    plan.bound = twoParts;
  } else {
    std::ostringstream s;
    if (plan.splitBound > kHalfErrorBudget)
      s << "with fp16 weights the output could be off by up to " << plan.splitBound << " (more than the 1 LSB budget, "
        << kHalfErrorBudget << ", even split into two fp16 parts)";
    else
      s << "the tensor cores' fp32 sums could move the output by up to " << std::min(onePart, twoParts)
        << " (more than the 1 LSB budget, " << kHalfErrorBudget << "): the weights' absolute sum, " << absSum
        << ", is too large for their truncating adds";
    plan.why = s.str();
  }
  return plan;
}

HalfWeightsPlan planHalfSeparable(const Mask& mask, Combine combine) {
  HalfWeightsPlan plan;
  if (!mask.separable()) {
    plan.why = "the mask is not separable";
    return plan;
  }
  double rowAbs = 0, rowErr = 0, rowHalf = 0, colAbs = 0, colErr = 0, colHalf = 0;
  bool nonNegative = true;
  for (const auto* factor : {&mask.row(), &mask.col()})
    for (float w : *factor) {
      const float h = toHalf(w);
      if (!std::isfinite(h)) {
        std::ostringstream s;
        s << "a factor weight (" << w << ") is beyond fp16's range (65504)";
        plan.why = s.str();
        return plan;
      }
      (factor == &mask.row() ? rowAbs : colAbs) += std::fabs(w);
      (factor == &mask.row() ? rowErr : colErr) += std::fabs(double(w) - h);
      (factor == &mask.row() ? rowHalf : colHalf) += h;
      nonNegative = nonNegative && w >= 0;
    }
  const double gain = combine == Combine::Magnitude ? std::sqrt(2.0) : 1.0;
  plan.singleBound = 255.0 * (rowErr * colAbs + rowAbs * colErr + rowAbs * colAbs * std::ldexp(1.0, -21)) * gain;
  // The tensor cores' truncating fp32 sums (see accumulationBound): per output, up to
  // ceil((16 + 2r) / 16) products a row sum (each off by up to 2^-21 of 255 * sum |row|, which the
  // column pass scales by sum |col|), then as many a column sum for each of the intermediate's two
  // parts (each off by up to 2^-21 of 255 * sum |row| * sum |col|).
  const int chunks = productChunks(mask.radius());
  plan.accumulationBound = 255.0 * rowAbs * colAbs * std::ldexp(1.0, -21) * 3 * chunks * gain;
  // fp16 alone for the intermediate: rounding to nearest moves a row sum by at most 2^-11 of it
  // (2^-25 absolute below fp16's normal range).
  plan.halfIntermediateBound =
      255.0 * (rowErr * colAbs + rowAbs * colErr + rowAbs * colAbs * std::ldexp(1.0, -11)) * gain +
      colAbs * std::ldexp(1.0, -25) * gain + plan.accumulationBound;
  plan.halfIntermediate = plan.halfIntermediateBound <= kHalfErrorBudget;
  // Non-negative factors make every product >= 0 (a low part's sign moves a sum by at most 2^-11 of
  // it); the largest sum is 255 * sum(fp16 row) * sum(fp16 col), plus the intermediate's rounding
  // and a margin for the fp32 sums.
  const double rounding = std::ldexp(1.0, plan.halfIntermediate ? -11 : -21);
  plan.sumsInByteRange =
      nonNegative && 255.0 * rowHalf * colHalf * (1.0 + rounding) + std::max(0.01, plan.accumulationBound) < 255.5;
  plan.splitBound = plan.singleBound;
  plan.bound = plan.singleBound + plan.accumulationBound;
  if (plan.bound <= kHalfErrorBudget) {
    plan.mode = HalfWeightsPlan::Mode::Single;
  } else if (plan.singleBound <= kHalfErrorBudget) {
    std::ostringstream s;
    s << "the tensor cores' fp32 sums could move the output by up to " << plan.bound << " (more than the 1 LSB budget, "
      << kHalfErrorBudget << "): the factors' absolute sums (" << rowAbs * colAbs
      << " together) are too large for their truncating adds";
    plan.why = s.str();
  } else {
    std::ostringstream s;
    s << "with fp16 factors the output could be off by up to " << plan.singleBound << " (more than the 1 LSB budget, "
      << kHalfErrorBudget << ")";
    plan.why = s.str();
  }
  return plan;
}

}  // namespace convlive
