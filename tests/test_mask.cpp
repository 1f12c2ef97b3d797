// Masks, builders, parsing and border indexing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <thread>

#include "../app/bench/random_masks.hpp"
#include "convlive/mask.hpp"
#include "convlive/variants.hpp"
#include "kernels/stream_any_rank.hpp"

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
  EXPECT_NE(errorOf([] { parseCustomMask("1,3.41e38,1", false); }).find("finite"), std::string::npos);
  // f32's largest value is a weight, as in a weights file (whose numbers a Python Filter keeps as text)
  EXPECT_FLOAT_EQ(parseCustomMask("1,3.4028235e38,1", false).at(0, 0), std::numeric_limits<float>::max());
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
  // A 1x1 mask of zeros is not separable, and no path for masks of any rank takes it: the separable
  // variants refuse it, stream (masks of any rank from 3x3 to 5x5) too.
  p.filter = makeFilter("custom", {.weights = "0"});
  ASSERT_FALSE(p.filter.mask.separable());
  for (const char* name : {"stream", "separable", "fused", "tensorsep"})
    EXPECT_NE(findVariant(name)->whyNot(p, 64, 64).text().find("not separable"), std::string::npos) << name;
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
  FilterParams twoD, fullRank, magnitude, plain;
  twoD.filter = makeFilter("emboss", {.radius = 2});                           // one mask, not separable, of rank 3
  fullRank.filter = makeFilter("custom", {.weights = "1,2,3;4,-5,6;7,8,10"});  // of full rank
  magnitude.filter = makeFilter("sobel", {.radius = 1});                       // two separable masks
  plain.filter = makeFilter("gaussian", {.radius = 1});                        // one separable mask
  ASSERT_FALSE(twoD.filter.mask.separable());
  ASSERT_TRUE(twoD.filter.mask.lowRank() && twoD.filter.mask.lowRank()->rank() == 3);
  ASSERT_FALSE(fullRank.filter.mask.lowRank());
  ASSERT_EQ(magnitude.filter.combine, Combine::Magnitude);
  const auto takes = [](const std::string& name, const FilterParams& p) {
    const Variant& v = *findVariant(name);
    const Mask& m = p.filter.mask;
    const bool lowRank = m.separable() || (m.lowRank() && m.lowRank()->rank() <= 4);
    const bool magnitude = p.filter.combine == Combine::Magnitude;
    return (!needsSeparable(v.takes) || m.separable() || (m.radius() >= 1 && m.radius() <= v.anyRankRadius)) &&
           (v.takes != MaskTakes::LowRank || lowRank) &&
           (!needsOneMask(v.takes) || !magnitude || (m.separable() && m.radius() <= v.magnitudeRadius)) &&
           (v.takes != MaskTakes::LowRank || !magnitude || m.separable());
  };
  int refusals = 0;
  for (const Variant& v : variants())
    for (const auto& [p, refusal] : {std::pair{twoD, "not separable"}, std::pair{fullRank, "not separable"},
                                     std::pair{magnitude, "runs one mask"}, std::pair{plain, ""}}) {
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
  // emboss r=2: separable, fused, tensorsep (stream takes masks of any rank to 5x5); the full-rank 3x3
  // mask: separable, fused, tensorsep and tensorstream; sobel's magnitude: fused, tensorsep, tensor2d
  // (tensorstream runs it as two terms, stream as a 3x3 one).
  EXPECT_EQ(refusals, 10);
  // stream's masks of any rank run on its RGBA8 kernel: other frames are refused, naming sweep.
  const Problem grey = findVariant("stream")->whyNot(fullRank, ImageDesc{.width = 64, .height = 64, .channels = 1});
  EXPECT_EQ(grey.code, Problem::Code::CannotRun) << grey.text();
  EXPECT_NE(grey.detail.find("RGBA8 frames (one or a batch, rows and frames 4-byte aligned) written as RGBA8 only"),
            std::string::npos)
      << grey.text();
  EXPECT_EQ(grey.fixValue, "sweep");
  // So are its gradient magnitudes, and an RGBA8 batch of either whose frames are not 4-byte aligned.
  ImageDesc unaligned = ImageDesc::rgba8(64, 64);
  unaligned.batch = 3;
  unaligned.batchStride = unaligned.rowPitch() * 64 + 2;
  for (const ImageDesc& d : {ImageDesc{.width = 64, .height = 64, .channels = 1}, unaligned}) {
    const Problem why = findVariant("stream")->whyNot(magnitude, d);
    EXPECT_EQ(why.code, Problem::Code::CannotRun) << why.text();
    EXPECT_NE(why.detail.find("gradient magnitudes, on RGBA8 frames"), std::string::npos) << why.text();
    EXPECT_EQ(why.fixValue, "sweep");
    EXPECT_TRUE(findVariant("stream")->whyNot(fullRank, d)) << d.str();
  }
  // An RGBA8 batch of 4-byte aligned frames takes both, in one launch (here, without a device, only
  // that is refused).
  ImageDesc batch = ImageDesc::rgba8(64, 64);
  batch.batch = 3;
  for (const FilterParams& p : {magnitude, fullRank}) {
    const Problem why = findVariant("stream")->whyNot(p, batch);
    EXPECT_TRUE(why.code == Problem::Code::None || why.code == Problem::Code::NoDevice) << why.text();
  }
  // A gradient magnitude of a mask that is not separable: refused by stream, naming a 2D variant
  // (separable would refuse it too).
  FilterParams twoDMagnitude = fullRank;
  twoDMagnitude.filter.combine = Combine::Magnitude;
  const Problem notSeparable = findVariant("stream")->whyNot(twoDMagnitude, 64, 64);
  EXPECT_EQ(notSeparable.code, Problem::Code::CannotRun) << notSeparable.text();
  EXPECT_EQ(notSeparable.fixValue, "tiled-coop") << notSeparable.text();
  EXPECT_FALSE(findVariant("tiled-coop")->whyNot(twoDMagnitude, 64, 64).code == Problem::Code::CannotRun);
  EXPECT_EQ(findVariant("sweep")->takes, MaskTakes::Any) << "sweep takes the mask it is named for";
}

namespace {
// The gradient magnitude of the separable mask col (x) row.
FilterParams magnitude(std::vector<float> col, std::vector<float> row) {
  FilterParams p;
  p.filter.name = "magnitude";
  p.filter.mask = Mask::fromFactors(std::move(col), std::move(row));
  p.filter.combine = Combine::Magnitude;
  return p;
}
}  // namespace

// stream's gradient magnitudes sum each factor over the pairs of taps its symmetry joins: sobel and
// scharr at 3x3 and 5x5, and any factors one antisymmetric (centre 0) and one symmetric, in either
// order, their outer weights not 0, are taken (or refused for want of a device only); other
// separable factors are refused whatever the device, naming tensorstream, which takes them.
TEST(Variants, StreamTakesGradientMagnitudesOfOneAntisymmetricAndOneSymmetricFactor) {
  const Variant& stream = *findVariant("stream");
  const auto taken = [&](const FilterParams& p) {
    const Problem why = stream.whyNot(p, 64, 64);
    return why.empty() || why.code == Problem::Code::NoDevice;
  };
  for (const char* kind : {"sobel", "scharr"})
    for (int r : {1, 2}) {
      if (std::string(kind) == "scharr" && r == 2) continue;  // scharr is 3x3 only
      FilterParams p;
      p.filter = makeFilter(kind, {.radius = r});
      EXPECT_TRUE(taken(p)) << kind << " r=" << r << ": " << stream.whyNot(p, 64, 64).text();
    }
  EXPECT_TRUE(taken(magnitude({0.3f, 1.3f, 0.3f}, {0.7f, 0.f, -0.7f})));
  EXPECT_TRUE(taken(magnitude({-0.15f, -0.55f, 0.f, 0.55f, 0.15f}, {0.35f, 0.8f, 1.7f, 0.8f, 0.35f})));
  for (const FilterParams& p : {magnitude({0.25f, 0.5f, 0.25f}, {-1.f, 0.1f, 1.f}),   // a centre not 0
                                magnitude({0.2f, 0.5f, 0.3f}, {-1.f, 0.f, 1.f}),      // not symmetric
                                magnitude({0.25f, 0.5f, 0.25f}, {0.5f, 0.5f, 0.5f}),  // both symmetric
                                magnitude({0.f, 1.f, 0.f}, {-1.f, 0.f, 1.f}),         // an outer weight 0
                                magnitude({1.f, 2.f, 3.f, 2.f, 1.f}, {-1.f, -3.f, 0.f, 2.f, 1.f})}) {
    const Problem why = stream.whyNot(p, 64, 64);
    EXPECT_EQ(why.code, Problem::Code::CannotRun) << why.text();
    EXPECT_NE(why.detail.find("one antisymmetric (its centre 0) and one symmetric"), std::string::npos) << why.text();
    EXPECT_EQ(why.fixValue, "tensorstream") << why.text();
    const Problem ts = findVariant("tensorstream")->whyNot(p, 64, 64);
    EXPECT_TRUE(ts.empty() || ts.code == Problem::Code::NoDevice) << ts.text();
  }
}

// stream's 5x5 gradient magnitudes whose factors' ratios to their outer weights are integers (sobel
// 5x5, custom ones) take integer sums, so long as gx and gy fit 16 bits (255 x the ratios' absolute
// sums' product at most 128); the others (3x3 ones, ratios of 3/2 or sqrt 2, integers too large) fp32.
TEST(Variants, StreamSumsIntegerMagnitudesInIntegers) {
  const Variant& stream = *findVariant("stream");
  const auto kernelFor = [&](const FilterParams& p) {
    const LaunchDescription d = stream.describeLaunch(p, 64, 64);
    return d.passes.empty() ? std::string() : d.passes[0].kernel;
  };
  const auto integers = [](const FilterParams& p) {
    const Mask& m = p.filter.mask;
    return kernels::streamMagnitudeIntegerFactors(m.row().data(), m.col().data(), m.radius());
  };
  FilterParams sobel5;
  sobel5.filter = makeFilter("sobel", {.radius = 2});
  const std::vector<FilterParams> integer = {
      sobel5, magnitude({-0.5f, -1.5f, 0.f, 1.5f, 0.5f}, {0.2f, 0.4f, 0.6f, 0.4f, 0.2f}),  // 3 and 1; 3, 2 and 1: 4 x 9
      magnitude({1.f, 2.f, 3.f, 2.f, 1.f}, {1.f, 3.f, 0.f, -3.f, -1.f})};  // 3 and 1 (an outer weight below 0); 4 x 9
  for (const FilterParams& p : integer) {
    EXPECT_TRUE(integers(p)) << p.filter.name;
    EXPECT_NE(kernelFor(p).find("integer sums, 5x5 gradient magnitude>"), std::string::npos) << kernelFor(p);
  }
  std::vector<FilterParams> fp32 = {
      magnitude({0.3f, std::sqrt(2.f), 0.3f, std::sqrt(2.f), 0.3f}, {-1.f, -2.f, 0.f, 2.f, 1.f}),  // no integer ratio
      magnitude({1.f, 2.f, 3.f, 2.f, 1.f}, {-1.f, -1.5f, 0.f, 1.5f, 1.f}),                         // 3/2
      magnitude({1.f, 30.f, 60.f, 30.f, 1.f}, {-1.f, -2.f, 0.f, 2.f, 1.f}),                        // 3 x 122 > 128
      magnitude({-0.15f, -0.55f, 0.f, 0.55f, 0.15f}, {0.35f, 0.8f, 1.7f, 0.8f, 0.35f}),            // 14 x 80
      magnitude({0.3f, 1.3f, 0.3f}, {0.7f, 0.f, -0.7f})};                                          // 3x3
  for (const char* kind : {"sobel", "scharr"}) {
    FilterParams p;
    p.filter = makeFilter(kind, {.radius = 1});
    fp32.push_back(p);
  }
  for (const FilterParams& p : fp32) {
    EXPECT_FALSE(integers(p)) << p.filter.name;
    const std::string k = kernelFor(p);
    EXPECT_NE(k.find("fp32 sums, "), std::string::npos) << k;
    EXPECT_NE(k.find("gradient magnitude>"), std::string::npos) << k;
  }
}

// stream's 3x3 and 5x5 masks of any rank whose weights are integers over one divisor (emboss, over
// r; custom integer masks) sum in integers where 255 x their absolute sum fits 16 bits twice over;
// the others (a weight of sqrt 2, a sum too large) and the mirror-symmetric ones (their own
// instances) in fp32.
TEST(Variants, StreamSumsIntegerMasksInIntegers) {
  const Variant& stream = *findVariant("stream");
  const auto kernelFor = [&](const FilterParams& p) {
    const LaunchDescription d = stream.describeLaunch(p, 64, 64);
    return d.passes.empty() ? std::string() : d.passes[0].kernel;
  };
  const auto custom = [](const char* weights) {
    FilterParams p;
    p.filter = makeFilter("custom", {.weights = weights});
    return p;
  };
  const auto integers = [](const FilterParams& p) {
    return kernels::streamAnyRankIntegerWeights(p.filter.mask.weights().data(), p.filter.mask.radius());
  };
  std::vector<FilterParams> integer = {custom("1,-2,3;4,-5,6;-7,8,10"), custom("0.5,-1,0;0,0.25,0;0,0,0.75"),
                                       custom("1,-2,3,-1,2;4,-5,6,2,-3;-7,8,10,-4,1;2,3,-6,5,-2;-1,4,2,-3,7")};
  for (int r : {1, 2}) {
    FilterParams emboss;
    emboss.filter = makeFilter("emboss", {.radius = r});
    integer.push_back(emboss);
  }
  for (const FilterParams& p : integer) {
    EXPECT_TRUE(integers(p)) << p.filter.mask.radius();
    EXPECT_NE(kernelFor(p).find("integer sums, "), std::string::npos) << kernelFor(p);
  }
  FilterParams laplacian;
  laplacian.filter = makeFilter("laplacian", {.radius = 1});  // integers, but mirror-symmetric
  for (const FilterParams& p : {custom("1,-2,3;4,-5,6;-7,8,1.41421356"), custom("100,0,0;0,0,0;0,0,30"), laplacian}) {
    EXPECT_FALSE(integers(p));
    EXPECT_NE(kernelFor(p).find("fp32 sums, "), std::string::npos) << kernelFor(p);
  }
}

// stream's masks of any rank mirror-symmetric across both axes (the laplacian, sharpen, a disc) take
// the instance that sums pairs of pixels and makes one row sum for each pair of equal mask rows; the
// others (emboss, a mask one weight off symmetric) the general one.
TEST(Variants, StreamSumsMirrorSymmetricMasksOverPairs) {
  const Variant& stream = *findVariant("stream");
  const auto kernelFor = [&](const FilterParams& p) {
    const LaunchDescription d = stream.describeLaunch(p, 64, 64);
    return d.passes.empty() ? std::string() : d.passes[0].kernel;
  };
  for (int r : {1, 2}) {
    const std::string size = std::to_string(2 * r + 1) + "x" + std::to_string(2 * r + 1);
    for (const char* kind : {"laplacian", "sharpen"}) {
      FilterParams p;
      p.filter = makeFilter(kind, {.radius = r});
      EXPECT_NE(kernelFor(p).find(size + " mirror-symmetric mask"), std::string::npos) << kind << ": " << kernelFor(p);
    }
    FilterParams emboss;
    emboss.filter = makeFilter("emboss", {.radius = r});
    EXPECT_NE(kernelFor(emboss).find(size + " mask>"), std::string::npos) << kernelFor(emboss);
  }
  FilterParams nearly;
  nearly.filter = makeFilter("custom", {.weights = "1,2,1;2,-12,2;1,2,1.001"});
  EXPECT_NE(kernelFor(nearly).find("3x3 mask>"), std::string::npos) << kernelFor(nearly);
  nearly.filter = makeFilter("custom", {.weights = "1,2,1;2,-12,2;1,2,1"});
  EXPECT_NE(kernelFor(nearly).find("3x3 mirror-symmetric mask>"), std::string::npos) << kernelFor(nearly);
}

// ---- Low-rank decomposition (convlive/low_rank.hpp) ----
namespace {

// The weights the terms give, in double (the float factors' products are exact there).
std::vector<double> reconstruct(int n, const std::vector<SeparableTerm>& terms) {
  std::vector<double> w(std::size_t(n) * n, 0.0);
  for (const SeparableTerm& t : terms)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) w[std::size_t(i) * n + j] += double(t.col[i]) * double(t.row[j]);
  return w;
}

// Checks the decomposition against the mask it replaces: every factor 2r+1 long, the stated
// truncation what the residual gives (255 x its larger signed sum), within the budget, and no
// output of 0..255 inputs moved by more than it (the worst input: 255 where the residual is
// positive, 0 elsewhere; then random ones).
void expectReplaces(const Mask& m, const LowRank& lr, std::mt19937& rng) {
  const int n = m.size();
  for (const SeparableTerm& t : lr.terms) {
    ASSERT_EQ(t.col.size(), std::size_t(n));
    ASSERT_EQ(t.row.size(), std::size_t(n));
  }
  const std::vector<double> w = reconstruct(n, lr.terms);
  std::vector<double> residual(w.size());
  double pos = 0, neg = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    residual[i] = double(m.weights()[i]) - w[i];
    (residual[i] > 0 ? pos : neg) += std::fabs(residual[i]);
  }
  EXPECT_NEAR(lr.truncation, 255 * std::max(pos, neg), 1e-9 + 1e-6 * lr.truncation);
  EXPECT_LE(lr.truncation, kLowRankTruncationBudget);
  EXPECT_NEAR(truncationOf(n, m.weights(), lr.terms), lr.truncation, 1e-12);
  std::uniform_int_distribution<int> level(0, 255);
  for (int trial = 0; trial < 4; ++trial) {
    double moved = 0;
    for (std::size_t i = 0; i < residual.size(); ++i)
      moved += residual[i] * (trial == 0 ? (residual[i] > 0 ? 255 : 0) : level(rng));
    EXPECT_LE(std::fabs(moved), lr.truncation * (1 + 1e-9) + 1e-12) << "trial " << trial;
  }
}

using bench::randomRankMask;  // ../app/bench/random_masks.hpp

// The rank each built-in mask has (its builder's terms), or 0 where it is of full rank.
int builtInRank(const std::string& kind, int radius) {
  if (kind == "sharpen") return 2;
  if (kind == "emboss") return radius == 1 ? 0 : 3;  // 3x3: three terms are the full rank
  if (kind == "laplacian") return radius == 1 ? 2 : 3;
  return 1;  // box, gaussian, sobel, scharr, pitch: separable
}

}  // namespace

TEST(LowRank, EveryBuiltInMaskAsItsTerms) {
  std::mt19937 rng(38);
  std::vector<int> radii;
  for (int r = 1; r <= 16; ++r) radii.push_back(r);
  radii.push_back(32);
  radii.push_back(64);
  for (const std::string kind : {"box", "gaussian", "sharpen", "emboss", "laplacian", "sobel", "scharr", "pitch"})
    for (int r : radii) {
      if (kind == "scharr" && r > 1) continue;
      FilterOptions o;
      o.radius = r;
      o.pitch = static_cast<float>(r) - (r > 1 ? 0.5f : 0.f);
      const Mask m = makeFilter(kind, o).mask;
      SCOPED_TRACE(kind + " r=" + std::to_string(r));
      const auto& lr = m.lowRank();
      const int rank = builtInRank(kind, r);
      if (rank == 0) {
        EXPECT_FALSE(lr.has_value()) << describeRank(m);
        EXPECT_NE(describeRank(m).find("full rank"), std::string::npos) << describeRank(m);
        continue;
      }
      ASSERT_TRUE(lr.has_value()) << describeRank(m);
      EXPECT_EQ(lr->rank(), rank);
      // The builder's exact factors, not the SVD, but for the 5x5 laplacian: its factors' spans hold
      // the centre, so a centre tap peels off and the SVD gives the other two terms.
      const bool peeled = kind == "laplacian" && r == 2;
      EXPECT_EQ(lr->source, peeled ? LowRank::Source::Svd : LowRank::Source::Factors);
      if (peeled) {
        EXPECT_TRUE(std::any_of(lr->terms.begin(), lr->terms.end(), [](const SeparableTerm& t) {
          return t.col[2] != 0.f && t.col[0] == 0.f && t.col[1] == 0.f && t.col[3] == 0.f && t.col[4] == 0.f &&
                 t.row[2] == 1.f;
        }));
      }
      EXPECT_EQ(m.separable(), rank == 1);
      expectReplaces(m, *lr, rng);
      if (HasFatalFailure()) return;
      // The transposed mask keeps the terms, transposed.
      const Mask t = m.transposed();
      ASSERT_TRUE(t.lowRank().has_value());
      EXPECT_EQ(t.lowRank()->rank(), rank);
      expectReplaces(t, *t.lowRank(), rng);
    }
  // The centre taps (sharpen's 2 delta, emboss's 1) cost one tap each.
  const Mask sharpenR8 = sharpenMask(8);
  const auto& sharpen = sharpenR8.lowRank();  // valid while the mask (or a copy of it) lives
  ASSERT_TRUE(sharpen.has_value());
  EXPECT_EQ(sharpen->taps(), 17u + 17 + 1 + 1);
  EXPECT_EQ(embossMask(8).lowRank()->taps(), 4 * 17u + 2);
}

// A centre tap peels off where the centre lies in the span of both the column and the row factors:
// an unsharp mask given by its weights alone (2 delta - G) is one SVD term and the centre-only term
// 2 delta (x) delta (which tensorstream adds at the store); the 4-neighbour laplacian, whose centre
// is in both spans but whose rank no centre value lowers, and random masks, whose spans miss the
// centre, keep their terms.
TEST(LowRank, ACentreTapPeelsWhereTheFactorsSpanIt) {
  std::mt19937 rng(381);
  for (int r : {1, 3, 5, 8}) {
    const int n = 2 * r + 1;
    const Mask g = makeFilter("gaussian", {.radius = r}).mask;
    std::vector<float> w(g.weights().begin(), g.weights().end());
    for (float& v : w) v = -v;
    w[std::size_t(r) * n + r] += 2.f;
    const Mask unsharp(r, w);
    SCOPED_TRACE("r=" + std::to_string(r));
    ASSERT_TRUE(unsharp.lowRank().has_value());
    const LowRank& lr = *unsharp.lowRank();
    ASSERT_EQ(lr.rank(), 2);
    const SeparableTerm& centre = lr.terms.back();
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(centre.col[i] != 0.f, i == r);
      EXPECT_EQ(centre.row[i], i == r ? 1.f : 0.f);
    }
    EXPECT_NEAR(centre.col[r], 2.f, 1e-5);
    expectReplaces(unsharp, lr, rng);
    if (HasFatalFailure()) return;
  }
  const Mask fourNeighbour = laplacianMask(1);
  const auto& four = fourNeighbour.lowRank();
  ASSERT_TRUE(four.has_value());
  EXPECT_EQ(four->rank(), 2);
  EXPECT_EQ(four->source, LowRank::Source::Factors);
  for (int rank : {2, 3}) {
    const Mask m = randomRankMask(4, rank, rng);
    ASSERT_TRUE(m.lowRank().has_value());
    EXPECT_EQ(m.lowRank()->rank(), rank);
    EXPECT_FALSE(std::any_of(m.lowRank()->terms.begin(), m.lowRank()->terms.end(), [](const SeparableTerm& t) {
      return std::count(t.col.begin(), t.col.end(), 0.f) == long(t.col.size()) - 1;
    }));
  }
}

// Fewer terms from the terms' own SVD (its k x k core): the laplacian of Gaussian from r = 8 is two
// terms within the budget (its builder gives three: the mean is a box term), below r = 8 it stays
// three; emboss and sharpen are of their rank exactly. Four given terms, one of them negligible,
// become three. Mask::lowRankForBytes takes them; lowRank() keeps the builder's.
TEST(LowRank, FewerTermsFromTheTermsOwnSvd) {
  for (int r : {8, 9, 12, 16, 24, 32}) {
    const Filter f = makeFilter("laplacian", {.radius = r});
    const LowRank& all = *f.mask.lowRank();
    ASSERT_EQ(all.rank(), 3) << "r=" << r;
    const auto fewer = fewerTerms(f.mask.size(), f.mask.weights(), all);
    ASSERT_TRUE(fewer) << "r=" << r;
    EXPECT_EQ(fewer->rank(), 2) << "r=" << r;
    EXPECT_EQ(fewer->source, LowRank::Source::Svd);
    EXPECT_LE(fewer->truncation, kLowRankTruncationBudget) << "r=" << r;
    EXPECT_EQ(fewer->truncation, truncationOf(f.mask.size(), f.mask.weights(), fewer->terms));
    EXPECT_EQ(f.mask.lowRankForBytes()->rank(), 2) << "r=" << r;
    EXPECT_EQ(f.mask.lowRank()->rank(), 3) << "r=" << r << ": wider types keep the builder's terms";
    EXPECT_NE(describeRank(f.mask).find("; for 8-bit outputs 2 (their SVD) within"), std::string::npos)
        << describeRank(f.mask);
  }
  EXPECT_LT(fewerTerms(65, makeFilter("laplacian", {.radius = 32}).mask.weights(),
                       *makeFilter("laplacian", {.radius = 32}).mask.lowRank())
                ->truncation,
            0.01);
  for (int r : {2, 4, 7}) {
    const Filter f = makeFilter("laplacian", {.radius = r});
    EXPECT_FALSE(fewerTerms(f.mask.size(), f.mask.weights(), *f.mask.lowRank())) << "laplacian r=" << r;
    EXPECT_EQ(&*f.mask.lowRankForBytes(), &*f.mask.lowRank()) << "laplacian r=" << r;
  }
  for (const char* kind : {"emboss", "sharpen"})
    for (int r : {3, 8, 16}) {
      const Filter f = makeFilter(kind, {.radius = r});
      EXPECT_FALSE(fewerTerms(f.mask.size(), f.mask.weights(), *f.mask.lowRank())) << kind << " r=" << r;
    }
  // Three random terms and a fourth of 1e-7 their size, given as the builder's.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  const int r = 5, n = 2 * r + 1;
  std::vector<SeparableTerm> terms(4, SeparableTerm{std::vector<float>(n), std::vector<float>(n)});
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < n; ++i)
      terms[t].col[i] = d(rng) * (t == 3 ? 1e-7f : 0.1f), terms[t].row[i] = d(rng) * (t == 3 ? 1e-7f : 0.1f);
  std::vector<float> w(std::size_t(n) * n, 0.f);
  for (const SeparableTerm& t : terms)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) w[std::size_t(i) * n + j] += t.col[i] * t.row[j];
  const Mask m(r, w, terms);
  ASSERT_EQ(m.lowRank()->rank(), 4);
  EXPECT_EQ(m.lowRank()->source, LowRank::Source::Factors);
  ASSERT_TRUE(m.lowRankForBytes());
  EXPECT_EQ(m.lowRankForBytes()->rank(), 3);
  EXPECT_LE(m.lowRankForBytes()->truncation, kLowRankTruncationBudget);
}

TEST(LowRank, RandomMasksOfRankOneToSixFromTheSvd) {
  std::mt19937 rng(380);
  for (int rank = 1; rank <= 6; ++rank)
    for (int r : {3, 5, 8, 16}) {
      const Mask m = randomRankMask(r, rank, rng);
      SCOPED_TRACE("rank " + std::to_string(rank) + " r=" + std::to_string(r));
      const auto& lr = m.lowRank();
      ASSERT_TRUE(lr.has_value()) << describeRank(m);
      EXPECT_EQ(lr->rank(), rank);
      EXPECT_EQ(lr->source, rank == 1 ? LowRank::Source::Factors : LowRank::Source::Svd);
      expectReplaces(m, *lr, rng);
      if (HasFatalFailure()) return;
      EXPECT_NE(describeRank(m).find(rank == 1 ? "separable" : "rank " + std::to_string(rank)), std::string::npos)
          << describeRank(m);
    }
}

TEST(LowRank, FullRankMasksHaveNone) {
  std::mt19937 rng(3800);
  std::uniform_real_distribution<float> d(0.f, 1.f);
  for (int r : {1, 2, 4, 8, 16}) {
    const int n = 2 * r + 1;
    std::vector<float> w(std::size_t(n) * n);
    for (float& v : w) v = d(rng) / float(n);
    const Mask m(r, w);
    EXPECT_FALSE(m.lowRank().has_value()) << "r=" << r << ": rank " << m.lowRank()->rank();
    EXPECT_NE(describeRank(m).find("full rank"), std::string::npos) << describeRank(m);
  }
  // Rank 4 of a 5x5 mask: of low rank, though not worth running as terms.
  const Mask near = randomRankMask(2, 4, rng);
  ASSERT_TRUE(near.lowRank().has_value());
  EXPECT_EQ(near.lowRank()->rank(), 4);
}

TEST(LowRank, ZeroOneByOneAndWrongBuilderTerms) {
  std::mt19937 rng(38000);
  const Mask zero(3, std::vector<float>(49, 0.f));
  ASSERT_TRUE(zero.lowRank().has_value());
  EXPECT_EQ(zero.lowRank()->rank(), 0);
  EXPECT_EQ(zero.lowRank()->truncation, 0.0);
  const Mask one(0, {0.5f});
  ASSERT_TRUE(one.lowRank().has_value());
  EXPECT_EQ(one.lowRank()->rank(), 1);
  // Terms that do not give the weights are checked and not taken: the SVD finds the rank.
  const Mask s = sharpenMask(4);
  const SeparableTerm wrong{std::vector<float>(9, 1.f), std::vector<float>(9, 0.1f)};
  const Mask lying(4, s.weights(), {wrong});
  ASSERT_TRUE(lying.lowRank().has_value());
  EXPECT_EQ(lying.lowRank()->source, LowRank::Source::Svd);
  EXPECT_EQ(lying.lowRank()->rank(), 2);
  expectReplaces(lying, *lying.lowRank(), rng);
  // Terms of the wrong length are not taken either.
  const Mask shortTerms(4, s.weights(), {{{1.f}, {1.f}}});
  EXPECT_EQ(shortTerms.lowRank()->source, LowRank::Source::Svd);
}

TEST(LowRank, RoundingBoundOfOneTermIsTheSeparableBound) {
  const Mask g = gaussianMask(8);
  const LowRank& lr = *g.lowRank();
  const double u = std::ldexp(1.0, -24);
  const double gc = gammaBound(17, u), gr = gammaBound(17, u);
  EXPECT_NEAR(lr.rounding(u), (gc + gr * (1 + gc)) * 255 * absoluteSum(g.col()) * absoluteSum(g.row()), 1e-15);
  // k terms add the k - 1 additions' rounding.
  const LowRank two{{lr.terms[0], lr.terms[0]}, LowRank::Source::Factors, 0.0};
  EXPECT_GT(two.rounding(u), 2 * lr.rounding(u));
  EXPECT_EQ(gammaBound(0, u), 0.0);
  EXPECT_TRUE(std::isinf(gammaBound(std::size_t(1) << 24, u)));
}

TEST(LowRank, SvdIsOrthogonalAndReconstructs) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (int n : {1, 2, 9, 33}) {
    std::vector<double> a(std::size_t(n) * n);
    for (double& v : a) v = d(rng);
    const Svd s = singularValueDecomposition(n, a);
    ASSERT_EQ(s.sigma.size(), std::size_t(n));
    for (int t = 1; t < n; ++t) EXPECT_LE(s.sigma[t], s.sigma[t - 1]);
    for (int p = 0; p < n; ++p)
      for (int q = 0; q < n; ++q) {
        double uu = 0, vv = 0;
        for (int i = 0; i < n; ++i) {
          uu += s.u[std::size_t(p) * n + i] * s.u[std::size_t(q) * n + i];
          vv += s.v[std::size_t(p) * n + i] * s.v[std::size_t(q) * n + i];
        }
        EXPECT_NEAR(uu, p == q ? 1.0 : 0.0, 1e-12) << n << ": U " << p << "," << q;
        EXPECT_NEAR(vv, p == q ? 1.0 : 0.0, 1e-12) << n << ": V " << p << "," << q;
      }
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double x = 0;
        for (int t = 0; t < n; ++t) x += s.sigma[t] * s.u[std::size_t(t) * n + i] * s.v[std::size_t(t) * n + j];
        EXPECT_NEAR(x, a[std::size_t(i) * n + j], 1e-12) << n << ": " << i << "," << j;
      }
  }
}

TEST(LowRank, MadeOnceAndSharedByCopiesAcrossThreads) {
  std::mt19937 rng(3);
  const Mask m = randomRankMask(16, 3, rng);
  std::vector<const std::optional<LowRank>*> seen(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      const Mask copy = m;
      seen[i] = &copy.lowRank();
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(seen[i], &m.lowRank());
  EXPECT_EQ(m.lowRank()->rank(), 3);
}
