// The soak (label gpu; skips with the reason without a CUDA device): the pipeline playing flat out
// while the filter changes every few frames (every GPU variant and auto, masks, radii, borders,
// tiles) and the source switches between sizes and formats, for CONVLIVE_SOAK_SECONDS (default 20;
// the long run takes 540). After a quarter of the time has warmed every cache and pool, the
// process's resident memory and the GPU memory in use may not grow by more than 64 MB, no frame
// may fail, and every frame taken comes out.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "convlive/mask.hpp"
#include "convlive/pipeline.hpp"
#include "convlive/resources.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"

using namespace convlive;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

double residentMb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

double gpuUsedMb() {
  std::size_t freeBytes = 0, total = 0;
  if (cudaMemGetInfo(&freeBytes, &total) != cudaSuccess) return -1;
  return double(total - freeBytes) / (1 << 20);
}

double soakSeconds() {
  const char* s = std::getenv("CONVLIVE_SOAK_SECONDS");
  return s && *s ? std::atof(s) : 20.0;
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
  const std::vector<std::string> masks{"gaussian", "box", "sharpen", "sobel", "emboss", "laplacian"};
  const std::vector<SourceSpec> sources{SourceSpec::testPattern("moving", 640, 360),
                                        SourceSpec::testPattern("ball", 1280, 720),
                                        SourceSpec::testPattern("smpte", 333, 187)};
  PipelineConfig c;
  c.source = sources[0];
  c.inputFormat = InputFormat::Auto;
  c.variant = "auto";
  c.params.filter = makeFilter("gaussian", {.radius = 2});
  c.openTimeout = 20s;
  Counting sink;
  Pipeline p(c, sink);
  std::mt19937 rng(12345);
  const auto pick = [&](const auto& list) { return list[std::size_t(rng() % list.size())]; };
  const auto t0 = Clock::now();
  double rss0 = -1, gpu0 = -1;
  std::uint64_t steps = 0, filters = 0, refused = 0, switches = 0, errors = 0;
  std::string lastError;
  while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds) {
    const StepResult r = p.step(200ms);
    ++steps;
    if (r == StepResult::Error) {
      ++errors;
      lastError = p.lastError();
    }
    if (steps % 7 == 0) {  // a new filter: some combinations are refused, with a reason
      FilterParams fp;
      fp.filter = makeFilter(pick(masks), {.radius = 1 + int(rng() % 8)});
      fp.border = std::vector<Border>{Border::Clamp, Border::Mirror, Border::Wrap, Border::Zero}[rng() % 4];
      const std::string why = p.setFilter(pick(variants), fp);
      ++(why.empty() ? filters : refused);
    }
    if (steps % 400 == 0) {
      p.switchSource(pick(sources));
      ++switches;
    }
    if (rss0 < 0 && std::chrono::duration<double>(Clock::now() - t0).count() > seconds / 4) {
      p.drain();
      rss0 = residentMb();
      gpu0 = gpuUsedMb();
    }
  }
  p.drain();
  const double rss1 = residentMb(), gpu1 = gpuUsedMb();
  std::printf(
      "soak: %.0f s, %llu steps, %llu frames, %llu filters taken, %llu refused, %llu source switches; "
      "resident %.0f -> %.0f MB, GPU in use %.0f -> %.0f MB\n",
      seconds, (unsigned long long)steps, (unsigned long long)sink.frames, (unsigned long long)filters,
      (unsigned long long)refused, (unsigned long long)switches, rss0, rss1, gpu0, gpu1);
  EXPECT_EQ(errors, 0u) << lastError;
  EXPECT_GT(sink.frames, steps / 2) << "most steps should have given a frame";
  EXPECT_GT(filters, 10u);
  EXPECT_GE(switches, seconds >= 10 ? 1u : 0u);
  EXPECT_LE(rss1 - rss0, 64.0) << "resident memory grew";
  EXPECT_LE(gpu1 - gpu0, 64.0) << "GPU memory grew";
}

}  // namespace
