#include "convlive/pipeline.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
#include "source_opener.hpp"

namespace convlive {
namespace {

using Clock = std::chrono::steady_clock;
double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Copies rows between host images of the same size (pitches may differ).
void copyRows(ConstImageView from, ImageView to) {
  const std::size_t rowBytes = std::size_t(from.width) * 4;
  if (from.pitch == to.pitch) {
    std::memcpy(to.data, from.data, from.pitch * std::size_t(from.height - 1) + rowBytes);
    return;
  }
  for (int y = 0; y < from.height; ++y) std::memcpy(to.row(y), from.row(y), rowBytes);
}

// The CUDA side of a slot: its stream, events, device frames and pinned staging buffers.
struct GpuSlot {
  Stream stream;
  // converted: after the NV12/I420 -> RGBA conversion (right after the upload for RGBA frames);
  // outConverted: after the conversion back to I420 (right after the filter when there is none).
  Event start, uploaded, converted, filtered, outConverted, done;
  Event handed;  // on the pipeline's marker stream when the sink's present() returned
  DeviceImage in, out;
  DeviceBuffer yuvIn;            // YUV frames as uploaded (the source's layout)
  DeviceYuvFrame yuvOut;         // the filtered frame as I420, for sinks that take it (made when first needed)
  PinnedBuffer hostIn, hostOut;  // pinned mode only
};

// Where the planes of a frame lie in the block [base, base + bytes) it came in.
YuvLayout layoutWithin(const ConstYuvView& v, const std::uint8_t* base, std::size_t bytes) {
  YuvLayout l;
  l.format = v.format, l.width = v.width, l.height = v.height, l.bytes = bytes;
  for (int p = 0; p < yuvPlaneCount(v.format); ++p) {
    l.offsets[p] = std::size_t(v.planes[p] - base);
    l.pitches[p] = v.pitches[p];
  }
  return l;
}

void copyPlanes(const ConstYuvView& from, const YuvView& to) {
  for (int p = 0; p < yuvPlaneCount(from.format); ++p)
    for (int y = 0; y < yuvPlaneRows(from.height, p); ++y)
      std::memcpy(to.planes[p] + std::size_t(y) * to.pitches[p], from.planes[p] + std::size_t(y) * from.pitches[p],
                  yuvRowBytes(from.format, from.width, p));
}

// One frame's place in the ring. While `busy`, its frame is in flight and nothing in it may change.
struct Slot {
  std::unique_ptr<GpuSlot> gpu;           // null without a device
  std::vector<std::uint8_t> hostOut;      // pageable mode and the cpu variant: the filtered frame
  std::vector<std::uint8_t> hostRgba;     // YUV frames on the CPU: the frame converted to RGBA
  std::vector<std::uint8_t> hostStaging;  // YUV frames in pageable mode whose planes lie apart: packed here
  YuvLayout yuvLayout;                    // YUV frames: the planes in the uploaded block
  bool yuvOut = false;                    // the frame goes to the sink as I420 (filteredYuv) ...
  ColourSpec yuvOutColour;                // ... with these colours
  Plan plan;                              // a copy of the pipeline's plan for this slot's stream
  std::uint64_t planGeneration = 0;       // which of the pipeline's plans it copies
  int width = 0, height = 0;
  bool busy = false;
  SourceFrame frame;                              // kept until done: pageable uploads and sourceHost read it
  double waitMs = 0, hostCopyMs = 0, sinkMs = 0;  // sinkMs: host time in the sink's present/deliver
  double cpuConvertMs = 0;                        // YUV frames on the CPU: the conversion to RGBA
  ConstImageView uploadedFrom;  // the host frame the upload read: the pinned copy or the sample itself
  bool direct = false;          // uploaded straight from registered source memory
  Clock::time_point enqueued;   // host time just before the upload was enqueued
  bool presented = false;       // the sink's present() ran for the frame in flight (gpu->handed recorded)
};

OutputFrame outputOf(const Slot& slot, ConstImageView filtered, ConstImageView source, ConstImageView sourceHost) {
  OutputFrame f;
  f.index = slot.frame.index;
  f.ptsNs = slot.frame.ptsNs;
  f.filtered = filtered;
  f.source = source;
  f.sourceHost = sourceHost;
  if (slot.frame.isYuv()) {
    if (!slot.frame.onDevice) f.sourceYuv = slot.frame.yuv;  // host memory only
    f.colour = slot.frame.colour;
  }
  return f;
}

// A filter change: what was asked, and the plan made for it at the current frame size.
struct FilterChange {
  std::string variant;
  FilterParams params;
  std::shared_ptr<const Plan> plan;
};

struct Controls {
  std::optional<bool> paused, loop;
  std::optional<double> seek;
  std::optional<FilterChange> filter;
};

// The pipeline's plans: device frames for a GPU variant, host frames for a CPU one. A named GPU
// variant without a device is refused (as on the command line); auto runs on the CPU.
Plan makePlan(const std::string& variant, const FilterParams& params, int w, int h) {
  return Plan::make(params, variant, ImageDesc::rgba8(w, h), {.memory = Memory::Native, .cpuFallback = false});
}

}  // namespace

struct Pipeline::Impl {
  PipelineConfig config;
  FrameSink& sink;
  bool gpu = false;
  std::unique_ptr<Source> source;
  std::vector<Slot> slots;
  std::deque<std::size_t> inFlight;    // busy slots, oldest first
  std::optional<Stream> markerStream;  // never given work: an event recorded on it marks "now" on the GPU

  cudaStream_t marker() {
    if (!markerStream) markerStream.emplace();
    return markerStream->get();
  }
  std::size_t nextSlot = 0;
  bool failed = false;

  mutable std::mutex controlMutex;  // guards `pending` and the fields below it that readers see
  Controls pending;
  std::string askedVariant;  // the variant asked for ("auto" or a name), and the filter
  FilterParams askedParams;
  std::shared_ptr<const Plan> plan;  // for askedParams on frames of the current size
  std::uint64_t planGeneration = 1;  // bumped with every new plan (slots copy it when it moves on)
  SourceInfo info;
  std::string lastError;
  bool paused = false;
  double position = 0;
  int width = 0, height = 0;  // of the last frame taken
  std::uint64_t framesIn = 0;

  mutable std::mutex statsMutex;
  Timings stats;
  std::deque<Clock::time_point> completions;    // recent completion times, for fps
  SteadyRate steady;                            // completions after the warm-up, for steadyFps
  std::optional<Clock::time_point> firstTaken;  // when the first frame was pulled (for firstFrameMs)

  // Sources opening in the background. `opening` is the newest switchSource's; older ones it
  // superseded are cancelled and wait in `retired` until their workers have finished, so that
  // neither switchSource nor step() ever waits for one.
  mutable std::mutex openMutex;
  std::unique_ptr<SourceOpener> opening;
  std::vector<std::unique_ptr<SourceOpener>> retired;

  Impl(const PipelineConfig& c, FrameSink& s) : config(c), sink(s) {
    if (config.slots < 1 || config.slots > 16)
      throw std::invalid_argument("slot count " + std::to_string(config.slots) + " is out of range: use 1 to 16");
    gpu = deviceInfo().available;
    if (!gpu) config.pinned = false;
    for (int i = 0; i < int(Stage::Count); ++i) stats.stages.emplace_back(stageName(Stage(i)));
    openSource(config.source);
    width = source->info().nativeWidth;
    height = source->info().nativeHeight;
    askedVariant = config.variant;
    askedParams = config.params;
    plan = std::make_shared<const Plan>(makePlan(askedVariant, askedParams, std::max(width, 1), std::max(height, 1)));
    slots.resize(std::size_t(gpu ? config.slots : 1));
  }

  ~Impl() {
    std::vector<std::unique_ptr<SourceOpener>> openers;
    {
      std::lock_guard lock(openMutex);
      openers = std::move(retired);
      if (opening) openers.push_back(std::move(opening));
    }
    for (auto& o : openers) o->cancel();  // all at once: they stop side by side
    try {
      drain();
    } catch (...) {
      // Destructors never throw; the frames in flight are lost either way.
    }
    openers.clear();  // joins the workers (each within about 50 ms of its cancel)
  }

  SourceOptions sourceOptions() const {
    SourceOptions o;
    o.sync = config.sync;
    o.maxQueued = config.slots;
    o.newestOnly = config.newestFrameOnly;
    o.openTimeout = config.openTimeout;
    o.registerWithCuda = gpu && config.pinned && config.registerSourceMemory;
    o.acceptYuv = config.inputFormat == InputFormat::Yuv || (config.inputFormat == InputFormat::Auto && gpu);
    o.decoder = config.decoder;
    return o;
  }

  void openSource(const SourceSpec& spec) { adopt(std::make_unique<Source>(spec, sourceOptions())); }

  // Makes `next` the source, at a frame boundary: the old one's frames in flight go out first.
  void adopt(std::unique_ptr<Source> next) {
    std::unique_ptr<Source> old = std::exchange(source, std::move(next));
    {
      std::lock_guard lock(controlMutex);
      info = source->info();
      failed = false;
      lastError.clear();
    }
    drain();
    old.reset();
    if (paused) setSourcePaused(true);
  }

  // switchSource: any thread. Starts opening at once; the old source plays on meanwhile.
  void startOpening(const SourceSpec& spec) {
    auto next = std::make_unique<SourceOpener>(spec, sourceOptions());
    std::lock_guard lock(openMutex);
    if (opening) {
      opening->cancel();
      retired.push_back(std::move(opening));
    }
    opening = std::move(next);
  }

  // Pipeline thread, at the start of a step: takes a source that has finished opening (or its
  // error), and lets go of superseded openers whose workers have finished.
  void collectOpened() {
    std::unique_ptr<SourceOpener> done;
    std::vector<std::unique_ptr<SourceOpener>> finished;
    {
      std::lock_guard lock(openMutex);
      for (auto it = retired.begin(); it != retired.end();) {
        if ((*it)->state() == SourceOpener::State::Opening) {
          ++it;
          continue;
        }
        finished.push_back(std::move(*it));
        it = retired.erase(it);
      }
      if (opening && opening->state() != SourceOpener::State::Opening) done = std::move(opening);
    }
    finished.clear();  // their workers have ended: the joins are immediate
    if (!done) return;
    if (std::unique_ptr<Source> next = done->take())
      adopt(std::move(next));
    else
      setError(done->error());
  }

  void setSourcePaused(bool p) {
    try {
      source->setPaused(p);
    } catch (const SourceError& e) {
      failed = true;
      setError(e.what());
    }
  }

  void setError(const std::string& e) {
    std::lock_guard lock(controlMutex);
    lastError = e;
  }

  void applyControls() {
    Controls c;
    {
      std::lock_guard lock(controlMutex);
      c = std::exchange(pending, Controls{});
      if (c.filter) {
        askedVariant = c.filter->variant;
        askedParams = c.filter->params;
        plan = c.filter->plan;
        ++planGeneration;
      }
      if (c.loop) config.loop = *c.loop;
      if (c.paused) paused = *c.paused;
    }
    if (!source || failed) return;
    if (c.paused) setSourcePaused(*c.paused);
    if (c.seek) {
      try {
        drain();
        source->seek(*c.seek);
        std::lock_guard lock(controlMutex);
        position = *c.seek;
      } catch (const SourceError& e) {
        setError(e.what());
      }
    }
  }

  // Makes sure the slot can hold a width x height frame; frees and reallocates when the size changed.
  void fit(Slot& slot, int w, int h) {
    if (slot.width == w && slot.height == h) return;
    const std::size_t bytes = std::size_t(w) * h * 4;
    if (slot.gpu) {  // made on the first frame that runs on the GPU
      slot.gpu->in = DeviceImage(w, h);
      slot.gpu->out = DeviceImage(w, h);
      slot.gpu->hostIn = PinnedBuffer();  // allocated when a frame needs copying into it
      slot.gpu->hostOut = config.pinned ? PinnedBuffer(bytes) : PinnedBuffer();
      slot.gpu->yuvOut = DeviceYuvFrame();  // made at the new size when a sink first takes I420
    }
    slot.hostOut.assign(bytes, 0);  // the cpu variant's output, and downloads in pageable mode
    slot.width = w;
    slot.height = h;
  }

  // The plan for width x height frames: the current one, or one made now. A variant that was fine at
  // the old size may not be at the new one: auto then, with the reason in lastError. Caller holds
  // controlMutex.
  void ensurePlanFor(int w, int h) {
    if (plan->image().width == w && plan->image().height == h) return;
    Problem why;
    Plan next = Plan::make(askedParams, askedVariant, ImageDesc::rgba8(w, h),
                           {.memory = Memory::Native, .cpuFallback = false}, why);
    if (!next && askedVariant != "auto") {
      next = makePlan("auto", askedParams, w, h);
      lastError = "variant " + askedVariant + " cannot run at " + std::to_string(w) + "x" + std::to_string(h) + " (" +
                  why.text() + "); switched to " + next.variant().name;
    }
    if (!next) throw ProblemError(why);
    plan = std::make_shared<const Plan>(std::move(next));
    ++planGeneration;
  }

  StepResult step(std::chrono::milliseconds wait) {
    collectOpened();
    applyControls();
    completeReady();
    if (!source || failed) return StepResult::Error;
    if (paused) {
      std::this_thread::sleep_for(std::min(wait, std::chrono::milliseconds(20)));
      return StepResult::Paused;
    }
    // The next slot is made free before a frame is taken: a sink that throws while an older
    // frame completes then costs no frame from the source.
    if (slots[nextSlot].busy) completeThrough(slots[nextSlot]);
    SourceFrame frame;
    const auto t0 = Clock::now();
    Source::Pull r;
    try {
      r = source->pull(frame, wait);
    } catch (const SourceError& e) {
      failed = true;
      setError(e.what());
      drain();
      return StepResult::Error;
    }
    const double waitMs = msBetween(t0, Clock::now());
    if (r == Source::Pull::Frame && !firstTaken) firstTaken = t0;
    if (r == Source::Pull::Frame && frame.pageLockMs) {
      std::lock_guard lock(statsMutex);
      ++stats.pageLocks;
      stats.pageLockMs += *frame.pageLockMs;
    }
    if (r == Source::Pull::Timeout) return StepResult::Idle;
    if (r == Source::Pull::EndOfStream) {
      if (config.loop && info.seekable) {
        try {
          source->seek(0);
          return StepResult::Idle;
        } catch (const SourceError& e) {
          setError(e.what());
        }
      }
      drain();
      return StepResult::EndOfStream;
    }
    const int w = frame.pixels.width, h = frame.pixels.height;
    std::shared_ptr<const Plan> current;
    std::uint64_t generation = 0;
    {
      std::lock_guard lock(controlMutex);
      const bool resized = w != width || h != height;
      width = w;
      height = h;
      position = source->positionSeconds();
      ++framesIn;
      if (resized) lastError.clear();
      ensurePlanFor(w, h);
      current = plan;
      generation = planGeneration;
    }
    Slot& slot = slots[nextSlot];
    nextSlot = (nextSlot + 1) % slots.size();
    if (slot.planGeneration != generation) {  // its own copy: one workspace per stream
      slot.plan = *current;
      slot.planGeneration = generation;
    }
    const bool onGpu = slot.plan.onGpu();
    if (onGpu && !slot.gpu) {
      slot.gpu = std::make_unique<GpuSlot>();
      slot.width = slot.height = 0;  // allocate its device frames
    }
    fit(slot, w, h);
    slot.frame = std::move(frame);
    slot.waitMs = waitMs;
    if (onGpu) {
      enqueueGpu(slot);
    } else {
      drain();  // frames still on the GPU go out first: sinks see frames in order
      runCpu(slot);
    }
    return StepResult::Frame;
  }

  // RGBA frames: the host frame the upload reads (the sample itself, or its copy in the slot's
  // pinned buffer).
  ConstImageView stageRgba(Slot& slot) {
    GpuSlot& g = *slot.gpu;
    const ConstImageView src = slot.frame.pixels;
    const int w = src.width, h = src.height;
    const std::size_t rowBytes = std::size_t(w) * 4;
    slot.direct = config.pinned && slot.frame.pinned;
    if (!config.pinned || slot.frame.pinned) return src;
    if (g.hostIn.bytes() < rowBytes * h) g.hostIn = PinnedBuffer(rowBytes * h);
    const auto t0 = Clock::now();
    const ImageView staged{static_cast<std::uint8_t*>(g.hostIn.get()), w, h, rowBytes};
    copyRows(src, staged);
    slot.hostCopyMs = msBetween(t0, Clock::now());
    return staged;
  }

  // YUV frames: the block the upload copies in one piece (the sample's memory, or a copy in the
  // slot's pinned buffer; planes lying apart are packed first), with slot.yuvLayout saying where its
  // planes are.
  const std::uint8_t* stageYuv(Slot& slot) {
    GpuSlot& g = *slot.gpu;
    const SourceFrame& f = slot.frame;
    slot.yuvLayout =
        f.bytes ? layoutWithin(f.yuv, f.bytes, f.byteCount) : packedYuvLayout(f.yuv.format, f.yuv.width, f.yuv.height);
    g.yuvIn.reserve(slot.yuvLayout.bytes);
    slot.direct = config.pinned && f.pinned && f.bytes;
    if (f.bytes && (!config.pinned || f.pinned)) return f.bytes;
    std::uint8_t* to;
    if (config.pinned) {
      if (g.hostIn.bytes() < slot.yuvLayout.bytes) g.hostIn = PinnedBuffer(slot.yuvLayout.bytes);
      to = static_cast<std::uint8_t*>(g.hostIn.get());
    } else {
      slot.hostStaging.resize(slot.yuvLayout.bytes);
      to = slot.hostStaging.data();
    }
    const auto t0 = Clock::now();
    if (f.bytes)
      std::memcpy(to, f.bytes, f.byteCount);
    else
      copyPlanes(f.yuv, yuvViewAt(slot.yuvLayout, to));
    slot.hostCopyMs = msBetween(t0, Clock::now());
    return to;
  }

  // Upload into g.in as RGBA: a copy, or the YUV block and its conversion. Records start, uploaded
  // and converted on the slot's stream.
  void enqueueUpload(Slot& slot, cudaStream_t s) {
    GpuSlot& g = *slot.gpu;
    slot.hostCopyMs = 0;
    if (slot.frame.onDevice) {  // NVDEC's frame, in GPU memory: converted where it is
      slot.uploadedFrom = {};
      slot.direct = false;
      slot.enqueued = Clock::now();
      g.start.record(s);
      g.uploaded.record(s);
      yuvToRgba(slot.frame.yuv, g.in.view(), slot.frame.colour, s);
      g.converted.record(s);
      return;
    }
    if (slot.frame.isYuv()) {
      const std::uint8_t* from = stageYuv(slot);
      slot.uploadedFrom = {};
      slot.enqueued = Clock::now();
      g.start.record(s);
      CL_CUDA(cudaMemcpyAsync(g.yuvIn.get(), from, slot.yuvLayout.bytes, cudaMemcpyHostToDevice, s));
      g.uploaded.record(s);
      yuvToRgba(yuvViewAt(slot.yuvLayout, g.yuvIn.as<const std::uint8_t>()), g.in.view(), slot.frame.colour, s);
      g.converted.record(s);
      return;
    }
    const ConstImageView upFrom = stageRgba(slot);
    slot.uploadedFrom = upFrom;
    slot.enqueued = Clock::now();
    g.start.record(s);
    CL_CUDA(cudaMemcpy2DAsync(g.in.view().data, g.in.pitch(), upFrom.data, upFrom.pitch, std::size_t(upFrom.width) * 4,
                              upFrom.height, cudaMemcpyHostToDevice, s));
    g.uploaded.record(s);
    g.converted.record(s);
  }

  // For host-frame sinks: the filtered frame back into host memory, as I420 when the sink takes it
  // and the source was YUV (converted on the GPU first), else as RGBA. Records outConverted.
  void enqueueDownload(Slot& slot, cudaStream_t s) {
    GpuSlot& g = *slot.gpu;
    const int w = slot.width, h = slot.height;
    slot.yuvOut = sink.wantsHostFrames() && slot.frame.isYuv() && sink.acceptsYuvFrames();
    if (slot.yuvOut) {
      if (g.yuvOut.empty()) g.yuvOut = DeviceYuvFrame(packedYuvLayout(YuvFormat::I420, w, h));
      slot.yuvOutColour = sink.yuvFramesColour(slot.frame.colour, w, h);
      rgbaToYuv(g.out.view(), g.yuvOut.view(), slot.yuvOutColour, s);
    }
    g.outConverted.record(s);
    if (!sink.wantsHostFrames()) return;
    void* to = config.pinned ? g.hostOut.get() : slot.hostOut.data();
    const std::size_t rowBytes = std::size_t(w) * 4;
    if (slot.yuvOut)
      CL_CUDA(cudaMemcpyAsync(to, g.yuvOut.view().planes[0], g.yuvOut.layout().bytes, cudaMemcpyDeviceToHost, s));
    else
      CL_CUDA(
          cudaMemcpy2DAsync(to, rowBytes, g.out.view().data, g.out.pitch(), rowBytes, h, cudaMemcpyDeviceToHost, s));
  }

  void enqueueGpu(Slot& slot) {
    GpuSlot& g = *slot.gpu;
    const cudaStream_t s = g.stream.get();
    enqueueUpload(slot, s);
    slot.plan.run(g.in.view(), g.out.view(), s);
    g.filtered.record(s);
    enqueueDownload(slot, s);
    const ConstImageView upFrom = slot.uploadedFrom;
    // The frame's GPU work is enqueued: whatever the sink does, the slot joins the ring so that
    // it completes in order, and a sink's exception comes out of step() only after that.
    std::exception_ptr sinkFailure;
    slot.sinkMs = 0;
    slot.presented = false;
    if (!sink.wantsHostFrames()) {
      OutputFrame f = outputOf(slot, g.out.view(), g.in.view(), upFrom);
      f.onDevice = true;
      f.stream = s;
      const auto t0 = Clock::now();
      try {
        sink.present(f);
      } catch (...) {
        sinkFailure = std::current_exception();
      }
      slot.sinkMs = msBetween(t0, Clock::now());
      // The sink may have made the slot's stream wait for work it enqueues later (the viewer's
      // copy into the display texture, enqueued when its render thread takes the frame). An event
      // on an otherwise idle stream marks on the GPU's clock when present() returned, so the output
      // stage counts from then (or from the filter's end, if later) instead of counting that wait.
      g.handed.record(marker());
      slot.presented = true;
    }
    g.done.record(s);
    slot.busy = true;
    inFlight.push_back(std::size_t(&slot - slots.data()));
    if (sinkFailure) std::rethrow_exception(sinkFailure);
    if (!config.overlap) completeThrough(slot);
  }

  // YUV frames on the CPU: converted to RGBA by the colour reference (into slot.hostRgba).
  ConstImageView rgbaOnHost(Slot& slot) {
    slot.cpuConvertMs = 0;
    if (!slot.frame.isYuv()) return slot.frame.pixels;
    const int w = slot.frame.yuv.width, h = slot.frame.yuv.height;
    slot.hostRgba.resize(std::size_t(w) * h * 4);
    const ImageView rgba{slot.hostRgba.data(), w, h, std::size_t(w) * 4};
    const auto t0 = Clock::now();
    ConstYuvView from = slot.frame.yuv;
    if (slot.frame.onDevice) {  // an NVDEC frame for a CPU variant: its planes to host memory first
      const YuvLayout packed = packedYuvLayout(from.format, w, h);
      slot.hostStaging.resize(packed.bytes);
      const YuvView to = yuvViewAt(packed, slot.hostStaging.data());
      for (int p = 0; p < yuvPlaneCount(from.format); ++p)
        CL_CUDA(cudaMemcpy2D(to.planes[p], to.pitches[p], from.planes[p], from.pitches[p],
                             yuvRowBytes(from.format, w, p), std::size_t(yuvPlaneRows(h, p)), cudaMemcpyDeviceToHost));
      from = to;
    }
    referenceYuvToRgba(from, rgba, slot.frame.colour);
    slot.cpuConvertMs = msBetween(t0, Clock::now());
    return rgba;
  }

  void runCpu(Slot& slot) {
    const ConstImageView src = rgbaOnHost(slot);
    const ImageView out{slot.hostOut.data(), src.width, src.height, std::size_t(src.width) * 4};
    const auto t0 = Clock::now();
    slot.plan.run(src, out);
    const auto t1 = Clock::now();
    const OutputFrame f = outputOf(slot, out, src, src);
    std::exception_ptr sinkFailure;
    try {
      if (sink.wantsHostFrames())
        sink.deliver(f);
      else
        sink.present(f);
    } catch (...) {
      sinkFailure = std::current_exception();
    }
    const auto t2 = Clock::now();
    // No GPU output work: the sink's time is the handover.
    slot.sinkMs = msBetween(t1, t2);
    record(slot, 0, slot.cpuConvertMs, msBetween(t0, t1), 0, msBetween(slot.frame.arrival, t2));
    slot.frame = SourceFrame{};
    if (sinkFailure) std::rethrow_exception(sinkFailure);
  }

  // Completes the frames in flight whose GPU work has finished, oldest first, without waiting.
  void completeReady() {
    while (!inFlight.empty()) {
      Slot& slot = slots[inFlight.front()];
      const cudaError_t q = cudaEventQuery(slot.gpu->done.get());
      if (q == cudaErrorNotReady) return;
      CL_CUDA(q);
      complete(slot);
    }
  }

  // Completes every frame in flight up to and including `target` (blocking).
  void completeThrough(Slot& target) {
    while (target.busy && !inFlight.empty()) complete(slots[inFlight.front()]);
  }

  void drain() {
    while (!inFlight.empty()) complete(slots[inFlight.front()]);
  }

  void complete(Slot& slot) {
    GpuSlot& g = *slot.gpu;
    g.done.synchronize();
    inFlight.pop_front();
    const double upload = g.uploaded.elapsedSince(g.start);
    const double convert = g.converted.elapsedSince(g.uploaded) + g.outConverted.elapsedSince(g.filtered);
    const double filter = g.filtered.elapsedSince(g.converted);
    const double handedAfterFilter = slot.presented ? std::max(0.f, g.handed.elapsedSince(g.outConverted)) : 0.0;
    const double output = std::max(0.0, g.done.elapsedSince(g.outConverted) - handedAfterFilter);
    const ConstImageView staged = slot.uploadedFrom;
    // The slot is retired whatever the sink does; its exception comes out afterwards.
    std::exception_ptr sinkFailure;
    if (sink.wantsHostFrames()) {
      const std::uint8_t* outData =
          config.pinned ? static_cast<const std::uint8_t*>(g.hostOut.get()) : slot.hostOut.data();
      const auto t0 = Clock::now();
      try {
        OutputFrame f = outputOf(slot, ConstImageView(outData, slot.width, slot.height, std::size_t(slot.width) * 4),
                                 staged, staged);
        if (slot.yuvOut) {
          f.filtered = {};
          f.filteredYuv = yuvViewAt(g.yuvOut.layout(), outData);
          f.filteredColour = slot.yuvOutColour;
        }
        sink.deliver(f);
      } catch (...) {
        sinkFailure = std::current_exception();
      }
      slot.sinkMs = msBetween(t0, Clock::now());
    }
    // Latency: host time from arrival to the upload's start, then the GPU's time to the end (the
    // slot's stream is idle when a frame is enqueued, so its start event runs at once).
    const double latency = msBetween(slot.frame.arrival, slot.enqueued) + g.done.elapsedSince(g.start);
    record(slot, upload, convert, filter, output, latency);
    slot.busy = false;
    slot.frame = SourceFrame{};
    if (sinkFailure) std::rethrow_exception(sinkFailure);
  }

  void record(const Slot& slot, double upload, double convert, double filter, double output, double latency) {
    std::lock_guard lock(statsMutex);
    auto& st = stats.stages;
    st[int(Stage::Wait)].add(slot.waitMs);
    st[int(Stage::HostCopy)].add(slot.hostCopyMs);
    st[int(Stage::Upload)].add(upload);
    st[int(Stage::Convert)].add(convert);
    st[int(Stage::Filter)].add(filter);
    st[int(Stage::Output)].add(output);
    st[int(Stage::SinkWait)].add(slot.sinkMs);
    st[int(Stage::Total)].add(slot.hostCopyMs + upload + convert + filter + output);
    st[int(Stage::Latency)].add(latency);
    ++stats.frames;
    stats.directUploads += slot.direct;
    stats.deviceFrames += slot.frame.onDevice;
    stats.width = slot.width;
    stats.height = slot.height;
    const auto now = Clock::now();
    if (stats.frames == 1 && firstTaken) stats.firstFrameMs = msBetween(*firstTaken, now);
    steady.tick(now);
    stats.steadyFps = steady.fps();
    completions.push_back(now);
    while (completions.size() > 2 && msBetween(completions.front(), now) > 1000) completions.pop_front();
    const double span = msBetween(completions.front(), now);
    stats.fps = completions.size() > 1 && span > 0 ? 1000.0 * double(completions.size() - 1) / span : 0;
    stats.mpixPerSecond = stats.fps * slot.width * slot.height / 1e6;
    stats.filterGBs = filter > 0 ? 2.0 * slot.width * slot.height * 4 / (filter * 1e6) : 0;
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
void Pipeline::drain() { impl_->drain(); }

void Pipeline::setPaused(bool paused) {
  std::lock_guard lock(impl_->controlMutex);
  impl_->pending.paused = paused;
}
void Pipeline::seek(double seconds) {
  std::lock_guard lock(impl_->controlMutex);
  impl_->pending.seek = seconds;
}
void Pipeline::setLoop(bool loop) {
  std::lock_guard lock(impl_->controlMutex);
  impl_->pending.loop = loop;
}
void Pipeline::switchSource(const SourceSpec& spec) { impl_->startOpening(spec); }

PendingSource Pipeline::pendingSource() const {
  std::lock_guard lock(impl_->openMutex);
  const SourceOpener* o = impl_->opening.get();
  if (!o || o->state() == SourceOpener::State::Failed) return {};
  return {o->spec().describe(), o->secondsWaiting()};
}

std::string Pipeline::setFilter(const std::string& variant, const FilterParams& params) {
  std::lock_guard lock(impl_->controlMutex);
  const int w = std::max(impl_->width, 1), h = std::max(impl_->height, 1);
  try {
    impl_->pending.filter = {variant, params, std::make_shared<const Plan>(makePlan(variant, params, w, h))};
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

Timings Pipeline::timings() const {
  std::lock_guard lock(impl_->statsMutex);
  return impl_->stats;
}
SourceInfo Pipeline::sourceInfo() const {
  std::lock_guard lock(impl_->controlMutex);
  return impl_->info;
}
std::string Pipeline::autoChoice() const {
  std::lock_guard lock(impl_->controlMutex);
  return impl_->plan->autoWhy();
}
std::string Pipeline::variantName() const {
  std::lock_guard lock(impl_->controlMutex);
  return impl_->plan->variant().name;
}
FilterParams Pipeline::filterParams() const {
  std::lock_guard lock(impl_->controlMutex);
  return impl_->plan->params();
}
std::string Pipeline::lastError() const {
  {
    // A failed open is news at once, before the pipeline thread has collected it.
    std::lock_guard lock(impl_->openMutex);
    if (impl_->opening && impl_->opening->state() == SourceOpener::State::Failed) return impl_->opening->error();
  }
  std::lock_guard lock(impl_->controlMutex);
  return impl_->lastError;
}
std::string Pipeline::memoryMode() const {
  std::lock_guard lock(impl_->controlMutex);
  if (!impl_->gpu) return "pageable (no CUDA device: CPU variant)";
  if (!impl_->plan->onGpu()) return "pageable (CPU variant)";
  return impl_->config.pinned ? "pinned" : "pageable";
}
bool Pipeline::paused() const {
  std::lock_guard lock(impl_->controlMutex);
  return impl_->paused;
}
double Pipeline::positionSeconds() const {
  std::lock_guard lock(impl_->controlMutex);
  return impl_->position;
}
std::uint64_t Pipeline::framesIn() const {
  std::lock_guard lock(impl_->controlMutex);
  return impl_->framesIn;
}

}  // namespace convlive
