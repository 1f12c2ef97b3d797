#include "inspector.hpp"

#include <algorithm>

#include "words.hpp"

namespace convlive {
namespace {

using Clock = std::chrono::steady_clock;

// How long a compare run waits for the video to pause before it starts anyway.
constexpr auto kPauseWait = std::chrono::seconds(1);

std::string label(const RunKey& key) { return key.tile == Tile{} ? key.variant : key.variant + " " + key.tile.str(); }

}  // namespace

std::string filterKey(const FilterSpec& spec) {
  FilterSpec s = spec;
  s.variant = "auto";
  s.tile = {};
  std::string d = s.describe();
  const std::string tail = " variant=auto";
  if (d.size() >= tail.size() && d.compare(d.size() - tail.size(), tail.size(), tail) == 0)
    d.resize(d.size() - tail.size());
  return d;
}

void TimingBook::record(const RunKey& key, double ms) {
  if (!(ms > 0)) return;
  auto [it, added] = best_.emplace(key, ms);
  if (!added) it->second = std::min(it->second, ms);
}

std::optional<double> TimingBook::best(const RunKey& key) const {
  const auto it = best_.find(key);
  if (it == best_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<RunKey, double>> TimingBook::at(const std::string& filter, int width, int height) const {
  std::vector<std::pair<RunKey, double>> out;
  for (const auto& [key, ms] : best_)
    if (key.filter == filter && key.width == width && key.height == height) out.emplace_back(key, ms);
  return out;
}

void LiveFilterSample::reset(const RunKey& key, std::uint64_t stageCount) {
  key_ = key;
  mark_ = stageCount;
}

std::uint64_t LiveFilterSample::samples(const StageStats& stage) const {
  const std::uint64_t n = stage.count() > mark_ ? stage.count() - mark_ : 0;
  if (n < kSettle + kMinSamples) return 0;
  return std::min<std::uint64_t>(n - kSettle, stage.history().size());
}

std::optional<double> LiveFilterSample::median(const StageStats& stage) const {
  const std::uint64_t n = samples(stage);
  if (n == 0) return std::nullopt;
  const std::vector<float> h = stage.history();
  std::vector<float> recent(h.end() - long(n), h.end());
  std::nth_element(recent.begin(), recent.begin() + long(n / 2), recent.end());
  return double(recent[n / 2]);
}

AchievedFigures achievedFigures(const WorkModel& m, int width, int height, double ms, const Roofs& roofs) {
  AchievedFigures f;
  if (!(ms > 0) || width <= 0 || height <= 0) return f;
  const Achieved a = achieved(m, width, height, ms);
  const double pixelsPerNs = double(width) * height / (ms * 1e6);  // GFLOP/s per FLOP a pixel
  f.ms = ms;
  f.mpixPerS = a.mpixPerS;
  f.gbPerS = a.gbPerS;
  f.gflopPerS = a.gflopPerS;
  f.fp32GFlops = m.flops * pixelsPerNs;
  f.matrixGFlops = m.matrixFlops * pixelsPerNs;
  if (roofs.bandwidthGBs > 0) f.ofCopy = f.gbPerS / roofs.bandwidthGBs;
  if (roofs.fp32GFlops > 0) f.ofFp32 = f.fp32GFlops / roofs.fp32GFlops;
  if (roofs.matrixGFlops > 0) f.ofMatrix = f.matrixGFlops / roofs.matrixGFlops;
  return f;
}

Inspector::Inspector(InspectFn inspect, std::shared_ptr<VariantTimer> timer)
    : inspect_(inspect ? std::move(inspect)
                       : InspectFn([](const Variant& v, const FilterParams& p, const ImageDesc& image) {
                           return inspectVariant(v, p, image);
                         })),
      runner_(timer ? std::move(timer) : std::shared_ptr<VariantTimer>(makeFrameTimer())) {}

Inspector::~Inspector() = default;

void Inspector::update(const InspectorInputs& in) {
  frames_ = ImageDesc{.width = in.width, .height = in.height, .type = in.type, .channels = in.channels};
  reinspect(in);
  sampleLive(in);
  followCompare(in);
}

void Inspector::reinspect(const InspectorInputs& in) {
  // Other frames than RGBA8 are another key: their figures and times are not RGBA8's.
  const std::string framesKey = frames_.isRgba8() ? "" : " (" + frames_.typeName() + " frames)";
  if (!haveSpec_ || !(in.spec == spec_) || framesKey != framesKey_) {
    spec_ = in.spec;
    haveSpec_ = true;
    framesKey_ = framesKey;
    filterKey_ = filterKey(spec_) + framesKey_;
    try {
      params_ = spec_.params();
      paramsError_.clear();
    } catch (const std::exception& e) {
      params_.reset();
      paramsError_ = forPanel(e);
    }
  }
  const RunKey key{in.running ? in.running->name : "", in.tile, filterKey_, in.width, in.height};
  if (haveKey_ && key == runKey_) return;
  runKey_ = key;
  haveKey_ = true;
  inspection_.reset();
  error_.clear();
  if (!in.running) {
    error_ = "no variant runs yet";
    return;
  }
  if (!params_) {
    error_ = paramsError_;
    return;
  }
  FilterParams p = *params_;
  p.tile = in.tile;
  ++inspections_;
  try {
    inspection_ = inspect_(*in.running, p, frames_);
  } catch (const std::exception& e) {
    error_ = forPanel(e);
  }
}

void Inspector::sampleLive(const InspectorInputs& in) {
  if (!in.filterStage) return;
  if (!(live_.key() == runKey_)) {
    live_.reset(runKey_, in.filterStage->count());
    liveMs_.reset();
    liveSamples_ = 0;
  }
  if (runKey_.variant.empty() || in.timedWidth != in.width || in.timedHeight != in.height) return;
  if (const auto ms = live_.median(*in.filterStage)) {
    liveMs_ = ms;
    liveSamples_ = live_.samples(*in.filterStage);
    book_.record(runKey_, *ms);
  }
}

void Inspector::requestCompare(bool pauseVideo) {
  wantCompare_ = true;
  wantPause_ = pauseVideo;
}

void Inspector::cancelCompare() {
  runner_.cancel();
  wantCompare_ = waitingForPause_ = false;
  compareKey_.clear();
}

CompareState Inspector::compare() const { return runner_.state(); }

std::string Inspector::compareRefusal() const {
  if (frames_.isRgba8()) return "";
  return "the table times every variant on RGBA8 frames; these are " + frames_.typeName() +
         " frames, filtered as they come (convlive-bench --types times the variants on them)";
}

void Inspector::startCompare() {
  CompareJob job;
  job.key = filterKey_ + " on " + std::to_string(frames_.width) + "x" + std::to_string(frames_.height);
  job.width = frames_.width;
  job.height = frames_.height;
  job.cpuRuns = cpuTimingRuns(frames_.width, frames_.height);
  notTimed_.clear();
  if (!params_ || frames_.width <= 0 || frames_.height <= 0) return;
  job.params = *params_;
  job.params.tile = runKey_.tile;
  std::vector<const Variant*> cpu;
  for (const Variant& v : variants()) {
    FilterParams q = job.params;
    q.tile = tileUsed(v, job.params);
    const Problem why = v.whyNot(q, frames_.width, frames_.height);
    if (why && why.code == Problem::Code::NoDevice) notTimed_.push_back(v.name);
    if (why) continue;
    (v.onGpu ? job.variants : cpu).push_back(&v);
  }
  job.variants.insert(job.variants.end(), cpu.begin(), cpu.end());  // the slow ones last
  compareKey_ = job.key;
  rowsBooked_ = 0;
  runner_.start(std::move(job));
}

void Inspector::followCompare(const InspectorInputs& in) {
  const std::string key = filterKey_ + " on " + std::to_string(in.width) + "x" + std::to_string(in.height);
  const auto now = Clock::now();
  if (!compareKey_.empty() && compareKey_ != key) {  // the filter or the frame size changed
    runner_.cancel();
    compareKey_.clear();
    waitingForPause_ = false;
  }
  if (wantCompare_) {
    wantCompare_ = false;
    if (!compareRefusal().empty()) {
      // not for these frames: nothing to pause for (the panel says why)
    } else if (wantPause_ && !in.paused && in.togglePause) {
      in.togglePause();
      pausedForCompare_ = waitingForPause_ = true;
      pauseAsked_ = now;
      compareKey_ = key;
    } else {
      startCompare();
    }
  }
  if (waitingForPause_ && (in.paused || now - pauseAsked_ > kPauseWait)) {
    waitingForPause_ = false;
    startCompare();
  }
  const CompareState st = runner_.state();
  if (!compareKey_.empty() && st.key == compareKey_) {
    for (; rowsBooked_ < st.rows.size(); ++rowsBooked_) {
      const CompareRow& r = st.rows[rowsBooked_];
      if (r.timing.measured)
        book_.record(RunKey{r.variant->name, r.tile, filterKey_, in.width, in.height}, r.timing.ms);
    }
  }
  if (pausedForCompare_ && !waitingForPause_ && !st.running) {
    pausedForCompare_ = false;
    if (in.paused && in.togglePause) in.togglePause();  // unless the user played it meanwhile
  }
}

const WorkModel* Inspector::modelOf(const RunKey& key) const {
  const std::string at = filterKey_ + " " + std::to_string(frames_.width) + "x" + std::to_string(frames_.height);
  if (at != modelsKey_) {
    models_.clear();
    modelsKey_ = at;
  }
  const std::string name = label(key);
  auto it = models_.find(name);
  if (it == models_.end()) {
    std::optional<WorkModel> m;
    const Variant* v = findVariant(key.variant);
    if (v && params_) {
      FilterParams q = *params_;
      q.tile = key.tile;
      try {
        m = v->workModel(q, frames_);
      } catch (const std::exception&) {
      }
    }
    it = models_.emplace(name, m).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::vector<RooflinePoint> Inspector::rooflinePoints(bool withCpu) const {
  std::vector<RooflinePoint> points;
  for (const auto& [key, ms] : book_.at(filterKey_, frames_.width, frames_.height)) {
    const Variant* v = findVariant(key.variant);
    if (!v || (!v->onGpu && !withCpu)) continue;
    const WorkModel* m = modelOf(key);
    if (!m) continue;
    RooflinePoint p;
    p.label = label(key);
    p.intensity = m->intensity();
    p.gflops = achieved(*m, frames_.width, frames_.height, ms).gflopPerS;
    p.roof = m->matrixFlops > 0 ? RoofKind::Matrix : RoofKind::Fp32;
    p.highlighted = key == runKey_;
    p.onCpu = !v->onGpu;
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<std::string> Inspector::cpuTimed() const {
  std::vector<std::string> names;
  for (const auto& [key, ms] : book_.at(filterKey_, frames_.width, frames_.height)) {
    const Variant* v = findVariant(key.variant);
    if (v && !v->onGpu) names.push_back(label(key));
  }
  return names;
}

}  // namespace convlive
