#include "pipeline_stats.hpp"

namespace convlive {

PipelineStats::PipelineStats() {
  for (int i = 0; i < int(Stage::Count); ++i) stats_.stages.emplace_back(stageName(Stage(i)));
}

void PipelineStats::framePulled(Clock::time_point pulledAt, std::optional<double> pageLockMs) {
  if (!firstPulled_) firstPulled_ = pulledAt;
  if (!pageLockMs) return;
  std::lock_guard lock(mutex_);
  ++stats_.pageLocks;
  stats_.pageLockMs += *pageLockMs;
}

void PipelineStats::record(const FrameTimes& t) {
  std::lock_guard lock(mutex_);
  auto& st = stats_.stages;
  st[int(Stage::Wait)].add(t.wait);
  st[int(Stage::HostCopy)].add(t.hostCopy);
  st[int(Stage::Upload)].add(t.upload);
  st[int(Stage::Convert)].add(t.convert);
  st[int(Stage::Filter)].add(t.filter);
  st[int(Stage::Output)].add(t.output);
  st[int(Stage::SinkWait)].add(t.sink);
  st[int(Stage::Total)].add(t.hostCopy + t.upload + t.convert + t.filter + t.output);
  st[int(Stage::Latency)].add(t.latency);
  ++stats_.frames;
  stats_.directUploads += t.direct;
  stats_.deviceFrames += t.onDevice;
  stats_.width = t.width;
  stats_.height = t.height;
  const auto now = Clock::now();
  if (stats_.frames == 1 && firstPulled_) stats_.firstFrameMs = msBetween(*firstPulled_, now);
  steady_.tick(now);
  stats_.steadyFps = steady_.fps();
  completions_.push_back(now);
  while (completions_.size() > 2 && msBetween(completions_.front(), now) > 1000) completions_.pop_front();
  const double span = msBetween(completions_.front(), now);
  stats_.fps = completions_.size() > 1 && span > 0 ? 1000.0 * double(completions_.size() - 1) / span : 0;
  stats_.mpixPerSecond = stats_.fps * t.width * t.height / 1e6;
  stats_.filterGBs = t.filter > 0 ? 2.0 * double(t.filtered.rowBytes()) * t.filtered.height / (t.filter * 1e6) : 0;
  stats_.filteredAs = t.filtered.isRgba8()
                          ? "RGBA8"
                          : std::string(pixelTypeName(t.filtered.type)) + "x" + std::to_string(t.filtered.channels);
}

Timings PipelineStats::timings() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace convlive
