// convlive::Plan, the library's front door: what it refuses and why, what it falls back to, and that
// what it runs equals the CPU reference (within 1 LSB) on fresh random frames of odd sizes, batches
// and pitched rows included, with the outputs poisoned first. The device-memory path is in
// test_plan_gpu.cpp (label gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <tuple>

#include "convlive/cpu_simd.hpp"
#include "convlive/half.hpp"
#include "convlive/plan.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "filter_cases.hpp"
#include "image_compare.hpp"
#include "typed_frames.hpp"
#include "variants/common.hpp"

namespace convlive {
namespace {

using testcases::imagesMatch;

HostImage randomImage(int w, int h, std::mt19937& rng) {
  HostImage img(w, h);
  for (auto& b : img.pixels()) b = static_cast<std::uint8_t>(rng() >> 24);
  return img;
}

HostImage reference(const FilterParams& p, const HostImage& in) {
  HostImage want(in.width(), in.height());
  referenceFilter(p.filter, p.border, p.filterAlpha, in.view(), want.view());
  return want;
}

FilterSpec spec(const std::string& mask, int radius, const std::string& variant = "auto") {
  FilterSpec s;
  s.mask = mask;
  s.radius = radius;
  s.variant = variant;
  return s;
}

Problem refusal(const FilterSpec& s, const ImageDesc& d, const PlanOptions& o = {.memory = Memory::Host}) {
  Problem why;
  const Plan plan = Plan::make(s, d, o, why);
  EXPECT_FALSE(plan) << "made a plan that should have been refused";
  return why;
}

TEST(ImageDesc, DescribesItsLayout) {
  ImageDesc d = ImageDesc::rgba8(37, 23);
  EXPECT_EQ(d.rowBytes(), 148u);
  EXPECT_EQ(d.rowPitch(), 148u);
  EXPECT_EQ(d.frameStride(), 148u * 23);
  EXPECT_EQ(d.span(), 148u * 23);
  EXPECT_EQ(d.str(), "37x23 u8x4");
  d.pitch = 160;
  d.batch = 3;
  EXPECT_EQ(d.frameStride(), 160u * 23);
  EXPECT_EQ(d.span(), 160u * 23 * 2 + 160u * 22 + 148);
  EXPECT_EQ(d.str(), "37x23 u8x4 pitch 160 batch 3");
  ImageDesc grey{.width = 5, .height = 4, .type = PixelType::F32, .channels = 1};
  EXPECT_EQ(grey.pixelBytes(), 4u);
  EXPECT_EQ(grey.str(), "5x4 f32x1");
}

TEST(ImageDesc, BadShapesAreRefusedWithTheReason) {
  EXPECT_NE(imageProblem(ImageDesc::rgba8(0, 5)).text().find("width and height must be at least 1"), std::string::npos);
  ImageDesc two = ImageDesc::rgba8(8, 8);
  two.channels = 2;
  EXPECT_NE(imageProblem(two).text().find("1, 3 or 4"), std::string::npos) << imageProblem(two).text();
  EXPECT_NE(imageProblem(ImageDesc::rgba8(8, 8, 16)).text().find("needs 32"), std::string::npos);
  ImageDesc batch = ImageDesc::rgba8(8, 8);
  batch.batch = 0;
  EXPECT_NE(imageProblem(batch).text().find("at least 1"), std::string::npos);
  batch.batch = 2;
  batch.batchStride = 32 * 7;
  EXPECT_NE(imageProblem(batch).text().find("overlap"), std::string::npos);
  EXPECT_TRUE(imageProblem(ImageDesc::rgba8(8, 8, 48)).empty());
}

TEST(ImageDesc, StridesMustHoldWholeElements) {
  ImageDesc d{.width = 5, .height = 3, .type = PixelType::U16, .channels = 3, .pitch = 31};
  EXPECT_NE(imageProblem(d).text().find("multiple of the element size"), std::string::npos) << imageProblem(d).text();
  d.pitch = 32;
  EXPECT_TRUE(imageProblem(d).empty()) << imageProblem(d).text();
  d.batch = 2;
  d.batchStride = 97;
  EXPECT_NE(imageProblem(d).text().find("2-byte element"), std::string::npos) << imageProblem(d).text();
  d.batchStride = 98;
  EXPECT_TRUE(imageProblem(d).empty()) << imageProblem(d).text();
  EXPECT_EQ(d.str(), "5x3 u16x3 pitch 32 batch 2");
}

// A variant that filters u8x4 frames only refuses others, naming one that takes them.
TEST(Plan, AU8x4VariantRefusesOtherFramesNamingOneThatTakesThem) {
  for (PixelType t : {PixelType::U16, PixelType::F16, PixelType::F32}) {
    const ImageDesc d{.width = 9, .height = 7, .type = t, .channels = 4};
    const Problem why = refusal(spec("gaussian", 2, "tiled-coop"), d);
    EXPECT_EQ(why.code, Problem::Code::CannotRun) << why.text();
    EXPECT_NE(why.text().find("8-bit RGBA frames (u8x4) only"), std::string::npos) << why.text();
    EXPECT_NE(why.text().find(std::string(pixelTypeName(t)) + "x4"), std::string::npos) << why.text();
    EXPECT_FALSE(why.fixValue.empty()) << why.text();
    EXPECT_TRUE(findVariant(why.fixValue) && findVariant(why.fixValue)->takesAnyImage()) << why.fixValue;
  }
  // cpu-simd, like the reference, takes every frame.
  Problem why;
  const Plan grey = Plan::make(spec("gaussian", 2, "cpu-simd"), ImageDesc{.width = 9, .height = 7, .channels = 1},
                               {.memory = Memory::Host}, why);
  EXPECT_TRUE(grey) << why.text();
}

FilterParams compiled(const FilterSpec& s) {
  FilterParams p;
  EXPECT_TRUE(s.compile(p).empty()) << s.mask;
  return p;
}

// tensorstream takes u8x4, u8x1, u8x3, u16 and f16 frames of 1 and 4 channels and f32 grey frames;
// it refuses the other types naming sweep, whether or not there is a device, and on u8x1 and u8x3
// gradient magnitudes past r = 16; on 16-bit and f32 frames what planU16Separable, planF16Separable
// and planF32Separable refuse (masks of low rank, magnitudes, r > 16), naming sweep.
TEST(Plan, TensorStreamTakesGreyAndRgbFramesAndNamesSweepForTheOthers) {
  const Variant& v = *findVariant("tensorstream");
  EXPECT_TRUE(v.takesAnyImage());
  EXPECT_EQ(v.imagesTaken(), "u8x1,3,4 u16x1,4 f16x1,4 f32x1");
  for (PixelType t : {PixelType::U16, PixelType::F16, PixelType::F32})
    for (int c : {1, 3, 4}) {
      if (((t == PixelType::U16 || t == PixelType::F16) && c != 3) || (t == PixelType::F32 && c == 1)) continue;
      const Problem why = v.whyNot(compiled(spec("gaussian", 2, "tensorstream")),
                                   ImageDesc{.width = 9, .height = 7, .type = t, .channels = c});
      EXPECT_EQ(why.code, Problem::Code::CannotRun) << why.text();
      EXPECT_NE(why.text().find("u8x4 (RGBA8), u8x1, u8x3, u16x1, u16x4, f16x1, f16x4 and f32x1"), std::string::npos)
          << why.text();
      EXPECT_NE(why.text().find(std::string(pixelTypeName(t)) + "x" + std::to_string(c)), std::string::npos)
          << why.text();
      EXPECT_EQ(why.fixValue, "sweep") << why.text();
    }
  // u16 and f16 of 1 and 4 channels, f32 grey: separable masks to r = 16 (without a device: no
  // device); the others refused naming sweep, whatever the device.
  for (const auto& [t, c] : {std::pair{PixelType::U16, 1},
                             {PixelType::F16, 1},
                             {PixelType::U16, 4},
                             {PixelType::F16, 4},
                             {PixelType::F32, 1}}) {
    const ImageDesc grey16{.width = 9, .height = 7, .type = t, .channels = c};
    const Problem blur = v.whyNot(compiled(spec("gaussian", 16, "tensorstream")), grey16);
    EXPECT_EQ(blur.code, deviceInfo().available ? Problem::Code::None : Problem::Code::NoDevice) << blur.text();
    for (const auto& [mask, r, text] : {std::tuple{"gaussian", 17, "up to r = 16"},
                                        {"sharpen", 2, "not separable"},
                                        {"sobel", 1, "gradient magnitudes"},
                                        {"pitch", 2, "|sum|"}}) {
      const Problem why = v.whyNot(compiled(spec(mask, r, "tensorstream")), grey16);
      EXPECT_EQ(why.code, Problem::Code::CannotRun) << why.text();
      EXPECT_NE(why.text().find(text), std::string::npos) << why.text();
      EXPECT_NE(why.text().find(pixelTypeName(t)), std::string::npos) << "names the type: " << why.text();
      EXPECT_EQ(why.fixValue, "sweep") << why.text();
    }
    FilterSpec full = spec("custom", 1, "tensorstream");  // a random 2D mask: not separable, not "low rank"
    full.weights = "1,2,3;4,-5,6;7,8,10";
    const Problem twoD = v.whyNot(compiled(full), grey16);
    EXPECT_NE(twoD.text().find("not separable"), std::string::npos) << twoD.text();
    EXPECT_EQ(twoD.fixValue, "sweep") << twoD.text();
  }
  // A gradient magnitude past r = 16: refused whatever the device, naming sweep.
  for (int c : {1, 3}) {
    const Problem why =
        v.whyNot(compiled(spec("sobel", 17, "tensorstream")), ImageDesc{.width = 9, .height = 7, .channels = c});
    if (deviceInfo().available) {
      EXPECT_EQ(why.code, Problem::Code::CannotRun) << why.text();
      EXPECT_NE(why.text().find("up to r = 16"), std::string::npos) << why.text();
      EXPECT_EQ(why.fixValue, "sweep") << why.text();
    } else {
      EXPECT_EQ(why.code, Problem::Code::NoDevice) << why.text();
    }
  }
  // A separable mask, one of low rank or a gradient magnitude on grey and RGB frames: taken, or
  // refused only for want of a device.
  for (const char* mask : {"gaussian", "sharpen", "laplacian", "sobel"})
    for (int c : {1, 3}) {
      const Problem why =
          v.whyNot(compiled(spec(mask, 9, "tensorstream")), ImageDesc{.width = 9, .height = 7, .channels = c});
      if (deviceInfo().available)
        EXPECT_TRUE(why.empty()) << mask << ": " << why.text();
      else
        EXPECT_EQ(why.code, Problem::Code::NoDevice) << mask << ": " << why.text();
    }
}

// A grid has at most 65535 rows of blocks: a variant whose blocks each cover some rows of the
// frame takes frames up to 65535 times that, and past it refuses them in one line naming that
// limit for its tile, an offered tile that takes the frame where there is one, and a variant whose
// grid does not grow with the height (cuda/variants/common.hpp). Arithmetic and words only: the
// ways out are those that take the frame or refuse it only for want of a device.
TEST(GridRows, FramesPastTheGridsRowsOfBlocksAreRefusedNamingTheLimitAndAWayOut) {
  using detail::gridRowsWhyNot;
  const Variant& coop = variantNamed("tiled-coop");
  const FilterParams blur = compiled(spec("gaussian", 1));
  EXPECT_FALSE(gridRowsWhyNot(coop, blur, 1, 65535 * 16));
  Problem why = gridRowsWhyNot(coop, blur, 1, 65535 * 16 + 1);
  EXPECT_EQ(why.code, Problem::Code::CannotRun);
  EXPECT_EQ(why.detail,
            "tiled-coop takes frames up to 1048560 rows tall with tile 16x16 (65535 blocks of 16 rows); this one is "
            "1048561: use tile 32x32 (up to 2097120 rows) or stream");
  EXPECT_EQ(why.fixSetting, "variant");
  EXPECT_EQ(why.fixValue, "stream");
  // Past every offered tile: the variant alone.
  EXPECT_EQ(gridRowsWhyNot(coop, blur, 3, 2'200'000).detail,
            "tiled-coop takes frames up to 1048560 rows tall with tile 16x16 (65535 blocks of 16 rows); this one is "
            "2200000: use stream");
  // The tile asked for is the one counted.
  FilterParams flat = blur;
  flat.tile = {64, 4};
  EXPECT_FALSE(gridRowsWhyNot(coop, flat, 1, 65535 * 4));
  EXPECT_EQ(gridRowsWhyNot(coop, flat, 1, 65535 * 4 + 1).detail,
            "tiled-coop takes frames up to 262140 rows tall with tile 64x4 (65535 blocks of 4 rows); this one is "
            "262141: use tile 16x16 (up to 1048560 rows) or stream");
  // The rows a block covers as the variant counts them (tiled: its tile less the apron).
  const detail::RowsPerBlock lessApron = [](const Variant&, const FilterParams& p, Tile t) {
    return t.h - 2 * p.filter.mask.radius();
  };
  const Variant& tiled = variantNamed("tiled");
  EXPECT_FALSE(gridRowsWhyNot(tiled, blur, 1, 65535 * 6, lessApron));
  EXPECT_EQ(gridRowsWhyNot(tiled, blur, 1, 65535 * 6 + 1, lessApron).detail,
            "tiled takes frames up to 393210 rows tall with tile 32x8 (65535 blocks of 6 rows); this one is 393211: "
            "use tile 16x16 (up to 917490 rows) or stream");
  EXPECT_EQ(gridRowsWhyNot(variantNamed("tensorstream"), blur, 1, 20'000'000, detail::tileRows, "segments").detail,
            "tensorstream takes frames up to 4194240 rows tall with tile 64x64 (65535 segments of 64 rows); this one "
            "is 20000000: use stream");
  // The way out takes the filter: stream for separable masks to r = 4, sweep for the rest to
  // r = 32, cpu-simd past that.
  EXPECT_EQ(detail::anySizeInstead(blur, 1, 2'200'000), "stream");
  EXPECT_EQ(detail::anySizeInstead(compiled(spec("gaussian", 8)), 1, 2'200'000), "sweep");
  EXPECT_EQ(detail::anySizeInstead(compiled(spec("sharpen", 3)), 1, 2'200'000), "sweep");
  EXPECT_EQ(detail::anySizeInstead(compiled(spec("gaussian", 40)), 1, 2'200'000), "cpu-simd");
  why = detail::tallFrameProblem(tiled, compiled(spec("sharpen", 3)), 1, 70'000, 65'000, "(a texture's rows)");
  EXPECT_EQ(why.text(),
            "variant: tiled takes frames up to 65000 rows tall (a texture's rows); this one is 70000: use sweep: set "
            "variant to sweep");
}

TEST(Half, ConversionsRoundOnceToNearestEven) {
  for (unsigned h = 0; h < 0x10000; ++h) {
    const float f = halfToFloat(std::uint16_t(h));
    if (std::isnan(f)) {
      EXPECT_EQ(halfFromDouble(f) & 0x7c00u, 0x7c00u);
      continue;
    }
    ASSERT_EQ(halfFromDouble(f), h) << std::hex << h;
  }
  EXPECT_EQ(halfFromDouble(1.0 + 0x1p-11), 0x3c00u);            // a tie: to the even neighbour (1.0)
  EXPECT_EQ(halfFromDouble(1.0 + 3 * 0x1p-11), 0x3c02u);        // a tie: to the even neighbour (1 + 2^-9)
  EXPECT_EQ(halfFromDouble(1.0 + 0x1p-11 + 0x1p-40), 0x3c01u);  // just past it: up, where float would tie
  EXPECT_EQ(halfFromDouble(65504.0), 0x7bffu);
  EXPECT_EQ(halfFromDouble(65519.99), 0x7bffu);
  EXPECT_EQ(halfFromDouble(65520.0), 0x7c00u);   // infinity
  EXPECT_EQ(halfFromDouble(-0x1p-25), 0x8000u);  // a tie below the smallest subnormal: to -0
  EXPECT_EQ(halfFromDouble(0x1p-25 * 3), 0x0002u);
}

// The reference on typed frames against the plainest possible sum: one channel, float64, the
// border by hand, for each border mode (the reference's u8x4 path is checked in test_reference).
TEST(Reference, TypedFramesEqualAPlainSum) {
  std::mt19937 rng(testcases::seedForRun());
  const int w = 11, h = 7;
  FilterSpec s = spec("sharpen", 1);
  FilterParams p;
  ASSERT_TRUE(s.compile(p).empty());
  for (Border b : testcases::kBorders) {
    const ImageDesc d{.width = w, .height = h, .type = PixelType::F32, .channels = 1};
    const auto in = testcases::randomFrames(d, rng);
    auto out = testcases::poisoned(d);
    referenceFrames(p.filter, b, false, d, in.data(), out.data());
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double sum = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int sx = borderIndex(x + dx, w, b), sy = borderIndex(y + dy, h, b);
            if (sx >= 0 && sy >= 0)
              sum += double(p.filter.mask.at(dy, dx)) * testcases::elementAt(d.type, &in[(sy * w + sx) * 4]);
          }
        ASSERT_EQ(float(testcases::elementAt(d.type, &out[(y * w + x) * 4])), float(sum))
            << borderName(b) << " (" << x << ", " << y << ")";
      }
  }
}

// Every type and channel count through a plan on host memory (here the cpu variant; with a GPU,
// sweep through the plan's own device frames), against the reference under the accuracy contract,
// on odd sizes, a batch with padded rows and gaps between frames, outputs poisoned first.
TEST(Plan, EveryTypeAndChannelCountOnHostFrames) {
  std::mt19937 rng(testcases::seedForRun());
  for (PixelType t : testcases::kPixelTypes)
    for (int c : {1, 3, 4})
      for (const auto& [mask, r] : {std::pair{"gaussian", 2}, {"sobel", 1}, {"sharpen", 1}}) {
        const std::size_t e = pixelTypeBytes(t);
        ImageDesc d{.width = 13, .height = 5, .type = t, .channels = c};
        d.pitch = (d.rowBytes() / e + 3) * e;  // 3 elements of padding a row
        d.batch = 3;
        d.batchStride = d.pitch * 5 + 2 * e;
        FilterSpec s = spec(mask, r);
        s.border = testcases::kBorders[rng() % 4];
        s.filterAlpha = rng() % 2;
        const auto in = testcases::randomFrames(d, rng);
        auto got = testcases::poisoned(d);
        Plan plan = Plan::make(s, d, {.memory = Memory::Host});
        plan.run(in.data(), got.data());
        auto want = testcases::poisoned(d);
        referenceFrames(plan.params().filter, plan.params().border, plan.params().filterAlpha, d, in.data(),
                        want.data());
        const auto diff = testcases::compareTyped(d, got, want, plan.params().filter.mask, testcases::typeRange(t));
        EXPECT_EQ(diff.over, 0) << plan.describe() << ": " << diff.first << " (seed " << testcases::seedForRun() << ")";
        EXPECT_TRUE(testcases::gapsUntouched(d, got, testcases::poisonByte(t)))
            << plan.describe() << ": a gap was written";
      }
}

// u8 frames into f32 output on host memory through cpu, cpu-simd and auto (with a GPU, sweep or
// stream through the plan's own device frames): 1, 3, 4 channels (u8x4 too, which cpu-simd otherwise
// takes through its RGBA path), separable, low-rank and 2D masks and a gradient magnitude, a batch
// with padded rows and gaps (the output's strides the input's in values), against the double
// reference under f32's bound, outputs NaN-poisoned.
TEST(Plan, U8FramesIntoF32OnHostFrames) {
  std::mt19937 rng(testcases::seedForRun());
  for (const char* variant : {"auto", "cpu", "cpu-simd"})
    for (int c : {1, 3, 4})
      for (const auto& [mask, r] :
           {std::pair{"gaussian", 2}, {"sobel", 1}, {"sharpen", 1}, {"emboss", 2}, {"box", 3}, {"laplacian", 2}}) {
        ImageDesc d{.width = 13, .height = 5, .channels = c};
        const std::size_t pad = rng() % 2 ? 3 : 4;  // 4: rows and frames RGBA8-aligned
        d.pitch = d.rowBytes() + pad;
        d.batch = 3;
        d.batchStride = d.pitch * 5 + (pad == 4 ? 4 : 2);
        FilterSpec s = spec(mask, r, variant);
        s.border = testcases::kBorders[rng() % 4];
        s.filterAlpha = rng() % 2;
        Plan plan = Plan::make(s, d, {.memory = Memory::Host, .outType = PixelType::F32});
        if (std::string(variant) != "auto") {
          EXPECT_EQ(plan.variant().name, variant);
        }
        const ImageDesc& o = plan.output();
        ASSERT_EQ(o.type, PixelType::F32);
        ASSERT_EQ(o.rowPitch(), d.rowPitch() * 4);
        ASSERT_EQ(o.frameStride(), d.frameStride() * 4);
        const auto in = testcases::randomFrames(d, rng);
        auto got = testcases::poisoned(o);
        plan.run(in.data(), got.data());
        auto want = testcases::poisoned(o);
        referenceFrames(plan.params().filter, plan.params().border, plan.params().filterAlpha, d, in.data(), o,
                        want.data());
        const auto diff = testcases::compareTyped(o, got, want, plan.params().filter.mask, 255);
        EXPECT_EQ(diff.over, 0) << plan.describe() << ": " << diff.first << " (seed " << testcases::seedForRun() << ")";
        EXPECT_TRUE(testcases::gapsUntouched(o, got, testcases::poisonByte(o.type))) << plan.describe();
      }
}

// f32 output holds the sums as they are: sharpen past 0 and 255 stays there, and a box's thirds stay
// fractions, where u8 output rounds and saturates them.
TEST(Plan, F32OutputIsNeitherRoundedNorClamped) {
  const ImageDesc d{.width = 3, .height = 1, .channels = 1};
  const std::uint8_t in[3] = {0, 255, 0};
  float out[3] = {};
  FilterSpec s = spec("custom", 1);
  s.weights = "0,0,0;-1,3,-1;0,0,0";
  Plan sharpen = Plan::make(s, d, {.memory = Memory::Host, .outType = PixelType::F32});
  sharpen.run(in, out);
  EXPECT_FLOAT_EQ(out[0], -255.f);  // clamp: 3 x 0 - 0 - 255
  EXPECT_FLOAT_EQ(out[1], 765.f);
  s.weights = "0,0,0;1,1,1;0,0,0";
  s.normalize = true;
  Plan box = Plan::make(s, d, {.memory = Memory::Host, .outType = PixelType::F32});
  box.run(in, out);
  EXPECT_FLOAT_EQ(out[0], 85.f);
  EXPECT_NEAR(out[1], 85.f, 1e-4);
  const std::uint8_t grey[3] = {1, 0, 0};
  box.run(grey, out);
  EXPECT_NEAR(out[1], 1.f / 3, 1e-6);
}

// Other output types are refused with the reason, and so are the variants that write only their
// input's type, naming one that writes f32; image views (RGBA8 in and out) refuse such a plan.
TEST(Plan, OtherOutputTypesAreRefusedWithTheReason) {
  const ImageDesc u16{.width = 8, .height = 8, .type = PixelType::U16, .channels = 1};
  Problem why = refusal(spec("gaussian", 1), u16, {.memory = Memory::Host, .outType = PixelType::F32});
  EXPECT_NE(why.text().find("f32 from u8"), std::string::npos) << why.text();
  const ImageDesc u8{.width = 8, .height = 8, .channels = 4};
  why = refusal(spec("gaussian", 1), u8, {.memory = Memory::Host, .outType = PixelType::F16});
  EXPECT_NE(why.text().find("f16 output from u8"), std::string::npos) << why.text();
  why = refusal(spec("gaussian", 1, "naive"), u8, {.memory = Memory::Host, .outType = PixelType::F32});
  EXPECT_NE(why.text().find("writes frames of their own type"), std::string::npos) << why.text();
  EXPECT_EQ(why.fixSetting, "variant");
  EXPECT_FALSE(why.fixValue.empty()) << why.text();
  // The input's own type is no other type: an ordinary plan.
  Plan same = Plan::make(spec("gaussian", 1), u16, {.memory = Memory::Host, .outType = PixelType::U16});
  EXPECT_EQ(same.output(), same.image());
  // auto on the CPU takes cpu-simd, which writes f32.
  Plan f32 = Plan::make(spec("gaussian", 1), u8, {.memory = Memory::Host, .outType = PixelType::F32});
  EXPECT_NE(f32.describe().find("to f32"), std::string::npos) << f32.describe();
  if (!f32.onGpu()) {
    EXPECT_EQ(f32.variant().name, "cpu-simd");
  }
  HostImage a(8, 8), b(8, 8);
  EXPECT_THROW(f32.run(a.view(), b.view()), std::invalid_argument);
  // Where auto cannot time (its fixed order), and where the inspector describes one RGBA8 frame, f32
  // output takes the typed kernels that write it.
  FilterParams p = compiled(spec("gaussian", 2));
  p.outType = PixelType::F32;
  const ImageDesc rgba = ImageDesc::rgba8(64, 16);
  const std::string fixed = fixedOrderChoice(p, rgba).name;
  EXPECT_TRUE(fixed == "stream" || fixed == "sweep" || fixed == "cpu-simd") << fixed;
  const LaunchDescription d = variantNamed("stream").describeLaunch(p, rgba);
  ASSERT_FALSE(d.passes.empty());
  EXPECT_NE(d.passes[0].kernel.find("streamTypedKernel<u8, 4, 2, f32>"), std::string::npos) << d.passes[0].kernel;
  // f32 output on other frames than u8 is refused by every variant, not only by the plan.
  p.outType = PixelType::F32;
  EXPECT_NE(variantNamed("sweep").whyNot(p, u16).text().find("f32 from u8"), std::string::npos);
  EXPECT_NE(cpuSimdImageWhyNot(p.filter, u16, PixelType::F32).text().find("f32 from u8"), std::string::npos);
  // An output of the input's own type is no other type: stream keeps u8 grey to r = 4 then.
  FilterParams own = compiled(spec("gaussian", 6));
  own.outType = PixelType::U8;
  const ImageDesc grey{.width = 64, .height = 16, .channels = 1};
  EXPECT_NE(variantNamed("stream").whyNot(own, grey).text().find("takes radius up to 4"), std::string::npos);
  own.outType = PixelType::F32;
  EXPECT_FALSE(variantNamed("stream").whyNot(own, grey).text().find("takes radius up to") != std::string::npos)
      << variantNamed("stream").whyNot(own, grey).text();
}

TEST(Plan, OneByOneFramesOfEveryType) {
  for (PixelType t : testcases::kPixelTypes) {
    const ImageDesc d{.width = 1, .height = 1, .type = t, .channels = 1};
    std::mt19937 rng(testcases::seedForRun());
    const auto in = testcases::randomFrames(d, rng);
    auto got = testcases::poisoned(d);
    Plan plan = Plan::make(spec("gaussian", 3), d, {.memory = Memory::Host});
    plan.run(in.data(), got.data());
    // Every border reads the one pixel (or zeros): the blur of one pixel is itself for clamp.
    EXPECT_NEAR(testcases::elementAt(t, got.data()), testcases::elementAt(t, in.data()),
                t == PixelType::F16 ? 2e-3 : 1e-5 * 65535)
        << plan.describe();
  }
}

TEST(Plan, TypedFramesRefuseImageViews) {
  Plan plan = Plan::make(spec("box", 1), ImageDesc{.width = 4, .height = 4, .channels = 1}, {.memory = Memory::Host});
  HostImage a(4, 4), b(4, 4);
  try {
    plan.run(a.view(), b.view());
    FAIL() << "ran u8x1 frames through RGBA8 views";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("pass pointers"), std::string::npos) << e.what();
  }
}

TEST(Plan, RefusesBadSettingsUnknownVariantsAndDevicesWithTheReason) {
  EXPECT_EQ(refusal(spec("gaussian", 999), ImageDesc::rgba8(16, 16)).setting, "radius");
  const Problem unknown = refusal(spec("gaussian", 2, "fastest"), ImageDesc::rgba8(16, 16));
  EXPECT_EQ(unknown.code, Problem::Code::Unknown);
  EXPECT_NE(unknown.text().find("cpu-simd"), std::string::npos) << unknown.text();
  const Problem device = refusal(spec("gaussian", 2), ImageDesc::rgba8(16, 16), {.memory = Memory::Host, .device = 99});
  EXPECT_EQ(device.setting, "device");
  EXPECT_NE(device.text().find("99 is not a CUDA device here"), std::string::npos) << device.text();
  // A 2D mask on a separable-only variant is the caller's to change: no fallback.
  const Problem twoD = refusal(spec("emboss", 2, "separable"), ImageDesc::rgba8(16, 16));
  EXPECT_NE(twoD.text().find("not separable"), std::string::npos) << twoD.text();
  EXPECT_THROW(Plan::make(spec("gaussian", 999), ImageDesc::rgba8(16, 16)), ProblemError);
}

TEST(Plan, AnEmptyPlanSaysSo) {
  Plan plan;
  EXPECT_FALSE(plan);
  EXPECT_THROW(plan.variant(), std::logic_error);
  EXPECT_THROW(plan.run(nullptr, nullptr), std::logic_error);
}

// Host memory: whatever runs (a GPU variant through the plan's device frames, or a CPU variant),
// the result is the reference's within 1 LSB, on odd sizes, every border, several masks.
TEST(Plan, HostFramesEqualTheReference) {
  std::mt19937 rng(testcases::seedForRun());
  for (const auto& [w, h] : {std::pair{37, 23}, {5, 3}, {64, 1}, {1, 17}})
    for (Border b : testcases::kBorders)
      for (const char* mask : {"gaussian", "sharpen", "sobel"}) {
        FilterSpec s = spec(mask, 2);
        s.border = b;
        const Plan made = Plan::make(s, ImageDesc::rgba8(w, h), {.memory = Memory::Host});
        Plan plan = made;  // a copy runs as the original would
        const HostImage in = randomImage(w, h, rng);
        HostImage got(w, h);
        std::fill(got.pixels().begin(), got.pixels().end(), std::uint8_t(0xa5));
        plan.run(in.view(), got.view());
        EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), in).view()))
            << plan.describe() << " seed " << testcases::seedForRun();
      }
}

TEST(Plan, EveryCpuVariantByNameEqualsTheReference) {
  std::mt19937 rng(testcases::seedForRun());
  for (const char* name : {"cpu", "cpu-simd"}) {
    const HostImage in = randomImage(41, 19, rng);
    Plan plan = Plan::make(spec("gaussian", 3, name), ImageDesc::rgba8(41, 19), {.memory = Memory::Host});
    EXPECT_EQ(plan.variant().name, name);
    EXPECT_FALSE(plan.onGpu());
    EXPECT_TRUE(plan.autoWhy().empty());
    EXPECT_EQ(plan.autoChoice(), nullptr);
    EXPECT_TRUE(plan.note().empty()) << plan.note();
    HostImage got(41, 19);
    std::fill(got.pixels().begin(), got.pixels().end(), std::uint8_t(0x5a));
    plan.run(in.view(), got.view());
    EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), in).view())) << name;
  }
}

// Without a device: auto and (with cpuFallback) a named GPU variant run on the CPU, and say so;
// device memory and cpuFallback = false are refused with the reason.
TEST(Plan, WithoutADeviceTheCpuRunsWhereTheCallerAllowsIt) {
  if (deviceInfo().available)
    GTEST_SKIP() << "this machine has a CUDA device (" << deviceInfo().name << "): no fallback";
  const ImageDesc d = ImageDesc::rgba8(33, 17);
  const Plan autoPlan = Plan::make(spec("gaussian", 2), d, {.memory = Memory::Host});
  EXPECT_FALSE(autoPlan.onGpu());
  EXPECT_NE(autoPlan.note().find("no CUDA device"), std::string::npos) << autoPlan.note();
  ASSERT_NE(autoPlan.autoChoice(), nullptr);
  EXPECT_FALSE(autoPlan.autoChoice()->measured);
  EXPECT_EQ(autoPlan.autoChoice()->variant, &autoPlan.variant());
  const Plan fallback = Plan::make(spec("gaussian", 2, "stream"), d, {.memory = Memory::Native});
  EXPECT_EQ(fallback.variant().name, "cpu-simd");
  EXPECT_NE(fallback.note().find("instead of stream"), std::string::npos) << fallback.note();
  const Problem strict = refusal(spec("gaussian", 2, "stream"), d, {.memory = Memory::Host, .cpuFallback = false});
  EXPECT_EQ(strict.code, Problem::Code::NoDevice) << strict.text();
  const Problem device = refusal(spec("gaussian", 2), d, {.memory = Memory::Device});
  EXPECT_EQ(device.code, Problem::Code::NoDevice) << device.text();
  EXPECT_NE(device.text().find("device memory needs a CUDA device"), std::string::npos) << device.text();
}

TEST(Plan, ACpuVariantIsRefusedForDeviceMemory) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  const Problem why = refusal(spec("gaussian", 2, "cpu"), ImageDesc::rgba8(16, 16), {.memory = Memory::Device});
  EXPECT_NE(why.text().find("host memory"), std::string::npos) << why.text();
}

// A batch of frames with gaps between them (rows pitched, frames further apart): every frame is
// filtered, and the gaps are not written.
TEST(Plan, BatchesFilterEveryFrameAndLeaveTheGapsAlone) {
  std::mt19937 rng(testcases::seedForRun());
  ImageDesc d = ImageDesc::rgba8(13, 9, 64);
  d.batch = 3;
  d.batchStride = 64 * 9 + 128;
  std::vector<std::uint8_t> in(d.span()), out(d.span(), 0xc3);
  for (auto& b : in) b = static_cast<std::uint8_t>(rng() >> 24);
  Plan plan = Plan::make(spec("box", 1, "cpu-simd"), d, {.memory = Memory::Host});
  plan.run(in.data(), out.data());
  for (int f = 0; f < d.batch; ++f) {
    const std::size_t at = d.frameStride() * std::size_t(f);
    HostImage frame(d.width, d.height), got(d.width, d.height);
    for (int y = 0; y < d.height; ++y) {
      std::copy_n(in.data() + at + y * d.pitch, d.rowBytes(), frame.view().row(y));
      std::copy_n(out.data() + at + y * d.pitch, d.rowBytes(), got.view().row(y));
    }
    EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), frame).view())) << "frame " << f;
    for (int y = 0; y < d.height; ++y)  // the pitch's padding
      for (std::size_t x = d.rowBytes(); x < d.pitch && at + y * d.pitch + x < out.size(); ++x)
        ASSERT_EQ(out[at + y * d.pitch + x], 0xc3) << "frame " << f << " row " << y << " byte " << x;
  }
  for (std::size_t x = 64 * 9; x < d.batchStride; ++x) ASSERT_EQ(out[x], 0xc3) << "gap byte " << x;
}

TEST(Plan, AViewOfAnotherSizeIsRefused) {
  Plan plan = Plan::make(spec("gaussian", 1, "cpu"), ImageDesc::rgba8(16, 8), {.memory = Memory::Host});
  HostImage a(16, 8), b(15, 8);
  try {
    plan.run(a.view(), b.view());
    FAIL() << "ran on a 15x8 output";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("15x8"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("16x8 u8x4"), std::string::npos) << e.what();
  }
}

TEST(Plan, PaddingIsCopiedThroughWhateverFilterAlphaSays) {
  std::mt19937 rng(testcases::seedForRun());
  FilterSpec s = spec("gaussian", 2, "cpu-simd");
  s.filterAlpha = true;
  ImageDesc d = ImageDesc::rgba8(19, 11);
  d.alpha = false;
  Plan plan = Plan::make(s, d, {.memory = Memory::Host});
  EXPECT_FALSE(plan.params().filterAlpha);
  const HostImage in = randomImage(19, 11, rng);
  HostImage got(19, 11);
  plan.run(in.view(), got.view());
  for (std::size_t i = 3; i < got.pixels().size(); i += 4) ASSERT_EQ(got.pixels()[i], in.pixels()[i]) << i;
}

TEST(Plan, DescribesItselfAndKnowsTheIdentity) {
  FilterSpec one = spec("custom", 1, "cpu");
  one.weights = "0,0,0;0,1,0;0,0,0";
  const Plan identity = Plan::make(one, ImageDesc::rgba8(8, 8), {.memory = Memory::Host});
  EXPECT_TRUE(identity.identity());
  const Plan blur = Plan::make(spec("gaussian", 4, "cpu-simd"), ImageDesc::rgba8(64, 48), {.memory = Memory::Host});
  EXPECT_FALSE(blur.identity());
  EXPECT_EQ(blur.describe(), "gaussian r=4 border=clamp variant=cpu-simd on 64x48 u8x4");
  EXPECT_FALSE(blur.launches().none.empty());
  EXPECT_GT(blur.workModel().flops, 0);
}

}  // namespace
}  // namespace convlive
