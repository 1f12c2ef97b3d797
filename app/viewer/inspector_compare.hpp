// The inspector's compare table: every variant that can run the current filter, timed on a frame
// of the current size at the user's request, off the render thread so the panel keeps drawing.
// A CompareRunner owns one worker thread that takes one job at a time; the render thread starts,
// cancels and reads it (state() is a copy). A new job or a cancel discards what the old one found;
// the variant being timed when that happens finishes first (its result is dropped), so a cancel
// never waits on the render thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "convlive/inspect.hpp"
#include "convlive/variants.hpp"

namespace convlive {

// Times one variant on a width x height frame with `runs` timed runs. Called on the runner's
// worker thread only, one call at a time. May throw (CudaError): the row says so.
class VariantTimer {
 public:
  virtual ~VariantTimer() = default;
  virtual Timing time(const Variant& v, const FilterParams& p, int width, int height, int runs) = 0;
};

// The real one: GPU variants through timeVariant (CUDA events on a stream of its own, after
// warm-up launches), CPU variants with the steady clock, `runs` runs and no warm-up (they are
// slow: one run of the reference at 4K takes seconds with a large mask). Frames are made once per
// size.
std::unique_ptr<VariantTimer> makeFrameTimer();

// Timed runs a CPU variant gets on a width x height frame: one from 1280x720 up, else 3.
int cpuTimingRuns(int width, int height);
constexpr int kGpuTimingRuns = 10;

struct CompareJob {
  std::string key;  // what the results belong to (the filter and the frame size)
  FilterParams params;
  int width = 0, height = 0;
  std::vector<const Variant*> variants;  // timed in this order
  int gpuRuns = kGpuTimingRuns, cpuRuns = 1;
};

struct CompareRow {
  const Variant* variant = nullptr;
  Tile tile{};  // the tile it ran with ({0,0}: it has none)
  Timing timing;
  int runsAsked = 0;
  std::string error;  // what failed while timing it ("" none)
};

struct CompareState {
  std::string key;               // the job's; "" when there is none
  std::vector<CompareRow> rows;  // timed so far, in the job's order
  int total = 0;                 // variants in the job
  std::string current;           // the variant being timed ("" none)
  bool running = false, finished = false;
};

class CompareRunner {
 public:
  explicit CompareRunner(std::shared_ptr<VariantTimer> timer);
  // Cancels, lets the variant being timed finish, joins.
  ~CompareRunner();
  CompareRunner(const CompareRunner&) = delete;
  CompareRunner& operator=(const CompareRunner&) = delete;

  // Replaces any job (its results are discarded) with `job`.
  void start(CompareJob job);
  // Drops the job and its results.
  void cancel();
  CompareState state() const;

 private:
  void work();

  std::shared_ptr<VariantTimer> timer_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  CompareJob job_;
  CompareState state_;
  std::uint64_t generation_ = 0;  // bumped by start and cancel: a result of an older one is dropped
  bool pending_ = false, stop_ = false;
  std::thread worker_;  // last: started once the rest exists
};

// The tile `v` runs `p` with, as timeVariant and inspectVariant pick it ({0,0}: no tile choice).
Tile tileUsed(const Variant& v, const FilterParams& p);

// One line of the table as the panel shows it.
struct CompareLine {
  std::string variant;
  Tile tile{};
  bool measured = false;
  double ms = 0, mpixPerS = 0;
  double toBest = 0;  // ms over the fastest's (1: the fastest)
  bool best = false;
  int runs = 0;
  bool onGpu = true;
  std::string note;  // why it was not measured, or "1 run"
};
std::vector<CompareLine> compareLines(const std::vector<CompareRow>& rows, int width, int height);

}  // namespace convlive
