// Masks, builders, parsing and border indexing.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "convlive/mask.hpp"
#include "convlive/variants.hpp"

using namespace convlive;

namespace {
std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(Border, IndexPerMode) {
  EXPECT_EQ(borderIndex(-1, 4, Border::Zero), -1);
  EXPECT_EQ(borderIndex(4, 4, Border::Zero), -1);
  EXPECT_EQ(borderIndex(-3, 4, Border::Clamp), 0);
  EXPECT_EQ(borderIndex(9, 4, Border::Clamp), 3);
  // reflect-101: ... 2 1 | 0 1 2 3 | 2 1 0 1 ...
  EXPECT_EQ(borderIndex(-1, 4, Border::Mirror), 1);
  EXPECT_EQ(borderIndex(-2, 4, Border::Mirror), 2);
  EXPECT_EQ(borderIndex(4, 4, Border::Mirror), 2);
  EXPECT_EQ(borderIndex(6, 4, Border::Mirror), 0);
  EXPECT_EQ(borderIndex(7, 4, Border::Mirror), 1);
  EXPECT_EQ(borderIndex(-40, 4, Border::Mirror), 2);  // period 6: -40 = -42 + 2
  EXPECT_EQ(borderIndex(5, 1, Border::Mirror), 0);
  EXPECT_EQ(borderIndex(-1, 4, Border::Wrap), 3);
  EXPECT_EQ(borderIndex(-9, 4, Border::Wrap), 3);
  EXPECT_EQ(borderIndex(4, 4, Border::Wrap), 0);
}

TEST(Rounding, NearestEvenAndSaturate) {
  EXPECT_EQ(saturateToByte(2.5f), 2);
  EXPECT_EQ(saturateToByte(3.5f), 4);
  EXPECT_EQ(saturateToByte(2.51f), 3);
  EXPECT_EQ(saturateToByte(-7.f), 0);
  EXPECT_EQ(saturateToByte(300.f), 255);
}

TEST(Mask, GaussianIsNormalisedSymmetricAndSeparable) {
  for (int r : {1, 2, 5, 32, 64}) {
    const Mask m = gaussianMask(r);
    EXPECT_NEAR(m.sum(), 1.f, 1e-4f) << r;
    EXPECT_TRUE(m.separable()) << r;
    EXPECT_FLOAT_EQ(m.at(-r, 0), m.at(r, 0));
    EXPECT_GT(m.at(0, 0), m.at(0, 1));
  }
  EXPECT_FLOAT_EQ(defaultGaussianSigma(1), 0.8f);
  EXPECT_FLOAT_EQ(defaultGaussianSigma(5), 2.0f);
  EXPECT_GT(gaussianMask(3, 10.f).at(3, 3), gaussianMask(3).at(3, 3));  // wider sigma, flatter
}

TEST(Mask, ClassicThreeByThreeKernels) {
  const Mask s = sobelXMask(1);
  const float sobel[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
  for (int i = 0; i < 9; ++i) EXPECT_FLOAT_EQ(s.weights()[i], sobel[i]) << i;
  EXPECT_TRUE(s.separable());
  const Mask sc = scharrXMask(1);
  EXPECT_FLOAT_EQ(sc.at(0, 1), 10.f);
  EXPECT_FLOAT_EQ(sc.at(-1, -1), -3.f);
  const Mask e = embossMask(1);
  const float emboss[9] = {-2, -1, 0, -1, 1, 1, 0, 1, 2};
  for (int i = 0; i < 9; ++i) EXPECT_FLOAT_EQ(e.weights()[i], emboss[i]) << i;
  EXPECT_FALSE(e.separable());
  const Mask l = laplacianMask(1);
  EXPECT_FLOAT_EQ(l.at(0, 0), -4.f);
  EXPECT_FLOAT_EQ(l.at(1, 1), 0.f);
}

TEST(Mask, LargerDerivativesKeepTheirScale) {
  for (int r : {2, 3, 8}) {
    const Mask s = sobelXMask(r);
    EXPECT_TRUE(s.separable());
    EXPECT_NEAR(s.sum(), 0.f, 1e-4f);
    double ramp = 0;  // response to f = x: 4 (smoothing sum) x 2 (derivative), as at r=1
    for (int dy = -r; dy <= r; ++dy)
      for (int dx = -r; dx <= r; ++dx) ramp += s.at(dy, dx) * dx;
    EXPECT_NEAR(ramp, 8.0, 1e-3) << r;
    const Mask l = laplacianMask(r);
    double quad = 0;
    for (int dy = -r; dy <= r; ++dy)
      for (int dx = -r; dx <= r; ++dx) quad += l.at(dy, dx) * dx * dx;
    EXPECT_NEAR(quad, 2.0, 1e-3) << r;
    EXPECT_NEAR(l.sum(), 0.f, 1e-4f) << r;
  }
  EXPECT_NE(errorOf([] { scharrXMask(2); }).find("radius 1 only"), std::string::npos);
}

TEST(Mask, SharpenIsTwiceDeltaMinusGaussian) {
  const Mask s = sharpenMask(2), g = gaussianMask(2);
  EXPECT_NEAR(s.sum(), 1.f, 1e-5f);
  EXPECT_FLOAT_EQ(s.at(0, 0), 2.f - g.at(0, 0));
  EXPECT_FLOAT_EQ(s.at(1, -2), -g.at(1, -2));
}

TEST(Mask, PitchInterpolatesEastAndWest) {
  const Mask m = pitchMask(3.4f, false);  // |2c - (e + w)| / 2: c - 0.3 I[x+-3] - 0.2 I[x+-4]
  ASSERT_EQ(m.radius(), 4);
  EXPECT_FLOAT_EQ(m.at(0, 0), 1.f);
  EXPECT_NEAR(m.at(0, 3), -0.3f, 1e-6f);
  EXPECT_NEAR(m.at(0, -3), -0.3f, 1e-6f);
  EXPECT_NEAR(m.at(0, 4), -0.2f, 1e-6f);
  EXPECT_FLOAT_EQ(m.at(1, 0), 0.f);
  EXPECT_NEAR(m.sum(), 0.f, 1e-6f);
  EXPECT_TRUE(m.separable());
  const Mask v = pitchMask(2.f, true);
  ASSERT_EQ(v.radius(), 2);
  EXPECT_FLOAT_EQ(v.at(2, 0), -0.5f);
  EXPECT_FLOAT_EQ(v.at(0, 2), 0.f);
  EXPECT_NE(errorOf([] { pitchMask(0.5f, false); }).find("out of range"), std::string::npos);
  EXPECT_NE(errorOf([] { pitchMask(NAN, false); }).find("out of range"), std::string::npos);
}

TEST(Mask, CustomParsingAndSeparabilityDetection) {
  const Mask m = parseCustomMask("1,2,1;2,4,2;1,2,1", false);
  EXPECT_EQ(m.radius(), 1);
  EXPECT_TRUE(m.separable());
  EXPECT_FLOAT_EQ(m.at(-1, -1), 1.f);
  EXPECT_NEAR(m.col()[0] * m.row()[2], 1.f, 1e-6f);
  EXPECT_NEAR(parseCustomMask("1 2 1; 2 4 2; 1 2 1", true).sum(), 1.f, 1e-6f);
  EXPECT_FALSE(parseCustomMask("1,0,0;0,1,0;0,0,1", false).separable());
  const Mask row = parseCustomMask("1,2,3", false);  // one row: horizontal
  EXPECT_EQ(row.radius(), 1);
  EXPECT_FLOAT_EQ(row.at(0, 1), 3.f);
  EXPECT_FLOAT_EQ(row.at(-1, 1), 0.f);
  const Mask col = parseCustomMask("1;2;3", false);  // one column: vertical
  EXPECT_FLOAT_EQ(col.at(1, 0), 3.f);
}

TEST(Mask, CustomErrorsNameTheProblem) {
  EXPECT_NE(errorOf([] { parseCustomMask("1,2;3", false); }).find("ragged"), std::string::npos);
  EXPECT_NE(errorOf([] { parseCustomMask("1,2;3,4", false); }).find("odd square"), std::string::npos);
  EXPECT_NE(errorOf([] { parseCustomMask("1,x,1", false); }).find("'x' is not a number"), std::string::npos);
  EXPECT_NE(errorOf([] { parseCustomMask("1,nan,1", false); }).find("finite"), std::string::npos);
  EXPECT_NE(errorOf([] { parseCustomMask("", false); }).find("empty"), std::string::npos);
  EXPECT_NE(errorOf([] { parseCustomMask("1,-2,1", true); }).find("sum to 0"), std::string::npos);
  EXPECT_NE(errorOf([] { Mask(1, {1, 2}); }).find("needs 9 weights"), std::string::npos);
  std::string row131;  // one row of 131: wider than the largest mask
  for (int i = 0; i < 131; ++i) row131 += i ? ",1" : "1";
  EXPECT_NE(errorOf([&] { parseCustomMask(row131, false); }).find("the largest mask is 129x129 (radius 64)"),
            std::string::npos);
}

TEST(Mask, GridAndFactorsFollowTheGridRules) {
  WeightGrid g{3, 3, {1, 2, 1, 2, 4, 2, 1, 2, 1}};
  EXPECT_EQ(maskFromGrid(g, true).weights(), parseCustomMask("1,2,1;2,4,2;1,2,1", true).weights());
  g = {2, 2, {1, 1, 1, 1}};
  EXPECT_NE(errorOf([&] {
              maskFromGrid(g, false, "the weights in 'm.txt'");
            }).find("the weights in 'm.txt' are 2x2: use an odd square"),
            std::string::npos);
  EXPECT_EQ(separableMask({1, 2, 1}, {1, 2, 1}, false).weights(),
            parseCustomMask("1,2,1;2,4,2;1,2,1", false).weights());
}

TEST(Filter, KindsAndBadArguments) {
  for (const auto& kind : filterKinds()) {
    FilterOptions o;
    o.weights = "1,2,1";
    o.pitch = 2.5f;
    EXPECT_NO_THROW(makeFilter(kind, o)) << kind;
  }
  FilterOptions o;
  EXPECT_EQ(makeFilter("sobel", o).combine, Combine::Magnitude);
  EXPECT_EQ(makeFilter("pitch", o).combine, Combine::Abs);
  EXPECT_EQ(makeFilter("gaussian", o).combine, Combine::Identity);
  EXPECT_NE(errorOf([] { makeFilter("blurry", {}); }).find("unknown mask 'blurry'"), std::string::npos);
  o.radius = 0;
  EXPECT_NE(errorOf([&] { makeFilter("box", o); }).find("box radius 0 is out of range"), std::string::npos);
  o.radius = 65;
  EXPECT_NE(errorOf([&] { makeFilter("gaussian", o); }).find("1..64"), std::string::npos);
  EXPECT_NE(errorOf([] { makeFilter("custom", {}); }).find("needs weights"), std::string::npos);
}

TEST(Variants, TableParsingHelpers) {
  EXPECT_EQ(Tile::parse("32x8"), (Tile{32, 8}));
  EXPECT_FALSE(Tile::parse("32"));
  EXPECT_FALSE(Tile::parse("0x8"));
  EXPECT_FALSE(Tile::parse("32x8x"));
  EXPECT_EQ(parseBorder("mirror"), Border::Mirror);
  EXPECT_EQ(parseBorder("replicate"), Border::Clamp);
  EXPECT_FALSE(parseBorder("reflect"));
  for (const Variant& v : variants()) {
    EXPECT_EQ(findVariant(v.name), &v);
    EXPECT_FALSE(v.description.empty());
    if (v.onGpu && v.name != "fft") {  // fft's planes are sized by cuFFT's rules, not a tile
      EXPECT_GE(v.tiles.size(), 3u) << v.name;
    }
    // Every variant but the register-window ones takes masks up to 65x65: stream (r <= 4) and
    // tensorstream (r <= 16) keep their column window in registers.
    EXPECT_GE(v.maxRadius, v.name == "stream" ? 4 : v.name == "tensorstream" ? 16 : 32) << v.name;
  }
  EXPECT_GE(findVariant("separable")->maxRadius, 64);
  EXPECT_GE(findVariant("fft")->maxRadius, 64);
  EXPECT_TRUE(findVariant("fft")->tiles.empty());
}

// The reasons a variant gives for parameters it cannot take. These checks come before the device
// check, so they hold on machines without a GPU too.
TEST(Variants, RejectWithTheReason) {
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = 33});
  EXPECT_NE(findVariant("constant")->whyNot(p, 64, 64).text().find("up to 32"), std::string::npos);
  EXPECT_NE(findVariant("constant")->whyNot(p, 64, 64).text().find("separable"), std::string::npos);
  p.filter = makeFilter("emboss", {.radius = 2});
  EXPECT_NE(findVariant("separable")->whyNot(p, 64, 64).text().find("not separable"), std::string::npos);
  EXPECT_NE(findVariant("fused")->whyNot(p, 64, 64).text().find("not separable"), std::string::npos);
  p.filter = makeFilter("sobel", {.radius = 1});
  EXPECT_NE(findVariant("fused")->whyNot(p, 64, 64).text().find("separable"), std::string::npos);
  p.filter = makeFilter("gaussian", {.radius = 2});
  p.tile = {7, 7};
  EXPECT_NE(findVariant("tiled")->whyNot(p, 64, 64).text().find("no tile 7x7"), std::string::npos);
  p.tile = {};
  EXPECT_NE(findVariant("naive")->whyNot(p, 0, 5).text().find("at least 1"), std::string::npos);
  EXPECT_EQ(findVariant("cpu")->whyNot(p, 5, 5).text(), "");
}

// Each variant refuses exactly the masks its table entry says it does not take (Variant::takes,
// what `list variants` prints), before anything else, and names a variant that takes them.
TEST(Variants, RefuseTheMasksTheirEntrySaysTheyDoNotTake) {
  FilterParams twoD, magnitude, plain;
  twoD.filter = makeFilter("emboss", {.radius = 2});      // one mask, not separable
  magnitude.filter = makeFilter("sobel", {.radius = 1});  // two separable masks
  plain.filter = makeFilter("gaussian", {.radius = 1});   // one separable mask
  ASSERT_FALSE(twoD.filter.mask.separable());
  ASSERT_EQ(magnitude.filter.combine, Combine::Magnitude);
  const auto takes = [](const std::string& name, const FilterParams& p) {
    const Variant& v = *findVariant(name);
    return (!needsSeparable(v.takes) || p.filter.mask.separable()) &&
           (!needsOneMask(v.takes) || p.filter.combine != Combine::Magnitude);
  };
  int refusals = 0;
  for (const Variant& v : variants())
    for (const auto& [p, refusal] :
         {std::pair{twoD, "not separable"}, std::pair{magnitude, "runs one mask"}, std::pair{plain, ""}}) {
      SCOPED_TRACE(v.name + " " + p.filter.name + " takes " + maskTakesName(v.takes));
      const Problem why = v.whyNot(p, 64, 64);
      if (takes(v.name, p)) {
        EXPECT_TRUE(why.empty() || why.code == Problem::Code::NoDevice) << why.text();
        continue;
      }
      ++refusals;
      EXPECT_EQ(why.code, Problem::Code::CannotRun) << why.text();
      EXPECT_NE(why.detail.find(refusal), std::string::npos) << why.text();
      ASSERT_EQ(why.fixSetting, "variant") << why.text();
      ASSERT_NE(findVariant(why.fixValue), nullptr) << why.text();
      EXPECT_TRUE(takes(why.fixValue, p)) << why.text();
    }
  EXPECT_EQ(refusals, 10);  // separable: emboss; fused, stream, tensorsep, tensorstream: both; tensor2d: sobel
}
