#include "convlive/timing.hpp"

#include <algorithm>
#include <numeric>

namespace convlive {

StageStats::StageStats(std::string name, std::size_t capacity)
    : name_(std::move(name)), capacity_(std::max<std::size_t>(capacity, 1)) {
  ring_.reserve(capacity_);
}

void StageStats::add(double ms) {
  last_ = ms;
  ++count_;
  if (ring_.size() < capacity_) {
    ring_.push_back(float(ms));
  } else {
    ring_[next_] = float(ms);
  }
  next_ = (next_ + 1) % capacity_;
}

double StageStats::average() const {
  return ring_.empty() ? 0.0 : std::accumulate(ring_.begin(), ring_.end(), 0.0) / double(ring_.size());
}

double StageStats::peak() const { return ring_.empty() ? 0.0 : *std::max_element(ring_.begin(), ring_.end()); }

std::vector<float> StageStats::history() const {
  if (ring_.size() < capacity_) return ring_;
  std::vector<float> out(ring_.begin() + long(next_), ring_.end());
  out.insert(out.end(), ring_.begin(), ring_.begin() + long(next_));
  return out;
}

void SteadyRate::tick(Clock::time_point now) {
  ++frames_;
  if (frames_ == warmup_ + 1) start_ = now;
  last_ = now;
}

double SteadyRate::fps() const {
  // The frames after the one that started the clock, over the time since it.
  if (frames_ <= warmup_ + 1) return 0;
  const double s = std::chrono::duration<double>(last_ - start_).count();
  return s > 0 ? double(frames_ - warmup_ - 1) / s : 0;
}

const char* stageName(Stage s) {
  switch (s) {
    case Stage::Wait:
      return "wait for source";
    case Stage::HostCopy:
      return "host copy";
    case Stage::Upload:
      return "upload";
    case Stage::Convert:
      return "convert";
    case Stage::Filter:
      return "filter";
    case Stage::Output:
      return "output";
    case Stage::SinkWait:
      return "sink wait";
    case Stage::Total:
      return "total";
    case Stage::Latency:
      return "latency";
    case Stage::Count:
      break;
  }
  return "?";
}

}  // namespace convlive
