#include "pipeline_worker.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/colour.hpp"

namespace convlive {
namespace {

HostImage copyOf(ConstImageView v) {
  HostImage out(v.width, v.height);
  for (int y = 0; y < v.height; ++y)
    std::copy_n(v.row(y), std::size_t(v.width) * 4, out.pixels().data() + out.pitch() * y);
  return out;
}

GreyImage greyCopyOf(const void* grey, const ImageDesc& d) {
  const auto* p = static_cast<const std::uint8_t*>(grey);
  return GreyImage{std::vector<std::uint8_t>(p, p + d.span()), d};
}

// The unfiltered RGBA8 frame in host memory, for a viewer that keeps it: the source's own frame,
// or, for NV12/I420 converted on the GPU (which has no RGBA8 host frame), the converted frame
// brought back on the frame's stream after its conversion; for grey frames shown as they are, the
// grey frame brought back and made RGBA8 as the GPU would have (R = G = B, 16 bits to nearest 8).
HostImage sourceCopyOf(const OutputFrame& f) {
  if (f.sourceHost.data != nullptr) return copyOf(f.sourceHost);
  if (f.sourceGrey != nullptr) {
    const ImageDesc& d = f.greyDesc;
    const void* grey = f.sourceGrey;
    std::vector<std::uint8_t> host;
    if (f.onDevice) {  // its span: the last row ends at its last pixel, not the pitch
      host.resize(d.span());
      CL_CUDA(cudaMemcpyAsync(host.data(), grey, host.size(), cudaMemcpyDeviceToHost, f.stream));
      CL_CUDA(cudaStreamSynchronize(f.stream));
      grey = host.data();
    }
    HostImage out(d.width, d.height);
    referenceGreyToRgba(grey, d, out.view());
    return out;
  }
  if (!f.onDevice) return copyOf(f.source);
  HostImage out(f.source.width, f.source.height);
  CL_CUDA(cudaMemcpy2DAsync(out.pixels().data(), out.pitch(), f.source.data, f.source.pitch,
                            std::size_t(f.source.width) * 4, std::size_t(f.source.height), cudaMemcpyDeviceToHost,
                            f.stream));
  CL_CUDA(cudaStreamSynchronize(f.stream));
  return out;
}

}  // namespace

PipelineWorker::PipelineWorker(const PipelineConfig& config, FrameMailbox& mailbox, bool keepSourceFrames)
    : mailbox_(mailbox), keepSourceFrames_(keepSourceFrames) {
  pipeline_ = std::make_unique<Pipeline>(config, static_cast<FrameSink&>(*this));
  lastOut_ = Clock::now().time_since_epoch().count();
}

PipelineWorker::~PipelineWorker() {
  stop();
  pipeline_.reset();
}

void PipelineWorker::start() {
  if (thread_.joinable()) return;
  stop_ = false;
  lastOut_ = Clock::now().time_since_epoch().count();
  thread_ = std::thread([this] { loop(); });
}

void PipelineWorker::stop() {
  stop_ = true;
  mailbox_.close();
  if (thread_.joinable()) thread_.join();
}

void PipelineWorker::loop() {
  while (!stop_) {
    StepResult r = StepResult::Error;
    try {
      r = pipeline_->step(std::chrono::milliseconds(20));
    } catch (const std::exception& e) {
      std::lock_guard lock(errorMutex_);
      error_ = e.what();
    }
    if (r == StepResult::Frame) ended_ = failed_ = false;
    if (r == StepResult::EndOfStream) ended_ = true;
    if (r == StepResult::Error) failed_ = true;
    // Nothing to pull until a control (seek, loop, a new source) changes that: do not spin.
    if (r == StepResult::EndOfStream || r == StepResult::Error)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  try {
    pipeline_->drain();
  } catch (const std::exception& e) {
    std::lock_guard lock(errorMutex_);
    error_ = e.what();
  }
}

void PipelineWorker::present(const OutputFrame& f) {
  FrameFacts facts;
  facts.params = pipeline_->filterParams();
  facts.variant = pipeline_->variantName();
  facts.ptsNs = f.ptsNs;
  facts.positionSeconds = pipeline_->positionSeconds();
  if (keepSourceFrames_) facts.sourceHost = sourceCopyOf(f);
  if (f.onDevice) {
    DeviceFrame d{&f, std::move(facts)};
    if (!mailbox_.postDevice(d)) return;  // closing: not shown
  } else {
    HostFrame h;
    if (f.filteredGrey != nullptr) {
      h.filteredGrey = greyCopyOf(f.filteredGrey, f.greyDesc);
      if (wantSource_) h.sourceGrey = greyCopyOf(f.sourceGrey, f.greyDesc);
    } else {
      h.filtered = copyOf(f.filtered);
      if (wantSource_) h.source = copyOf(f.source);
    }
    h.facts = std::move(facts);
    mailbox_.postHost(std::move(h));
  }
  ++framesOut_;
  lastOut_ = Clock::now().time_since_epoch().count();
}

std::string PipelineWorker::takeError() {
  std::lock_guard lock(errorMutex_);
  return std::exchange(error_, std::string());
}

FilterPace PipelineWorker::pace() const {
  FilterPace p;
  const Clock::time_point last{Clock::duration(lastOut_.load())};
  p.waitingMs = std::chrono::duration<double, std::milli>(Clock::now() - last).count();
  const Timings t = pipeline_->timings();
  p.lastFilterMs = t.stages.empty() ? 0 : t[Stage::Filter].last();
  const SourceInfo si = pipeline_->sourceInfo();
  // Behind: no frame for several of the source's frame times (and a quarter second at least, so
  // that scheduling hiccups do not count), or the last frame took longer than one frame time.
  const double frameMs = si.fps > 0 ? 1000 / si.fps : 33.3;
  const bool playing = !pipeline_->paused() && !ended_ && !failed_;
  p.behind = playing && (p.waitingMs > std::max(250.0, 3 * frameMs) || p.lastFilterMs > 1.5 * frameMs);
  return p;
}

}  // namespace convlive
