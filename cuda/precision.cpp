#include "convlive/precision.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "convlive/reference.hpp"
#include "convlive/tensor_inputs.hpp"

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

// Half a unit in the last place of fp16 at magnitude m: the most rounding to nearest moves a value
// of magnitude at most m (2^-25 below fp16's normal range).
double halfUlp(double m) {
  if (m < std::ldexp(1.0, -14)) return std::ldexp(1.0, -25);
  int e = 0;
  std::frexp(m, &e);  // m = f 2^e, f in [0.5, 1): the unit in the last place is 2^(e - 11)
  return std::ldexp(1.0, e - 12);
}

// Rounding errors of a sum of products in fp16, in order: the partial sums' bounds grow by
// |weight| * most (the largest input magnitude), each rounding moves the value by at most half a
// unit in the last place of what the partial sum can hold, errors so far included.
double halfSumRounding(const std::vector<double>& weights, double most) {
  double bound = 0, err = 0;
  for (double w : weights) {
    bound += std::fabs(w) * most;
    err += halfUlp(bound + err);
  }
  return err;
}

}  // namespace

double largestWeight(const std::vector<float>& factor) {
  return largestWeight(factor.data(), static_cast<int>(factor.size()));
}

HalfSumsPlan planHalfSums(const Mask& mask) {
  HalfSumsPlan plan;
  if (!mask.separable()) {
    plan.why = "the mask is not separable";
    return plan;
  }
  const std::vector<float>&row = mask.row(), &col = mask.col();
  const std::size_t taps = row.size();
  std::vector<double> w(taps), c(taps);
  double wSum = 0, cSum = 0, wAbs = 0, cAbs = 0;
  for (std::size_t t = 0; t < taps; ++t) {
    w[t] = toHalf(row[t]);
    c[t] = toHalf(col[t] / 255.f);  // as launchStream makes them
    if (!std::isfinite(w[t]) || !std::isfinite(c[t])) {
      std::ostringstream s;
      s << "a factor weight (" << (std::isfinite(w[t]) ? col[t] : row[t]) << ") is beyond fp16's range (65504)";
      plan.why = s.str();
      plan.bound = HUGE_VAL;
      return plan;
    }
    wSum += w[t], cSum += c[t], wAbs += std::fabs(w[t]), cAbs += std::fabs(c[t]);
  }
  // Centred, the fp16 weights give sum c w (v - 128) + 128 sum c sum w = sum c w v exactly: what is
  // left of the weights' rounding acts on bytes up to 255.
  double weights = 0;
  for (std::size_t s = 0; s < taps; ++s)
    for (std::size_t t = 0; t < taps; ++t) weights += std::fabs(255.0 * c[s] * w[t] - double(col[s]) * row[t]);
  weights *= 255.0;
  // A pass whose sums could pass fp16's largest value: refused (the bound infinite).
  auto beyondRange = [&](const char* pass, double most) {
    if (most < 65504.0) return false;
    std::ostringstream s;
    s << "the " << pass << " sums could reach " << most << ", beyond fp16's range (65504)";
    plan.why = s.str();
    plan.bound = HUGE_VAL;
    return true;
  };
  const double rowErr = halfSumRounding(w, 128.0), rowMost = 128.0 * wAbs + rowErr;
  if (beyondRange("row", rowMost)) return plan;
  const double colErr = cAbs * rowErr + halfSumRounding(c, rowMost), colMost = cAbs * rowMost + colErr;
  if (beyondRange("column", colMost)) return plan;
  const double exactOffset = 128.0 * wSum * cSum;
  plan.offset = static_cast<float>(exactOffset);
  const double offsetErr = std::fabs(double(toHalf(plan.offset)) - exactOffset);
  // The last add, saturated to [0, 1]: a value of magnitude 1 or more rounds to one of 1 or more
  // (1 is exact), which saturates (|.|, then) as the unrounded value would; below 1 the rounding
  // moves it by at most half a unit in the last place under 1.
  const double addErr = halfUlp(std::min(255.0 * cAbs * wAbs + colErr + offsetErr, 0.99));
  plan.bound = weights + 255.0 * (colErr + offsetErr + addErr);
  plan.fits = plan.bound <= kHalfSumsBudget;
  if (!plan.fits) {
    std::ostringstream s;
    s << "with fp16 sums the output could be off by up to " << plan.bound << " levels (more than the "
      << kHalfSumsBudget << " budget)";
    plan.why = s.str();
  }
  return plan;
}

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
  // Below fp16's normal range the intermediate's rounding (either part's) moves it by up to 2^-25:
  // a level's 2^-25 for tensorsep, 2^(-1 - S) for tensorstream, whose intermediate is 2^(S - 24)
  // times the row sums (its inputs: convlive/tensor_inputs.hpp; where no S fits, tensorstream
  // refuses the mask itself). The column factor carries it.
  const int scale = tensorInputScale(largestWeight(mask.row()), largestWeight(mask.col()));
  const double subnormalFloor = colAbs * std::ldexp(1.0, scale < 0 ? -25 : -1 - scale);
  const double gain = combine == Combine::Magnitude ? std::sqrt(2.0) : 1.0;
  plan.singleBound =
      (255.0 * (rowErr * colAbs + rowAbs * colErr + rowAbs * colAbs * std::ldexp(1.0, -21)) + subnormalFloor) * gain;
  // The tensor cores' truncating fp32 sums (see accumulationBound): per output, up to
  // ceil((16 + 2r) / 16) products a row sum (each off by up to 2^-21 of 255 * sum |row|, which the
  // column pass scales by sum |col|), then as many a column sum for each of the intermediate's two
  // parts (each off by up to 2^-21 of 255 * sum |row| * sum |col|).
  const int chunks = productChunks(mask.radius());
  plan.accumulationBound = 255.0 * rowAbs * colAbs * std::ldexp(1.0, -21) * 3 * chunks * gain;
  // fp16 alone for the intermediate: rounding to nearest moves a row sum by at most 2^-11 of it
  // (below fp16's normal range, the floor above).
  plan.halfIntermediateBound =
      255.0 * (rowErr * colAbs + rowAbs * colErr + rowAbs * colAbs * std::ldexp(1.0, -11)) * gain +
      subnormalFloor * gain + plan.accumulationBound;
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

namespace {
// The most a factor scaled by 2^scale, as fp16 high + low parts (the high part rounded to fp16, the
// low part what it leaves, rounded to fp16 too), is off, over 2^scale; infinite past fp16's range.
double splitError(const std::vector<float>& factor, int scale) {
  double err = 0;
  for (float w : factor) {
    const float v = std::ldexp(w, scale), hi = toHalf(v), lo = toHalf(v - hi);
    if (!std::isfinite(hi)) return std::numeric_limits<double>::infinity();
    err += std::fabs(double(v) - double(hi) - double(lo));
  }
  return std::ldexp(err, -scale);
}
}  // namespace

namespace {
// What tensorstream's 16-bit instances refuse before any bound (type "u16" or "f16"; `budget`: what
// the truncating sums alone could pass past maxRadius): gradient magnitudes, |sum| (pitch's factors,
// |sum| 2, would pass the budget anyway), masks that are not separable, r past maxRadius. Empty: none.
std::string sixteenBitRefusal(const Mask& mask, Combine combine, int maxRadius, const char* type, const char* budget) {
  if (combine == Combine::Magnitude) return "tensorstream runs gradient magnitudes on u8 frames only";
  if (combine == Combine::Abs) return "tensorstream runs |sum| masks (pitch) on u8 frames only";
  if (!mask.separable()) return "tensorstream runs masks that are not separable on u8 frames only";
  if (const int r = mask.radius(); r > maxRadius) {
    std::ostringstream s;
    s << "tensorstream takes " << type << " frames up to r = " << maxRadius
      << " (past it the tensor cores' truncating sums alone could pass " << budget << "); this mask is r = " << r;
    return s.str();
  }
  return "";
}
}  // namespace

HalfWeightsPlan planU16Separable(const Mask& mask, Combine combine, int maxRadius) {
  HalfWeightsPlan plan;
  plan.why = sixteenBitRefusal(mask, combine, maxRadius, "u16", "the 1 LSB budget");
  if (!plan.why.empty()) return plan;
  const int r = mask.radius();
  const int scale = tensorInputScale(largestWeight(mask.row()), largestWeight(mask.col()));
  if (scale < 0) {
    std::ostringstream s;
    s << "no input scale keeps both factors' largest weights (" << largestWeight(mask.row()) << " and "
      << largestWeight(mask.col()) << ") within fp16's range";
    plan.why = s.str();
    return plan;
  }
  constexpr double kLevels = 65535.0;
  const double rowAbs = absoluteSum(mask.row()), colAbs = absoluteSum(mask.col()), magnitude = rowAbs * colAbs;
  const double rowErr = splitError(mask.row(), scale), colErr = splitError(mask.col(), 24 - scale);
  const double weights = kLevels * (rowErr * colAbs + rowAbs * colErr + rowErr * colErr);
  const double intermediate = kLevels * magnitude * 2 * std::ldexp(1.0, -22) + colAbs * std::ldexp(1.0, -1 - scale);
  const double fp32 = kLevels * magnitude * 2 * std::ldexp(1.0, -24);
  const int chunks = productChunks(r);
  plan.accumulationBound =
      kLevels * magnitude * std::ldexp(1.0, -21) * (chunks * (1 + std::ldexp(1.0, -11) + 2.0 / 256) + 3 * chunks);
  plan.splitBound = weights + intermediate + fp32;
  plan.singleBound = plan.splitBound;
  plan.bound = plan.splitBound + plan.accumulationBound;
  if (!std::isfinite(plan.bound)) {
    plan.why = "a factor weight is beyond fp16's range (65504)";
  } else if (plan.bound <= kHalfErrorBudget) {
    plan.mode = HalfWeightsPlan::Mode::Split;
  } else {
    std::ostringstream s;
    s << "on u16 frames the output could be off by up to " << plan.bound << " (more than the 1 LSB budget, "
      << kHalfErrorBudget << "): the factors' absolute sums (" << magnitude
      << " together) are too large for the tensor cores' truncating adds";
    plan.why = s.str();
  }
  return plan;
}

namespace {
// What f16's and f32's plans share: the factors' absolute sums, the row factor's scale into fp16's
// range (f16IntermediateScale, the column's its inverse), the parts' rounding over max |x|
// (sum |row - parts| sum |col| + sum |row| sum |col - parts|) and the K chunks a row product takes.
struct HalfRangeFactors {
  double rowAbs, colAbs, magnitude, weights;
  int scale, chunks;
};
HalfRangeFactors halfRangeFactors(const Mask& mask) {
  HalfRangeFactors f;
  f.rowAbs = absoluteSum(mask.row());
  f.colAbs = absoluteSum(mask.col());
  f.magnitude = f.rowAbs * f.colAbs;
  f.scale = f16IntermediateScale(f.rowAbs);
  const double rowErr = splitError(mask.row(), f.scale), colErr = splitError(mask.col(), -f.scale);
  f.weights = rowErr * f.colAbs + f.rowAbs * colErr + rowErr * colErr;
  f.chunks = productChunks(mask.radius());
  return f;
}
}  // namespace

HalfWeightsPlan planF16Separable(const Mask& mask, Combine combine, int maxRadius) {
  HalfWeightsPlan plan;
  plan.why = sixteenBitRefusal(mask, combine, maxRadius, "f16", "the f32 bound");
  if (!plan.why.empty()) return plan;
  const HalfRangeFactors f = halfRangeFactors(mask);
  const double intermediate = f.magnitude * 2 * std::ldexp(1.0, -22);
  const double fp32 = f.magnitude * 2 * std::ldexp(1.0, -24);
  plan.accumulationBound = f.magnitude * std::ldexp(1.0, -21) * (f.chunks * (1 + std::ldexp(1.0, -11)) + 3 * f.chunks);
  plan.splitBound = f.weights + intermediate + fp32;
  plan.singleBound = plan.splitBound;
  plan.bound = plan.splitBound + plan.accumulationBound;
  plan.absoluteFloor = f.colAbs * std::ldexp(1.0, -25 - f.scale);
  const double contract = f32Bound(mask, 1.0);
  if (!std::isfinite(plan.bound)) {
    plan.why = "a factor weight, scaled for f16 frames' sums, is beyond fp16's range (65504)";
  } else if (plan.bound <= contract && plan.absoluteFloor <= std::ldexp(1.0, -24)) {
    plan.mode = HalfWeightsPlan::Mode::Split;
  } else {
    std::ostringstream s;
    s << "on f16 frames the output could be off by up to " << plan.bound << " x the largest |value|";
    if (plan.absoluteFloor > std::ldexp(1.0, -24)) s << " plus " << plan.absoluteFloor;
    s << " (the f32 bound is " << contract << " x it): the factors' absolute sums (" << f.rowAbs << " and " << f.colAbs
      << ") are too large for the tensor cores' truncating adds and fp16's intermediate";
    plan.why = s.str();
  }
  return plan;
}

HalfWeightsPlan planF32Separable(const Mask& mask, Combine combine, int maxRadius) {
  HalfWeightsPlan plan;
  plan.why = sixteenBitRefusal(mask, combine, maxRadius, "f32", "the f32 bound");
  if (!plan.why.empty()) return plan;
  const HalfRangeFactors f = halfRangeFactors(mask);
  // The values' split and the dropped low x low product, the intermediate's split and its dropped
  // low x low product (2^-22 each).
  const double split = f.magnitude * 4 * std::ldexp(1.0, -22);
  const double fp32 = f.magnitude * 2 * std::ldexp(1.0, -24);
  // The values' and the intermediate's low parts below fp16's normal range, over the step's largest
  // |value| scaled to at least 2^14.
  const double floors = f.magnitude * std::ldexp(1.0, -39) + f.colAbs * std::ldexp(1.0, -39 - f.scale);
  plan.accumulationBound =
      f.magnitude * std::ldexp(1.0, -21) * (f.chunks * (1 + 2 * std::ldexp(1.0, -11)) + 3 * f.chunks);
  plan.splitBound = f.weights + split + fp32 + floors;
  plan.singleBound = plan.splitBound;
  plan.bound = plan.splitBound + plan.accumulationBound;
  const double contract = f32Bound(mask, 1.0);
  if (!std::isfinite(plan.bound)) {
    plan.why = "a factor weight, scaled for the row sums, is beyond fp16's range (65504)";
  } else if (plan.bound <= contract) {
    plan.mode = HalfWeightsPlan::Mode::Split;
  } else {
    std::ostringstream s;
    s << "on f32 frames the output could be off by up to " << plan.bound << " x the largest |value| (the f32 bound is "
      << contract << " x it): the factors' absolute sums (" << f.rowAbs << " and " << f.colAbs
      << ") lie beyond what the tensor cores' truncating adds and fp16's parts hold";
    plan.why = s.str();
  }
  return plan;
}

namespace {
// Whether every row sum of bytes with these fp16 weights is a value fp16 holds exactly
// (planHalfTerms): each weight is an integer times 2^e, e the least exponent of the weights' last
// significant bits, so a sum is an integer times 2^e of at most 255 x sum |w| / 2^e, which within
// 2^11 has 11 significant bits or fewer. Sharpen's 2 delta, the laplacian's (1, -2, 1), sobel's
// (1, 2, 1) and (-1, 0, 1).
bool exactIntermediate(const std::vector<float>& row) {
  int lsb = std::numeric_limits<int>::max();
  double sum = 0.0;
  for (float w : row) {
    const double h = toHalf(w);
    if (h == 0.0 || !std::isfinite(h)) continue;
    int exponent = 0;
    std::frexp(h, &exponent);  // h = m 2^exponent, m in [0.5, 1): fp16's last bit is 2^(exponent - 11)
    int k = exponent - 11;
    while (std::ldexp(h, -(k + 1)) == std::floor(std::ldexp(h, -(k + 1)))) ++k;
    lsb = std::min(lsb, k);
    sum += std::fabs(h);
  }
  return lsb != std::numeric_limits<int>::max() && 255.0 * std::ldexp(sum, -lsb) <= 2048.0;
}
}  // namespace

namespace {
// A factor times n as the kernel takes it (float, before its fp16 rounding).
float timesN(float w, int n) { return static_cast<float>(double(n) * w); }
// The most the fp16 rounding of the factor times n moves the factor, over n (infinite past fp16's
// range); the sum so far once it passes `limit`.
double halfError(const std::vector<float>& factor, int n, double limit = std::numeric_limits<double>::infinity()) {
  double err = 0;
  for (float w : factor) {
    const float h = toHalf(timesN(w, n));
    if (!std::isfinite(h)) return std::numeric_limits<double>::infinity();
    err += std::fabs(double(w) - double(h) / n);
    if (err > limit) break;
  }
  return err;
}
// Whether fp16 holds a factor times n (over n) within 2^-20 of its absolute sum. A factor it cannot
// hold (the gaussian's, an SVD's) fails at its first weights, so halfTermsOf's search over n costs
// microseconds a mask.
bool nearlyExact(const std::vector<float>& factor, int n) {
  const double limit = std::ldexp(absoluteSum(factor), -20);
  return halfError(factor, n, limit) <= limit;
}
}  // namespace

HalfTerms halfTermsOf(const LowRank& lowRank) {
  HalfTerms h;
  h.terms = lowRank.terms;
  h.rowScaled.assign(lowRank.terms.size(), false);
  // Per term, whether fp16 holds its row and its column factor as they are.
  std::vector<std::pair<bool, bool>> asIs;
  bool exact = true;
  for (const SeparableTerm& t : lowRank.terms) {
    asIs.emplace_back(nearlyExact(t.row, 1), nearlyExact(t.col, 1));
    exact = exact && asIs.back().first && asIs.back().second;
  }
  if (exact) return h;
  for (int n = 2; n <= kMaxTermsDivisor; ++n) {
    std::vector<bool> rowScaled(h.terms.size());
    bool fits = true;
    for (std::size_t i = 0; fits && i < h.terms.size(); ++i) {
      const SeparableTerm& t = lowRank.terms[i];
      rowScaled[i] = asIs[i].second && nearlyExact(t.row, n);
      fits = rowScaled[i] || (asIs[i].first && nearlyExact(t.col, n));
    }
    if (!fits) continue;
    h.divisor = n;
    h.rowScaled = rowScaled;
    for (std::size_t i = 0; i < h.terms.size(); ++i)
      for (float& w : rowScaled[i] ? h.terms[i].row : h.terms[i].col) w = timesN(w, n);
    return h;
  }
  return h;
}

HalfWeightsPlan planHalfTerms(const LowRank& lowRank, int radius, Combine combine, bool centreAtStore, bool divisor) {
  HalfWeightsPlan plan;
  if (lowRank.terms.empty()) {
    plan.why = "the mask has no terms (all its weights are zero)";
    return plan;
  }
  // The centre-only term the kernel adds at the store, if any: not among the products.
  const int atStore = centreAtStore ? lowRank.centreOnlyTerm() : -1;
  // The factors as the kernel takes them: one of each term times n where fp16 holds that exactly.
  const HalfTerms kernelTerms =
      divisor ? halfTermsOf(lowRank) : HalfTerms{lowRank.terms, std::vector<bool>(lowRank.terms.size()), 1};
  const int n = kernelTerms.divisor;
  // Per term as planHalfSeparable bounds it (its own input scale); the terms' sums add.
  double single = 0, half = 0, magnitude = 0;
  for (int index = 0; index < lowRank.rank(); ++index) {
    if (index == atStore) continue;
    const SeparableTerm& t = lowRank.terms[index];
    const SeparableTerm& k = kernelTerms.terms[index];
    const bool rowScaled = kernelTerms.rowScaled[index];
    // Each factor's absolute sum and the most its fp16 rounding (of the n-scaled factor, over n)
    // moves it.
    const double rowAbs = absoluteSum(t.row), colAbs = absoluteSum(t.col);
    const double rowErr = halfError(t.row, rowScaled ? n : 1), colErr = halfError(t.col, rowScaled ? 1 : n);
    if (!std::isfinite(rowErr) || !std::isfinite(colErr)) {
      std::ostringstream s;
      s << "a term's factor weight (" << std::max(largestWeight(k.row), largestWeight(k.col))
        << ") is beyond fp16's range (65504)";
      plan.why = s.str();
      return plan;
    }
    // The kernel's sums are n times the output: the floor below fp16's normal range over n.
    const int scale = tensorInputScale(largestWeight(k.row), largestWeight(k.col));
    const double subnormalFloor = absoluteSum(k.col) * std::ldexp(1.0, scale < 0 ? -25 : -1 - scale) / n;
    const double weights = rowErr * colAbs + rowAbs * colErr;
    // A row factor of small dyadic weights (sharpen's 2 delta, the laplacian's (1, -2, 1), sobel's
    // factors) makes intermediates fp16 holds exactly: every row sum of bytes is at most 11
    // significant bits (exactIntermediate; the scale's power of two rounds nothing; below fp16's
    // normal range the floor above still counts), so neither one fp16 value nor two parts round it.
    const double intermediate = exactIntermediate(k.row) ? 0.0 : rowAbs * colAbs;
    single += 255.0 * (weights + intermediate * std::ldexp(1.0, -21)) + subnormalFloor;
    half += 255.0 * (weights + intermediate * std::ldexp(1.0, -11)) + subnormalFloor;
    magnitude += rowAbs * colAbs;
  }
  double c = 0;
  if (atStore >= 0) {  // c x byte added to the sums in fp32: c's rounding and the multiply-add's
    const SeparableTerm& t = lowRank.terms[atStore];
    c = std::fabs(double(t.row[t.row.size() / 2]) * t.col[t.col.size() / 2]);
    const double store = 255.0 * (magnitude + 2 * c) * std::ldexp(1.0, -24);
    single += store;
    half += store;
  }
  if (n > 1) {  // the sums times 1 / n: its rounding and the product's; the centre's weight times it
    const double store = 255.0 * (2 * magnitude + c) * std::ldexp(1.0, -24);
    single += store;
    half += store;
  }
  const double gain = combine == Combine::Magnitude ? std::sqrt(2.0) : 1.0;
  // The tensor cores' truncating fp32 sums: each term's row sums (chunks products, 2^-21 of 255 x
  // its sum |row| a product, scaled by its sum |col|), then every term's column products, two parts
  // each, into the same sums (2^-21 of 255 x the terms' magnitudes together a product).
  const int chunks = productChunks(radius), k = lowRank.rank() - (atStore >= 0 ? 1 : 0);
  plan.accumulationBound = 255.0 * magnitude * std::ldexp(1.0, -21) * chunks * (1 + 2 * k) * gain;
  plan.singleBound = plan.splitBound = lowRank.truncation * gain + single * gain;
  plan.halfIntermediateBound = lowRank.truncation * gain + half * gain + plan.accumulationBound;
  plan.halfIntermediate = plan.halfIntermediateBound <= kHalfErrorBudget;
  plan.sumsInByteRange = false;  // terms of both signs: the outputs are clamped
  plan.bound = plan.singleBound + plan.accumulationBound;
  if (plan.bound <= kHalfErrorBudget) {
    plan.mode = HalfWeightsPlan::Mode::Single;
  } else {
    std::ostringstream s;
    s << "its " << k << " separable terms could move the output by up to " << plan.bound
      << " levels (more than the 1 LSB budget, " << kHalfErrorBudget << ")";
    if (plan.accumulationBound >= plan.singleBound)
      s << ": the terms' absolute sums (" << magnitude
        << " together) are too large for the tensor cores' truncating adds";
    else
      s << " with fp16 factors";
    plan.why = s.str();
  }
  return plan;
}

HalfWeightsPlan planHalfMagnitude(const Mask& mask) {
  HalfWeightsPlan plan;
  if (!mask.separable()) {
    plan.why = "the mask is not separable (a gradient magnitude runs as the mask and its transpose, one term each)";
    return plan;
  }
  const SeparableTerm gx{mask.col(), mask.row()};
  const int r = mask.radius();
  // The magnitude kernels take the factors as they are (no divisor).
  const HalfWeightsPlan x = planHalfTerms(LowRank{{gx}}, r, Combine::Identity, false, false);
  const HalfWeightsPlan y = planHalfTerms(LowRank{{gx.transposed()}}, r, Combine::Identity, false, false);
  if (x.mode == HalfWeightsPlan::Mode::Refused && x.bound == 0.0) {
    plan.why = x.why;  // a weight beyond fp16's range
    return plan;
  }
  const double gain = std::sqrt(2.0);
  // sqrt(fma(gx, gx, gy gy)): gy^2 and the fma each rounded (2^-24 relative of the sum of squares,
  // half that after the root), and the root itself (2^-24): below 3 2^-24 of the largest magnitude,
  // sqrt(2) 255 sum |row| sum |col|.
  const double root = 3 * std::ldexp(1.0, -24) * gain * 255.0 * absoluteSum(mask.row()) * absoluteSum(mask.col());
  plan.singleBound = plan.splitBound = gain * std::max(x.singleBound, y.singleBound) + root;
  plan.accumulationBound = gain * std::max(x.accumulationBound, y.accumulationBound);
  plan.bound = gain * std::max(x.bound, y.bound) + root;
  plan.halfIntermediateBound = gain * std::max(x.halfIntermediateBound, y.halfIntermediateBound) + root;
  plan.halfIntermediate = plan.halfIntermediateBound <= kHalfErrorBudget;
  plan.sumsInByteRange = false;  // clamped at 255
  if (plan.bound <= kHalfErrorBudget) {
    plan.mode = HalfWeightsPlan::Mode::Single;
  } else {
    std::ostringstream s;
    s << "the gradient magnitude's two terms could move the output by up to " << plan.bound
      << " levels (more than the 1 LSB budget, " << kHalfErrorBudget << ")";
    plan.why = s.str();
  }
  return plan;
}

}  // namespace convlive
