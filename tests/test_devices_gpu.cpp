// The GPU chosen (label gpu): device facts per device, and a plan on the second device, made and
// run while another device is current, against the CPU reference (skipped, with the reason, where
// the machine has fewer than 2 devices). Every test skips without a CUDA device.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "convlive/check.hpp"
#include "convlive/plan.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "convlive/tuner.hpp"
#include "filter_cases.hpp"
#include "image_compare.hpp"

namespace convlive {
namespace {

using testcases::imagesMatch;

int current() {
  int d = -1;
  CL_CUDA(cudaGetDevice(&d));
  return d;
}

class Devices : public testing::Test {
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
};

#define SKIP_WITHOUT_TWO()                                                                                  \
  if (deviceCount() < 2)                                                                                    \
  GTEST_SKIP() << "this machine has " << deviceCount() << " CUDA device" << (deviceCount() == 1 ? "" : "s") \
               << "; the second-device test needs 2"

TEST_F(Devices, EachDeviceIsDescribedByItsOwnFacts) {
  int count = 0;
  CL_CUDA(cudaGetDeviceCount(&count));
  ASSERT_EQ(deviceCount(), count);
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    CL_CUDA(cudaGetDeviceProperties(&p, i));
    const DeviceInfo& d = deviceInfo(i);
    EXPECT_TRUE(d.available);
    EXPECT_EQ(d.index, i);
    EXPECT_EQ(d.name, p.name);
    EXPECT_EQ(d.multiprocessors, p.multiProcessorCount);
    EXPECT_EQ(d.major, p.major);
    EXPECT_EQ(d.sharedPerBlockOptin, p.sharedMemPerBlockOptin);
    EXPECT_EQ(&deviceInfo(i), &d) << "queried once per device, kept at one address";
  }
  const int before = current();
  for (int i = 0; i < count; ++i) {
    CL_CUDA(cudaSetDevice(i));
    EXPECT_EQ(&deviceInfo(), &deviceInfo(i)) << "deviceInfo() is the current device's";
  }
  CL_CUDA(cudaSetDevice(before));
  const DeviceInfo& past = deviceInfo(count);
  EXPECT_FALSE(past.available);
  EXPECT_NE(past.reason.find("this machine has " + describeDevices()), std::string::npos) << past.reason;
  const std::string start = std::to_string(count) + (count == 1 ? " CUDA device (0: " : " CUDA devices (0: ");
  EXPECT_EQ(describeDevices().rfind(start, 0), 0u) << describeDevices();
}

TEST_F(Devices, APlanOnTheSecondDeviceRunsThereAndLeavesTheCallersDevice) {
  SKIP_WITHOUT_TWO();
  CL_CUDA(cudaSetDevice(0));
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = 3;
  const int w = 131, h = 67;
  const HostImage in = randomImage(w, h);
  for (const char* variant : {"auto", "tiled-coop", "texture"}) {
    SCOPED_TRACE(variant);
    s.variant = variant;
    // Device memory on device 1, the plan made and run with device 0 current.
    DeviceImage din, dout;
    Stream stream;
    {
      const DeviceScope on1(1);
      din = DeviceImage(w, h);
      dout = DeviceImage(w, h);
      stream = Stream();
      din.upload(in.view());
      CL_CUDA(cudaMemset2D(dout.view().data, dout.pitch(), 0xa5, std::size_t(w) * 4, h));
      CL_CUDA(cudaDeviceSynchronize());
    }
    EXPECT_EQ(current(), 0);
    Plan plan = Plan::make(s, ImageDesc::rgba8(w, h), {.memory = Memory::Device, .device = 1});
    EXPECT_EQ(current(), 0) << "making the plan left device 1 current";
    plan.run(din.view(), dout.view(), stream.get());
    EXPECT_EQ(current(), 0) << "run() left device 1 current";
    Plan copy = plan;  // its own workspace, made on device 1 too
    HostImage got(w, h), again(w, h);
    {
      const DeviceScope on1(1);
      dout.download(got.view(), stream.get());
      stream.synchronize();
    }
    EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), in).view()));
    {
      const DeviceScope on1(1);
      CL_CUDA(cudaMemset2D(dout.view().data, dout.pitch(), 0x5a, std::size_t(w) * 4, h));
      CL_CUDA(cudaDeviceSynchronize());
    }
    copy.run(din.view(), dout.view(), stream.get());
    {
      const DeviceScope on1(1);
      dout.download(again.view(), stream.get());
      stream.synchronize();
    }
    EXPECT_TRUE(imagesMatch(again.view(), reference(plan.params(), in).view()));
    // The frames' pointers are device 1's: had the plan allocated its workspace or texture on device 0,
    // the launch on device 1's stream would have failed or read nothing.
    cudaPointerAttributes a{};
    CL_CUDA(cudaPointerGetAttributes(&a, din.view().data));
    EXPECT_EQ(a.device, 1);
  }
}

TEST_F(Devices, HostFramesThroughThePlansDeviceFramesOnTheSecondDevice) {
  SKIP_WITHOUT_TWO();
  CL_CUDA(cudaSetDevice(0));
  FilterSpec s;
  s.mask = "sharpen";
  s.radius = 2;
  const HostImage in = randomImage(64, 41);
  Plan plan = Plan::make(s, ImageDesc::rgba8(64, 41), {.memory = Memory::Host, .device = 1});
  ASSERT_TRUE(plan.onGpu()) << plan.variant().name;
  HostImage got(64, 41);
  std::memset(got.pixels().data(), 0xa5, got.pixels().size());
  plan.run(in.view(), got.view());
  EXPECT_EQ(current(), 0);
  EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), in).view()));
}

// auto's measurements go to the tuner of the GPU they were made on.
TEST_F(Devices, TheSharedTunerIsTheCurrentDevicesGpus) {
  const int before = current();
  for (int i = 0; i < deviceCount(); ++i) {
    CL_CUDA(cudaSetDevice(i));
    EXPECT_EQ(Tuner::shared().gpu(), deviceInfo(i).name);
    EXPECT_EQ(Tuner::shared().path(), Tuner::defaultPath(deviceInfo(i).name));
  }
  CL_CUDA(cudaSetDevice(before));
  SKIP_WITHOUT_TWO();
  CL_CUDA(cudaSetDevice(0));
  Tuner* first = &Tuner::shared();
  CL_CUDA(cudaSetDevice(1));
  Tuner* second = &Tuner::shared();
  CL_CUDA(cudaSetDevice(before));
  if (deviceInfo(0).name == deviceInfo(1).name)
    EXPECT_EQ(first, second) << "two GPUs of one kind share a tuner (one cache file, one writer)";
  else
    EXPECT_NE(first, second);
}

TEST_F(Devices, ADeviceIndexPastTheDevicesIsRefusedByThePlan) {
  Problem why;
  const Plan plan =
      Plan::make(FilterSpec{}, ImageDesc::rgba8(16, 16), {.memory = Memory::Host, .device = deviceCount()}, why);
  EXPECT_FALSE(plan);
  EXPECT_EQ(why.setting, "device");
}

}  // namespace
}  // namespace convlive
