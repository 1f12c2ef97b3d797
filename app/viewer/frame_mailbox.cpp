#include "frame_mailbox.hpp"

#include <utility>

namespace convlive {

void FrameMailbox::postHost(HostFrame&& frame) {
  {
    std::lock_guard lock(mutex_);
    if (host_) ++dropped_;
    host_ = std::move(frame);
  }
  changed_.notify_all();
}

std::optional<HostFrame> FrameMailbox::takeHost() {
  std::lock_guard lock(mutex_);
  return std::exchange(host_, std::nullopt);
}

bool FrameMailbox::postDevice(DeviceFrame& frame) {
  std::unique_lock lock(mutex_);
  if (closed_) return false;
  device_ = &frame;
  served_ = false;
  failure_ = nullptr;
  changed_.notify_all();
  changed_.wait(lock, [&] { return served_ || closed_; });
  const bool served = served_;
  device_ = nullptr;
  served_ = false;
  if (const std::exception_ptr failure = std::exchange(failure_, nullptr)) std::rethrow_exception(failure);
  return served;
}

bool FrameMailbox::serveDevice(const std::function<void(const DeviceFrame&)>& present) {
  std::unique_lock lock(mutex_);
  if (!device_ || served_) return false;
  // The worker is blocked in postDevice until served_ is set, so the frame stays put while the
  // lock is released for the (CUDA and GL) work.
  DeviceFrame* frame = device_;
  lock.unlock();
  std::exception_ptr failure;
  try {
    present(*frame);
  } catch (...) {
    failure = std::current_exception();
  }
  lock.lock();
  failure_ = failure;
  served_ = true;
  lock.unlock();
  changed_.notify_all();
  return true;
}

bool FrameMailbox::waitForFrame(std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, wait, [&] { return host_.has_value() || (device_ && !served_) || closed_; }) &&
         !closed_;
}

void FrameMailbox::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

std::uint64_t FrameMailbox::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

}  // namespace convlive
