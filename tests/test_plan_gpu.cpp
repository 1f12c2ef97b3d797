// convlive::Plan on device memory (label gpu; each test skips with the reason without a CUDA
// device): auto's choice and every GPU variant by name against the CPU reference within 1 LSB on
// odd sizes, pitched rows and batches, the outputs poisoned first; a copy on a second stream; the
// device option.
#include <gtest/gtest.h>

#include <random>

#include "convlive/check.hpp"
#include "convlive/plan.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "filter_cases.hpp"
#include "image_compare.hpp"

namespace convlive {
namespace {

using testcases::imagesMatch;

class PlanOnDevice : public testing::Test {
 protected:
  void SetUp() override {
    if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  }
  std::mt19937 rng{testcases::seedForRun()};

  HostImage randomImage(int w, int h) {
    HostImage img(w, h);
    for (auto& b : img.pixels()) b = static_cast<std::uint8_t>(rng() >> 24);
    return img;
  }
  static HostImage reference(const FilterParams& p, const HostImage& in) {
    HostImage want(in.width(), in.height());
    referenceFilter(p.filter, p.border, p.filterAlpha, in.view(), want.view());
    return want;
  }
  // One run of `plan` on `in` in device memory (output poisoned), brought back.
  static HostImage runOnDevice(Plan& plan, const HostImage& in, cudaStream_t s = nullptr) {
    DeviceImage din(in.width(), in.height()), dout(in.width(), in.height());
    din.upload(in.view());
    CL_CUDA(cudaMemset2D(dout.view().data, dout.pitch(), 0xa5, std::size_t(in.width()) * 4, in.height()));
    plan.run(din.view(), dout.view(), s);
    HostImage got(in.width(), in.height());
    dout.download(got.view(), s);
    CL_CUDA(cudaStreamSynchronize(s));
    return got;
  }
};

TEST_F(PlanOnDevice, AutoEqualsTheReferenceOnOddSizesEveryBorderAndMask) {
  for (const auto& [w, h] : {std::pair{37, 23}, {131, 67}, {1, 29}, {300, 2}})
    for (Border b : testcases::kBorders)
      for (const auto& [mask, r] : {std::pair{"gaussian", 1}, {"gaussian", 7}, {"sharpen", 3}, {"sobel", 1}}) {
        FilterSpec s;
        s.mask = mask;
        s.radius = r;
        s.border = b;
        Plan plan = Plan::make(s, ImageDesc::rgba8(w, h));
        EXPECT_TRUE(plan.onGpu());
        EXPECT_FALSE(plan.autoWhy().empty());
        ASSERT_NE(plan.autoChoice(), nullptr);
        EXPECT_TRUE(plan.autoChoice()->measured) << plan.autoWhy();
        const HostImage in = randomImage(w, h);
        EXPECT_TRUE(imagesMatch(runOnDevice(plan, in).view(), reference(plan.params(), in).view()))
            << plan.describe() << " seed " << testcases::seedForRun();
      }
}

TEST_F(PlanOnDevice, EveryGpuVariantByNameThatTakesTheFilter) {
  const HostImage in = randomImage(45, 27);
  int ran = 0;
  for (const Variant& v : variants()) {
    if (!v.onGpu) continue;
    FilterSpec s;
    s.mask = "gaussian";
    s.radius = 2;
    s.border = Border::Mirror;
    s.variant = v.name;
    Problem why;
    Plan plan = Plan::make(s, ImageDesc::rgba8(45, 27), {.memory = Memory::Device}, why);
    if (!plan) {
      ADD_FAILURE() << v.name << " refused a gaussian r=2: " << why.text();
      continue;
    }
    EXPECT_EQ(plan.variant().name, v.name);
    EXPECT_TRUE(imagesMatch(runOnDevice(plan, in).view(), reference(plan.params(), in).view())) << v.name;
    ++ran;
  }
  EXPECT_GE(ran, 8);
}

TEST_F(PlanOnDevice, HostMemoryWithAGpuVariantGoesThroughThePlansOwnFrames) {
  const HostImage in = randomImage(51, 33);
  FilterSpec s;
  s.radius = 4;
  Plan plan = Plan::make(s, ImageDesc::rgba8(51, 33), {.memory = Memory::Host});
  EXPECT_TRUE(plan.onGpu());
  HostImage got(51, 33);
  std::fill(got.pixels().begin(), got.pixels().end(), std::uint8_t(0x5a));
  plan.run(in.view(), got.view());  // done on return
  EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), in).view())) << plan.describe();
}

TEST_F(PlanOnDevice, ABatchOfPitchedFramesInOneRun) {
  ImageDesc d = ImageDesc::rgba8(29, 13, 128);
  d.batch = 4;
  DeviceBuffer in(d.span()), out(d.span());
  CL_CUDA(cudaMemset(out.get(), 0xa5, d.span()));
  std::vector<HostImage> frames;
  for (int f = 0; f < d.batch; ++f) {
    frames.push_back(randomImage(d.width, d.height));
    CL_CUDA(cudaMemcpy2D(in.as<std::uint8_t>() + d.frameStride() * f, d.pitch, frames.back().view().data,
                         frames.back().pitch(), d.rowBytes(), d.height, cudaMemcpyHostToDevice));
  }
  FilterSpec s;
  s.mask = "laplacian";
  s.radius = 2;
  Plan plan = Plan::make(s, d);
  plan.run(in.get(), out.get());
  for (int f = 0; f < d.batch; ++f) {
    HostImage got(d.width, d.height);
    CL_CUDA(cudaMemcpy2D(got.view().data, got.pitch(), out.as<std::uint8_t>() + d.frameStride() * f, d.pitch,
                         d.rowBytes(), d.height, cudaMemcpyDeviceToHost));
    EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), frames[f]).view())) << "frame " << f;
  }
}

TEST_F(PlanOnDevice, ACopyRunsOnAnotherStreamWithItsOwnWorkspace) {
  FilterSpec s;
  s.radius = 3;
  s.variant = "separable";  // scratch planes in the workspace: a shared one would race
  Plan a = Plan::make(s, ImageDesc::rgba8(97, 61));
  Plan b = a;
  Stream s1, s2;
  const HostImage in1 = randomImage(97, 61), in2 = randomImage(97, 61);
  DeviceImage d1(97, 61), d2(97, 61), o1(97, 61), o2(97, 61);
  d1.upload(in1.view(), s1.get());
  d2.upload(in2.view(), s2.get());
  for (int i = 0; i < 5; ++i) {
    a.run(d1.view(), o1.view(), s1.get());
    b.run(d2.view(), o2.view(), s2.get());
  }
  HostImage g1(97, 61), g2(97, 61);
  o1.download(g1.view(), s1.get());
  o2.download(g2.view(), s2.get());
  s1.synchronize();
  s2.synchronize();
  EXPECT_TRUE(imagesMatch(g1.view(), reference(a.params(), in1).view()));
  EXPECT_TRUE(imagesMatch(g2.view(), reference(b.params(), in2).view()));
}

TEST_F(PlanOnDevice, TheDeviceOptionRunsThereAndRestoresTheCallersDevice) {
  int count = 0;
  CL_CUDA(cudaGetDeviceCount(&count));
  const int last = count - 1;
  FilterSpec s;
  s.radius = 2;
  Plan plan = Plan::make(s, ImageDesc::rgba8(40, 30), {.memory = Memory::Host, .device = last});
  const HostImage in = randomImage(40, 30);
  HostImage got(40, 30);
  CL_CUDA(cudaSetDevice(0));
  plan.run(in.view(), got.view());
  int current = -1;
  CL_CUDA(cudaGetDevice(&current));
  EXPECT_EQ(current, 0);
  EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), in).view()));
}

}  // namespace
}  // namespace convlive
