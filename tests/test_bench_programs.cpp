// The benchmark programs' output folders (runs the real programs; label cpu): a folder that cannot
// be made is refused before anything is timed, with the option and the path named; a missing one
// is made, and the results land in it whole. And app/bench/shares.py on a hand-made convlive.json.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

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

// app/bench/shares.py: 1080p's share of the 4K throughput, each size's best tile, back to back and
// with events; cases timed at one size only are left out, failed rows skipped, and a file with no
// case at both sizes refused with what to do.
TEST_F(BenchOutput, SharesTakeEachSizesBestTile) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 is not installed";
  const auto row = [](const char* variant, int w, int h, const char* tile, double events, double b2b,
                      const char* error = nullptr) {
    nlohmann::json r = {{"variant", variant}, {"mask", "gaussian"}, {"radius", 4},         {"width", w},
                        {"height", h},        {"tile", tile},       {"median_ms", events}, {"back_to_back_ms", b2b}};
    r["error"] = error ? nlohmann::json(error) : nlohmann::json(nullptr);
    return r;
  };
  nlohmann::json doc = {{"device", "Test GPU"}};
  doc["results"] = {row("tensorstream", 1920, 1080, "64x64", 0.010, 0.008),
                    row("tensorstream", 1920, 1080, "64x32", 0.012, 0.009),
                    row("tensorstream", 1920, 1080, "32x64", 0.001, 0.001, "refused"),  // skipped
                    row("tensorstream", 3840, 2160, "64x192", 0.032, 0.0256),
                    row("tensorstream", 3840, 2160, "64x64", 0.034, 0.0300),
                    row("stream", 3840, 2160, "32x8", 0.030, 0.025)};  // 4K only: left out
  const fs::path in = dir_ / "convlive.json", out = dir_ / "shares";
  std::ofstream(in) << doc.dump();
  const std::string script = std::string(CONVLIVE_SHARES);
  auto r = runProgram("python3", script + " --convlive " + in.string() + " --out-dir " + out.string());
  ASSERT_EQ(r.code, 0) << r.output;
  // back to back: (2.0736 MPix / 0.008) / (8.2944 / 0.0256) = 0.8; events (... / 0.010) / (... / 0.032) = 0.8
  EXPECT_NE(r.output.find("| tensorstream | gaussian | 4 | 0.0080 (64x64) | 0.0256 (64x192) | 80.0% | 0.0100 | "
                          "0.0320 | 80.0% |"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("| stream |"), std::string::npos) << r.output;
  std::ifstream csv(out / "shares.csv");
  const std::string text((std::istreambuf_iterator<char>(csv)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "variant,mask,radius,small_tile,small_b2b_ms,large_tile,large_b2b_ms,share_b2b,small_events_ms,"
            "large_events_ms,share_events")
      << text;
  EXPECT_TRUE(fs::exists(out / "shares.md"));

  r = runProgram("python3", script + " --convlive " + in.string() + " --out-dir " + out.string() + " --small 640x480");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("no case timed at both 640x480 and 3840x2160"), std::string::npos) << r.output;
  r = runProgram("python3", script + " --convlive " + (dir_ / "missing.json").string() + " --out-dir " + out.string());
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot read"), std::string::npos) << r.output;
}

}  // namespace
