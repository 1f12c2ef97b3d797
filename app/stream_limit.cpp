#include "stream_limit.hpp"

namespace convlive {

using Clock = std::chrono::steady_clock;

StreamLimit::StreamLimit(double seconds) : seconds_(seconds), start_(Clock::now()) {}

void StreamLimit::frameTaken(double position, double fps) {
  ++frames_;
  if (frames_ == 1) {
    first_ = last_ = position;
  } else if (position < last_) {  // a loop or a seek back: keep counting from where it was
    offset_ += last_ - position + (fps > 0 ? 1.0 / fps : 0.0);
  }
  if (position > first_) timestamps_ = true;
  last_ = position;
  fps_ = fps;
}

double StreamLimit::elapsed() const {
  if (!timestamps_) return std::chrono::duration<double>(Clock::now() - start_).count();
  return last_ - first_ + offset_;
}

bool StreamLimit::reached() const {
  if (seconds_ <= 0 || frames_ == 0) return false;
  if (!timestamps_) return frames_ >= 2 && elapsed() >= seconds_;  // no timestamps: wall-clock
  // The next frame would start at elapsed() + one frame: stop when it would be past the limit.
  const double frame = fps_ > 0 ? 1.0 / fps_ : 0.0;
  return elapsed() + frame >= seconds_ - 1e-6;
}

}  // namespace convlive
