// The benchmark programs' output folders (runs the real programs; label cpu): a folder that cannot
// be made is refused before anything is timed, with the option and the path named; a missing one
// is made, and the results land in it whole. And app/bench/shares.py on a hand-made convlive.json;
// convlive-bench's typed mode: its lists refused before any GPU is looked for, its summary's
// arithmetic (typed_report.hpp) and app/bench/typed_table.py on hand-made rows.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../app/bench/bench_args.hpp"
#include "../app/bench/typed_report.hpp"
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

// convlive-bench with each case's arguments (after `lead`): refused, exit 2, saying why, before a
// GPU is looked for.
void expectRefusedBeforeAGpu(const std::string& lead,
                             std::initializer_list<std::pair<std::string, std::string>> argsAndWhy) {
  for (const auto& [args, why] : argsAndWhy) {
    const auto r = runProgram(CONVLIVE_BENCH_EXE, lead + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << args << ": " << r.output;
    EXPECT_EQ(r.output.find("CUDA"), std::string::npos) << "refused after looking for a GPU: " << r.output;
  }
}

// --tiles: a tile that is not WxH, or no tile of the variants timed, is refused (exit 2, naming it)
// before a GPU is looked for.
TEST_F(BenchOutput, GpuBenchRefusesTilesNoVariantTimedOffers) {
  expectRefusedBeforeAGpu("--out-dir " + (dir_ / "tiles").string() + " ",
                          {{"--tiles 64", "tile '64' is not WxH"},
                           {"--variants stream --tiles 64x192", "tile '64x192' is not a tile of the variants timed"}});
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

// --batches: a row a batch, mask and border (its frame count beside the size); a list it cannot
// read is refused before anything is timed.
TEST_F(BenchOutput, CpuBenchTimesBatchesInOneCall) {
  const fs::path out = dir_ / "batches.json";
  auto r = runProgram(CONVLIVE_CPU_BENCH_EXE, "--batches 5x9 --out " + out.string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("batch '5x9' is not NxWxH"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  r = runProgram(CONVLIVE_CPU_BENCH_EXE,
                 "--sizes 9x7 --batches 5x9x7 --radii 1 --custom-radii 1 --borders clamp --variants cpu-simd "
                 "--repeats 3 --warmup 0 --out " +
                     out.string());
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out << " is not whole JSON";
  ASSERT_EQ(doc["results"].size(), 4u) << doc.dump(1);  // the frame and the batch, gaussian and custom2d
  int batches = 0;
  for (const auto& row : doc["results"])
    if (row.contains("batch")) {
      EXPECT_EQ(row["batch"], 5);
      EXPECT_EQ(row["size"], "9x7");
      ++batches;
    }
  EXPECT_EQ(batches, 2);
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

// convlive-bench --types/--batches: a bad list, option or folder is refused (exit 2, saying what
// is wrong) before a GPU is looked for.
TEST_F(BenchOutput, TypedModeRefusesBadListsBeforeLookingForAGpu) {
  expectRefusedBeforeAGpu(
      "--out-dir " + (dir_ / "typed").string() + " ",
      {
          {"--types u8x2", "type 'u8x2' is not one of u8, u16, f16, f32 x 1, 3 or 4 channels"},
          {"--types u32x4", "type 'u32x4' is not one of"},
          {"--types u8x4 --batches 16x1920", "batch '16x1920' is not NxWxH"},
          {"--batches 0x64x64", "batch '0x64x64' is not NxWxH"},
          {"--types u8x4 --custom-radii 8,0", "custom radius '0' is not a positive integer"},
          {"--types u8x4 --custom-radii 65", "custom radius '65' is past 64"},
          {"--types u8x4 --masks sobel,nosuch", "--masks: 'nosuch' is not a built-in mask"},
          {"--types u8x4 --masks custom", "--masks: 'custom' is not a built-in mask"},
          {"--types u8x4 --repeats 5", "--repeats must be at least 20"},
          {"--types u8x4 --variants nosuch", "unknown variant 'nosuch'"},
          {"--types u8x4 --variants cpu", "variant 'cpu' runs on the CPU"},
          {"--types u8x4 --sizes 64", "size '64' is not WxH"},
          {"--types u8x4 --tiles 64", "tile '64' is not WxH"},
          {"--types u8x4 --variants stream --tiles 64x48", "tile '64x48' is not a tile of the variants timed (stream:"},
          {"--types", "--types needs a value"},
      });
  const std::string bad = (dir_ / "plain-file" / "results").string();
  const auto r = runProgram(CONVLIVE_BENCH_EXE, "--types u8x1 --out-dir " + bad);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--out-dir: '" + bad + "' is not a folder"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "typed"));  // nothing timed, so nothing made but the folder checked
}

TEST(BenchArgs, TheDeviceOptionIsTakenOutOfTheArguments) {
  std::vector<std::string> args{"convlive-bench", "--radii", "1", "--device", "1", "--sizes", "64x48"};
  std::string error;
  EXPECT_EQ(convlive::bench::takeDeviceOption(args, error), 1);
  EXPECT_EQ(error, "");
  EXPECT_EQ(args, (std::vector<std::string>{"convlive-bench", "--radii", "1", "--sizes", "64x48"}));
  args = {"convlive-bench", "--device=2", "--types", "u8x1"};
  EXPECT_EQ(convlive::bench::takeDeviceOption(args, error), 2);
  EXPECT_EQ(args, (std::vector<std::string>{"convlive-bench", "--types", "u8x1"}));
  args = {"convlive-bench", "--quick"};
  EXPECT_EQ(convlive::bench::takeDeviceOption(args, error), -1);
  EXPECT_EQ(args.size(), 2u);
  for (const auto& [bad, why] : {std::pair{"-1", "--device '-1' is not a device index"},
                                 std::pair{"one", "--device 'one' is not a device index"}}) {
    args = {"convlive-bench", "--device", bad};
    error.clear();
    EXPECT_EQ(convlive::bench::takeDeviceOption(args, error), -1);
    EXPECT_NE(error.find(why), std::string::npos) << error;
  }
  args = {"convlive-bench", "--device"};
  error.clear();
  convlive::bench::takeDeviceOption(args, error);
  EXPECT_NE(error.find("--device needs a device index"), std::string::npos) << error;
}

// A device index past the machine's devices is refused naming those there are, in both modes.
TEST_F(BenchOutput, ADevicePastTheMachinesIsRefused) {
  const std::string out = " --out-dir " + (dir_ / "r").string();
  for (const std::string args : {"--sizes 64x48 --radii 1 --device 99", "--types u8x1 --device=99"}) {
    const auto r = runProgram(CONVLIVE_BENCH_EXE, args + out);
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find("--device 99: this machine has "), std::string::npos) << args << ": " << r.output;
  }
  const auto r = runProgram(CONVLIVE_BENCH_EXE, "--device x" + out);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--device 'x' is not a device index"), std::string::npos) << r.output;
}

// The typed mode on tiny frames into `out`: its typed.json, or nullopt where there is no GPU (it
// says it needs one, exit 1, and writes nothing).
std::optional<nlohmann::json> typedRun(const std::string& args, const fs::path& out) {
  const auto r = runProgram(CONVLIVE_BENCH_EXE, args + " --repeats 20 --warmup-ms 1 --out-dir " + out.string());
  if (r.code == 1) {
    EXPECT_NE(r.output.find("the benchmark needs a CUDA device"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out / "typed.json"));
    return std::nullopt;
  }
  EXPECT_EQ(r.code, 0) << r.output;
  std::ifstream in(out / "typed.json");
  auto doc = nlohmann::json::parse(in, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.output;
  return doc;
}

// Without a GPU the typed mode says it needs one (exit 1); with one, a tiny run writes its rows.
TEST_F(BenchOutput, TypedModeNeedsAGpuOrWritesItsRows) {
  const auto doc = typedRun("--types f32x1 --sizes 64x48 --batches 2x64x48 --radii 1 --variants sweep", dir_ / "typed");
  if (!doc) GTEST_SKIP() << "no CUDA device: it said it needs one (checked); the rows need one";
  ASSERT_FALSE(HasFailure());
  // per shape: the copy, auto, sweep's 3 tiles
  ASSERT_EQ((*doc)["results"].size(), 10u) << doc->dump(1);
  for (const auto& row : (*doc)["results"])  // the copy and auto always run; a sweep tile may be refused
    if (row["variant"] != "sweep") {
      EXPECT_TRUE(row["error"].is_null()) << row.dump();
    }
  ASSERT_EQ((*doc)["summary"].size(), 2u) << (*doc)["summary"].dump(1);
  EXPECT_TRUE((*doc)["summary"][1]["share_of_single"].is_number()) << (*doc)["summary"].dump(1);
  EXPECT_TRUE(fs::exists(dir_ / "typed" / "typed.csv"));
}

// --tiles times each variant at the tiles named alone (auto as it chooses): with a GPU, sweep at
// 256x16 only.
TEST_F(BenchOutput, TypedModeTimesTheTilesNamedAlone) {
  const auto doc =
      typedRun("--types f32x1 --sizes 64x48 --radii 1 --variants sweep --tiles 256x16", dir_ / "typed-tiles");
  if (!doc) GTEST_SKIP() << "no CUDA device: it said it needs one (checked); the tiles' rows need one";
  ASSERT_FALSE(HasFailure());
  ASSERT_EQ((*doc)["results"].size(), 3u) << doc->dump(1);  // the copy, auto, sweep 256x16
  EXPECT_EQ((*doc)["results"][2]["variant"], "sweep") << doc->dump(1);
  EXPECT_EQ((*doc)["results"][2]["tile"], "256x16") << doc->dump(1);
}

TEST(TypedReport, ParsesTypesAndBatches) {
  using namespace convlive::bench;
  const auto t = parseType("u16x3");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->type, "u16");
  EXPECT_EQ(t->channels, 3);
  EXPECT_EQ(t->valueBytes(), 2);
  EXPECT_EQ(parseType("f32x4")->valueBytes(), 4);
  for (const char* bad : {"u8", "u8x", "u8x2", "u8x5", "s8x4", "f64x1", "u8x4x", "x4", "u8x04a"})
    EXPECT_FALSE(parseType(bad)) << bad;
  const auto b = parseBatch("64x256x128");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->batch, 64);
  EXPECT_EQ(b->width, 256);
  EXPECT_EQ(b->height, 128);
  EXPECT_EQ(b->str(), "64x256x128");
  for (const char* bad : {"16x1920", "16x1920x1080x2", "0x1x1", "ax1x1", "16x1920x", "x1x1", ""})
    EXPECT_FALSE(parseBatch(bad)) << bad;
  for (const auto& s : splitList(defaultTypes())) EXPECT_TRUE(parseType(s)) << s;
}

nlohmann::json typedRow(const char* variant, int batch, int w, int h, nlohmann::json radius, double ms,
                        const char* tile = "", const char* chosen = nullptr) {
  nlohmann::json r = {{"type", "f32"},    {"channels", 4},      {"width", w},   {"height", h},     {"batch", batch},
                      {"radius", radius}, {"variant", variant}, {"tile", tile}, {"median_ms", ms}, {"error", nullptr}};
  if (chosen) r["chosen"] = chosen;
  return r;
}

// The summary: the best of auto and every tile, its ratio to the copy against 1.3 for r = 1..16,
// and a batch's per-pixel throughput against the largest single frame's; the gaussian's rows only.
TEST(TypedReport, SummaryTakesTheBestRowAndComparesWithTheCopyAndTheSingleFrame) {
  using convlive::bench::summarizeTyped;
  using nlohmann::json;
  json rows = json::array();
  rows.push_back(typedRow("copy", 1, 3840, 2160, nullptr, 1.0, "16B/thread"));
  rows.push_back(typedRow("auto", 1, 3840, 2160, 4, 1.25, "256x16", "sweep 256x16"));
  rows.push_back(typedRow("sweep", 1, 3840, 2160, 4, 1.2, "256x8"));
  rows.push_back(typedRow("sweep", 1, 3840, 2160, 4, 1.4, "512x8"));
  rows.push_back(typedRow("sweep", 1, 3840, 2160, 32, 2.0, "256x8"));
  json refused = typedRow("sweep", 1, 3840, 2160, 4, 0.1, "256x16");
  refused["error"] = "refused";  // never the best
  rows.push_back(refused);
  rows.push_back(typedRow("sweep", 1, 1920, 1080, 4, 0.25, "256x8"));  // smaller: not the reference
  // 16 x 1080p = 4 x the 4K frame's pixels in 5.6 ms: (33.18 MPix / 5.6) / (8.29 / 1.2) = 0.857
  rows.push_back(typedRow("copy", 16, 1920, 1080, nullptr, 4.0, "16B/thread"));
  rows.push_back(typedRow("sweep", 16, 1920, 1080, 4, 5.6, "256x8"));
  json custom = typedRow("fft", 1, 3840, 2160, 4, 0.5, "");  // another mask: not the gaussian's best
  custom["mask"] = "custom2d";
  rows.push_back(custom);
  const json s = summarizeTyped(rows);
  ASSERT_EQ(s.size(), 4u) << s.dump(1);
  const auto find = [&](int batch, int w, int r) {
    for (const auto& row : s)
      if (row["batch"] == batch && row["width"] == w && row["radius"] == r) return row;
    ADD_FAILURE() << "no summary row " << batch << " " << w << " " << r << ": " << s.dump(1);
    return json();
  };
  const json r4 = find(1, 3840, 4);
  EXPECT_DOUBLE_EQ(r4["best_ms"].get<double>(), 1.2);
  EXPECT_EQ(r4["best_variant"], "sweep");
  EXPECT_EQ(r4["best_tile"], "256x8");
  EXPECT_DOUBLE_EQ(r4["copy_ms"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(r4["ratio_to_copy"].get<double>(), 1.2);
  EXPECT_EQ(r4["meets_ratio_target"], true);
  EXPECT_DOUBLE_EQ(r4["auto_ms"].get<double>(), 1.25);
  EXPECT_EQ(r4["auto_choice"], "sweep 256x16");
  EXPECT_NEAR(r4["mpix_s"].get<double>(), 3840.0 * 2160 / 1e3 / 1.2, 1e-6);
  EXPECT_FALSE(r4.contains("share_of_single"));
  const json r32 = find(1, 3840, 32);
  EXPECT_DOUBLE_EQ(r32["ratio_to_copy"].get<double>(), 2.0);
  EXPECT_TRUE(r32["ratio_target"].is_null());  // past r = 16: no target
  EXPECT_TRUE(r32["meets_ratio_target"].is_null());
  EXPECT_TRUE(find(1, 1920, 4)["copy_ms"].is_null());  // no copy timed at that size
  const json b = find(16, 1920, 4);
  EXPECT_NEAR(b["share_of_single"].get<double>(), (16.0 * 1920 * 1080 / 5.6) / (3840.0 * 2160 / 1.2), 1e-9);
  EXPECT_EQ(b["single_size"], "3840x2160");
  // the copy: 33.18 MPix in 4.0 ms against 8.29 MPix in 1.0 ms
  EXPECT_NEAR(b["copy_share_of_single"].get<double>(), (16.0 * 1920 * 1080 / 4.0) / (3840.0 * 2160 / 1.0), 1e-9);
  EXPECT_DOUBLE_EQ(b["share_target"].get<double>(), 0.95);
  EXPECT_EQ(b["meets_share_target"], false);
  EXPECT_DOUBLE_EQ(b["ratio_to_copy"].get<double>(), 1.4);
}

// app/bench/typed_table.py: convlive's best against the copy and NPP's best, per type and radius.
TEST_F(BenchOutput, TypedTableJoinsConvliveAndNpp) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 is not installed";
  using nlohmann::json;
  json rows = json::array();
  rows.push_back(typedRow("copy", 1, 3840, 2160, nullptr, 1.0, "16B/thread"));
  rows.push_back(typedRow("sweep", 1, 3840, 2160, 4, 1.2, "256x8"));
  rows.push_back(typedRow("copy", 64, 256, 256, nullptr, 0.6, "16B/thread"));
  rows.push_back(typedRow("sweep", 64, 256, 256, 4, 0.7, "512x8"));
  const json typed = {{"results", rows}, {"summary", convlive::bench::summarizeTyped(rows)}};
  const auto nppRow = [](const char* impl, double ms, const char* type = "f32x4") {
    return json{{"impl", impl}, {"convlive_type", type}, {"width", 3840},   {"height", 2160},
                {"radius", 4},  {"median_ms", ms},       {"error", nullptr}};
  };
  const json npp = {{"results",
                     {nppRow("npp/FilterRow+ColumnBorder32f", 3.6), nppRow("npp/FilterGaussBorder", 3.0),
                      nppRow("npp/FilterGaussBorder", 0.5, "u8x4")}}};
  std::ofstream(dir_ / "typed.json") << typed.dump();
  std::ofstream(dir_ / "npp.json") << npp.dump();
  const std::string script = (fs::path(CONVLIVE_SHARES).parent_path() / "typed_table.py").string();
  const auto r = runProgram("python3", script + " --typed " + (dir_ / "typed.json").string() + " --npp " +
                                           (dir_ / "npp.json").string() + " --out " + (dir_ / "typed.md").string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("| f32x4 | 3840x2160 | 4 | 1.0000 | 1.2000 | sweep 256x8 | 1.20 | 3.0000 | "
                          "npp/FilterGaussBorder | 2.50 |"),
            std::string::npos)
      << r.output;
  // 64 x 256x256 = 4.19 MPix in 0.7 ms against 8.29 MPix in 1.2 ms: 86.7%, above the 80% target
  // the copy's own share: 4.19 MPix in 0.6 ms against 8.29 MPix in 1.0 ms, 84.3%
  EXPECT_NE(r.output.find("| f32x4 | 64x256x256 | 4 | 0.7000 | sweep 512x8 | 5992 | 1.17 | 86.7% | 80% | 84.3% |"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "typed.md"));
}

// app/bench/cpu_typed_peers.py: its options are checked before anything is imported or timed.
TEST_F(BenchOutput, CpuTypedPeersRefusesBadOptionsFirst) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 is not installed";
  const std::string script = (fs::path(CONVLIVE_SHARES).parent_path() / "cpu_typed_peers.py").string();
  auto r = runProgram("python3", script + " --size 1280by720");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("--size '1280by720' is not WxH"), std::string::npos) << r.output;
  r = runProgram("python3", script + " --repeats 2");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("--repeats at least 5"), std::string::npos) << r.output;
}

}  // namespace
