// The CPU reference against hand-computed results on tiny frames, for every border mode.
#include <gtest/gtest.h>

#include <random>

#include "convlive/reference.hpp"
#include "convlive/variants.hpp"
#include "image_compare.hpp"

using namespace convlive;

namespace {

// A w x h frame whose R, G, B are all `values` (row-major) and alpha `alpha`.
HostImage frame(int w, int h, const std::vector<int>& values, int alpha = 200) {
  HostImage img(w, h);
  for (int i = 0; i < w * h; ++i) {
    for (int c = 0; c < 3; ++c) img.pixels()[4 * i + c] = static_cast<std::uint8_t>(values[i]);
    img.pixels()[4 * i + 3] = static_cast<std::uint8_t>(alpha);
  }
  return img;
}

std::vector<int> red(const HostImage& img) {
  std::vector<int> v;
  for (size_t i = 0; i < img.pixels().size(); i += 4) v.push_back(img.pixels()[i]);
  return v;
}

Filter custom(const std::string& weights) {
  Filter f;
  f.name = "custom";
  f.mask = parseCustomMask(weights, false);
  return f;
}

std::vector<int> run(const Filter& f, Border b, const HostImage& in, bool directOnly = false) {
  HostImage out(in.width(), in.height());
  referenceFilter(f, b, false, in.view(), out.view(), 1, directOnly);
  return red(out);
}

}  // namespace

TEST(Reference, HorizontalSumPerBorder) {
  const HostImage in = frame(3, 1, {10, 20, 40});
  const Filter f = custom("1,1,1");
  EXPECT_EQ(run(f, Border::Zero, in), (std::vector<int>{30, 70, 60}));
  EXPECT_EQ(run(f, Border::Clamp, in), (std::vector<int>{40, 70, 100}));
  EXPECT_EQ(run(f, Border::Mirror, in), (std::vector<int>{50, 70, 80}));
  EXPECT_EQ(run(f, Border::Wrap, in), (std::vector<int>{70, 70, 70}));
}

TEST(Reference, VerticalSumPerBorder) {
  const HostImage in = frame(1, 3, {10, 20, 40});
  const Filter f = custom("1;1;1");
  EXPECT_EQ(run(f, Border::Zero, in), (std::vector<int>{30, 70, 60}));
  EXPECT_EQ(run(f, Border::Clamp, in), (std::vector<int>{40, 70, 100}));
  EXPECT_EQ(run(f, Border::Mirror, in), (std::vector<int>{50, 70, 80}));
  EXPECT_EQ(run(f, Border::Wrap, in), (std::vector<int>{70, 70, 70}));
}

TEST(Reference, RadiusLargerThanTheFrame) {
  const HostImage in = frame(2, 1, {10, 20});
  const Filter f = custom("1,1,1,1,1");  // x-2..x+2
  EXPECT_EQ(run(f, Border::Zero, in), (std::vector<int>{30, 30}));
  EXPECT_EQ(run(f, Border::Clamp, in), (std::vector<int>{70, 80}));   // 10 10 10 20 20 | 10 10 20 20 20
  EXPECT_EQ(run(f, Border::Mirror, in), (std::vector<int>{70, 80}));  // 10 20 10 20 10 | 20 10 20 10 20
  EXPECT_EQ(run(f, Border::Wrap, in), (std::vector<int>{70, 80}));    // 10 20 10 20 10 | 20 10 20 10 20
  const HostImage one = frame(1, 1, {7});
  for (Border b : {Border::Clamp, Border::Mirror, Border::Wrap}) EXPECT_EQ(run(f, b, one), (std::vector<int>{35}));
  EXPECT_EQ(run(f, Border::Zero, one), (std::vector<int>{7}));
}

TEST(Reference, WeightsApplyAsCorrelation) {
  // A single 1 at the top-left weight: out(x, y) = in(x-1, y-1).
  const HostImage in = frame(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Filter f = custom("1,0,0;0,0,0;0,0,0");
  EXPECT_EQ(run(f, Border::Zero, in), (std::vector<int>{0, 0, 0, 0, 1, 2, 0, 4, 5}));
  EXPECT_EQ(run(f, Border::Clamp, in), (std::vector<int>{1, 1, 2, 1, 1, 2, 4, 4, 5}));
  EXPECT_EQ(run(f, Border::Wrap, in), (std::vector<int>{9, 7, 8, 3, 1, 2, 6, 4, 5}));
  EXPECT_EQ(run(f, Border::Mirror, in), (std::vector<int>{5, 4, 5, 2, 1, 2, 5, 4, 5}));
}

TEST(Reference, RoundsToNearestAndSaturates) {
  const HostImage in = frame(3, 1, {10, 11, 250});
  EXPECT_EQ(run(custom("0.3"), Border::Zero, in), (std::vector<int>{3, 3, 75}));  // 3.0, 3.3, 75
  EXPECT_EQ(run(custom("2"), Border::Zero, in), (std::vector<int>{20, 22, 255}));
  EXPECT_EQ(run(custom("-1"), Border::Zero, in), (std::vector<int>{0, 0, 0}));
}

TEST(Reference, GradientMagnitudeOfAStep) {
  // Rows identical, so gy = 0; gx = 4 * (right - left) with [1 2 1] x [-1 0 1].
  const HostImage in = frame(5, 3, {0, 0, 10, 10, 10, 0, 0, 10, 10, 10, 0, 0, 10, 10, 10});
  const Filter f = makeFilter("sobel", {.radius = 1});
  const auto out = run(f, Border::Clamp, in);
  EXPECT_EQ(std::vector<int>(out.begin() + 5, out.begin() + 10), (std::vector<int>{0, 40, 40, 0, 0}));
  // Transposed input: the same magnitude through gy.
  const HostImage t = frame(3, 5, {0, 0, 0, 0, 0, 0, 10, 10, 10, 10, 10, 10, 10, 10, 10});
  const auto outT = run(f, Border::Clamp, t);
  EXPECT_EQ((std::vector<int>{outT[1], outT[4], outT[7], outT[10], outT[13]}), (std::vector<int>{0, 40, 40, 0, 0}));
}

TEST(Reference, LaplacianIsAbsolute) {
  const HostImage in = frame(3, 3, {0, 0, 0, 0, 10, 0, 0, 0, 0});
  const Filter f = makeFilter("laplacian", {.radius = 1});
  EXPECT_EQ(run(f, Border::Zero, in), (std::vector<int>{0, 10, 0, 10, 40, 10, 0, 10, 0}));
}

TEST(Reference, AlphaPassesThroughUnlessFiltered) {
  HostImage in = frame(3, 1, {10, 20, 40});
  in.pixels()[3] = 0;
  in.pixels()[7] = 100;
  in.pixels()[11] = 200;
  const Filter f = custom("1,1,1");
  HostImage out(3, 1);
  referenceFilter(f, Border::Zero, false, in.view(), out.view());
  EXPECT_EQ(out.pixels()[3], 0);
  EXPECT_EQ(out.pixels()[7], 100);
  EXPECT_EQ(out.pixels()[11], 200);
  referenceFilter(f, Border::Zero, true, in.view(), out.view());
  EXPECT_EQ(out.pixels()[3], 100);
  EXPECT_EQ(out.pixels()[7], 255);
  EXPECT_EQ(out.pixels()[11], 255);
}

TEST(Reference, SeparablePathEqualsTheDirectSum) {
  std::mt19937 rng(std::random_device{}());
  HostImage in(37, 23);
  for (auto& p : in.pixels()) p = static_cast<std::uint8_t>(rng());
  for (const char* kind : {"gaussian", "box", "sobel", "pitch"})
    for (Border b : {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap}) {
      const Filter f = makeFilter(kind, {.radius = 3, .pitch = 2.6f});
      ASSERT_TRUE(f.mask.separable()) << kind;
      HostImage a(in.width(), in.height()), d(in.width(), in.height());
      referenceFilter(f, b, true, in.view(), a.view(), 0, false);
      referenceFilter(f, b, true, in.view(), d.view(), 0, true);
      ASSERT_TRUE(testcases::imagesMatch(d.view(), a.view(), 1, "2D")) << kind << " " << borderName(b);
    }
}

// A batch of at least a frame a thread runs its frames in parallel, each on one thread: the same
// bytes as each frame filtered alone (grey u16 and RGBA8 frames, separable and 2D masks, padded
// rows and gaps between frames).
TEST(Reference, ABatchFilteredFramesInParallelEqualsEachFrameAlone) {
  std::mt19937 rng(std::random_device{}());
  for (const auto& [type, channels] : {std::pair{PixelType::U16, 1}, {PixelType::U8, 4}})
    for (const char* kind : {"gaussian", "emboss", "sobel"}) {
      ImageDesc d{.width = 7, .height = 3, .type = type, .channels = channels};
      d.pitch = d.rowBytes() + 6;
      d.batch = 37;
      d.batchStride = d.pitch * 3 + 10;
      std::vector<unsigned char> in(d.span()), all(d.span(), 0xa5), alone(d.span(), 0xa5);
      for (auto& b : in) b = static_cast<unsigned char>(rng());
      const Filter f = makeFilter(kind, {.radius = 2});
      referenceFrames(f, Border::Mirror, false, d, in.data(), all.data(), 4);
      ImageDesc one = d;
      one.batch = 1;
      one.batchStride = 0;
      for (int i = 0; i < d.batch; ++i) {
        const std::size_t at = d.frameStride() * std::size_t(i);
        referenceFrames(f, Border::Mirror, false, one, in.data() + at, alone.data() + at, 4);
      }
      EXPECT_EQ(all, alone) << kind << " " << d.str();
    }
}
