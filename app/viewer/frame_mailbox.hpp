// Hands filtered frames from the pipeline's worker thread (PipelineWorker) to the render thread.
//
// Host frames (the cpu variant, no CUDA device) are copied in: the mailbox holds the newest one,
// and a frame the render thread has not taken yet is replaced (the display shows the newest).
// Device frames cannot wait: their memory is the pipeline's slot, reused once the work enqueued
// on the slot's stream has run, and GL (hence the interop mapping) is current on the render thread
// only. So postDevice() blocks the worker until the render thread has enqueued the copy into the
// display texture (serveDevice, at most one display pass later: the GPU path is fast, so waiting
// costs the worker little), or until close().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "convlive/image.hpp"
#include "convlive/pipeline.hpp"

namespace convlive {

// What was shown with the frame: the filter it went through, and its source when asked for.
struct FrameFacts {
  FilterParams params;
  std::string variant;
  std::int64_t ptsNs = -1;
  double positionSeconds = 0;  // the pipeline's position when the frame was presented
  HostImage sourceHost;        // the unfiltered frame (only when the viewer keeps source frames)
};

// A grey frame as it came (one channel of u8 or u16 values, rows desc.rowPitch() apart).
struct GreyImage {
  std::vector<std::uint8_t> bytes;  // desc.span() of them; empty: none
  ImageDesc desc;
};

struct HostFrame {
  HostImage filtered;
  HostImage source;  // empty unless the split view was on when it was presented
  // Grey frames filtered as grey on the CPU, shown as they are: `filtered` and `source` are empty.
  GreyImage filteredGrey, sourceGrey;
  FrameFacts facts;
};

struct DeviceFrame {
  const OutputFrame* frame = nullptr;  // valid while serveDevice's function runs
  FrameFacts facts;
};

class FrameMailbox {
 public:
  // Worker thread: the newest host frame (replaces one not taken; counts it in dropped()).
  void postHost(HostFrame&& frame);
  // Render thread: the host frame posted since the last take, if any.
  std::optional<HostFrame> takeHost();

  // Worker thread: waits until the render thread has run its function on `frame` (then returns
  // true, or rethrows what that function threw) or the mailbox is closed (false: not presented).
  bool postDevice(DeviceFrame& frame);
  // Render thread: runs `present` on the device frame waiting, if any (true when it did), then
  // lets the worker go on. What `present` throws goes to the worker (postDevice rethrows it).
  bool serveDevice(const std::function<void(const DeviceFrame&)>& present);

  // Render thread: waits until a frame of either kind is waiting, at most `wait`.
  bool waitForFrame(std::chrono::milliseconds wait);
  // Any thread: wakes a waiting worker; later posts of device frames return false at once.
  void close();
  // Any thread: host frames replaced before the render thread took them.
  std::uint64_t dropped() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<HostFrame> host_;
  DeviceFrame* device_ = nullptr;  // the worker's, while it waits in postDevice
  bool served_ = false;
  std::exception_ptr failure_;
  bool closed_ = false;
  std::uint64_t dropped_ = 0;
};

}  // namespace convlive
