// The tuning cache behind `auto`: entries survive a round trip through the file; a file that does
// not parse, of another version or measured on another GPU is ignored (and rewritten on the next
// store); the file is replaced whole, never left half written. Timing itself needs a GPU: see
// test_variants.cpp (AutoTuner).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "convlive/precision.hpp"
#include "convlive/resources.hpp"
#include "convlive/tuner.hpp"

using namespace convlive;
namespace fs = std::filesystem;

namespace {

class TuneCache : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("convlive-tune-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    path_ = (dir_ / "sub" / "tune.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  static TuneKey key(int r) {
    FilterParams p;
    p.filter = makeFilter("gaussian", {.radius = r});
    return TuneKey::of(p, 1920, 1080);
  }
  static TuneEntry entry() {
    TuneEntry e;
    e.variant = "stream";
    e.tile = {32, 16};
    e.ms = 0.0216;
    e.runnerUp = "tensor2d";
    e.runnerUpTile = {64, 16};
    e.runnerUpMs = 0.0259;
    return e;
  }
  void write(const std::string& text) {
    fs::create_directories(fs::path(path_).parent_path());
    std::ofstream(path_) << text;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(TuneCache, KeysNameWhatTheyMeasure) {
  EXPECT_EQ(key(4).str(), "1920x1080 gaussian r=4 separable");
  FilterParams p;
  p.filter = makeFilter("sobel", {.radius = 1});
  EXPECT_EQ(TuneKey::of(p, 64, 48).str(), "64x48 sobel r=1 separable magnitude");
  p.filter = makeFilter("emboss", {.radius = 5});  // needs fp16 high + low parts on the tensor cores
  EXPECT_EQ(TuneKey::of(p, 64, 48).str(), "64x48 emboss r=5 2D 3 terms fp16-split");
  // Masks of low rank name their terms (tensorstream runs them, at a speed that grows with the
  // count); a custom mask of full rank names none.
  p.filter = makeFilter("sharpen", {.radius = 8});
  EXPECT_EQ(TuneKey::of(p, 64, 48).str(), "64x48 sharpen r=8 2D 2 terms");
  p.filter = makeFilter("custom", {.weights = "1,2,3;4,-5,6;7,8,1.41421356"});
  EXPECT_EQ(TuneKey::of(p, 64, 48).str(), "64x48 custom r=1 2D");
  // Of integer weights, stream sums it in integers: timed apart (and a magnitude of integer ratios).
  p.filter = makeFilter("custom", {.weights = "1,2,3;4,-5,6;7,8,10"});
  EXPECT_EQ(TuneKey::of(p, 64, 48).str(), "64x48 custom r=1 2D integer-sums");
  p.filter.mask = Mask::fromFactors({1.f, 4.f, 6.f, 4.f, 1.f}, {-1.f, -2.f, 0.f, 2.f, 1.f});
  p.filter.combine = Combine::Magnitude;
  EXPECT_NE(TuneKey::of(p, 64, 48).str().find(" integer-sums"), std::string::npos) << TuneKey::of(p, 64, 48).str();
  p.filter.combine = Combine::Identity;
  // A custom mask mirror-symmetric across both axes runs stream's pairs of pixels at 3x3 and 5x5:
  // timed apart from the others of its rank.
  p.filter = makeFilter("custom", {.weights = "1,2,1;2,-12,2;1,2,1"});
  EXPECT_EQ(TuneKey::of(p, 64, 48).str(), "64x48 custom r=1 2D 2 terms mirror-symmetric");
  p.filter = makeFilter("custom", {.weights = "1,2,1;2,-12,2;2,4,2"});  // of rank 2 too, integers
  EXPECT_EQ(TuneKey::of(p, 64, 48).str(), "64x48 custom r=1 2D 2 terms integer-sums");
  // A gaussian narrow enough that stream's fp16 sums cannot keep 1 LSB (its tiny outer weights'
  // rounding): stream sums it in fp32, at another speed, so it is timed apart from the default sigma.
  p.filter = makeFilter("gaussian", {.radius = 4, .sigma = 0.3f});
  ASSERT_FALSE(planHalfSums(p.filter.mask).fits);
  EXPECT_EQ(TuneKey::of(p, 64, 48).str(), "64x48 gaussian r=4 separable fp32-sums");
  p.filter = makeFilter("gaussian", {.radius = 4});
  ASSERT_TRUE(planHalfSums(p.filter.mask).fits);
  EXPECT_EQ(TuneKey::of(p, 64, 48).str(), "64x48 gaussian r=4 separable");
  // Past stream's radii the sums' format names nothing that is timed.
  p.filter = makeFilter("gaussian", {.radius = 8, .sigma = 0.3f});
  EXPECT_EQ(TuneKey::of(p, 64, 48).str(), "64x48 gaussian r=8 separable");
}

TEST_F(TuneCache, EntriesSurviveARoundTripThroughTheFile) {
  {
    Tuner t(path_, "Test GPU");
    EXPECT_EQ(t.size(), 0u);
    EXPECT_TRUE(t.store(key(2), entry())) << t.why();
  }
  ASSERT_TRUE(fs::exists(path_));  // the folder was made too
  Tuner again(path_, "Test GPU");
  ASSERT_EQ(again.size(), 1u);
  const auto e = again.lookup(key(2));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->variant, "stream");
  EXPECT_EQ(e->tile, (Tile{32, 16}));
  EXPECT_DOUBLE_EQ(e->ms, 0.0216);
  EXPECT_EQ(e->runnerUp, "tensor2d");
  EXPECT_EQ(e->runnerUpTile, (Tile{64, 16}));
  EXPECT_FALSE(again.lookup(key(3)));
  // Replaced whole: no temporary file left beside it.
  int files = 0;
  for (const auto& f : fs::directory_iterator(fs::path(path_).parent_path())) files += f.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST_F(TuneCache, TheSumsFormatSurvivesTheFileAndKeepsEntriesApart) {
  TuneKey fp32 = key(4);
  fp32.singleSums = true;
  TuneEntry slower = entry();
  slower.ms = 0.0476;
  {
    Tuner t(path_, "Test GPU");
    ASSERT_TRUE(t.store(key(4), entry())) << t.why();
    ASSERT_TRUE(t.store(fp32, slower)) << t.why();
  }
  Tuner again(path_, "Test GPU");
  ASSERT_EQ(again.size(), 2u);
  const auto e16 = again.lookup(key(4)), e32 = again.lookup(fp32);
  ASSERT_TRUE(e16 && e32);
  EXPECT_DOUBLE_EQ(e16->ms, 0.0216);
  EXPECT_DOUBLE_EQ(e32->ms, 0.0476);
}

TEST_F(TuneCache, AFileThatDoesNotParseIsIgnoredAndRewritten) {
  write("{\"version\": 1, \"gpu\": \"Test GPU\", \"entries\": [ {\"width\": 19");
  Tuner t(path_, "Test GPU");
  EXPECT_EQ(t.size(), 0u);
  EXPECT_NE(t.why().find("does not parse"), std::string::npos) << t.why();
  EXPECT_TRUE(t.store(key(1), entry()));
  EXPECT_EQ(Tuner(path_, "Test GPU").size(), 1u);
}

TEST_F(TuneCache, AnotherGpusEntriesAreNotReused) {
  Tuner(path_, "GPU A").store(key(1), entry());
  Tuner b(path_, "GPU B");
  EXPECT_FALSE(b.lookup(key(1)));
  EXPECT_NE(b.why().find("another GPU"), std::string::npos) << b.why();
}

TEST_F(TuneCache, AnotherVersionIsIgnored) {
  Tuner(path_, "Test GPU").store(key(1), entry());
  std::ifstream in(path_);
  auto doc = nlohmann::json::parse(in);
  doc["version"] = Tuner::kVersion + 1;
  write(doc.dump());
  Tuner t(path_, "Test GPU");
  EXPECT_EQ(t.size(), 0u);
  EXPECT_NE(t.why().find("another version"), std::string::npos) << t.why();
}

TEST_F(TuneCache, EntriesNamingUnknownVariantsAreDropped) {
  Tuner(path_, "Test GPU").store(key(1), entry());
  std::ifstream in(path_);
  auto doc = nlohmann::json::parse(in);
  doc["entries"][0]["variant"] = "warp-drive";
  write(doc.dump());
  EXPECT_EQ(Tuner(path_, "Test GPU").size(), 0u);
}

TEST_F(TuneCache, AnUnwritableCacheKeepsEntriesInMemoryAndSaysWhy) {
  write("x");
  const std::string blocked = path_ + "/tune.json";  // a path below a plain file
  Tuner t(blocked, "Test GPU");
  EXPECT_FALSE(t.store(key(1), entry()));
  EXPECT_NE(t.why().find("cannot write"), std::string::npos) << t.why();
  EXPECT_TRUE(t.lookup(key(1)));
}

TEST_F(TuneCache, TheDefaultPathFollowsTheEnvironment) {
  ::setenv("CONVLIVE_TUNE_CACHE", path_.c_str(), 1);
  EXPECT_EQ(Tuner::defaultPath("NVIDIA H200"), path_);
  ::unsetenv("CONVLIVE_TUNE_CACHE");
  ::setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
  EXPECT_EQ(Tuner::defaultPath("NVIDIA H200"), (dir_ / "convlive" / "tune-NVIDIA-H200.json").string());
  ::unsetenv("XDG_CACHE_HOME");
}

TEST(AutoWithoutDevice, IsTheCpuSimdVariantAndSaysWhy) {
  if (deviceInfo().available) GTEST_SKIP() << "a CUDA device is present (" << deviceInfo().name << ")";
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = 2});
  const AutoChoice c = chooseAuto(p, 64, 48);
  ASSERT_TRUE(c.variant);
  EXPECT_EQ(c.variant->name, "cpu-simd");
  EXPECT_FALSE(c.measured);
  EXPECT_NE(c.why.find("cpu-simd variant"), std::string::npos) << c.why;
}

}  // namespace
