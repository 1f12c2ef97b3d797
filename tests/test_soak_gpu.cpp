// The soak (label gpu; skips with the reason without a CUDA device): the pipeline playing flat out
// while the filter changes every 7 frames (every GPU variant and auto, four masks, radii 1 and 8,
// the borders in turn) on each of three sources of other sizes, in a fixed cycle repeated for
// CONVLIVE_SOAK_SECONDS (default 40; the long run takes 540). The first cycle fills every cache and
// pool; after it the process's resident memory and the GPU memory in use may not grow by more than
// 64 MB, no frame may fail, and most steps give a frame.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "convlive/mask.hpp"
#include "convlive/pipeline.hpp"
#include "convlive/resources.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"
#include "process_memory.hpp"

using namespace convlive;
using process_memory::gpuUsedMb;
using process_memory::residentMb;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

double soakSeconds() {
  const char* s = std::getenv("CONVLIVE_SOAK_SECONDS");
  return s && *s ? std::atof(s) : 40.0;
}

class Counting : public FrameSink {
 public:
  bool wantsHostFrames() const override { return false; }
  void present(const OutputFrame&) override { ++frames; }
  std::uint64_t frames = 0;
};

TEST(Soak, SwitchingEverythingWhilePlayingKeepsMemoryFlat) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  const double seconds = soakSeconds();
  std::vector<std::string> variants{"auto"};
  for (const Variant& v : convlive::variants())
    if (v.onGpu) variants.push_back(v.name);
  const std::vector<std::string> masks{"gaussian", "sharpen", "sobel", "emboss"};
  const std::vector<SourceSpec> sources{SourceSpec::testPattern("moving", 640, 360),
                                        SourceSpec::testPattern("ball", 1280, 720),
                                        SourceSpec::testPattern("smpte", 333, 187)};
  const Border borders[] = {Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero};
  // One cycle: every source, and on each every variant x mask x radius 1 and 8 (borders in turn),
  // 7 frames each. The first cycle fills every cache and pool (plans, auto's choices, workspaces);
  // memory is read after it, and may not grow over the cycles after.
  struct Setting {
    std::size_t source;
    std::string variant;
    FilterParams params;
  };
  std::vector<Setting> cycle;
  for (std::size_t src = 0; src < sources.size(); ++src)
    for (const std::string& v : variants)
      for (const std::string& m : masks)
        for (const int r : {1, 8}) {
          FilterParams fp;
          fp.filter = makeFilter(m, {.radius = r});
          fp.border = borders[cycle.size() % 4];
          cycle.push_back({src, v, fp});
        }
  PipelineConfig c;
  c.source = sources[0];
  c.inputFormat = InputFormat::Auto;
  c.variant = "auto";
  c.params.filter = makeFilter("gaussian", {.radius = 2});
  c.openTimeout = 20s;
  Counting sink;
  Pipeline p(c, sink);
  const auto t0 = Clock::now();
  double rss0 = -1, gpu0 = -1;
  std::uint64_t steps = 0, filters = 0, refused = 0, switches = 0, errors = 0, cycles = 0;
  std::string lastError;
  const auto step = [&] {
    if (p.step(200ms) == StepResult::Error) {
      ++errors;
      lastError = p.lastError();
    }
    ++steps;
  };
  for (std::size_t at = 0; std::chrono::duration<double>(Clock::now() - t0).count() < seconds;) {
    const Setting& s = cycle[at];
    if (at == 0 || s.source != cycle[at - 1].source) {  // a new source: played once it is in
      p.switchSource(sources[s.source]);
      ++switches;
      for (int i = 0; i < 100 && (i == 0 || !p.pendingSource().what.empty()); ++i) step();
    }
    const std::string why = p.setFilter(s.variant, s.params);  // some combinations are refused, with a reason
    ++(why.empty() ? filters : refused);
    for (int i = 0; i < 7; ++i) step();
    if (++at == cycle.size()) {
      at = 0;
      if (++cycles == 1) {
        p.drain();
        rss0 = residentMb();
        gpu0 = gpuUsedMb();
      }
    }
  }
  p.drain();
  const double rss1 = residentMb(), gpu1 = gpuUsedMb();
  std::printf(
      "soak: %.0f s, %llu cycles of %zu settings, %llu steps, %llu frames, %llu filters taken, %llu refused, %llu "
      "source switches; resident %.0f -> %.0f MB, GPU in use %.0f -> %.0f MB\n",
      seconds, (unsigned long long)cycles, cycle.size(), (unsigned long long)steps, (unsigned long long)sink.frames,
      (unsigned long long)filters, (unsigned long long)refused, (unsigned long long)switches, rss0, rss1, gpu0, gpu1);
  ASSERT_GE(cycles, 2u) << "the run was too short for two cycles: raise CONVLIVE_SOAK_SECONDS";
  EXPECT_EQ(errors, 0u) << lastError;
  EXPECT_GT(sink.frames, steps / 2) << "most steps should have given a frame";
  EXPECT_GT(filters, 10u);
  EXPECT_GE(switches, 2 * sources.size());
  EXPECT_LE(rss1 - rss0, 64.0) << "resident memory grew";
  EXPECT_LE(gpu1 - gpu0, 64.0) << "GPU memory grew";
}

}  // namespace
