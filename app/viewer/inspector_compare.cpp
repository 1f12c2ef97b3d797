#include "inspector_compare.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include "convlive/plan.hpp"
#include "words.hpp"

namespace convlive {
namespace {

class FrameTimer : public VariantTimer {
 public:
  Timing time(const Variant& v, const FilterParams& p, int width, int height, int runs) override {
    if (v.onGpu) {
      if (!frame_ || frame_->width() != width || frame_->height() != height) frame_.emplace(width, height);
      return timeVariant(v, p, *frame_, runs);
    }
    Problem why;
    Plan plan = Plan::make(withTile(v, p), v.name, ImageDesc::rgba8(width, height),
                           {.memory = Memory::Native, .cpuFallback = false}, why);
    if (!plan) return {false, 0, 0, why};
    if (in_.width() != width || in_.height() != height) {
      in_ = HostImage(width, height);
      out_ = HostImage(width, height);
      for (std::size_t i = 0; i < in_.pixels().size(); ++i) in_.pixels()[i] = std::uint8_t(i * 2654435761u >> 24);
    }
    std::vector<double> ms;
    for (int i = 0; i < std::max(1, runs); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      plan.run(in_.view(), out_.view());
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::nth_element(ms.begin(), ms.begin() + long(ms.size() / 2), ms.end());
    return {true, ms[ms.size() / 2], int(ms.size()), {}};
  }

 private:
  static FilterParams withTile(const Variant& v, const FilterParams& p) {
    FilterParams q = p;
    q.tile = tileUsed(v, p);
    return q;
  }
  std::optional<TimingFrame> frame_;
  HostImage in_, out_;
};

}  // namespace

std::unique_ptr<VariantTimer> makeFrameTimer() { return std::make_unique<FrameTimer>(); }

int cpuTimingRuns(int width, int height) { return double(width) * height >= 1280.0 * 720 ? 1 : 3; }

Tile tileUsed(const Variant& v, const FilterParams& p) {
  if (v.tiles.empty()) return {};
  const bool offered = std::find(v.tiles.begin(), v.tiles.end(), p.tile) != v.tiles.end();
  return offered ? p.tile : v.tiles.front();
}

CompareRunner::CompareRunner(std::shared_ptr<VariantTimer> timer)
    : timer_(std::move(timer)), worker_([this] { work(); }) {}

CompareRunner::~CompareRunner() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    ++generation_;
  }
  wake_.notify_all();
  worker_.join();
}

void CompareRunner::start(CompareJob job) {
  {
    std::lock_guard lock(mutex_);
    ++generation_;
    job_ = std::move(job);
    state_ = CompareState{};
    state_.key = job_.key;
    state_.total = int(job_.variants.size());
    state_.running = true;
    pending_ = true;
  }
  wake_.notify_all();
}

void CompareRunner::cancel() {
  std::lock_guard lock(mutex_);
  ++generation_;
  pending_ = false;
  state_ = CompareState{};
}

CompareState CompareRunner::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

void CompareRunner::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || pending_; });
    if (stop_) return;
    pending_ = false;
    const CompareJob job = job_;
    const std::uint64_t generation = generation_;
    for (const Variant* v : job.variants) {
      if (generation != generation_) break;
      state_.current = v->name;
      CompareRow row;
      row.variant = v;
      row.tile = tileUsed(*v, job.params);
      row.runsAsked = v->onGpu ? job.gpuRuns : job.cpuRuns;
      lock.unlock();
      try {
        row.timing = timer_->time(*v, job.params, job.width, job.height, row.runsAsked);
      } catch (const std::exception& e) {
        row.error = forPanel(e);
      }
      lock.lock();
      if (generation != generation_) break;
      state_.rows.push_back(std::move(row));
    }
    if (generation == generation_) {
      state_.current.clear();
      state_.running = false;
      state_.finished = true;
    }
  }
}

std::vector<CompareLine> compareLines(const std::vector<CompareRow>& rows, int width, int height) {
  double best = 0;
  for (const CompareRow& r : rows)
    if (r.timing.measured && r.timing.ms > 0 && (best == 0 || r.timing.ms < best)) best = r.timing.ms;
  std::vector<CompareLine> lines;
  for (const CompareRow& r : rows) {
    CompareLine l;
    l.variant = r.variant->name;
    l.tile = r.tile;
    l.onGpu = r.variant->onGpu;
    l.measured = r.timing.measured && r.timing.ms > 0;
    l.runs = r.timing.runs;
    if (l.measured) {
      l.ms = r.timing.ms;
      l.mpixPerS = double(width) * height / (l.ms * 1e3);
      l.toBest = l.ms / best;
      l.best = l.ms == best;
      if (!l.onGpu && r.runsAsked < kGpuTimingRuns)
        l.note = r.timing.runs == 1 ? "1 run (CPU: slow at this size)" : std::to_string(r.timing.runs) + " runs";
    } else {
      l.note = !r.error.empty() ? r.error : r.timing.why ? forPanel(r.timing.why) : "not measured";
    }
    lines.push_back(std::move(l));
  }
  return lines;
}

}  // namespace convlive
