// Controls asked for from any thread and applied by the pipeline thread at the next frame
// boundary (internal to pipeline/), and the state that readers on any thread see in return.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "convlive/source.hpp"

namespace convlive {

// What was asked since the last frame boundary; a later request of a kind replaces an earlier one.
struct Controls {
  std::optional<bool> paused, loop;
  std::optional<double> seek;
};

class ControlQueue {
 public:
  // Any thread.
  void setPaused(bool paused) {
    std::lock_guard lock(mutex_);
    pending_.paused = paused;
  }
  void setLoop(bool loop) {
    std::lock_guard lock(mutex_);
    pending_.loop = loop;
  }
  void seek(double seconds) {
    std::lock_guard lock(mutex_);
    pending_.seek = seconds;
  }
  // Pipeline thread, at a frame boundary: everything asked since the last take().
  Controls take() {
    std::lock_guard lock(mutex_);
    return std::exchange(pending_, Controls{});
  }

 private:
  std::mutex mutex_;  // guards pending_
  Controls pending_;
};

// The pipeline's state as readers see it: the pipeline thread writes it, any thread reads a copy.
class PipelineStatus {
 public:
  // A source was adopted: its description, and no error yet.
  void sourceOpened(const SourceInfo& info) {
    std::lock_guard lock(mutex_);
    info_ = info;
    error_.clear();
  }
  void setError(std::string error) {
    std::lock_guard lock(mutex_);
    error_ = std::move(error);
  }
  void setPaused(bool paused) {
    std::lock_guard lock(mutex_);
    paused_ = paused;
  }
  void setPosition(double seconds) {
    std::lock_guard lock(mutex_);
    position_ = seconds;
  }
  // A frame was taken from the source at `position` seconds.
  void frameTaken(double position) {
    std::lock_guard lock(mutex_);
    position_ = position;
    ++framesIn_;
  }

  SourceInfo info() const {
    std::lock_guard lock(mutex_);
    return info_;
  }
  std::string error() const {
    std::lock_guard lock(mutex_);
    return error_;
  }
  bool paused() const {
    std::lock_guard lock(mutex_);
    return paused_;
  }
  double position() const {
    std::lock_guard lock(mutex_);
    return position_;
  }
  std::uint64_t framesIn() const {
    std::lock_guard lock(mutex_);
    return framesIn_;
  }

 private:
  mutable std::mutex mutex_;  // guards everything below
  SourceInfo info_;
  std::string error_;  // "" when none since the source was adopted (or the frame size last changed)
  bool paused_ = false;
  double position_ = 0;
  std::uint64_t framesIn_ = 0;
};

}  // namespace convlive
