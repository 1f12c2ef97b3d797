// Opening a source in the background (internal to pipeline/), so that whoever asked for it (the
// viewer's render loop) is never held up by a slow disk or a dead address.
//
// A worker thread builds the Source and owns it until it has its first frame; then take() hands
// it over. cancel() makes the worker give up within about 50 ms (a Source that opened anyway is
// destroyed with the opener). The opener itself is made, polled and destroyed by one thread at a
// time; state(), error(), cancel() and secondsWaiting() may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "convlive/source.hpp"

namespace convlive {

class SourceOpener {
 public:
  // Starts the worker at once. `options.cancel` is replaced by the opener's own flag.
  SourceOpener(SourceSpec spec, SourceOptions options);
  // Cancels the open and joins the worker: returns within about 50 ms plus the time GStreamer
  // takes to stop the half-open source.
  ~SourceOpener();
  SourceOpener(const SourceOpener&) = delete;
  SourceOpener& operator=(const SourceOpener&) = delete;

  enum class State { Opening, Ready, Failed };
  State state() const;
  // Ready: the source, once (null afterwards and in the other states).
  std::unique_ptr<Source> take();
  std::string error() const;  // Failed: the SourceError's message; else ""
  void cancel();
  const SourceSpec& spec() const { return spec_; }
  double secondsWaiting() const;  // since the opener was made

 private:
  void run(SourceOptions options);

  const SourceSpec spec_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::shared_ptr<std::atomic<bool>> cancelled_ = std::make_shared<std::atomic<bool>>(false);
  mutable std::mutex mutex_;  // guards the three below
  State state_ = State::Opening;
  std::unique_ptr<Source> source_;
  std::string error_;
  std::thread worker_;  // last: started once everything above exists
};

}  // namespace convlive
