// The benchmark programs' output folders (runs the real programs; label cpu): a folder that cannot
// be made is refused before anything is timed, with the option and the path named; a missing one
// is made, and the results land in it whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "run_program.hpp"

namespace fs = std::filesystem;
using convlive::testing::runProgram;

namespace {

class BenchOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("convlive-bench-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "plain-file") << "not a folder\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(BenchOutput, GpuBenchRefusesAnOutDirThatCannotBeMadeBeforeTiming) {
  const std::string bad = (dir_ / "plain-file" / "results").string();
  const auto r = runProgram(CONVLIVE_BENCH_EXE, "--sizes 64x48 --radii 1 --out-dir " + bad);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--out-dir: '" + bad + "' is not a folder and cannot be made one"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("CUDA"), std::string::npos) << "refused after looking for a GPU: " << r.output;
  EXPECT_FALSE(fs::exists(bad));
}

TEST_F(BenchOutput, CpuBenchRefusesOutputFoldersThatCannotBeMade) {
  const std::string bad = (dir_ / "plain-file" / "sub").string();
  auto r = runProgram(CONVLIVE_CPU_BENCH_EXE, "--out " + bad + "/cpu.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--out: '" + bad + "' is not a folder"), std::string::npos) << r.output;
  r = runProgram(CONVLIVE_CPU_BENCH_EXE, "--out " + (dir_ / "cpu.json").string() + " --frames-dir " + bad);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--frames-dir: '" + bad + "' is not a folder"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "cpu.json"));
}

TEST_F(BenchOutput, CpuBenchMakesMissingFoldersAndWritesItsResultsWhole) {
  const fs::path out = dir_ / "new" / "nested" / "cpu.json", frames = dir_ / "frames" / "here";
  const auto r = runProgram(CONVLIVE_CPU_BENCH_EXE,
                            "--sizes 33x17 --radii 1 --custom-radii 1 --borders clamp --variants cpu-simd "
                            "--repeats 3 --warmup 0 --out " +
                                out.string() + " --frames-dir " + frames.string());
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out << " is not whole JSON";
  ASSERT_EQ(doc["results"].size(), 2u) << doc.dump(1);  // gaussian and custom2d, one border, one variant
  for (const auto& row : doc["results"]) {
    EXPECT_EQ(row["size"], "33x17");
    EXPECT_GT(row["median_ms"].get<double>(), 0.0);
  }
  EXPECT_TRUE(fs::exists(frames / "masks.json"));
  EXPECT_EQ(fs::file_size(frames / "frame-33x17.rgba"), 33u * 17 * 4);
  for (const auto& e : fs::recursive_directory_iterator(dir_))
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << "a temporary was left: " << e.path();
}

}  // namespace
