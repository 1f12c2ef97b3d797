// The panel inspector's logic without GL or a GPU (label cpu): the inspection is recomputed only
// when the variant, tile, filter or frame size change; live filter times and compare runs go into
// one book of best times; the compare runner runs off the calling thread, reports progress, is
// dropped when the filter or the frame size changes, ranks against the best and caps the CPU
// variants' runs. A fake timer stands in for the GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "viewer/inspector.hpp"

namespace convlive {
namespace {

using namespace std::chrono_literals;

FilterSpec gaussian(int radius) {
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = radius;
  return s;
}

// Times from a table by variant name; records the runs asked; may hold a variant until released.
class FakeTimer : public VariantTimer {
 public:
  Timing time(const Variant& v, const FilterParams&, int, int, int runs) override {
    std::unique_lock lock(mutex_);
    runsAsked[v.name] = runs;
    ++calls;
    if (v.name == holdAt) {
      holding = true;
      changed_.notify_all();
      changed_.wait(lock, [&] { return !holding; });
    }
    const auto it = ms.find(v.name);
    return {true, it == ms.end() ? 1.0 : it->second, runs, {}};
  }
  void waitUntilHolding() {
    std::unique_lock lock(mutex_);
    ASSERT_TRUE(changed_.wait_for(lock, 10s, [&] { return holding; })) << "the runner never reached " << holdAt;
  }
  void release() {
    std::lock_guard lock(mutex_);
    holding = false;
    holdAt.clear();
    changed_.notify_all();
  }
  std::map<std::string, double> ms;
  std::map<std::string, int> runsAsked;
  std::string holdAt;
  bool holding = false;
  int calls = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
};

// Polls `done` on this thread for up to 10 s.
template <class F>
bool eventually(F done) {
  for (int i = 0; i < 1000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return done();
}

TEST(InspectorBook, KeepsTheBestTimeForEachKey) {
  TimingBook book;
  const RunKey a{"tiled", Tile{32, 8}, "gaussian r=2", 640, 360};
  RunKey b = a;
  b.tile = Tile{16, 16};
  book.record(a, 2.0);
  book.record(a, 1.5);
  book.record(a, 3.0);
  book.record(b, 4.0);
  book.record(b, 0.0);  // not a time
  EXPECT_EQ(book.best(a), 1.5);
  EXPECT_EQ(book.best(b), 4.0);
  RunKey other = a;
  other.width = 1280;
  book.record(other, 0.5);
  EXPECT_EQ(book.at("gaussian r=2", 640, 360).size(), 2u);
  EXPECT_EQ(book.at("gaussian r=2", 1280, 360).size(), 1u);
  EXPECT_EQ(book.at("gaussian r=2", 1280, 720).size(), 0u);
  EXPECT_EQ(book.at("gaussian r=3", 640, 360).size(), 0u);
  EXPECT_FALSE(book.best(RunKey{"naive", {}, "gaussian r=2", 640, 360}));
}

TEST(InspectorBook, TheFilterKeyLeavesOutVariantAndTile) {
  FilterSpec a = gaussian(3), b = gaussian(3);
  b.variant = "tiled";
  b.tile = Tile{32, 8};
  EXPECT_EQ(filterKey(a), filterKey(b));
  EXPECT_EQ(filterKey(a).find("variant"), std::string::npos) << filterKey(a);
  EXPECT_NE(filterKey(a), filterKey(gaussian(4)));
  FilterSpec c = a;
  c.border = Border::Wrap;
  EXPECT_NE(filterKey(a), filterKey(c));
}

TEST(InspectorLive, TheMedianOfTheFramesAfterTheChange) {
  StageStats stage("filter");
  for (int i = 0; i < 20; ++i) stage.add(9.0);  // the old settings
  LiveFilterSample live;
  live.reset(RunKey{"tiled"}, stage.count());
  EXPECT_FALSE(live.median(stage));
  for (std::uint64_t i = 0; i < LiveFilterSample::kSettle; ++i) stage.add(7.0);  // frames in flight
  for (std::uint64_t i = 0; i + 1 < LiveFilterSample::kMinSamples; ++i) stage.add(2.0);
  EXPECT_FALSE(live.median(stage)) << "a median before enough frames came";
  stage.add(3.0);
  ASSERT_TRUE(live.median(stage));
  EXPECT_EQ(*live.median(stage), 2.0);
  EXPECT_EQ(live.samples(stage), LiveFilterSample::kMinSamples);
}

struct Fixture : ::testing::Test {
  int inspected = 0;
  std::shared_ptr<FakeTimer> timer = std::make_shared<FakeTimer>();
  Inspector inspector{[this](const Variant& v, const FilterParams&, const ImageDesc& image) {
                        lastFrames = image;
                        ++inspected;
                        VariantInspection in;
                        in.variant = &v;
                        return in;
                      },
                      timer};
  ImageDesc lastFrames{};  // the frames the last inspection was for
  StageStats stage{"filter"};
  bool paused = false;
  int toggles = 0;

  InspectorInputs inputs(const FilterSpec& spec, const char* variant, Tile tile, int w, int h) {
    InspectorInputs in;
    in.spec = spec;
    in.running = findVariant(variant);
    in.tile = tile;
    in.width = in.timedWidth = w;
    in.height = in.timedHeight = h;
    in.filterStage = &stage;
    in.paused = paused;
    in.togglePause = [this] {
      ++toggles;
      paused = !paused;
    };
    return in;
  }
};

using InspectorCache = Fixture;

TEST_F(InspectorCache, RecomputedOnlyWhenASettingChanges) {
  for (int i = 0; i < 5; ++i) inspector.update(inputs(gaussian(2), "tiled", {32, 8}, 640, 360));
  EXPECT_EQ(inspected, 1) << "the same settings were inspected again";
  ASSERT_NE(inspector.inspection(), nullptr);
  EXPECT_EQ(inspector.inspection()->variant->name, "tiled");
  inspector.update(inputs(gaussian(3), "tiled", {32, 8}, 640, 360));
  EXPECT_EQ(inspected, 2) << "radius";
  inspector.update(inputs(gaussian(3), "tiled", {16, 16}, 640, 360));
  EXPECT_EQ(inspected, 3) << "tile";
  inspector.update(inputs(gaussian(3), "tiled-coop", {}, 640, 360));
  EXPECT_EQ(inspected, 4) << "variant";
  inspector.update(inputs(gaussian(3), "tiled-coop", {}, 1280, 720));
  EXPECT_EQ(inspected, 5) << "frame size";
  FilterSpec named = gaussian(3);
  named.variant = "tiled-coop";  // auto -> the same variant by name: nothing the kernels run changed
  inspector.update(inputs(named, "tiled-coop", {}, 1280, 720));
  EXPECT_EQ(inspected, 5);
  EXPECT_EQ(inspector.inspections(), 5);
}

TEST_F(InspectorCache, NoVariantYetOrABadFilterSaySo) {
  InspectorInputs in = inputs(gaussian(2), "tiled", {}, 640, 360);
  in.running = nullptr;
  inspector.update(in);
  EXPECT_EQ(inspector.inspection(), nullptr);
  EXPECT_FALSE(inspector.error().empty());
  FilterSpec bad = gaussian(2);
  bad.mask = "custom";
  bad.weights = "1,,2";
  inspector.update(inputs(bad, "tiled", {}, 640, 360));
  EXPECT_EQ(inspector.inspection(), nullptr);
  EXPECT_FALSE(inspector.error().empty());
  EXPECT_EQ(inspected, 0);
}

TEST_F(InspectorCache, LiveTimesGoIntoTheBookAndOntoTheRoofline) {
  const int w = 640, h = 360;
  inspector.update(inputs(gaussian(2), "tiled-coop", {}, w, h));
  for (int i = 0; i < 20; ++i) {
    stage.add(i < 3 ? 5.0 : 0.25);
    inspector.update(inputs(gaussian(2), "tiled-coop", {}, w, h));
  }
  ASSERT_TRUE(inspector.liveMs());
  EXPECT_DOUBLE_EQ(*inspector.liveMs(), 0.25);
  EXPECT_EQ(inspector.bestMs(), 0.25);
  std::vector<RooflinePoint> points = inspector.rooflinePoints();
  ASSERT_EQ(points.size(), 1u);
  EXPECT_TRUE(points[0].highlighted);
  EXPECT_GT(points[0].intensity, 0);
  EXPECT_GT(points[0].gflops, 0);

  // Another variant: a new live sample; the first stays in the book as an unhighlighted point.
  for (int i = 0; i < 20; ++i) {
    stage.add(0.5);
    inspector.update(inputs(gaussian(2), "separable", {}, w, h));
  }
  points = inspector.rooflinePoints();
  ASSERT_EQ(points.size(), 2u);
  int highlighted = 0;
  for (const RooflinePoint& p : points) highlighted += p.highlighted;
  EXPECT_EQ(highlighted, 1);
  // A CPU variant's time is in the book but not on the GPU's roofline.
  for (int i = 0; i < 20; ++i) {
    stage.add(20.0);
    inspector.update(inputs(gaussian(2), "cpu", {}, w, h));
  }
  EXPECT_EQ(inspector.rooflinePoints().size(), 2u);
  EXPECT_EQ(inspector.cpuTimed(), std::vector<std::string>{"cpu"});
  points = inspector.rooflinePoints(true);  // where there are no GPU roofs
  ASSERT_EQ(points.size(), 3u);
  int onCpu = 0;
  for (const RooflinePoint& p : points) onCpu += p.onCpu;
  EXPECT_EQ(onCpu, 1);
  // Another radius: other points (none yet).
  inspector.update(inputs(gaussian(3), "cpu", {}, w, h));
  EXPECT_TRUE(inspector.rooflinePoints().empty());
}

TEST_F(InspectorCache, FramesOfAnotherSizeAreNotCounted) {
  InspectorInputs in = inputs(gaussian(2), "tiled-coop", {}, 640, 360);
  in.timedWidth = 320;  // the stage still times frames of the old size
  for (int i = 0; i < 20; ++i) {
    stage.add(1.0);
    inspector.update(in);
  }
  EXPECT_FALSE(inspector.liveMs());
  EXPECT_EQ(inspector.book().size(), 0u);
}

TEST(CompareRunner, RunsOffTheCallingThreadAndRanksAgainstTheBest) {
  auto timer = std::make_shared<FakeTimer>();
  timer->ms = {{"tiled", 2.0}, {"separable", 0.5}, {"naive", 4.0}};
  CompareRunner runner(timer);
  CompareJob job;
  job.key = "k";
  job.width = 1000;
  job.height = 1000;
  job.variants = {findVariant("tiled"), findVariant("separable"), findVariant("naive")};
  timer->holdAt = "separable";
  runner.start(job);
  timer->waitUntilHolding();
  CompareState st = runner.state();  // the caller is free while a variant is timed
  EXPECT_TRUE(st.running);
  EXPECT_EQ(st.current, "separable");
  EXPECT_EQ(st.rows.size(), 1u);
  EXPECT_EQ(st.total, 3);
  timer->release();
  ASSERT_TRUE(eventually([&] { return runner.state().finished; }));
  st = runner.state();
  ASSERT_EQ(st.rows.size(), 3u);
  const std::vector<CompareLine> lines = compareLines(st.rows, job.width, job.height);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_DOUBLE_EQ(lines[1].toBest, 1.0);
  EXPECT_TRUE(lines[1].best);
  EXPECT_DOUBLE_EQ(lines[0].toBest, 4.0);
  EXPECT_DOUBLE_EQ(lines[2].toBest, 8.0);
  EXPECT_DOUBLE_EQ(lines[1].mpixPerS, 2000.0);  // 1 MPix in 0.5 ms
  EXPECT_EQ(lines[0].tile, findVariant("tiled")->tiles.front()) << "the variant's default tile";
}

TEST(CompareRunner, ANewJobOrACancelDropsTheOldResults) {
  auto timer = std::make_shared<FakeTimer>();
  CompareRunner runner(timer);
  CompareJob job;
  job.key = "old";
  job.width = job.height = 100;
  job.variants = {findVariant("tiled"), findVariant("naive")};
  timer->holdAt = "tiled";
  runner.start(job);
  timer->waitUntilHolding();
  runner.cancel();
  EXPECT_EQ(runner.state().key, "");
  timer->release();
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(runner.state().rows.empty()) << "a dropped job's result came back";
  EXPECT_FALSE(runner.state().running);

  job.key = "new";
  runner.start(job);
  ASSERT_TRUE(eventually([&] { return runner.state().finished; }));
  EXPECT_EQ(runner.state().key, "new");
  EXPECT_EQ(runner.state().rows.size(), 2u);
}

TEST(CompareRunner, ATimingThatThrowsBecomesARowThatSaysSo) {
  struct Failing : VariantTimer {
    Timing time(const Variant&, const FilterParams&, int, int, int) override {
      throw std::runtime_error("out of device memory");
    }
  };
  CompareRunner runner(std::make_shared<Failing>());
  CompareJob job;
  job.key = "k";
  job.width = job.height = 64;
  job.variants = {findVariant("tiled")};
  runner.start(job);
  ASSERT_TRUE(eventually([&] { return runner.state().finished; }));
  const auto lines = compareLines(runner.state().rows, 64, 64);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_FALSE(lines[0].measured);
  EXPECT_NE(lines[0].note.find("out of device memory"), std::string::npos) << lines[0].note;
}

TEST(CompareRunner, CpuVariantsGetFewRunsAtLargeFrames) {
  EXPECT_EQ(cpuTimingRuns(1280, 720), 1);
  EXPECT_EQ(cpuTimingRuns(3840, 2160), 1);
  EXPECT_EQ(cpuTimingRuns(640, 360), 3);
  auto timer = std::make_shared<FakeTimer>();
  CompareRunner runner(timer);
  CompareJob job;
  job.key = "k";
  job.width = 1920;
  job.height = 1080;
  job.cpuRuns = cpuTimingRuns(job.width, job.height);
  job.variants = {findVariant("tiled"), findVariant("cpu")};
  runner.start(job);
  ASSERT_TRUE(eventually([&] { return runner.state().finished; }));
  EXPECT_EQ(timer->runsAsked["tiled"], kGpuTimingRuns);
  EXPECT_EQ(timer->runsAsked["cpu"], 1);
  const auto lines = compareLines(runner.state().rows, job.width, job.height);
  EXPECT_TRUE(lines[0].note.empty());
  EXPECT_NE(lines[1].note.find("1 run"), std::string::npos) << "the table does not say the CPU run was capped";
}

using InspectorCompare = Fixture;

// A grey source's frames, filtered as they come: inspected as what they are (one channel of u16),
// under a key of their own (their times and figures are not RGBA8's); the compare table, which
// times RGBA8 frames, is refused with the reason and does not pause the video.
TEST_F(InspectorCompare, GreyFramesAreInspectedAsTheyAreAndNotCompared) {
  InspectorInputs in = inputs(gaussian(2), "tensorstream", {}, 640, 360);
  in.type = PixelType::U16;
  in.channels = 1;
  inspector.update(in);
  EXPECT_EQ(inspected, 1);
  EXPECT_EQ(lastFrames.type, PixelType::U16);
  EXPECT_EQ(lastFrames.channels, 1);
  EXPECT_EQ(lastFrames.width, 640);
  EXPECT_EQ(inspector.frames().type, PixelType::U16);
  EXPECT_NE(inspector.runKey().filter.find("(u16x1 frames)"), std::string::npos) << inspector.runKey().filter;
  EXPECT_NE(inspector.compareRefusal().find("u16x1 frames"), std::string::npos) << inspector.compareRefusal();
  inspector.requestCompare(true);
  for (int i = 0; i < 3; ++i) inspector.update(in);
  EXPECT_EQ(toggles, 0) << "the video was paused for a table that cannot be made";
  EXPECT_FALSE(inspector.compare().running);
  EXPECT_TRUE(timer->runsAsked.empty()) << "a variant was timed";
  EXPECT_EQ(inspected, 1) << "the same frames were inspected again";
  // The same source expanded to RGBA8 (another variant that takes only RGBA8): inspected again, as
  // RGBA8, and the table can be made.
  InspectorInputs rgba = inputs(gaussian(2), "tensorstream", {}, 640, 360);
  inspector.update(rgba);
  EXPECT_EQ(inspected, 2);
  EXPECT_TRUE(lastFrames.isRgba8());
  EXPECT_EQ(inspector.runKey().filter.find("frames)"), std::string::npos) << inspector.runKey().filter;
  EXPECT_EQ(inspector.compareRefusal(), "");
}

TEST_F(InspectorCompare, TimesEveryVariantThatCanRunPausingTheVideoMeanwhile) {
  InspectorInputs in = inputs(gaussian(2), "cpu", {}, 320, 200);
  inspector.update(in);
  inspector.requestCompare(true);
  in = inputs(gaussian(2), "cpu", {}, 320, 200);
  inspector.update(in);
  EXPECT_EQ(toggles, 1) << "the video was not paused";
  ASSERT_TRUE(eventually([&] {
    inspector.update(inputs(gaussian(2), "cpu", {}, 320, 200));
    return inspector.compare().finished;
  }));
  inspector.update(inputs(gaussian(2), "cpu", {}, 320, 200));
  EXPECT_EQ(toggles, 2) << "the video was not played again";
  EXPECT_FALSE(paused);
  // Every variant that can run here was timed (without a device: the CPU ones; the others listed).
  int canRun = 0;
  FilterParams p = gaussian(2).params();
  for (const Variant& v : variants()) {
    FilterParams q = p;
    q.tile = tileUsed(v, p);
    canRun += !v.whyNot(q, 320, 200);
  }
  EXPECT_EQ(int(inspector.compare().rows.size()), canRun);
  EXPECT_EQ(timer->calls, canRun);
  EXPECT_EQ(timer->runsAsked["cpu"], 3) << "a small frame: the CPU variants get 3 runs";
  // Their times are in the book.
  for (const CompareRow& r : inspector.compare().rows)
    EXPECT_TRUE(inspector.book().best(RunKey{r.variant->name, r.tile, filterKey(gaussian(2)), 320, 200}))
        << r.variant->name;
}

TEST_F(InspectorCompare, DroppedWhenTheFilterOrTheFrameSizeChanges) {
  inspector.update(inputs(gaussian(2), "cpu", {}, 320, 200));
  timer->holdAt = "cpu";
  inspector.requestCompare(false);
  inspector.update(inputs(gaussian(2), "cpu", {}, 320, 200));
  timer->waitUntilHolding();
  EXPECT_EQ(toggles, 0) << "paused although not asked to";
  EXPECT_TRUE(inspector.compare().running);
  inspector.update(inputs(gaussian(3), "cpu", {}, 320, 200));  // the radius changed
  EXPECT_FALSE(inspector.compare().running);
  EXPECT_TRUE(inspector.compare().key.empty());
  timer->release();
  for (int i = 0; i < 10; ++i) {
    std::this_thread::sleep_for(10ms);
    inspector.update(inputs(gaussian(3), "cpu", {}, 320, 200));
  }
  EXPECT_TRUE(inspector.compare().rows.empty()) << "the old filter's times came back";
  EXPECT_FALSE(inspector.book().best(RunKey{"cpu", {}, filterKey(gaussian(3)), 320, 200}));

  // The frame size, the same way.
  timer->holdAt = "cpu";
  inspector.requestCompare(false);
  inspector.update(inputs(gaussian(3), "cpu", {}, 320, 200));
  timer->waitUntilHolding();
  inspector.update(inputs(gaussian(3), "cpu", {}, 640, 400));
  EXPECT_TRUE(inspector.compare().key.empty());
  timer->release();
}

}  // namespace
}  // namespace convlive
