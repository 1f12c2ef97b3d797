// --seconds as a length of the stream, for run and export: fed the position of each frame taken,
// it says when the next frame would pass the limit. Measured on the frames' timestamps (from the
// first, across loops and seeks), so an export of a fast source holds that much video; sources
// without timestamps fall back to wall-clock time. One loop's thread.
#pragma once

#include <chrono>

namespace convlive {

class StreamLimit {
 public:
  explicit StreamLimit(double seconds);  // seconds <= 0: no limit
  void frameTaken(double positionSeconds, double fps);
  bool reached() const;
  double elapsed() const;  // stream seconds since the first frame (or wall-clock seconds)

 private:
  double seconds_, first_ = 0, last_ = 0, offset_ = 0, fps_ = 0;
  long frames_ = 0;
  bool timestamps_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace convlive
