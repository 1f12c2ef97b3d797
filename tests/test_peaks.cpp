// The device roofs' cache and the peak arithmetic (label cpu): each figure measured once per GPU
// and kept, figures of other peak kernels measured again, failures unknown and not stored.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "convlive/peaks.hpp"
#include "viewer/copy_bandwidth.hpp"

namespace convlive {
namespace {

namespace fs = std::filesystem;

struct Counted {
  int copy = 0, fp32 = 0, matrix = 0;
  RoofMeasures measures() {
    RoofMeasures m;
    m.copyGBs = [this] { return ++copy, 4000.0; };
    m.fp32GFlops = [this] { return ++fp32, 60000.0; };
    m.matrixGFlops = [this] { return ++matrix, 600000.0; };
    return m;
  }
};

class RoofsCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("convlive-roofs-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    path = (dir / "device-roofs.json").string();
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
  std::string path;
};

TEST_F(RoofsCache, MeasuredOncePerGpuThenRead) {
  Counted c;
  DeviceRoofs r = cachedDeviceRoofs(path, "GPU A", c.measures());
  EXPECT_EQ(r.copyGBs, 4000.0);
  EXPECT_EQ(r.fp32GFlops, 60000.0);
  EXPECT_EQ(r.matrixGFlops, 600000.0);
  EXPECT_EQ(r.why, "");
  r = cachedDeviceRoofs(path, "GPU A", c.measures());
  EXPECT_EQ(r.fp32GFlops, 60000.0);
  EXPECT_EQ(c.copy + c.fp32 + c.matrix, 3) << "measured again although cached";
  // Another GPU: its own entry, the first one kept.
  Counted other;
  EXPECT_EQ(cachedDeviceRoofs(path, "GPU B", other.measures()).copyGBs, 4000.0);
  EXPECT_EQ(other.copy, 1);
  EXPECT_EQ(cachedDeviceRoofs(path, "GPU A", RoofMeasures{}).matrixGFlops, 600000.0);
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename(), "device-roofs.json") << "a temporary file was left: " << e.path();
}

TEST_F(RoofsCache, FailuresAreUnknownAndNotStored) {
  RoofMeasures m;
  m.copyGBs = [] { return 3000.0; };
  m.fp32GFlops = []() -> double { throw std::runtime_error("cudaErrorLaunchFailure"); };
  m.matrixGFlops = [] { return 0.0; };  // before compute capability 8.0
  m.whyMatrixUnknown = [] { return std::string("needs compute capability 8.0"); };
  DeviceRoofs r = cachedDeviceRoofs(path, "Old GPU", m);
  EXPECT_EQ(r.copyGBs, 3000.0);
  EXPECT_EQ(r.fp32GFlops, 0.0);
  EXPECT_EQ(r.matrixGFlops, 0.0);
  EXPECT_FALSE(r.why.empty());
  Counted c;
  r = cachedDeviceRoofs(path, "Old GPU", c.measures());
  EXPECT_EQ(c.copy, 0) << "the copy figure was cached";
  EXPECT_EQ(c.fp32, 1) << "the failed figure was not measured again";
  EXPECT_EQ(c.matrix, 1);
  // Without a matrix figure, the reason comes from the measure.
  m.fp32GFlops = [] { return 9000.0; };
  r = cachedDeviceRoofs((dir / "other.json").string(), "Old GPU", m);
  EXPECT_EQ(r.why, "needs compute capability 8.0");
}

TEST_F(RoofsCache, PeaksOfOtherKernelsAreMeasuredAgainTheCopyFigureKept) {
  fs::create_directories(dir);
  nlohmann::json doc = {{"version", 1},
                        {"gpus",
                         {{"GPU A",
                           {{"copy_gbs", 4100.0},
                            {"fp32_gflops", 1.0},
                            {"matrix_gflops", 2.0},
                            {"peak_kernels", kPeakKernelsVersion - 1}}}}}};
  std::ofstream(path) << doc.dump();
  Counted c;
  const DeviceRoofs r = cachedDeviceRoofs(path, "GPU A", c.measures());
  EXPECT_EQ(c.copy, 0);
  EXPECT_EQ(r.copyGBs, 4100.0);
  EXPECT_EQ(c.fp32, 1);
  EXPECT_EQ(r.fp32GFlops, 60000.0);
  EXPECT_EQ(r.matrixGFlops, 600000.0);
  std::ifstream in(path);
  const auto stored = nlohmann::json::parse(in);
  EXPECT_EQ(stored["gpus"]["GPU A"]["peak_kernels"], kPeakKernelsVersion);
}

TEST_F(RoofsCache, TheCopyBandwidthCallKeepsThePeaks) {
  Counted c;
  cachedDeviceRoofs(path, "GPU A", c.measures());
  int calls = 0;
  EXPECT_EQ(cachedCopyBandwidthGBs(path, "GPU A", [&] { return ++calls, 1.0; }), 4000.0);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(cachedDeviceRoofs(path, "GPU A", RoofMeasures{}).fp32GFlops, 60000.0);
}

TEST(Peaks, TheoreticalFp32IsSmsTimesClockTimesLanesTimesTwo) {
  EXPECT_EQ(fp32LanesPerSm(9, 0), 128);
  EXPECT_EQ(fp32LanesPerSm(8, 9), 128);
  EXPECT_EQ(fp32LanesPerSm(8, 6), 128);
  EXPECT_EQ(fp32LanesPerSm(8, 0), 64);
  EXPECT_EQ(fp32LanesPerSm(7, 5), 64);
  EXPECT_EQ(fp32LanesPerSm(0, 0), 0);
  // The H200: 132 SMs at 1.98 GHz.
  EXPECT_NEAR(theoreticalFp32GFlops(132, 1980000, 9, 0), 66908.16, 0.01);
  EXPECT_EQ(theoreticalFp32GFlops(0, 1980000, 9, 0), 0);
  // What a kernel launch counts.
  EXPECT_EQ(peak_kernels::fmaFlopsPerThread(1), 2.0 * peak_kernels::kFmaChains * peak_kernels::kFmaUnroll);
  EXPECT_EQ(peak_kernels::mmaFlopsPerWarp(1), 2.0 * 16 * 8 * 16 * peak_kernels::kMmaChains);
}

}  // namespace
}  // namespace convlive
