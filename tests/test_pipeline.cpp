// The pipeline end to end: sources, the slot ring, controls between frames, timings and export.
// Built twice: with the cpu variant (label cpu, runs anywhere) and with the GPU variants (label
// gpu, skips with the reason where there is no CUDA device). Every delivered frame is compared
// with the reference filter of the very source frame it came from.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "convlive/export.hpp"
#include "convlive/resources.hpp"
#include "pipeline_fixture.hpp"

using namespace convlive;
using namespace convlive::testing;
using namespace std::chrono_literals;

namespace {

FilterParams gaussian(int r, Border b = Border::Clamp) {
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = r});
  p.border = b;
  return p;
}

PipelineConfig config(SourceSpec src, FilterParams p = gaussian(2)) { return testConfig(std::move(src), std::move(p)); }

// The frames of a file decoded again, unfiltered (a 1x1 mask of weight 1 is the identity), on the
// cpu variant.
std::vector<Captured> decodedFrames(const std::string& path) {
  FilterParams identity;
  identity.filter = makeFilter("custom", {.weights = "1"});
  CaptureSink back;
  PipelineConfig c = config(SourceSpec::file(path), identity);
  c.variant = "cpu";
  Pipeline p(c, back);
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream) << path;
  return std::move(back.frames);
}

SourceSpec pattern(int frames, int w = 67, int h = 45, const char* kind = "moving") {
  SourceSpec s = SourceSpec::testPattern(kind, w, h, 30);
  s.frames = frames;
  return s;
}

void expectAllMatch(const std::vector<Captured>& frames, const FilterParams& p, std::uint64_t from = 0) {
  for (const Captured& c : frames)
    if (c.index >= from) {
      ASSERT_LE(maxErrorAgainstReference(p, c.source, c.filtered), 1) << "frame " << c.index;
    }
}

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kGpu && !deviceInfo().available) GTEST_SKIP() << "no CUDA device: " << deviceInfo().reason;
  }
};

TEST_F(PipelineTest, PatternDeliversEveryFrameInOrderThenEnds) {
  CaptureSink sink;
  Pipeline p(config(pattern(12)), sink);
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
  ASSERT_EQ(sink.frames.size(), 12u);
  for (std::size_t i = 0; i < sink.frames.size(); ++i) {
    EXPECT_EQ(sink.frames[i].index, i);
    EXPECT_EQ(sink.frames[i].filtered.width(), 67);
    EXPECT_EQ(sink.frames[i].filtered.height(), 45);
  }
  expectAllMatch(sink.frames, gaussian(2));
  EXPECT_EQ(p.sourceInfo().nativeFormat, "RGBA");
  EXPECT_DOUBLE_EQ(p.sourceInfo().fps, 30.0);
  if (kGpu) {
    EXPECT_EQ(p.memoryMode(), "pinned");
  } else {
    EXPECT_EQ(p.memoryMode(),
              deviceInfo().available ? "pageable (CPU variant)" : "pageable (no CUDA device: CPU variant)");
  }
}

TEST_F(PipelineTest, EveryGpuVariantMatchesTheReferenceThroughThePipeline) {
  if (!kGpu) GTEST_SKIP() << "the cpu build runs only the cpu variant (the gpu build covers the others)";
  for (const Variant& v : variants()) {
    if (!v.onGpu) continue;
    for (Border b : {Border::Zero, Border::Mirror}) {
      const FilterParams fp = gaussian(3, b);
      PipelineConfig c = config(pattern(5, 131, 77), fp);
      c.variant = v.name;
      CaptureSink sink;
      Pipeline p(c, sink);
      ASSERT_EQ(runToEnd(p), StepResult::EndOfStream) << p.lastError();
      ASSERT_EQ(sink.frames.size(), 5u) << v.name;
      EXPECT_EQ(p.variantName(), v.name);
      expectAllMatch(sink.frames, fp);
    }
  }
}

TEST_F(PipelineTest, PageableAndSerialModesGiveTheSameFrames) {
  for (bool pinned : {true, false})
    for (bool overlap : {true, false}) {
      PipelineConfig c = config(pattern(6));
      c.pinned = pinned;
      c.overlap = overlap;
      c.slots = 2;
      CaptureSink sink;
      Pipeline p(c, sink);
      ASSERT_EQ(runToEnd(p), StepResult::EndOfStream);
      ASSERT_EQ(sink.frames.size(), 6u);
      expectAllMatch(sink.frames, gaussian(2));
      if (kGpu) {
        EXPECT_EQ(p.memoryMode(), pinned ? "pinned" : "pageable");
      }
    }
}

TEST_F(PipelineTest, LargeFramesUploadStraightFromRegisteredSourceMemory) {
  for (bool registered : {true, false}) {
    PipelineConfig c = config(pattern(6, 801, 601));  // 1.9 MB frames: worth registering
    c.registerSourceMemory = registered;
    CaptureSink sink;
    Pipeline p(c, sink);
    ASSERT_EQ(runToEnd(p), StepResult::EndOfStream);
    ASSERT_EQ(sink.frames.size(), 6u);
    expectAllMatch(sink.frames, gaussian(2));
    const Timings t = p.timings();
    EXPECT_EQ(t.directUploads, kGpu && registered ? 6u : 0u);
    if (kGpu && registered) {
      EXPECT_EQ(t[Stage::HostCopy].peak(), 0.0) << "no frame was copied on the host";
      // Each pooled buffer is page-locked once: fewer locks than frames once the pool recycles.
      EXPECT_GE(t.pageLocks, 1u);
      EXPECT_LE(t.pageLocks, 6u);
      EXPECT_GT(t.pageLockMs, 0.0);
    } else if (kGpu) {
      EXPECT_GT(t[Stage::HostCopy].average(), 0.0);
    }
    if (!kGpu || !registered) {
      EXPECT_EQ(t.pageLocks, 0u);
    }
  }
}

TEST_F(PipelineTest, WebmAndAviFilesDecodeToTheEnd) {
  for (const char* name : {"ball.webm", "ball.avi"}) {
    const std::string file = generatedVideo(name, 20);
    CaptureSink sink;
    Pipeline p(config(SourceSpec::file(file)), sink);
    EXPECT_EQ(runToEnd(p), StepResult::EndOfStream) << name << ": " << p.lastError();
    EXPECT_EQ(sink.frames.size(), 20u) << name;
    expectAllMatch(sink.frames, gaussian(2));
    const SourceInfo info = p.sourceInfo();
    EXPECT_EQ(info.nativeWidth, 96) << name;
    EXPECT_EQ(info.nativeHeight, 64) << name;
    EXPECT_FALSE(info.nativeFormat.empty());
    EXPECT_NEAR(info.durationSeconds, 20 / 30.0, 0.05) << name;
    EXPECT_TRUE(info.seekable) << name;
  }
}

TEST_F(PipelineTest, UriSourceReadsAFileUri) {
  const std::string file = generatedVideo("ball.webm", 20);
  CaptureSink sink;
  Pipeline p(config(SourceSpec::input("file://" + file)), sink);
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
  EXPECT_EQ(sink.frames.size(), 20u);
}

TEST_F(PipelineTest, LoopStartsAgainAtTheEnd) {
  const std::string file = generatedVideo("ball.webm", 20);
  PipelineConfig c = config(SourceSpec::file(file));
  c.loop = true;
  CaptureSink sink;
  Pipeline p(c, sink);
  for (int i = 0; i < 400 && sink.frames.size() < 50; ++i) ASSERT_NE(p.step(200ms), StepResult::EndOfStream);
  p.drain();
  ASSERT_GE(sink.frames.size(), 50u);
  // The timestamps go back to the start at least twice.
  int restarts = 0;
  for (std::size_t i = 1; i < sink.frames.size(); ++i) restarts += sink.frames[i].pts < sink.frames[i - 1].pts;
  EXPECT_GE(restarts, 2);
  expectAllMatch(sink.frames, gaussian(2));
}

TEST_F(PipelineTest, SeekLandsOnTheAskedTime) {
  const std::string file = generatedVideo("ball.webm", 20);
  CaptureSink sink;
  Pipeline p(config(SourceSpec::file(file)), sink);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(p.step(1000ms), StepResult::Frame);
  p.seek(0.4);
  const StepResult r = nextFrame(p);
  ASSERT_EQ(r, StepResult::Frame);
  p.drain();
  ASSERT_GE(sink.frames.size(), 4u);
  const double t = sink.frames.back().pts / 1e9;
  EXPECT_NEAR(t, 0.4, 0.5 / 30) << "first frame after the seek";
  EXPECT_NEAR(p.positionSeconds(), 0.4, 0.5 / 30);
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
  std::string pts;
  for (const Captured& c : sink.frames) pts += std::to_string(c.pts / 1'000'000) + " ";
  EXPECT_EQ(sink.frames.size(), 3u + (20 - 12)) << "frames 12..19 after the seek; got pts (ms) " << pts;
}

TEST_F(PipelineTest, PauseStopsFramesAndResumeContinues) {
  CaptureSink sink;
  Pipeline p(config(pattern(-1)), sink);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(p.step(1000ms), StepResult::Frame);
  p.setPaused(true);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(p.step(10ms), StepResult::Paused);
  EXPECT_TRUE(p.paused());
  EXPECT_EQ(p.framesIn(), 3u);
  p.setPaused(false);
  const StepResult r = nextFrame(p);
  EXPECT_EQ(r, StepResult::Frame);
  p.drain();
  ASSERT_EQ(sink.frames.size(), 4u);
  // Nothing was skipped: the stream goes on at the frame after the last one before the pause.
  EXPECT_NEAR(sink.frames[3].pts - sink.frames[2].pts, sink.frames[2].pts - sink.frames[1].pts, 1000);
}

TEST_F(PipelineTest, ResolutionChangeMidStreamReallocatesAndGoesOn) {
  const std::string line =
      "concat name=c ! videoconvert ! appsink name=sink "
      "videotestsrc num-buffers=4 pattern=ball ! video/x-raw,width=64,height=48 ! c. "
      "videotestsrc num-buffers=4 pattern=smpte ! video/x-raw,width=101,height=37 ! c. "
      "videotestsrc num-buffers=4 pattern=ball ! video/x-raw,width=64,height=48 ! c.";
  CaptureSink sink;
  Pipeline p(config(SourceSpec::launch(line)), sink);
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream) << p.lastError();
  ASSERT_EQ(sink.frames.size(), 12u);
  EXPECT_EQ(sink.frames[3].filtered.width(), 64);
  EXPECT_EQ(sink.frames[4].filtered.width(), 101);
  EXPECT_EQ(sink.frames[7].filtered.height(), 37);
  EXPECT_EQ(sink.frames[8].filtered.width(), 64);
  expectAllMatch(sink.frames, gaussian(2));
}

TEST_F(PipelineTest, FilterChangesTakeEffectOnTheNextFrame) {
  CaptureSink sink;
  Pipeline p(config(pattern(12)), sink);
  for (int i = 0; i < 4; ++i) ASSERT_EQ(p.step(1000ms), StepResult::Frame);
  FilterParams sharp;
  sharp.filter = makeFilter("sharpen", {.radius = 2});
  sharp.border = Border::Mirror;
  const std::uint64_t from = p.framesIn();
  ASSERT_EQ(p.setFilter(kGpu ? "tiled-coop" : "cpu", sharp), "");
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
  ASSERT_EQ(sink.frames.size(), 12u);
  for (const Captured& c : sink.frames) {
    const FilterParams& want = c.index < from ? gaussian(2) : sharp;
    ASSERT_LE(maxErrorAgainstReference(want, c.source, c.filtered), 1)
        << "frame " << c.index << " (the change came before frame " << from << "); error against the old filter "
        << maxErrorAgainstReference(gaussian(2), c.source, c.filtered) << ", the new "
        << maxErrorAgainstReference(sharp, c.source, c.filtered) << "; frames delivered " << sink.frames.size();
  }
  EXPECT_EQ(p.variantName(), kGpu ? "tiled-coop" : "cpu");
}

TEST_F(PipelineTest, SwitchingBetweenCpuAndGpuVariantsKeepsEveryFrameInOrder) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device: only the cpu variant runs here";
  CaptureSink sink;
  Pipeline p(config(pattern(16)), sink);
  const char* order[] = {"cpu", "fused", "cpu", "naive"};
  for (int phase = 0; phase < 4; ++phase) {  // each phase its own variant and radius
    ASSERT_EQ(p.setFilter(order[phase], gaussian(phase + 1)), "") << order[phase];
    for (int i = 0; i < 4; ++i) ASSERT_EQ(p.step(1000ms), StepResult::Frame);
    EXPECT_EQ(p.variantName(), order[phase]);
  }
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
  ASSERT_EQ(sink.frames.size(), 16u);
  for (std::size_t i = 0; i < sink.frames.size(); ++i) {
    EXPECT_EQ(sink.frames[i].index, i);
    ASSERT_LE(maxErrorAgainstReference(gaussian(int(i / 4) + 1), sink.frames[i].source, sink.frames[i].filtered), 1)
        << "frame " << i << " (variant " << order[i / 4] << ")";
  }
}

TEST_F(PipelineTest, FilterChangesThatCannotRunAreRefusedWithTheReason) {
  NullSink sink;
  Pipeline p(config(pattern(3)), sink);
  EXPECT_NE(p.setFilter("no-such-variant", gaussian(1)).find("'no-such-variant' is not one"), std::string::npos);
  FilterParams lap;
  lap.filter = makeFilter("laplacian", {.radius = 1});
  if (deviceInfo().available) {
    EXPECT_NE(p.setFilter("separable", lap).find("separable"), std::string::npos);
  } else {
    EXPECT_NE(p.setFilter("tiled", lap).find("cpu"), std::string::npos) << "a GPU variant without a device";
  }
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
  EXPECT_EQ(p.filterParams().filter.name, gaussian(2).filter.name);
}

// Steps (each bounded by `wait`) until `done` or `limit` passes; returns whether `done` came true.
template <class Done>
bool stepUntil(Pipeline& p, Done done, std::chrono::milliseconds limit, std::chrono::milliseconds wait = 50ms) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    p.step(wait);
  }
  return true;
}

TEST_F(PipelineTest, SwitchingSourceAtRunTimeGoesOnWithTheNewOne) {
  const std::string file = generatedVideo("ball.webm", 20);
  CaptureSink sink;
  Pipeline p(config(pattern(-1)), sink);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(p.step(1000ms), StepResult::Frame);
  p.switchSource(SourceSpec::file(file));
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream) << p.lastError();
  EXPECT_EQ(p.pendingSource().what, "");
  // The pattern plays until the file has its first frame; then every frame of the file, in order.
  std::size_t patternFrames = 0;
  while (patternFrames < sink.frames.size() && sink.frames[patternFrames].filtered.width() == 67) ++patternFrames;
  ASSERT_GE(patternFrames, 3u);
  ASSERT_EQ(sink.frames.size() - patternFrames, 20u);
  for (std::size_t i = patternFrames; i < sink.frames.size(); ++i) {
    EXPECT_EQ(sink.frames[i].filtered.width(), 96);
    EXPECT_EQ(sink.frames[i].index, i - patternFrames);
  }
  expectAllMatch(sink.frames, gaussian(2));
  EXPECT_EQ(p.sourceInfo().description, SourceSpec::file(file).describe());
  // A switch that fails keeps the pipeline up and says why.
  p.switchSource(SourceSpec::file((scratch() / "missing.webm").string()));
  EXPECT_TRUE(stepUntil(
      p, [&] { return !p.lastError().empty(); }, 5s));
  EXPECT_EQ(p.step(10ms), StepResult::EndOfStream);
  EXPECT_NE(p.lastError().find("does not exist"), std::string::npos) << p.lastError();
}

// A source that never delivers (its valve drops every frame) or fails late: step() never waits
// for it, the old source plays on meanwhile, and the reason then shows in lastError().
TEST_F(PipelineTest, ASlowOrFailingSwitchNeverBlocksAndTheOldSourcePlaysOn) {
  PipelineConfig c = config(pattern(-1));
  c.openTimeout = 1500ms;
  CaptureSink sink;
  Pipeline p(c, sink);
  ASSERT_EQ(nextFrame(p), StepResult::Frame);
  const std::string stuck = "videotestsrc ! valve drop=true ! videoconvert ! appsink";
  p.switchSource(SourceSpec::launch(stuck));
  EXPECT_EQ(p.pendingSource().what, SourceSpec::launch(stuck).describe());
  const std::size_t before = sink.frames.size();
  double slowestStepMs = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (p.lastError().empty() && std::chrono::steady_clock::now() - t0 < 10s) {
    const auto s0 = std::chrono::steady_clock::now();
    p.step(50ms);
    slowestStepMs = std::max(slowestStepMs,
                             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count());
    const PendingSource pending = p.pendingSource();
    if (!pending.what.empty()) {
      EXPECT_LT(pending.secondsWaiting, 5.0);
    }
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(p.lastError().find("gave no frame within 1.5 s"), std::string::npos) << p.lastError();
  EXPECT_GT(waited, 1.2) << "the error came before the open's timeout";
  EXPECT_LT(slowestStepMs, 500) << "a step waited for the source being opened";
  EXPECT_GT(sink.frames.size(), before + 10) << "the old source stopped while the new one was opening";
  EXPECT_EQ(p.pendingSource().what, "");
  EXPECT_EQ(nextFrame(p), StepResult::Frame) << "the old source plays on after the failed open";
  EXPECT_NE(p.sourceInfo().description.find("test pattern"), std::string::npos);

  // A refused connection fails as soon as it is refused, the same way.
  if (hasElement("rtspsrc")) {
    p.switchSource(SourceSpec::uri("rtsp://127.0.0.1:9/none"));
    EXPECT_TRUE(stepUntil(
        p, [&] { return !p.lastError().empty() && p.lastError().find("rtsp") != std::string::npos; }, 5s));
    EXPECT_NE(p.lastError().find("rtsp://127.0.0.1:9/none"), std::string::npos) << p.lastError();
    EXPECT_EQ(nextFrame(p), StepResult::Frame);
  }
}

// A newer switch supersedes an older one still opening; the newest wins.
TEST_F(PipelineTest, ANewerSwitchSupersedesAnOlderPendingOne) {
  const std::string file = generatedVideo("ball.webm", 20);
  CaptureSink sink;
  Pipeline p(config(pattern(-1)), sink);
  ASSERT_EQ(nextFrame(p), StepResult::Frame);
  p.switchSource(SourceSpec::launch("videotestsrc ! valve drop=true ! videoconvert ! appsink"));
  p.switchSource(SourceSpec::file(file));
  EXPECT_EQ(p.pendingSource().what, SourceSpec::file(file).describe());
  EXPECT_TRUE(stepUntil(
      p, [&] { return p.sourceInfo().description == SourceSpec::file(file).describe(); }, 10s));
  EXPECT_EQ(p.lastError(), "") << "the superseded open is dropped without a word";
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream) << p.lastError();
}

// Destroying the pipeline while a source is still opening cancels the open at once.
TEST_F(PipelineTest, DestroyingThePipelineCancelsAPendingOpen) {
  NullSink sink;
  PipelineConfig c = config(pattern(-1));
  c.openTimeout = 60s;
  auto p = std::make_unique<Pipeline>(c, sink);
  ASSERT_EQ(nextFrame(*p), StepResult::Frame);
  p->switchSource(SourceSpec::launch("videotestsrc ! valve drop=true ! videoconvert ! appsink"));
  p->switchSource(SourceSpec::launch("videotestsrc is-live=true ! valve drop=true ! videoconvert ! appsink"));
  std::this_thread::sleep_for(200ms);  // both are waiting for a first frame now
  const auto t0 = std::chrono::steady_clock::now();
  p.reset();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
}

// A sink that throws leaves the ring consistent: the next step goes on with the next frame.
TEST_F(PipelineTest, ASinkThatThrowsLeavesTheRingConsistent) {
  struct Flaky : CaptureSink {
    int calls = 0;
    void deliver(const OutputFrame& f) override {
      if (++calls == 2) throw std::runtime_error("disk full");
      CaptureSink::deliver(f);
    }
  } sink;
  Pipeline p(config(pattern(6)), sink);
  int thrown = 0;
  StepResult r = StepResult::Idle;
  for (int i = 0; i < 200 && r != StepResult::EndOfStream; ++i) {
    try {
      r = p.step(200ms);
    } catch (const std::runtime_error& e) {
      ++thrown;
      EXPECT_STREQ(e.what(), "disk full");
    }
  }
  EXPECT_EQ(thrown, 1);
  ASSERT_EQ(sink.frames.size(), 5u) << "every frame but the one the sink refused";
  EXPECT_EQ(sink.frames[0].index, 0u);
  EXPECT_EQ(sink.frames[1].index, 2u);
  EXPECT_EQ(sink.frames[4].index, 5u);
  expectAllMatch(sink.frames, gaussian(2));
  EXPECT_EQ(p.timings().frames, 6u);
}

// The test pattern's pool is bounded by the frames in flight: a sink slower than the pattern lets
// the source run ahead, which unbounded grew the pool to 6-7 buffers, each one more frame's worth
// of memory cycled through. The source frames handed to the sink are the pool's buffers (the CPU
// path filters them where they lie, the GPU path uploads straight from them), so their addresses
// count the buffers; on the GPU each is page-locked once, so the locks count them too. Every frame
// still arrives, in order and filtered right.
TEST_F(PipelineTest, TheTestPatternDrawsIntoNoMoreBuffersThanTheSlotsNeed) {
  struct SlowCapture : CaptureSink {
    void deliver(const OutputFrame& f) override {
      std::this_thread::sleep_for(4ms);
      buffers.insert(f.sourceHost.data);
      CaptureSink::deliver(f);
    }
    std::set<const void*> buffers;
  } sink;
  PipelineConfig c = config(pattern(24, 801, 601));  // 1.9 MB frames: page-locked on the GPU
  Pipeline p(c, sink);
  ASSERT_EQ(runToEnd(p), StepResult::EndOfStream);
  ASSERT_EQ(sink.frames.size(), 24u);
  for (std::size_t i = 0; i < sink.frames.size(); ++i) EXPECT_EQ(sink.frames[i].index, i);
  expectAllMatch(sink.frames, gaussian(2));
  EXPECT_LE(sink.buffers.size(), std::size_t(sourcePoolBuffers(c.slots)));
  if (kGpu) {
    EXPECT_GE(p.timings().pageLocks, 2u);
    EXPECT_LE(p.timings().pageLocks, std::size_t(sourcePoolBuffers(c.slots)));
  }
}

TEST_F(PipelineTest, LiveSourcesDropStaleFrames) {
  const std::string line =
      "videotestsrc is-live=true pattern=ball ! video/x-raw,width=32,height=32,framerate=100/1 ! videoconvert ! "
      "appsink";
  CaptureSink sink;
  Pipeline p(config(SourceSpec::launch(line)), sink);
  EXPECT_TRUE(p.sourceInfo().live);
  for (int i = 0; i < 6; ++i) {
    std::this_thread::sleep_for(60ms);  // a slow consumer: the source makes ~6 frames meanwhile
    const StepResult r = nextFrame(p);
    ASSERT_EQ(r, StepResult::Frame);
  }
  p.drain();
  ASSERT_EQ(sink.frames.size(), 6u);
  const std::int64_t gap = sink.frames[5].pts - sink.frames[4].pts;
  EXPECT_GT(gap, 3 * 10'000'000) << "the newest frame wins: a gap of several frame periods";
}

TEST_F(PipelineTest, TimingsCoverEveryStage) {
  NullSink sink;
  Pipeline p(config(pattern(20)), sink);
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
  const Timings t = p.timings();
  EXPECT_EQ(t.frames, 20u);
  EXPECT_EQ(t.width, 67);
  ASSERT_EQ(t.stages.size(), std::size_t(Stage::Count));
  for (const StageStats& s : t.stages) {
    EXPECT_EQ(s.count(), 20u) << s.name();
    EXPECT_GE(s.average(), 0) << s.name();
    EXPECT_GE(s.peak(), s.average()) << s.name();
    EXPECT_EQ(s.history().size(), 20u) << s.name();
  }
  EXPECT_GT(t[Stage::Filter].average(), 0);
  EXPECT_GT(t[Stage::Latency].average(), 0);
  EXPECT_GE(t[Stage::Total].last(), t[Stage::Filter].last());
  EXPECT_GT(t.fps, 0);
  EXPECT_GT(t.firstFrameMs, 0);
  EXPECT_EQ(t.steadyFps, 0) << "20 frames do not get past the warm-up";
  if (kGpu) {
    EXPECT_GT(t[Stage::Upload].average(), 0);
  }
}

TEST_F(PipelineTest, SteadyRateCountsOnlyFramesAfterTheWarmUp) {
  CaptureSink sink;
  Pipeline p(config(pattern(SteadyRate::kDefaultWarmup + 12)), sink);
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
  const Timings t = p.timings();
  EXPECT_GT(t.steadyFps, 0);
  EXPECT_LE(t.firstFrameMs, 1000.0 * 60);
}

TEST(SteadyRate, IsTheRateAfterTheWarmUpFrames) {
  using namespace std::chrono;
  SteadyRate r(3);
  const SteadyRate::Clock::time_point t0{};
  // A slow start (100 ms a frame), then 10 ms a frame: only the latter counts.
  for (int i = 1; i <= 3; ++i) r.tick(t0 + milliseconds(100 * i));
  EXPECT_EQ(r.fps(), 0) << "nothing past the warm-up yet";
  r.tick(t0 + milliseconds(400));
  EXPECT_EQ(r.fps(), 0) << "one frame starts the clock";
  for (int i = 1; i <= 5; ++i) r.tick(t0 + milliseconds(400 + 10 * i));
  EXPECT_NEAR(r.fps(), 100.0, 1e-9);
  EXPECT_EQ(r.frames(), 9u);
  SteadyRate none(0);
  none.tick(t0);
  none.tick(t0 + milliseconds(20));
  EXPECT_NEAR(none.fps(), 50.0, 1e-9);
}

// A sink that holds each frame, as the viewer's worker does while its render thread takes it: the
// wait shows as "sink wait" (host time), not as GPU output time.
TEST_F(PipelineTest, ASlowSinkIsTimedAsSinkWaitNotAsOutput) {
  struct SlowSink : FrameSink {
    bool wantsHostFrames() const override { return false; }
    void present(const OutputFrame&) override { std::this_thread::sleep_for(15ms); }
  } sink;
  Pipeline p(config(pattern(8)), sink);
  EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
  const Timings t = p.timings();
  ASSERT_EQ(t.frames, 8u);
  EXPECT_GE(t[Stage::SinkWait].average(), 14.0);
  EXPECT_LT(t[Stage::Output].peak(), 5.0) << "the sink's wait was counted as output";
  EXPECT_LT(t[Stage::Total].average(), t[Stage::SinkWait].average());
  EXPECT_GE(t[Stage::Latency].average(), 14.0) << "latency is the whole way, the wait included";
}

// Keeps each frame and passes it on to the exporter.
class TeeSink : public FrameSink {
 public:
  explicit TeeSink(FileExporter& e) : exporter(e) {}
  bool wantsHostFrames() const override { return true; }
  void deliver(const OutputFrame& f) override {
    capture.deliver(f);
    exporter.deliver(f);
  }
  FileExporter& exporter;
  CaptureSink capture;
};

TEST_F(PipelineTest, ExportRoundTripKeepsEveryFrame) {
  for (const char* name : {"out.webm", "out.avi"}) {
    const std::string out = (scratch() / name).string();
    FileExporter exporter(out, 30);
    TeeSink tee(exporter);
    {
      Pipeline p(config(pattern(15, 96, 64, "smpte")), tee);
      EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
    }
    EXPECT_FALSE(fs::exists(out)) << "only complete files appear under the output name";
    exporter.finish();
    ASSERT_TRUE(fs::exists(out));
    EXPECT_FALSE(fs::exists(exporter.temporaryPath()));
    EXPECT_EQ(exporter.frames(), 15u);

    // Decode it again and compare with what went in.
    const std::vector<Captured> back = decodedFrames(out);
    ASSERT_EQ(back.size(), 15u) << name;
    for (std::size_t i : {0u, 7u, 14u}) {
      const HostImage& a = tee.capture.frames[i].filtered;
      const HostImage& b = back[i].filtered;
      double sum = 0;
      for (std::size_t k = 0; k < a.pixels().size(); k += 4)
        for (int ch = 0; ch < 3; ++ch) sum += std::abs(int(a.pixels()[k + ch]) - int(b.pixels()[k + ch]));
      // Lossy codecs with 4:2:0 chroma: a few levels on average (VP8 frame 0 measured 6.0 here).
      EXPECT_LT(sum / double(a.pixels().size() / 4 * 3), 8.0) << name << " frame " << i << ": over codec tolerance";
    }
  }
}

// A source that changes size midway: its later frames are scaled to the file's size (a video file
// keeps one size), and the export says so, once per new size.
TEST_F(PipelineTest, AnExportSaysWhenTheFramesChangeSize) {
  const std::string out = (scratch() / "resized.webm").string();
  FileExporter exporter(out, 30);
  const auto deliver = [&](int w, int h) {
    HostImage img(w, h);
    for (auto& b : img.pixels()) b = 128;
    OutputFrame f;
    f.filtered = img.view();
    exporter.deliver(f);
  };
  deliver(64, 48);
  EXPECT_TRUE(exporter.takeNotes().empty());
  deliver(32, 24);
  const std::vector<std::string> notes = exporter.takeNotes();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("frame 2 is 32x24, the file's frames 64x48: the source changed size, and it is scaled"),
            std::string::npos)
      << notes[0];
  deliver(32, 24);
  deliver(64, 48);
  EXPECT_TRUE(exporter.takeNotes().empty()) << "said again";
  exporter.finish();
  EXPECT_EQ(exporter.frames(), 4u);
  EXPECT_TRUE(fs::exists(out));
}

// A variable-rate source keeps its frames' times in the file (its audio, which the export keeps,
// stays in step with them); where the source's time goes back (a loop) or is missing, the frame
// comes one period after the last and the later ones follow on. AVI holds one rate: steady there.
TEST_F(PipelineTest, AnExportKeepsTheSourcesTimesAndStepsOverLoops) {
  const std::vector<std::int64_t> sourceMs{1000, 1033, 1100, 1133, 1300, 1333, 1366, 1000, 1033, -1, 1066};
  for (const char* name : {"vfr.webm", "vfr.avi"}) {
    const std::string out = (scratch() / name).string();
    FileExporter exporter(out, 30);
    for (std::size_t i = 0; i < sourceMs.size(); ++i) {
      HostImage img(64, 48);
      for (auto& b : img.pixels()) b = static_cast<std::uint8_t>(20 * i);
      OutputFrame f;
      f.filtered = img.view();
      f.ptsNs = sourceMs[i] < 0 ? -1 : sourceMs[i] * 1000000;
      exporter.deliver(f);
    }
    exporter.finish();
    ASSERT_TRUE(fs::exists(out)) << name;
    const std::vector<Captured> back = decodedFrames(out);
    ASSERT_EQ(back.size(), sourceMs.size()) << name;
    const double period = 1000.0 / 30;
    // webm: the source's times from the first frame's; at the loop (1000 again) one period after
    // 366 ms, and on by a period a frame: 1033, the missing time, and 1066, which is not after the
    // missing frame's time.
    const std::vector<double> webm{
        0, 33, 100, 133, 300, 333, 366, 366 + period, 366 + 2 * period, 366 + 3 * period, 366 + 4 * period};
    for (std::size_t i = 0; i < sourceMs.size(); ++i) {
      const double want = std::string(name) == "vfr.webm" ? webm[i] : i * period;
      EXPECT_NEAR(back[i].pts / 1e6, want, 1.5) << name << " frame " << i;
    }
  }
}

TEST_F(PipelineTest, AnAbortedExportLeavesNoFile) {
  const std::string out = (scratch() / "aborted.webm").string();
  {
    FileExporter exporter(out, 30);
    Pipeline p(config(pattern(5)), exporter);
    EXPECT_EQ(runToEnd(p), StepResult::EndOfStream);
    EXPECT_TRUE(fs::exists(exporter.temporaryPath()));
    exporter.abort();
    EXPECT_FALSE(fs::exists(exporter.temporaryPath()));
  }
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace

namespace {

// Without a GPU the reason says so in plain words, not as "driver version is insufficient".
TEST(DeviceReason, SaysPlainlyThatThereIsNoGpuOrDriver) {
  if (deviceInfo().available) GTEST_SKIP() << "this machine has a CUDA device: " << deviceInfo().name;
  int driver = -1;
  const cudaError_t e = cudaDriverGetVersion(&driver);
  (void)cudaGetLastError();
  const std::string reason = deviceInfo().reason;
  if (e == cudaSuccess && driver == 0) {
    EXPECT_EQ(reason.rfind("no NVIDIA GPU or driver found (CUDA: ", 0), 0u) << reason;
  } else {
    EXPECT_NE(reason.find("NVIDIA"), std::string::npos) << reason;
  }
  EXPECT_EQ(reason.find("--"), std::string::npos) << reason;
}

// A release that fails in a destructor is not reported later against an unrelated call.
TEST(CudaErrors, AFailedReleaseIsNotBlamedOnTheNextCall) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device: " << deviceInfo().reason;
  {
    DeviceBuffer buffer(1024);
    ASSERT_EQ(cudaFree(buffer.get()), cudaSuccess);  // freed behind its back: its own cudaFree will fail
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the destructor's failed cudaFree is still recorded";
}

}  // namespace
