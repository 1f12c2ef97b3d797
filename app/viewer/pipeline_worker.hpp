// Drives the viewer's Pipeline on a thread of its own, so the render thread never waits for the
// filter: the cpu variant at a large radius may take seconds a frame while keys, mouse and panel
// go on at the display's rate. Finished frames go to the render thread through a FrameMailbox.
//
// Threads: the worker thread calls Pipeline::step() (and the FrameSink callbacks) from start()
// until stop(), then drains the pipeline. Any thread may use the pipeline's controls and reads
// (Pipeline's own contract) and this class's const reads. start() and stop() come from the thread
// that owns the worker (the render thread).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "convlive/pipeline.hpp"
#include "frame_mailbox.hpp"

namespace convlive {

// Whether the filter keeps up with the source, for the panel.
struct FilterPace {
  bool behind = false;
  double waitingMs = 0;     // since the last frame came out of the filter (or since the start)
  double lastFilterMs = 0;  // the last frame's filter time
};

class PipelineWorker : private FrameSink {
 public:
  // Opens the pipeline on the calling thread (a bad source throws here: SourceError,
  // std::invalid_argument); the thread starts with start(). `mailbox` must outlive the worker.
  PipelineWorker(const PipelineConfig& config, FrameMailbox& mailbox, bool keepSourceFrames);
  // Stops and joins the thread (see stop()).
  ~PipelineWorker() override;
  PipelineWorker(const PipelineWorker&) = delete;
  PipelineWorker& operator=(const PipelineWorker&) = delete;

  void start();
  // Asks the thread to stop, closes the mailbox, and joins: returns once the frame being
  // filtered is done (the cpu variant cannot be interrupted mid-frame) and the pipeline drained.
  // Afterwards the calling thread may call step()/drain() itself.
  void stop();

  Pipeline& pipeline() { return *pipeline_; }
  const Pipeline& pipeline() const { return *pipeline_; }

  // Host frames carry the source too while this is on (the split view shows it).
  void setWantSource(bool on) { wantSource_ = on; }
  // The source ended (and no frame came since).
  bool ended() const { return ended_; }
  // The last error step() threw (a sink's or CUDA's), once; "" when none since the last take.
  std::string takeError();
  FilterPace pace() const;
  // Frames the pipeline presented to the viewer.
  std::uint64_t framesOut() const { return framesOut_; }

 private:
  bool wantsHostFrames() const override { return false; }
  bool acceptsGreyFrames() const override { return true; }  // shown through R8 / R16 textures
  void present(const OutputFrame& f) override;
  void loop();

  using Clock = std::chrono::steady_clock;
  FrameMailbox& mailbox_;
  const bool keepSourceFrames_;
  std::unique_ptr<Pipeline> pipeline_;
  std::thread thread_;
  std::atomic<bool> stop_{false}, wantSource_{false}, ended_{false}, failed_{false};
  std::atomic<std::uint64_t> framesOut_{0};
  std::atomic<Clock::rep> lastOut_{0};  // Clock ticks of the last frame out (or of start())
  mutable std::mutex errorMutex_;
  std::string error_;  // guarded by errorMutex_
};

}  // namespace convlive
