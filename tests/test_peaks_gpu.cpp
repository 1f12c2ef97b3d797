// The peak kernels on a GPU (label gpu): the measured FP32 rate within a plausible range of the
// theoretical one, the mma.sync rate above 0 where the GPU has it, the device roofs all known.
// Without a device each test skips and says why.
#include <gtest/gtest.h>

#include <chrono>

#include "convlive/peaks.hpp"
#include "convlive/resources.hpp"
#include "viewer/copy_bandwidth.hpp"

namespace convlive {
namespace {

#define NEEDS_DEVICE()                                                                      \
  do {                                                                                      \
    if (!deviceInfo().available) {                                                          \
      EXPECT_EQ(measureFp32Peak().gflops, 0) << "a rate measured without a device";         \
      EXPECT_FALSE(measureFp32Peak().why.empty());                                          \
      GTEST_SKIP() << "no CUDA device (" << deviceInfo().reason << "): the peaks need one"; \
    }                                                                                       \
  } while (0)

TEST(PeaksGpu, Fp32IsAPlausibleShareOfTheTheoretical) {
  NEEDS_DEVICE();
  const DeviceInfo& d = deviceInfo();
  const auto t0 = std::chrono::steady_clock::now();
  const PeakRate r = measureFp32Peak();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double theory = theoreticalFp32GFlops(d.multiprocessors, d.clockKHz, d.major, d.minor);
  std::printf(
      "%s: FP32 %.0f GFLOP/s measured, %.0f theoretical (%d SMs x %.2f GHz x %d lanes x 2): %.0f%%; %d blocks of "
      "%d; %.1f ms\n",
      d.name.c_str(), r.gflops, theory, d.multiprocessors, d.clockKHz / 1e6, fp32LanesPerSm(d.major, d.minor),
      100 * r.gflops / theory, r.blocks, r.threadsPerBlock, seconds * 1e3);
  EXPECT_TRUE(r.why.empty()) << r.why;
  ASSERT_GT(r.gflops, 0);
  EXPECT_GT(r.gflops, 0.5 * theory) << "far below the theoretical rate: the kernel does not fill the SMs";
  EXPECT_LT(r.gflops, 1.15 * theory) << "above the theoretical rate: work was optimised away";
  EXPECT_EQ(r.blocks % d.multiprocessors, 0) << "not a whole wave";
  EXPECT_LT(seconds, 2.0) << "the measurement is meant to take a few milliseconds";
}

TEST(PeaksGpu, MatrixWhereTheGpuHasMmaSync) {
  NEEDS_DEVICE();
  const DeviceInfo& d = deviceInfo();
  const PeakRate r = measureMatrixPeak();
  if (d.major < 8) {
    EXPECT_EQ(r.gflops, 0);
    EXPECT_NE(r.why.find("8.0"), std::string::npos) << r.why;
    GTEST_SKIP() << r.why;
  }
  const PeakRate fp32 = measureFp32Peak();
  std::printf("%s: mma.sync m16n8k16 FP16->FP32 %.0f GFLOP/s (%.1fx FP32 %.0f); %d blocks of %d\n", d.name.c_str(),
              r.gflops, r.gflops / fp32.gflops, fp32.gflops, r.blocks, r.threadsPerBlock);
  EXPECT_TRUE(r.why.empty()) << r.why;
  EXPECT_GT(r.gflops, 0);
  // Data-centre parts run FP16 mma at many times their FP32 rate (the H200: ~990 TFLOP/s dense
  // through wgmma, a good part of it through mma.sync, against ~67 FP32).
  if (d.major == 9) {
    EXPECT_GT(r.gflops, 4 * fp32.gflops);
  }
  EXPECT_LT(r.gflops, 2.0e6) << "above any GPU's tensor rate: work was optimised away";
}

TEST(PeaksGpu, TheDeviceRoofsAreAllMeasured) {
  NEEDS_DEVICE();
  const DeviceRoofs& r = deviceRoofs();
  std::printf("roofs: copy %.0f GB/s, FP32 %.0f GFLOP/s, matrix %.0f GFLOP/s (%s)\n", r.copyGBs, r.fp32GFlops,
              r.matrixGFlops, deviceRoofsCachePath().c_str());
  EXPECT_GT(r.copyGBs, 0);
  EXPECT_GT(r.fp32GFlops, 0);
  if (deviceInfo().major >= 8) {
    EXPECT_GT(r.matrixGFlops, 0);
    EXPECT_TRUE(r.why.empty()) << r.why;
  }
  EXPECT_EQ(deviceCopyBandwidthGBs(), r.copyGBs);
}

}  // namespace
}  // namespace convlive
