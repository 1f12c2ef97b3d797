// The fp16 weight plan of the tensor-core variants: which masks run on single fp16 weights, which
// need high + low parts, which are refused, and the bounds each states.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "convlive/precision.hpp"
#include "convlive/reference.hpp"
#include "convlive/tensor_inputs.hpp"
#include "half_sums_emulation.hpp"
#include "kernels/launch.hpp"
#include "kernels/tensor_stream_typed.hpp"

using namespace convlive;

namespace {

Mask filled(int radius, float value) {
  const int n = 2 * radius + 1;
  return Mask(radius, std::vector<float>(n * n, value));
}

TEST(HalfWeights, GaussiansRunOnSingleFp16Weights) {
  for (int r : {1, 4, 8, 16, 32}) {
    const Filter f = makeFilter("gaussian", {.radius = r});
    const auto plan = planHalfWeights(f.mask, f.combine);
    EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Single) << "r=" << r;
    EXPECT_LE(plan.bound, kHalfErrorBudget) << "r=" << r;
    EXPECT_GT(plan.singleBound, 0.0) << "gaussian weights are not all exact in fp16";
    EXPECT_TRUE(plan.why.empty());
  }
}

TEST(HalfWeights, ExactWeightsHaveNoRoundingError) {
  const Filter sobel = makeFilter("sobel", {.radius = 1});  // small integers
  const auto plan = planHalfWeights(sobel.mask, sobel.combine);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Single);
  EXPECT_EQ(plan.singleBound, 0.0);
}

TEST(HalfWeights, CoarseWeightsAreSplitIntoHighAndLowParts) {
  // emboss r=5: w = (dx+dy)/5, up to 2 in size; one fp16 part leaves up to 3.9 levels of error.
  const Filter f = makeFilter("emboss", {.radius = 5});
  const auto plan = planHalfWeights(f.mask, f.combine);
  EXPECT_GT(plan.singleBound, kHalfErrorBudget);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Split);
  EXPECT_LE(plan.splitBound, 1e-2);
  EXPECT_EQ(plan.bound, plan.splitBound + 2 * plan.accumulationBound);  // two products a weight: twice the sums
  EXPECT_LE(plan.bound, kHalfErrorBudget);
}

TEST(HalfWeights, TheTensorCoresSumsCountPerMaskRowAndKChunk) {
  // r=1: 2 K chunks of 16 inputs a mask row; the rows' running sums of |w| are 0.3, 0.6 and 0.9;
  // each product may move a sum by 2^-21 of 255 times that.
  const auto plan = planHalfWeights(filled(1, 0.1f), Combine::Identity);
  const double w = double(0.1f);
  EXPECT_NEAR(plan.accumulationBound, 2 * 255 * (3 * w + 6 * w + 9 * w) * std::ldexp(1.0, -21), 1e-12);
  EXPECT_DOUBLE_EQ(plan.bound, plan.singleBound + plan.accumulationBound);
  // Gaussians (sum |w| = 1) keep almost all of the budget at every radius.
  for (int r : {1, 8, 32}) {
    const Filter f = makeFilter("gaussian", {.radius = r});
    EXPECT_LT(planHalfWeights(f.mask, f.combine).accumulationBound, 0.05) << "r=" << r;
  }
}

TEST(HalfWeights, WeightSumsTooLargeForTheTensorCoresSumsAreRefused) {
  // An emboss at r=25: |w| sums to 1769; its high + low parts are fine (about 0.01), its sums are not.
  const Filter f = makeFilter("emboss", {.radius = 25});
  const auto plan = planHalfWeights(f.mask, f.combine);
  EXPECT_LE(plan.splitBound, 0.05);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("truncating adds"), std::string::npos) << plan.why;
  EXPECT_NE(plan.why.find("1769"), std::string::npos) << plan.why;
}

TEST(HalfWeights, TheBoundIsTheWeightRoundingTimes255) {
  // 0.1 is 0.0999755859375 in fp16: 2.44140625e-5 off; nine of them, times 255.
  const auto plan = planHalfWeights(filled(1, 0.1f), Combine::Identity);
  const double perWeight = std::fabs(double(0.1f) - 0.0999755859375);
  EXPECT_NEAR(plan.singleBound, 9 * 255 * perWeight, 1e-9);
  // A gradient magnitude combines two such errors: sqrt(2) times as large.
  const auto magnitude = planHalfWeights(filled(1, 0.1f), Combine::Magnitude);
  EXPECT_NEAR(magnitude.singleBound, std::sqrt(2.0) * plan.singleBound, 1e-9);
}

TEST(HalfWeights, WeightsBeyondFp16RangeAreRefused) {
  const auto plan = planHalfWeights(filled(1, 1e5f), Combine::Identity);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("fp16's range"), std::string::npos) << plan.why;
}

TEST(HalfWeights, MasksWhoseBoundExceedsTheBudgetEvenSplitAreRefused) {
  // 10003.1259765625 (exact in fp32) is 10000 (the high part: fp16 steps by 8 there) + 3.1259765625,
  // which needs 12 significant bits; the fp16 low part keeps 11, so each weight is 2^-11 off; 289
  // of them, times 255: far over the budget.
  const auto plan = planHalfWeights(filled(8, 10003.1259765625f), Combine::Identity);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_GT(plan.splitBound, kHalfErrorBudget);
  EXPECT_NE(plan.why.find("even split into two fp16 parts"), std::string::npos) << plan.why;
}

TEST(HalfSeparable, GaussiansAndBoxesFitTheBudget) {
  for (const char* kind : {"gaussian", "box"})
    for (int r : {1, 4, 16, 32}) {
      const Filter f = makeFilter(kind, {.radius = r});
      const auto plan = planHalfSeparable(f.mask, f.combine);
      EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Single) << kind << " r=" << r << ": " << plan.why;
      EXPECT_LE(plan.bound, kHalfErrorBudget);
    }
}

// A mask of low rank, every term in one pass (tensorstream): one term is bounded as the separable
// plan bounds it; sharpen, emboss and the laplacian fit the budget to r = 32 with their builder's
// exact terms, the terms' bounds adding up.
TEST(HalfTerms, OneTermIsTheSeparablePlan) {
  for (int r : {1, 4, 9, 17, 32}) {
    const Filter f = makeFilter("gaussian", {.radius = r});
    ASSERT_TRUE(f.mask.lowRank() && f.mask.lowRank()->rank() == 1);
    const LowRank& lr = *f.mask.lowRank();
    const auto terms = planHalfTerms(lr, r, f.combine), sep = planHalfSeparable(f.mask, f.combine);
    EXPECT_EQ(terms.mode, HalfWeightsPlan::Mode::Single);
    // The same bound, plus the decomposition's truncation (its float factors' products against the
    // float weights: a few 1e-6 levels).
    EXPECT_LT(lr.truncation, 1e-4);
    EXPECT_NEAR(terms.bound, sep.bound + lr.truncation, 1e-12 + 1e-9 * sep.bound) << "r=" << r;
    EXPECT_NEAR(terms.halfIntermediateBound, sep.halfIntermediateBound + lr.truncation,
                1e-12 + 1e-9 * sep.halfIntermediateBound);
    EXPECT_EQ(terms.halfIntermediate, sep.halfIntermediate);
    EXPECT_FALSE(terms.sumsInByteRange);
  }
}

// The built-in masks of low rank take the tensor cores where the bound allows, every term a term of
// products: sharpen at every radius, the laplacian to r = 16, emboss at r = 2 and 4 (r = 3: 1/3 in
// fp16 factors; its weights' absolute sums grow as r^2: 307 at r = 8, too large for the truncating
// adds; tensor2d refuses it from r = 9 for the same reason; with its centre at the store, r = 8 fits:
// the next test).
TEST(HalfTerms, BuiltInMasksOfLowRankFitTheBudgetWhereTheirSumsAllow) {
  struct Case {
    const char* kind;
    std::vector<int> fit, refused;
  };
  // The builder's terms (lowRank()); the laplacian's two terms from r = 8 (lowRankForBytes, what
  // tensorstream runs) fit at r = 32 too: ACentreTermAddedAtTheStoreIsNoProductTerm.
  for (const Case& c : {Case{"sharpen", {2, 4, 8, 16, 32}, {}}, Case{"laplacian", {2, 4, 8, 16}, {32}},
                        Case{"emboss", {2, 3, 4}, {8, 16}}}) {
    for (int r : c.fit) {
      const Filter f = makeFilter(c.kind, {.radius = r});
      ASSERT_TRUE(f.mask.lowRank()) << c.kind << " r=" << r;
      const LowRank& lr = *f.mask.lowRank();
      EXPECT_LE(lr.rank(), 3) << c.kind << " r=" << r;
      const auto plan = planHalfTerms(lr, r, f.combine);
      EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Single) << c.kind << " r=" << r << ": " << plan.why;
      EXPECT_LE(plan.bound, kHalfErrorBudget) << c.kind << " r=" << r;
      EXPECT_GE(plan.bound, lr.truncation);
      // sharpen's 2 delta term makes an intermediate fp16 holds exactly: one fp16 value does.
      if (std::string(c.kind) == "sharpen") {
        EXPECT_TRUE(plan.halfIntermediate) << "r=" << r << " " << plan.halfIntermediateBound;
      }
      // More terms, more sums: the accumulation counts chunks x (1 + 2k) products.
      const int chunks = (16 + 2 * r + 15) / 16;
      double magnitude = 0;
      for (const SeparableTerm& t : lr.terms) {
        double row = 0, col = 0;
        for (float w : t.row) row += std::fabs(w);
        for (float w : t.col) col += std::fabs(w);
        magnitude += row * col;
      }
      EXPECT_NEAR(plan.accumulationBound, 255 * magnitude * std::ldexp(1.0, -21) * chunks * (1 + 2 * lr.rank()),
                  1e-9 * plan.accumulationBound);
    }
    for (int r : c.refused) {
      const Filter f = makeFilter(c.kind, {.radius = r});
      const auto plan = planHalfTerms(*f.mask.lowRank(), r, f.combine);
      EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused) << c.kind << " r=" << r;
      EXPECT_NE(plan.why.find("more than the 1 LSB budget"), std::string::npos) << plan.why;
    }
  }
}

// Where the RGBA8 kernel adds a centre-only term at the store (alpha kept, r <= 8 or two terms:
// kernels::tensorStreamCentreAtStore), that term is no product term: the accumulation counts the
// other k - 1 terms and their magnitudes, and the store's fp32 multiply-add adds its rounding.
// Emboss r = 8 (dx/8 exact in fp16) then fits: 0.52 of its 0.56 levels were the centre term's
// share of the truncating adds. The typed kernels run every term: their plan is the unfolded one.
TEST(HalfTerms, ACentreTermAddedAtTheStoreIsNoProductTerm) {
  EXPECT_TRUE(kernels::tensorStreamCentreAtStore(8, 3, false));
  EXPECT_FALSE(kernels::tensorStreamCentreAtStore(9, 3, false));  // past r = 8 only one term may be left
  EXPECT_TRUE(kernels::tensorStreamCentreAtStore(32, 2, false));
  EXPECT_FALSE(kernels::tensorStreamCentreAtStore(4, 3, true));  // alpha filtered: the input is not at hand
  EXPECT_FALSE(kernels::tensorStreamCentreAtStore(4, 1, false));

  const Filter emboss8 = makeFilter("emboss", {.radius = 8});
  const LowRank& lr = *emboss8.mask.lowRank();
  ASSERT_EQ(lr.rank(), 3);
  ASSERT_EQ(lr.centreOnlyTerm(), 2);
  const auto all = planHalfTerms(lr, 8, emboss8.combine), folded = planHalfTerms(lr, 8, emboss8.combine, true);
  EXPECT_EQ(all.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_EQ(folded.mode, HalfWeightsPlan::Mode::Single) << folded.why;
  EXPECT_LE(folded.bound, kHalfErrorBudget);
  // The two ramp terms alone: (17 x 9) twice, k = 2.
  const double magnitude = 2 * 17.0 * 9.0, chunks = 2;
  EXPECT_NEAR(folded.accumulationBound, 255 * magnitude * std::ldexp(1.0, -21) * chunks * (1 + 2 * 2),
              1e-9 * folded.accumulationBound);
  // The rest: the ramps' fp16 factors are exact, so only the intermediates' parts, the subnormal
  // floor and the centre's multiply-add (2^-24 of 255 x (306 + 2)) remain.
  EXPECT_NEAR(folded.bound, folded.singleBound + folded.accumulationBound, 1e-12);
  EXPECT_GE(folded.singleBound, 255 * (magnitude + 2) * std::ldexp(1.0, -24));
  EXPECT_LT(folded.singleBound, 0.05);
  EXPECT_NE(all.why.find("3 separable terms"), std::string::npos) << all.why;

  // The fold never loosens a plan, and changes nothing for a mask without a centre-only term.
  for (int r : {1, 2, 4, 8, 16, 32}) {
    for (const char* kind : {"sharpen", "emboss", "laplacian"}) {
      const Filter f = makeFilter(kind, {.radius = r});
      if (!f.mask.lowRank()) continue;  // the 3x3 emboss is of full rank
      const LowRank& terms = *f.mask.lowRank();
      const auto a = planHalfTerms(terms, r, f.combine), b = planHalfTerms(terms, r, f.combine, true);
      if (!terms.hasCentreOnlyTerm()) {
        EXPECT_EQ(a.bound, b.bound) << kind << " r=" << r;
        EXPECT_EQ(a.mode, b.mode) << kind << " r=" << r;
        continue;
      }
      EXPECT_LT(b.accumulationBound, a.accumulationBound) << kind << " r=" << r;
      EXPECT_LE(b.bound, a.bound) << kind << " r=" << r;
      if (a.mode == HalfWeightsPlan::Mode::Single) {
        EXPECT_EQ(b.mode, HalfWeightsPlan::Mode::Single) << kind << " r=" << r;
      }
    }
  }
  // The laplacian r = 32 as its two SVD terms (Mask::lowRankForBytes) fits where its three do not.
  const Filter laplacian32 = makeFilter("laplacian", {.radius = 32});
  EXPECT_EQ(planHalfTerms(*laplacian32.mask.lowRank(), 32, laplacian32.combine).mode, HalfWeightsPlan::Mode::Refused);
  const auto two = planHalfTerms(*laplacian32.mask.lowRankForBytes(), 32, laplacian32.combine);
  EXPECT_EQ(two.mode, HalfWeightsPlan::Mode::Single) << two.why;
  EXPECT_LT(two.bound, 0.05);
  // Emboss r = 16 keeps its centre as a term (three terms past r = 8), and even folded its sums
  // are too large: refused either way.
  const Filter emboss16 = makeFilter("emboss", {.radius = 16});
  EXPECT_EQ(planHalfTerms(*emboss16.mask.lowRank(), 16, emboss16.combine, true).mode, HalfWeightsPlan::Mode::Refused);
}

// Emboss's ramp j / r is not fp16's where r is not a power of two (1/3 rounds by 2^-13): written n
// times over (r's odd part: the integers j at r = 3, 5, 7, halves at r = 6, exact in fp16) with the
// kernel's sums times 1 / n, its factors
// round nothing, and r = 3, 5, 6, 7 fit; the plan adds the store's two roundings. Masks fp16 holds
// already, or that no n makes integers, keep their factors (divisor 1).
TEST(HalfTerms, FactorsFp16CannotHoldAreWrittenAsIntegersOverADivisor) {
  for (int r : {3, 5, 6, 7}) {
    const Filter f = makeFilter("emboss", {.radius = r});
    const LowRank& lr = *f.mask.lowRank();
    ASSERT_EQ(lr.rank(), 3);
    // Without the divisor the ramps' fp16 rounding alone would be over the budget.
    double ramp = 0;
    for (float w : lr.terms[0].row) ramp += std::fabs(double(w) - double(static_cast<_Float16>(w)));
    EXPECT_GT(2 * 255.0 * (2 * r + 1) * ramp, kHalfErrorBudget) << "r=" << r;

    // The smallest n: r without its factors of 2 (j / 6 times 3 is j / 2, which fp16 holds).
    const int n = r % 2 ? r : r / 2;
    const HalfTerms h = halfTermsOf(lr);
    EXPECT_EQ(h.divisor, n);
    ASSERT_EQ(h.terms.size(), 3u);
    ASSERT_EQ(h.rowScaled.size(), 3u);
    for (int t = 0; t < 2; ++t) {  // ones (x) ramp and ramp (x) ones: the ramp takes n, the ones stay
      const std::vector<float>& scaled = h.rowScaled[t] ? h.terms[t].row : h.terms[t].col;
      const std::vector<float>& kept = h.rowScaled[t] ? h.terms[t].col : h.terms[t].row;
      for (int j = -r; j <= r; ++j) {
        EXPECT_EQ(scaled[j + r], float(j * n) / float(r)) << "r=" << r << " term " << t;
        EXPECT_EQ(kept[j + r], 1.f) << "r=" << r << " term " << t;
      }
    }
    const SeparableTerm& centre = h.terms[2];
    EXPECT_EQ(double(centre.row[r]) * centre.col[r], double(n)) << "the centre term takes n too";

    const auto folded = planHalfTerms(lr, r, f.combine, true);
    EXPECT_EQ(folded.mode, HalfWeightsPlan::Mode::Single) << "r=" << r << ": " << folded.why;
    EXPECT_LE(folded.bound, kHalfErrorBudget) << "r=" << r;
    double magnitude = 0;  // the two ramp terms
    for (int t = 0; t < 2; ++t) magnitude += absoluteSum(lr.terms[t].row) * absoluteSum(lr.terms[t].col);
    // The store: the centre's multiply-add (2^-24 of 255 (magnitude + 2)) and the scale's two
    // roundings with the centre's weight (2^-24 of 255 (2 magnitude + 1)).
    EXPECT_GE(folded.singleBound, 255 * (3 * magnitude + 3) * std::ldexp(1.0, -24)) << "r=" << r;
    EXPECT_NEAR(folded.accumulationBound, 255 * magnitude * std::ldexp(1.0, -21) * 2 * (1 + 2 * 2),
                1e-9 * folded.accumulationBound)
        << "r=" << r << ": the sums' units are the output's, as without the divisor";
  }
  // The typed kernel runs the centre as a term too: r = 3 and 5 still fit.
  for (int r : {3, 5}) {
    const Filter f = makeFilter("emboss", {.radius = r});
    const auto all = planHalfTerms(*f.mask.lowRank(), r, f.combine);
    EXPECT_EQ(all.mode, HalfWeightsPlan::Mode::Single) << "r=" << r << ": " << all.why;
  }
  // fp16 holds these factors already, or no n up to kMaxTermsDivisor makes them integers.
  for (int r : {2, 4, 8, 16})
    EXPECT_EQ(halfTermsOf(*makeFilter("emboss", {.radius = r}).mask.lowRank()).divisor, 1) << "emboss r=" << r;
  for (const char* kind : {"sharpen", "laplacian"})
    for (int r : {2, 3, 8, 13}) {
      const Filter f = makeFilter(kind, {.radius = r});
      const HalfTerms h = halfTermsOf(*f.mask.lowRank());
      EXPECT_EQ(h.divisor, 1) << kind << " r=" << r;
      for (std::size_t t = 0; t < h.terms.size(); ++t) {
        EXPECT_EQ(h.terms[t].row, f.mask.lowRank()->terms[t].row);
        EXPECT_EQ(h.terms[t].col, f.mask.lowRank()->terms[t].col);
      }
    }
}

TEST(HalfTerms, TermsTooLargeForTheTensorCoresAreRefusedWithTheReason) {
  // Two terms whose factors' absolute sums multiply to about 2^14: the truncating adds alone pass the budget.
  const int r = 8, n = 2 * r + 1;
  LowRank lr;
  for (int t = 0; t < 2; ++t) {
    SeparableTerm term{std::vector<float>(n, 0.f), std::vector<float>(n, 0.f)};
    for (int i = 0; i < n; ++i) term.col[i] = term.row[i] = (i % 2 ? 8.f : -8.f) * (t ? 1.f : 0.5f);
    lr.terms.push_back(term);
  }
  const auto plan = planHalfTerms(lr, r, Combine::Identity);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("truncating adds"), std::string::npos) << plan.why;
  EXPECT_NE(plan.why.find("2 separable terms"), std::string::npos) << plan.why;
  EXPECT_EQ(planHalfTerms(LowRank{}, r, Combine::Identity).mode, HalfWeightsPlan::Mode::Refused);
}

// A gradient magnitude (tensorstream): gx and gy each bounded as a mask of that one term, the
// magnitude within sqrt(2) times the larger plus its root's rounding. Sobel at every radius
// tensorstream takes and scharr fit (their weights are small integers or binomials, exact in fp16
// to r = 6: the bound is the sums' and the root's alone); a mask that is not separable and one whose
// sums are too large are refused with the reason.
TEST(HalfMagnitude, SobelAndScharrFitAndTheBoundIsTheLargerTermsTimesSqrt2) {
  for (const auto& [kind, radii] : {std::pair<const char*, std::vector<int>>{"sobel", {1, 2, 3, 5, 8, 9, 16}},
                                    std::pair<const char*, std::vector<int>>{"scharr", {1}}})
    for (int r : radii) {
      const Filter f = makeFilter(kind, {.radius = r});
      ASSERT_EQ(f.combine, Combine::Magnitude);
      const auto plan = planHalfMagnitude(f.mask);
      EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Single) << kind << " r=" << r << ": " << plan.why;
      EXPECT_LE(plan.bound, kHalfErrorBudget);
      const SeparableTerm gx{f.mask.col(), f.mask.row()};
      // As the magnitude kernels take them: the factors as they are, no divisor (sobel r = 3's
      // smoothing factor is of thirds: with a divisor its bound would be 0.007, not its 0.23).
      const auto x = planHalfTerms(LowRank{{gx}}, r, Combine::Identity, false, false);
      const auto y = planHalfTerms(LowRank{{gx.transposed()}}, r, Combine::Identity, false, false);
      const double largest = 255 * absoluteSum(f.mask.row()) * absoluteSum(f.mask.col()) * std::sqrt(2.0);
      EXPECT_NEAR(plan.bound, std::sqrt(2.0) * std::max(x.bound, y.bound) + 3 * std::ldexp(1.0, -24) * largest,
                  1e-12 * largest)
          << kind << " r=" << r;
      EXPECT_GT(plan.bound, std::sqrt(2.0) * std::max(x.bound, y.bound));
      EXPECT_FALSE(plan.sumsInByteRange);
    }
  // Small dyadic row factors make intermediates fp16 holds exactly (every row sum of bytes within
  // 11 significant bits): sobel's (1, 2, 1) and (-1, 0, 1) take one fp16 intermediate; scharr's
  // (3, 10, 3) sums to 16, 255 x 16 past 2^11, and so do sobel's r = 2 binomials (1 4 6 4 1) / 4.
  EXPECT_TRUE(planHalfMagnitude(makeFilter("sobel", {.radius = 1}).mask).halfIntermediate);
  EXPECT_FALSE(planHalfMagnitude(makeFilter("scharr", {.radius = 1}).mask).halfIntermediate);
  EXPECT_FALSE(planHalfMagnitude(makeFilter("sobel", {.radius = 2}).mask).halfIntermediate);
  // The 4-neighbour laplacian, (1, -2, 1) and delta: one fp16 intermediate, its bound the weights'
  // and the sums' alone.
  const Filter four = makeFilter("laplacian", {.radius = 1});
  const auto fourPlan = planHalfTerms(*four.mask.lowRank(), 1, four.combine);
  EXPECT_TRUE(fourPlan.halfIntermediate);
  EXPECT_NEAR(fourPlan.halfIntermediateBound, fourPlan.bound, 1e-3);
  const auto custom = planHalfMagnitude(makeFilter("emboss", {.radius = 2}).mask);
  EXPECT_EQ(custom.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(custom.why.find("not separable"), std::string::npos) << custom.why;
  // Factors of alternating +-16 at r = 8: 255 x 272^2 in each sum, too large for the truncating adds.
  std::vector<float> big(17);
  for (int i = 0; i < 17; ++i) big[i] = i % 2 ? 16.f : -16.f;
  const auto refused = planHalfMagnitude(Mask::fromFactors(big, big));
  EXPECT_EQ(refused.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(refused.why.find("gradient magnitude's two terms could move the output"), std::string::npos) << refused.why;
  // A Prewitt-like mask, (1, 1, 1) / 3 and (-1, 0, 1): the magnitude kernels take its factors as
  // they are (no divisor, unlike a mask of low rank's terms), so 1/3's fp16 rounding is counted.
  const Mask prewitt = Mask::fromFactors({1 / 3.f, 1 / 3.f, 1 / 3.f}, {-1.f, 0.f, 1.f});
  ASSERT_TRUE(prewitt.separable());
  double third = 0;  // the smoothing factor's fp16 rounding, whichever factor the mask keeps it in
  for (const std::vector<float>* f : {&prewitt.col(), &prewitt.row()})
    for (float w : *f) third += std::fabs(double(w) - double(static_cast<_Float16>(w)));
  ASSERT_GT(third, 0.0);
  EXPECT_GE(planHalfMagnitude(prewitt).singleBound, 255 * third) << "the fp16 rounding of 1/3 is not counted";
}

TEST(HalfSeparable, TheBoundComposesBothPasses) {
  // The mask keeps its own factors (scaled so that the row peaks at 1): the bound is computed from
  // those, as the kernel uses them.
  const Mask m = Mask::fromFactors({0.1f, 0.2f, 0.1f}, {0.3f, 0.1f, 0.3f});
  double rowAbs = 0, rowErr = 0, colAbs = 0, colErr = 0;
  for (float w : m.row()) rowAbs += std::fabs(w), rowErr += std::fabs(double(w) - double(static_cast<_Float16>(w)));
  for (float w : m.col()) colAbs += std::fabs(w), colErr += std::fabs(double(w) - double(static_cast<_Float16>(w)));
  ASSERT_GT(rowErr + colErr, 0.0) << "the test wants factors that fp16 rounds";
  const auto plan = planHalfSeparable(m, Combine::Identity);
  // The tensor cores' sums: r=1, 2 K chunks for the row sums and 2 for each of the intermediate's
  // two parts, each product off by up to 2^-21 of 255 * sum|row| * sum|col|.
  const double sums = 255 * rowAbs * colAbs * std::ldexp(1.0, -21) * 3 * 2;
  // Below fp16's normal range tensorstream's intermediate (2^(S - 24) times the row sums, its
  // inputs scaled by S = 14 here: convlive/tensor_inputs.hpp) rounds by up to 2^(-1 - S) of a level.
  ASSERT_EQ(tensorInputScale(largestWeight(m.row()), largestWeight(m.col())), 14);
  const double floor = colAbs * std::ldexp(1.0, -15);
  EXPECT_NEAR(plan.accumulationBound, sums, 1e-12);
  EXPECT_NEAR(plan.bound,
              255 * (rowErr * colAbs + rowAbs * colErr + rowAbs * colAbs * std::ldexp(1.0, -21)) + floor + sums, 1e-12);
  EXPECT_NEAR(plan.halfIntermediateBound,
              255 * (rowErr * colAbs + rowAbs * colErr + rowAbs * colAbs * std::ldexp(1.0, -11)) + floor + sums, 1e-12);
}

// Factors whose absolute sums multiply to a few hundred: the weights are exact in fp16, but at a
// large radius the tensor cores' truncating sums could pass the budget, and the plan says so.
TEST(HalfSeparable, FactorSumsTooLargeForTheTensorCoresSumsAreRefused) {
  std::vector<float> f(65, -0.25f);  // r=32: |factor| sums to 18; 18 x 18 = 324
  f[32] = 2.f;
  const auto plan = planHalfSeparable(Mask::fromFactors(f, f), Combine::Identity);
  // The intermediate's parts, and tensorstream's floor below fp16's normal range (S = 14 here): the
  // column's |weights| sum to 36 (the mask scales its row factor to peak at 1, the column by 4).
  EXPECT_DOUBLE_EQ(plan.singleBound, 255 * 324 * std::ldexp(1.0, -21) + 36 * std::ldexp(1.0, -15));
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("truncating adds"), std::string::npos) << plan.why;
  std::vector<float> small(17, -0.25f);  // r=8: 6 x 6 = 36
  small[8] = 2.f;
  EXPECT_EQ(planHalfSeparable(Mask::fromFactors(small, small), Combine::Identity).mode, HalfWeightsPlan::Mode::Single);
}

// A single fp16 intermediate costs 255 * 2^-11 = 0.125 for a normalised blur: gaussian and box
// take it; a sharpen whose factors sum |w| to 3 each (255 * 9 * 2^-11 = 1.1) needs both parts.
TEST(HalfSeparable, AHalfIntermediateWhereTheBoundAllows) {
  for (int r : {1, 2, 4, 8}) {
    const Filter g = makeFilter("gaussian", {.radius = r});
    const auto plan = planHalfSeparable(g.mask, g.combine);
    EXPECT_TRUE(plan.halfIntermediate) << "r=" << r << " bound " << plan.halfIntermediateBound;
    EXPECT_LE(plan.halfIntermediateBound, kHalfErrorBudget);
  }
  std::vector<float> f(5, -0.5f);
  f[2] = 2.f;
  const auto sharp = planHalfSeparable(Mask::fromFactors(f, f), Combine::Identity);
  EXPECT_EQ(sharp.mode, HalfWeightsPlan::Mode::Single);
  EXPECT_FALSE(sharp.halfIntermediate) << sharp.halfIntermediateBound;
  EXPECT_GT(sharp.halfIntermediateBound, kHalfErrorBudget);
}

// Sums that cannot leave the byte range need no clamp: normalised blurs; not a mask with negative
// weights, nor non-negative factors summing past 1.
TEST(HalfSeparable, SumsInTheByteRangeOnlyForNormalisedNonNegativeFactors) {
  for (const char* kind : {"gaussian", "box"})
    for (int r : {1, 4, 16}) {
      const Filter f = makeFilter(kind, {.radius = r});
      EXPECT_TRUE(planHalfSeparable(f.mask, f.combine).sumsInByteRange) << kind << " r=" << r;
    }
  std::vector<float> f(5, -0.25f);
  f[2] = 2.f;
  EXPECT_FALSE(planHalfSeparable(Mask::fromFactors(f, f), Combine::Identity).sumsInByteRange);
  const Mask bright = Mask::fromFactors({0.5f, 0.5f, 0.5f}, {1.f / 3, 1.f / 3, 1.f / 3});
  EXPECT_FALSE(planHalfSeparable(bright, Combine::Identity).sumsInByteRange);
}

TEST(HalfSeparable, RefusesWhatItCannotHold) {
  EXPECT_NE(planHalfSeparable(makeFilter("emboss", {.radius = 2}).mask, Combine::Identity).why.find("not separable"),
            std::string::npos);
  const Mask big = Mask::fromFactors({1e5f, 1.f, 1e5f}, {1.f, 1.f, 1.f});
  EXPECT_NE(planHalfSeparable(big, Combine::Identity).why.find("fp16's range"), std::string::npos);
  // Factors whose rounding moves outputs by more than the budget: 1000.3 rounds to 1000.5 in fp16.
  const Mask coarse = Mask::fromFactors({1000.3f, 1000.3f, 1000.3f}, {1.f, 1.f, 1.f});
  const auto plan = planHalfSeparable(coarse, Combine::Identity);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("with fp16 factors the output could be off"), std::string::npos) << plan.why;
}

// u16 grey frames on tensorstream: normalised blurs fit the 1 LSB budget of 65535 to r = 16 with the
// factors and the intermediate as fp16 high + low parts, where the tensor cores' truncating sums
// take most of it (4 products' worth a K chunk); past r = 16 and anything but a separable mask are
// refused with the reason.
TEST(U16Separable, GaussiansAndBoxesFitTheBudgetToRadius16) {
  for (const char* kind : {"gaussian", "box"})
    for (int r : {1, 2, 5, 8, 9, 12, 16}) {
      const Filter f = makeFilter(kind, {.radius = r});
      const auto plan = planU16Separable(f.mask, f.combine, 16);
      EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Split) << kind << " r=" << r << ": " << plan.why;
      EXPECT_LE(plan.bound, kHalfErrorBudget) << kind << " r=" << r;
      EXPECT_TRUE(plan.why.empty());
      // The truncating sums: a K chunk's high row products and three column products.
      const int chunks = (16 + 2 * r + 15) / 16;
      const double sums = absoluteSum(f.mask.row()) * absoluteSum(f.mask.col());
      EXPECT_NEAR(plan.accumulationBound, 65535 * sums * std::ldexp(1.0, -21) * 4 * chunks,
                  65535 * sums * std::ldexp(1.0, -21) * chunks * 0.01);
      EXPECT_LT(plan.splitBound, 0.1) << "the parts and the intermediate hold about 2^-21 of 65535";
      EXPECT_GT(plan.splitBound, 0.0);
    }
}

TEST(U16Separable, RefusesWhatItCannotHoldWithTheReason) {
  const Filter far = makeFilter("gaussian", {.radius = 17});
  auto plan = planU16Separable(far.mask, far.combine, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("up to r = 16"), std::string::npos) << plan.why;
  const Filter sharpen = makeFilter("sharpen", {.radius = 2});
  plan = planU16Separable(sharpen.mask, sharpen.combine, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("not separable"), std::string::npos) << plan.why;
  const Filter pitch = makeFilter("pitch", {.radius = 2});
  plan = planU16Separable(pitch.mask, pitch.combine, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("|sum|"), std::string::npos) << plan.why;
  const Filter sobel = makeFilter("sobel", {.radius = 1});
  plan = planU16Separable(sobel.mask, sobel.combine, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("gradient magnitudes"), std::string::npos) << plan.why;
  // Factors whose absolute sums multiply to 9: exact weights, but the truncating sums pass the budget.
  std::vector<float> f(17, -0.125f);  // r = 8: 16 x 0.125 + 1 = 3 a factor
  f[8] = 1.f;
  plan = planU16Separable(Mask::fromFactors(f, f), Combine::Identity, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("truncating adds"), std::string::npos) << plan.why;
  EXPECT_NEAR(plan.splitBound, 65535 * 9 * (2 * std::ldexp(1.0, -22) + 2 * std::ldexp(1.0, -24)),
              0.01);  // the weights are exact: only the intermediate's split and the fp32 roundings
  const Mask big = Mask::fromFactors({1e5f, 1.f, 1e5f}, {1.f, 1.f, 1.f});
  EXPECT_EQ(planU16Separable(big, Combine::Identity, 16).mode, HalfWeightsPlan::Mode::Refused);
}

// f16 grey frames on tensorstream: normalised blurs and the separable masks with negative weights
// the u16 plan takes fit f16's contract (the f32 bound, 1e-5 x sum |w| of the largest |value|) to
// r = 16, the truncating sums most of it (2 products' worth a K chunk less than u16's); the floor
// below fp16's normal range within an ulp of its least subnormal.
TEST(F16Separable, BlursFitTheF32BoundToRadius16) {
  for (const char* kind : {"gaussian", "box"})
    for (int r : {1, 2, 5, 8, 9, 12, 16}) {
      const Filter f = makeFilter(kind, {.radius = r});
      const auto plan = planF16Separable(f.mask, f.combine, 16);
      EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Split) << kind << " r=" << r << ": " << plan.why;
      EXPECT_LE(plan.bound, f32Bound(f.mask, 1.0)) << kind << " r=" << r;
      EXPECT_LE(plan.absoluteFloor, std::ldexp(1.0, -24)) << kind << " r=" << r;
      EXPECT_TRUE(plan.why.empty());
      const int chunks = (16 + 2 * r + 15) / 16;
      const double sums = absoluteSum(f.mask.row()) * absoluteSum(f.mask.col());
      EXPECT_NEAR(plan.accumulationBound, sums * std::ldexp(1.0, -21) * 4 * chunks,
                  sums * std::ldexp(1.0, -21) * chunks * 0.01);
      EXPECT_GT(plan.splitBound, 0.0);
      // The parts and the intermediate about 2^-21 (a box's low parts of 1/33 are fp16 subnormals: 2^-19).
      EXPECT_LT(plan.splitBound, sums * std::ldexp(1.0, -18)) << kind << " r=" << r;
    }
}

TEST(F16Separable, ScalesTheRowSumsIntoFp16sRangeAndRefusesWhatItCannotHold) {
  // The row factor's absolute sum scaled to at most 65519 / 65504: the intermediate never rounds to Inf.
  EXPECT_EQ(f16IntermediateScale(1.0), 0);
  EXPECT_EQ(f16IntermediateScale(1.0000001), 0);
  EXPECT_EQ(f16IntermediateScale(2.0), -1);
  EXPECT_EQ(f16IntermediateScale(3.0), -2);
  EXPECT_EQ(f16IntermediateScale(0.3), 1);
  for (double a : {0.01, 0.3, 0.99, 1.0, 1.5, 2.0, 7.0, 300.0}) {
    const double scaled = a * std::ldexp(1.0, f16IntermediateScale(a));
    EXPECT_LE(scaled * 65504.0, 65519.0) << a;
    EXPECT_GT(scaled * 65504.0 * 2, 65519.0) << a << ": the largest such scale";
  }
  // A derivative factor (absolute sum 2) scaled by 1/2, the column's weights by 2: within the bound.
  const Mask derivative = Mask::fromFactors({-1.f, 0.f, 1.f}, {0.25f, 0.5f, 0.25f});
  auto plan = planF16Separable(derivative, Combine::Identity, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Split) << plan.why;
  EXPECT_LE(plan.absoluteFloor, std::ldexp(1.0, -24));
  const Filter far = makeFilter("gaussian", {.radius = 17});
  plan = planF16Separable(far.mask, far.combine, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("f16 frames up to r = 16"), std::string::npos) << plan.why;
  for (const auto& [kind, text] : {std::pair{"sharpen", "not separable"}, {"pitch", "|sum|"}, {"sobel", "gradient"}}) {
    const Filter f = makeFilter(kind, {.radius = 2});
    plan = planF16Separable(f.mask, f.combine, 16);
    EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused) << kind;
    EXPECT_NE(plan.why.find(text), std::string::npos) << plan.why;
  }
  // A column factor whose weights pass fp16's range once scaled: refused, not Inf.
  const Mask big = Mask::fromFactors({1.f, 1.f, 1.f}, {1e5f, 1.f, 1e5f});
  plan = planF16Separable(big, Combine::Identity, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("fp16's range"), std::string::npos) << plan.why;
  // Column weights too small for fp16's normal range once scaled (the row's sum small, scaled up):
  // the low parts are lost below 2^-24, and the plan says how far that moves an output.
  const Mask tiny = Mask::fromFactors({1e-6f, 1e-6f, 1e-6f}, {3e-4f, 7e-4f, 3e-4f});
  plan = planF16Separable(tiny, Combine::Identity, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused) << plan.bound;
  EXPECT_NE(plan.why.find("on f16 frames the output could be off by up to"), std::string::npos) << plan.why;
}

// f32 grey frames on tensorstream: f16's plan plus the values' split and a third row product; blurs
// and the derivative fit the f32 bound to r = 16 with room (the floors far below it), the same
// refusals as f16's, naming the type.
TEST(F32Separable, BlursFitTheF32BoundToRadius16AndTheRefusalsAreF16s) {
  for (const char* kind : {"gaussian", "box"})
    for (int r : {1, 2, 5, 8, 9, 12, 16}) {
      const Filter f = makeFilter(kind, {.radius = r});
      const auto plan = planF32Separable(f.mask, f.combine, 16);
      EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Split) << kind << " r=" << r << ": " << plan.why;
      EXPECT_LE(plan.bound, 0.9 * f32Bound(f.mask, 1.0)) << kind << " r=" << r;
      const auto f16 = planF16Separable(f.mask, f.combine, 16);
      const double sums = absoluteSum(f.mask.row()) * absoluteSum(f.mask.col());
      // The values' split and the dropped product: 2^-21 of the sums more than f16's (no floor apart).
      EXPECT_NEAR(plan.splitBound - f16.splitBound, sums * std::ldexp(1.0, -21), sums * std::ldexp(1.0, -30));
      EXPECT_GT(plan.accumulationBound, f16.accumulationBound);
      EXPECT_LT(plan.accumulationBound, f16.accumulationBound * 1.001);
    }
  const Mask derivative = Mask::fromFactors({-1.f, 0.f, 1.f}, {0.25f, 0.5f, 0.25f});
  EXPECT_EQ(planF32Separable(derivative, Combine::Identity, 16).mode, HalfWeightsPlan::Mode::Split);
  const Filter far = makeFilter("gaussian", {.radius = 17});
  auto plan = planF32Separable(far.mask, far.combine, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("f32 frames up to r = 16"), std::string::npos) << plan.why;
  for (const auto& [kind, text] : {std::pair{"sharpen", "not separable"}, {"pitch", "|sum|"}, {"sobel", "gradient"}}) {
    const Filter f = makeFilter(kind, {.radius = 2});
    plan = planF32Separable(f.mask, f.combine, 16);
    EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused) << kind;
    EXPECT_NE(plan.why.find(text), std::string::npos) << plan.why;
  }
  plan = planF32Separable(Mask::fromFactors({1.f, 1.f, 1.f}, {1e5f, 1.f, 1e5f}), Combine::Identity, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused);
  EXPECT_NE(plan.why.find("fp16's range"), std::string::npos) << plan.why;
  plan = planF32Separable(Mask::fromFactors({1e-6f, 1e-6f, 1e-6f}, {3e-4f, 7e-4f, 3e-4f}), Combine::Identity, 16);
  EXPECT_EQ(plan.mode, HalfWeightsPlan::Mode::Refused) << plan.bound;
  EXPECT_NE(plan.why.find("on f32 frames the output could be off by up to"), std::string::npos) << plan.why;
}

// The step scale at or below which an f32 grey warp makes its outputs again: every sum below 2^127
// above it, and an Inf or NaN input's scale (-114) always at or below it.
TEST(F32Separable, TheRerunScaleKeepsEverySumWithinF32sRange) {
  auto parts = [](float rowScale, float colScale) {
    kernels::MaskTerms m{};
    m.radius = 1;
    m.terms = 2;
    const float hi[3] = {0.25f, 0.5f, 0.25f}, lo[3] = {1e-4f, -2e-4f, 1e-4f};
    for (int i = 0; i < 3; ++i) {
      m.row[0][i] = rowScale * hi[i];
      m.row[1][i] = rowScale * lo[i];
      m.col[0][i] = colScale * hi[i];
      m.col[1][i] = colScale * lo[i];
    }
    return m;
  };
  for (const auto& [rowScale, colScale] :
       {std::pair{1.f, 1.f}, {1024.f, 1.f / 1024.f}, {3.f, 5.f}, {1e-20f, 1e-20f}, {1e18f, 1e18f}, {0.5f, 0.75f}}) {
    const kernels::MaskTerms m = parts(rowScale, colScale);
    const int p = kernels::f32RerunScale(m);
    double sums = 0.;
    {
      double row = 0., col = 0.;
      for (int t = 0; t < 2; ++t)
        for (int i = 0; i < 3; ++i) row += std::fabs(double(m.row[t][i])), col += std::fabs(double(m.col[t][i]));
      sums = row * col;
    }
    EXPECT_GE(p, kernels::kF32LeastScale) << rowScale << " x " << colScale;
    // The largest sum a step's values (below 2^15 once scaled) make at the least scale above p.
    EXPECT_LT(std::ldexp(sums, 15 - (p + 1)), std::ldexp(1.0, 127)) << rowScale << " x " << colScale;
    // And no lower than it needs to be but by one: at p itself a sum may pass 2^126 (or p is the least).
    EXPECT_TRUE(p == kernels::kF32LeastScale || std::ldexp(sums, 15 - p) >= std::ldexp(1.0, 126))
        << rowScale << " x " << colScale;
  }
  EXPECT_EQ(kernels::f32RerunScale(parts(1.f, 1.f)), -112);
}

// tensorstream's inputs: bytes as fp16 subnormals, the row factor scaled by 2^S and the column factor
// by 2^(24 - S), S = 14 where both fit fp16's range, else the nearest S that does; none when the
// largest weights' product passes about 256.
TEST(TensorInputs, TheScaleKeepsBothFactorsInFp16sRange) {
  EXPECT_EQ(tensorInputScale(1.0, 1.0), 14);
  EXPECT_EQ(tensorInputScale(3.99, 60.0), 14);
  EXPECT_EQ(tensorInputScale(5.0, 0.1), 13);      // 5 * 2^14 passes 65504
  EXPECT_EQ(tensorInputScale(1.0, 100.0), 15);    // 100 * 2^10 passes it
  EXPECT_EQ(tensorInputScale(1e-3, 200.0), 16);   // 200 * 2^(24 - s) < 65504 from s = 16
  EXPECT_EQ(tensorInputScale(1.0, 1000.3), -1);   // 2^s < 65504 and 1000.3 * 2^(24 - s) < 65504: no s
  EXPECT_EQ(tensorInputScale(20000.0, 1.0), -1);  // the row needs s <= 1, the column s >= 9
}

// stream's fp16 sums (planHalfSums), checked against an emulation of exactly the kernel's steps
// (half_sums_emulation.hpp; the gpu test StreamHalfSums.* holds the kernel to the same emulation,
// byte for byte), on random and extreme bytes.
struct HalfSumsCheck {
  double worst = 0;   // the largest |computed - exact|, in levels
  int offByMore = 0;  // bytes more than 1 from the exact sum's
};
HalfSumsCheck emulateHalfSums(const Mask& mask, Combine combine, const HalfSumsPlan& plan, int samples) {
  const std::vector<float>&row = mask.row(), &col = mask.col();
  const int taps = static_cast<int>(row.size());
  const testcases::HalfSumsWeights k(mask, plan);
  unsigned seed = 12345;
  HalfSumsCheck check;
  std::vector<int> v(taps * taps);
  for (int n = 0; n < samples; ++n) {
    for (int& b : v) {
      seed = seed * 1664525u + 1013904223u;
      b = n % 4 == 0 ? ((seed >> 16) & 1) * 255 : static_cast<int>(seed >> 24);  // a quarter all extremes
    }
    double exact = 0;
    for (int s = 0; s < taps; ++s) {
      double exactRow = 0;
      for (int t = 0; t < taps; ++t) exactRow += double(row[t]) * v[s * taps + t];
      exact += double(col[s]) * exactRow;
    }
    const double fin =
        testcases::halfSumsOutput(k, combine == Combine::Abs, [&](int s, int t) { return v[s * taps + t]; });
    if (combine == Combine::Abs) exact = std::fabs(exact);
    const double levels = 255 * fin, want = std::clamp(exact, 0.0, 255.0);
    check.worst = std::max(check.worst, std::fabs(levels - want));
    if (std::fabs(std::nearbyint(levels) - std::nearbyint(want)) > 1) ++check.offByMore;
  }
  return check;
}

TEST(HalfSums, GaussiansAndBoxesFitTheBudgetUpToStreamsRadius) {
  for (const char* kind : {"gaussian", "box"})
    for (int r = 1; r <= 4; ++r) {
      const Filter f = makeFilter(kind, {.radius = r});
      const HalfSumsPlan plan = planHalfSums(f.mask);
      EXPECT_TRUE(plan.fits) << kind << " r=" << r << ": " << plan.why;
      EXPECT_GT(plan.bound, 0.0) << kind << " r=" << r;
      EXPECT_LE(plan.bound, kHalfSumsBudget) << kind << " r=" << r;
      EXPECT_NEAR(plan.offset, 128.0 / 255, 0.002) << kind << " r=" << r << ": normalised factors, 128 * 1 * 1 / 255";
    }
}

TEST(HalfSums, TheBoundHoldsForTheKernelsSteps) {
  std::vector<std::pair<Mask, Combine>> masks{{Mask::fromFactors({0.5f}, {1.5f}), Combine::Identity}};  // r = 0
  for (int r = 1; r <= 4; ++r) {
    masks.push_back({makeFilter("gaussian", {.radius = r}).mask, Combine::Identity});
    masks.push_back({makeFilter("box", {.radius = r}).mask, Combine::Identity});
  }
  masks.push_back({sobelXMask(1), Combine::Abs});
  masks.push_back(
      {Mask::fromFactors({-0.25f, 0.1f, 1.3f, 0.1f, -0.25f}, {0.2f, 0.2f, 0.2f, 0.2f, 0.2f}), Combine::Identity});
  masks.push_back({Mask::fromFactors({0.3f, 0.3f, 0.3f}, {0.7f, 0.9f, 0.7f}), Combine::Identity});  // past 255
  int checked = 0;
  for (const auto& [mask, combine] : masks) {
    const HalfSumsPlan plan = planHalfSums(mask);
    ASSERT_TRUE(std::isfinite(plan.bound));
    const HalfSumsCheck check = emulateHalfSums(mask, combine, plan, 20000);
    EXPECT_LE(check.worst, plan.bound) << "r=" << mask.radius() << ": the bound does not hold";
    EXPECT_GT(check.worst, 0.0) << "r=" << mask.radius() << ": no rounding seen; the emulation checks nothing";
    if (plan.fits) {
      EXPECT_EQ(check.offByMore, 0) << "r=" << mask.radius() << " (bound " << plan.bound << ")";
    }
    ++checked;
  }
  EXPECT_EQ(checked, 12);
}

TEST(HalfSums, RefusesWhatItCannotHold) {
  EXPECT_NE(planHalfSums(makeFilter("emboss", {.radius = 2}).mask).why.find("not separable"), std::string::npos);
  const HalfSumsPlan big = planHalfSums(Mask::fromFactors({1e5f, 1.f, 1e5f}, {1.f, 1.f, 1.f}));
  EXPECT_FALSE(big.fits);
  EXPECT_NE(big.why.find("fp16's range"), std::string::npos) << big.why;
  // Large factors: the row sums reach thousands, where fp16's steps are several levels.
  const HalfSumsPlan coarse = planHalfSums(Mask::fromFactors({10.f, 10.f, 10.f}, {1.f, -1.f, 1.f}));
  EXPECT_FALSE(coarse.fits);
  EXPECT_GT(coarse.bound, kHalfSumsBudget);
  EXPECT_NE(coarse.why.find("with fp16 sums the output could be off by up to"), std::string::npos) << coarse.why;
}

}  // namespace
