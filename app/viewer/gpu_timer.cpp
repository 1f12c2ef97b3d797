#include "gpu_timer.hpp"

namespace convlive {

GpuTimer::GpuTimer() {
  for (auto& q : queries_) q = makeQuery();
}

void GpuTimer::begin() {
  current_ = int(passes_++ % kQueries);
  result_.reset();
  if (pending_[current_]) {
    GLint available = 0;
    glGetQueryObjectiv(queries_[current_].get(), GL_QUERY_RESULT_AVAILABLE, &available);
    if (available) {
      GLuint64 ns = 0;
      glGetQueryObjectui64v(queries_[current_].get(), GL_QUERY_RESULT, &ns);
      // Mesa's llvmpipe answers its first elapsed-time query with a timestamp (seen: 4e12 ns): a
      // draw never takes a second, so such a result is dropped rather than plotted.
      if (ns < 1'000'000'000ull) result_ = double(ns) / 1e6;
    }
    // Not available yet: the query is reissued below and that old result is lost (a slow GPU
    // gives fewer samples, never a stall).
  }
  glBeginQuery(GL_TIME_ELAPSED, queries_[current_].get());
}

void GpuTimer::end() {
  if (current_ < 0) return;
  glEndQuery(GL_TIME_ELAPSED);
  pending_[current_] = true;
  current_ = -1;
}

}  // namespace convlive
