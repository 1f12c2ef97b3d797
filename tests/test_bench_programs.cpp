// The benchmark programs' output folders (runs the real programs; label cpu): a folder that cannot
// be made is refused before anything is timed, with the option and the path named; a missing one
// is made, and the results land in it whole. And app/bench/ab-round.sh, the GPU machine's A/B, run
// here with a stand-in benchmark.
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

// ab-round.sh with a stand-in for convlive-bench (a script that writes a convlive.json whose median
// is its FAKE_MS knob): each build's knobs reach its runs, the table compares them with the first
// build, a bad command or a missing program is named, and a failed run makes the exit status 1.
class AbRound : public BenchOutput {
 protected:
  void SetUp() override {
    BenchOutput::SetUp();
    if (std::system("command -v xz >/dev/null 2>&1") != 0) GTEST_SKIP() << "xz is not installed (./run.sh installs it)";
    const fs::path fake = dir_ / "fake-bench";
    std::ofstream(fake) << R"(#!/bin/sh
out=""; while [ $# -gt 0 ]; do [ "$1" = --out-dir ] && out=$2; shift; done
[ -n "$FAKE_FAIL" ] && { echo "fake-bench: told to fail"; exit 1; }
[ -n "$ORDER_LOG" ] && echo "${FAKE_MS:-1.0}" >> "$ORDER_LOG"
mkdir -p "$out" && printf '{"results":[{"variant":"stream","width":64,"height":48,"mask":"gaussian","radius":1,"tile":"32x8","median_ms":%s,"error":null}]}' "${FAKE_MS:-1.0}" > "$out/convlive.json"
)";
    fs::create_directories(dir_ / "bins");
    ASSERT_EQ(std::system(("xz -c " + fake.string() + " > " + (dir_ / "bins" / "fake-bench.xz").string()).c_str()), 0);
  }
  convlive::testing::ProgramResult run(const std::string& args) {
    return runProgram(CONVLIVE_AB_ROUND, args,
                      "BINS=" + (dir_ / "bins").string() + " OUT=" + (dir_ / "out").string() +
                          " ORDER_LOG=" + (dir_ / "order.log").string());
  }
};

TEST_F(AbRound, ComparesEachBuildWithTheFirstUnderItsKnobs) {
  const auto r = run("--variants stream --rounds 2 head=fake-bench new=fake-bench@FAKE_MS=0.5,UNUSED=1");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(dir_ / "out" / "ab-stream.txt");
  const std::string table((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(table.find("head-1 | new-1 | head-2 | new-2 | new/head"), std::string::npos) << table;
  // Rounds interleave the builds; the last column is new over head.
  EXPECT_NE(table.find("64x48 gaussian r=1 | 1.0000 32x8 | 0.5000 32x8 | 1.0000 32x8 | 0.5000 32x8 | 0.500"),
            std::string::npos)
      << table;
  // The second round ran them in reverse (no build always runs second), the table in the order given.
  std::ifstream order(dir_ / "order.log");
  const std::string ran((std::istreambuf_iterator<char>(order)), std::istreambuf_iterator<char>());
  EXPECT_EQ(ran, "1.0\n0.5\n0.5\n1.0\n");
}

TEST_F(AbRound, NamesABadCommandAMissingProgramAndAFailedRun) {
  auto r = run("");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("name at least one build"), std::string::npos) << r.output;
  r = run("--frobnicate 1 head=fake-bench");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown option --frobnicate"), std::string::npos) << r.output;
  r = run("head=no-such-bench");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot unpack"), std::string::npos) << r.output;
  r = run("--rounds 1 head=fake-bench new=fake-bench@FAKE_FAIL=1");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("bench new-1 failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fake-bench: told to fail"), std::string::npos) << r.output;
}

// --tests-env sets the environment of the tests (a build's knob), not of the benchmark runs.
TEST_F(AbRound, RunsItsTestsUnderTheirKnobs) {
  const fs::path tests = dir_ / "fake-tests";
  std::ofstream(tests) << "#!/bin/sh\necho \"[  PASSED  ] 1 test. knob=$TEST_KNOB other=$OTHER_KNOB\"\n";
  ASSERT_EQ(std::system(("xz -c " + tests.string() + " > " + (dir_ / "bins" / "fake-tests.xz").string()).c_str()), 0);
  const auto r =
      run("--variants stream --rounds 1 --tests fake-tests --filter 'X.*' --tests-env TEST_KNOB=7,OTHER_KNOB=x "
          "head=fake-bench");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(dir_ / "out" / "tests.log");
  const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(log.find("=== fake-tests --gtest_filter=X.* under TEST_KNOB=7,OTHER_KNOB=x"), std::string::npos) << log;
  EXPECT_NE(log.find("[  PASSED  ] 1 test. knob=7 other=x\nrc=0"), std::string::npos) << log;
}

// verify-round.sh with stand-ins for the test programs and compute-sanitizer (scripts that print a
// gtest summary and exit with their FAKE_*_RC knobs): the log gathers each summary and exit status,
// a failed test or sanitizer makes the exit status 1 and is named, and a missing program is named.
class VerifyRound : public BenchOutput {
 protected:
  void SetUp() override {
    BenchOutput::SetUp();
    if (std::system("command -v xz >/dev/null 2>&1") != 0) GTEST_SKIP() << "xz is not installed (./run.sh installs it)";
    fs::create_directories(dir_ / "bins");
    const auto stand = [&](const std::string& name, const std::string& body) {
      const fs::path f = dir_ / name;
      std::ofstream(f) << "#!/bin/sh\n" << body << "\n";
      ASSERT_EQ(std::system(("xz -c " + f.string() + " > " + (dir_ / "bins" / (name + ".xz")).string()).c_str()), 0);
    };
    stand("convlive_tests_gpu", R"(echo "[  PASSED  ] 3 tests."; exit ${FAKE_TESTS_RC:-0})");
    stand("convlive_tests_inspect_gpu", R"(echo "[  PASSED  ] 4 tests.")");
    stand("convlive-bench", "exit 0");
    const fs::path sanitizer = dir_ / "fake-sanitizer";
    std::ofstream(sanitizer) << "#!/bin/sh\necho \"========= ERROR SUMMARY: 0 errors ($2)\"\nexit ${FAKE_SAN_RC:-0}\n";
    fs::permissions(sanitizer, fs::perms::owner_all);
    sanitizer_ = sanitizer.string();
  }
  convlive::testing::ProgramResult run(const std::string& env) {
    return runProgram(CONVLIVE_VERIFY_ROUND, "",
                      "BINS=" + (dir_ / "bins").string() + " OUT=" + (dir_ / "out").string() +
                          " STEPS='tests sanitize' SANITIZER=" + sanitizer_ + " " + env);
  }
  std::string log() const {
    std::ifstream in(dir_ / "out" / "tests-final.log");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  std::string sanitizer_;
};

TEST_F(VerifyRound, GathersEveryTestAndSanitizerSummary) {
  const auto r = run("");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string l = log();
  EXPECT_NE(l.find("=== convlive_tests_gpu (all)\n[  PASSED  ] 3 tests.\nrc=0"), std::string::npos) << l;
  EXPECT_NE(l.find("[  PASSED  ] 4 tests."), std::string::npos) << l;
  EXPECT_NE(l.find("ERROR SUMMARY: 0 errors (memcheck)"), std::string::npos) << l;
  EXPECT_NE(l.find("racecheck rc=0"), std::string::npos) << l;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "final.tar.xz"));
}

TEST_F(VerifyRound, AFailedTestOrSanitizerOrAMissingProgramFailsTheRound) {
  auto r = run("FAKE_TESTS_RC=1");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(log().find("[  PASSED  ] 3 tests.\nrc=1"), std::string::npos) << log();
  EXPECT_NE(r.output.find("a test or sanitizer failed"), std::string::npos) << r.output;
  r = run("FAKE_SAN_RC=9");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(log().find("memcheck rc=9"), std::string::npos) << log();
  fs::remove(dir_ / "bins" / "convlive-bench.xz");
  r = run("");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot unpack"), std::string::npos) << r.output;
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
