// GPU time of the viewer's draw, from GL_TIME_ELAPSED queries read a few passes late, so the
// render loop never waits on the GPU to time it. Render thread only, with the context current.
#pragma once

#include <optional>

#include "gl/resources.hpp"

namespace convlive {

class GpuTimer {
 public:
  GpuTimer();  // makes the queries
  // Brackets the GL work to time; once a pass, begin() then end(). begin() reads the result of
  // the query it is about to reuse (issued kQueries passes ago) when it is ready.
  void begin();
  void end();
  // The result read by the last begin(), in milliseconds, or nothing (not ready, or implausible).
  std::optional<double> result() const { return result_; }

 private:
  static constexpr int kQueries = 4;
  GlQuery queries_[kQueries];
  bool pending_[kQueries] = {};
  unsigned passes_ = 0;
  int current_ = -1;
  std::optional<double> result_;
};

}  // namespace convlive
