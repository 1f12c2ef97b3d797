#include "convlive/pipeline.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
#include "cpu_path.hpp"
#include "gpu_path.hpp"
#include "pipeline_controls.hpp"
#include "pipeline_plans.hpp"
#include "pipeline_stats.hpp"
#include "slot_ring.hpp"
#include "source_switcher.hpp"

namespace convlive {
namespace {

// The settings as the pipeline runs them: the slot count checked, pageable memory without a device.
PipelineConfig checked(PipelineConfig config, bool gpu) {
  if (config.slots < 1 || config.slots > 16)
    throw std::invalid_argument("slot count " + std::to_string(config.slots) + " is out of range: use 1 to 16");
  if (!gpu) config.pinned = false;
  return config;
}

// The frames a source's first frame is expected to be, for the first plan (the first frame itself
// says, and a plan is made again where it differs): grey ones at GStreamer's default row pitch.
ImageDesc expectedFrame(const SourceInfo& info) {
  const bool grey8 = info.frameFormat == "GRAY8", grey16 = info.frameFormat == "GRAY16_LE";
  if (!grey8 && !grey16) return ImageDesc::rgba8(info.nativeWidth, info.nativeHeight);
  ImageDesc d{.width = info.nativeWidth,
              .height = info.nativeHeight,
              .type = grey8 ? PixelType::U8 : PixelType::U16,
              .channels = 1};
  d.pitch = (d.rowBytes() + 3) / 4 * 4;
  return d;
}

}  // namespace

// The coordinator: takes frames from the source, applies controls at frame boundaries and sends
// each frame down the GPU or the CPU path. Each part keeps its own state (and its own lock where
// other threads read it).
struct Pipeline::Impl {
  const bool gpu;
  PipelineConfig config;  // checked; loop changes with setLoop (pipeline thread)

  PipelineStats stats;
  PipelineStatus status;
  ControlQueue controls;
  std::unique_ptr<Source> source;
  bool failed = false;  // the source failed: step() says Error until another is adopted
  PipelinePlans filter;
  SlotRing ring;  // after the source: the frames the slots hold go before it does
  GpuPath gpuPath;
  CpuPath cpuPath;
  SourceSwitcher switcher;  // last: its openers are joined first, as the pipeline goes

  Impl(const PipelineConfig& c, FrameSink& sink)
      : gpu(deviceInfo().available),
        config(checked(c, gpu)),
        source(std::make_unique<Source>(config.source, sourceOptions())),
        filter(config.variant, config.params, expectedFrame(source->info())),
        ring(std::size_t(gpu ? config.slots : 1)),
        gpuPath(ring, sink, stats, config.pinned, config.overlap),
        cpuPath(sink, stats) {
    status.sourceOpened(source->info());
  }

  ~Impl() {
    switcher.cancelAll();  // they stop while the frames in flight go out; ~SourceSwitcher joins them
    try {
      gpuPath.drain();
    } catch (...) {
      // Destructors never throw; the frames in flight are lost either way.
    }
  }

  SourceOptions sourceOptions() const {
    SourceOptions o;
    o.sync = config.sync;
    o.maxQueued = config.slots;
    o.poolBuffers = sourcePoolBuffers(config.slots);
    o.newestOnly = config.newestFrameOnly;
    o.openTimeout = config.openTimeout;
    o.registerWithCuda = gpu && config.pinned && config.registerSourceMemory;
    o.acceptYuv = config.inputFormat == InputFormat::Yuv || (config.inputFormat == InputFormat::Auto && gpu);
    o.decoder = config.decoder;
    o.acceptGrey = config.inputFormat != InputFormat::Rgba;
    return o;
  }

  // Makes `next` the source, at a frame boundary: the old one's frames in flight go out first.
  void adopt(std::unique_ptr<Source> next) {
    std::unique_ptr<Source> old = std::exchange(source, std::move(next));
    status.sourceOpened(source->info());
    failed = false;
    gpuPath.drain();
    old.reset();
    if (status.paused()) setSourcePaused(true);
  }

  // Takes a source switchSource asked for once it has opened (or its error).
  void collectOpened() {
    std::optional<SourceSwitcher::Opened> opened = switcher.collect();
    if (!opened) return;
    if (opened->source)
      adopt(std::move(opened->source));
    else
      status.setError(opened->error);
  }

  void setSourcePaused(bool p) {
    try {
      source->setPaused(p);
    } catch (const SourceError& e) {
      failed = true;
      status.setError(e.what());
    }
  }

  void applyControls() {
    filter.applyRequest();
    const Controls c = controls.take();
    if (c.loop) config.loop = *c.loop;
    if (c.paused) status.setPaused(*c.paused);
    if (!source || failed) return;
    if (c.paused) setSourcePaused(*c.paused);
    if (c.seek) {
      try {
        gpuPath.drain();
        source->seek(*c.seek);
        status.setPosition(*c.seek);
      } catch (const SourceError& e) {
        status.setError(e.what());
      }
    }
  }

  StepResult step(std::chrono::milliseconds wait) {
    collectOpened();
    applyControls();
    gpuPath.completeReady();
    if (!source || failed) return StepResult::Error;
    if (status.paused()) {
      std::this_thread::sleep_for(std::min(wait, std::chrono::milliseconds(20)));
      return StepResult::Paused;
    }
    // The next slot is made free before a frame is taken: a sink that throws while an older
    // frame completes then costs no frame from the source.
    if (ring.upcoming().busy) gpuPath.completeThrough(ring.upcoming());
    SourceFrame frame;
    const auto t0 = Clock::now();
    Source::Pull r;
    try {
      r = source->pull(frame, wait);
    } catch (const SourceError& e) {
      failed = true;
      status.setError(e.what());
      gpuPath.drain();
      return StepResult::Error;
    }
    const double waitMs = msBetween(t0, Clock::now());
    if (r == Source::Pull::Frame) stats.framePulled(t0, frame.pageLockMs);
    if (r == Source::Pull::Timeout) return StepResult::Idle;
    if (r == Source::Pull::EndOfStream) {
      if (config.loop && status.info().seekable) {
        try {
          source->seek(0);
          return StepResult::Idle;
        } catch (const SourceError& e) {
          status.setError(e.what());
        }
      }
      gpuPath.drain();
      return StepResult::EndOfStream;
    }
    status.frameTaken(source->positionSeconds());
    if (filter.resize(filterDescOf(frame))) status.setError("");  // the old frames' note goes
    PipelinePlans::ForFrame current = filter.forFrame();
    if (!current.note.empty()) status.setError(current.note);
    Slot& slot = ring.takeUpcoming();
    slot.load(std::move(frame), waitMs, *current.plan, current.generation, config.pinned);
    if (slot.plan.onGpu()) {
      gpuPath.enqueue(slot);
    } else {
      gpuPath.drain();  // frames still on the GPU go out first: sinks see frames in order
      cpuPath.run(slot);
    }
    return StepResult::Frame;
  }
};

const char* inputFormatName(InputFormat f) {
  switch (f) {
    case InputFormat::Auto:
      return "auto";
    case InputFormat::Rgba:
      return "rgba";
    case InputFormat::Yuv:
      return "yuv";
  }
  return "?";
}

Pipeline::Pipeline(const PipelineConfig& config, FrameSink& sink) : impl_(std::make_unique<Impl>(config, sink)) {}
Pipeline::~Pipeline() = default;

StepResult Pipeline::step(std::chrono::milliseconds wait) { return impl_->step(wait); }
void Pipeline::drain() { impl_->gpuPath.drain(); }

void Pipeline::setPaused(bool paused) { impl_->controls.setPaused(paused); }
void Pipeline::seek(double seconds) { impl_->controls.seek(seconds); }
void Pipeline::setLoop(bool loop) { impl_->controls.setLoop(loop); }
void Pipeline::switchSource(const SourceSpec& spec) { impl_->switcher.start(spec, impl_->sourceOptions()); }
PendingSource Pipeline::pendingSource() const { return impl_->switcher.pending(); }
std::string Pipeline::setFilter(const std::string& variant, const FilterParams& params) {
  return impl_->filter.request(variant, params);
}

Timings Pipeline::timings() const { return impl_->stats.timings(); }
SourceInfo Pipeline::sourceInfo() const { return impl_->status.info(); }
std::string Pipeline::autoChoice() const { return impl_->filter.current()->autoWhy(); }
std::string Pipeline::variantName() const { return impl_->filter.current()->variant().name; }
std::string Pipeline::greyExpandedWhy() const { return impl_->filter.expandedWhy(); }
FilterParams Pipeline::filterParams() const { return impl_->filter.current()->params(); }
std::string Pipeline::lastError() const {
  // A failed open is news at once, before the pipeline thread has collected it.
  if (std::string failure = impl_->switcher.failure(); !failure.empty()) return failure;
  return impl_->status.error();
}
std::string Pipeline::memoryMode() const {
  if (!impl_->gpu) return "pageable (no CUDA device: CPU variant)";
  if (!impl_->filter.current()->onGpu()) return "pageable (CPU variant)";
  return impl_->config.pinned ? "pinned" : "pageable";
}
bool Pipeline::paused() const { return impl_->status.paused(); }
double Pipeline::positionSeconds() const { return impl_->status.position(); }
std::uint64_t Pipeline::framesIn() const { return impl_->status.framesIn(); }

}  // namespace convlive
