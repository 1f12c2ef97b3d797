// Sources asked for by Pipeline::switchSource, opening in the background (internal to pipeline/).
//
// start() may be called from any thread and returns at once; the newest call's source is the one
// wanted, and older ones still opening are cancelled. The pipeline thread collects the outcome at
// a frame boundary with collect(). Neither ever waits for an opener's worker: a cancelled opener
// is kept until its worker has finished and let go then, except in the destructor.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "convlive/pipeline.hpp"
#include "source_opener.hpp"

namespace convlive {

class SourceSwitcher {
 public:
  SourceSwitcher() = default;
  // Cancels every opener still working and joins them (within about 50 ms of cancelAll()).
  ~SourceSwitcher();
  SourceSwitcher(const SourceSwitcher&) = delete;
  SourceSwitcher& operator=(const SourceSwitcher&) = delete;

  // Any thread: starts opening `spec`, cancelling the one opening before, if any.
  void start(const SourceSpec& spec, const SourceOptions& options);

  // What a finished open gave: the source (its first frame in), or why it failed.
  struct Opened {
    std::unique_ptr<Source> source;  // null when the open failed
    std::string error;
  };
  // Pipeline thread: the newest open once it has finished (nothing while it is still opening or
  // when none was asked for); lets go of superseded openers whose workers have ended.
  std::optional<Opened> collect();

  // Any thread: the open in progress for a progress line (empty when none, or when it failed).
  PendingSource pending() const;
  // Any thread: why the newest open failed, before collect() has taken it ("" when it did not).
  std::string failure() const;

  // Cancels every opener without waiting for them, so that several stop side by side while the
  // caller does something else; the destructor joins them.
  void cancelAll();

 private:
  mutable std::mutex mutex_;  // guards the two below
  std::unique_ptr<SourceOpener> opening_;
  std::vector<std::unique_ptr<SourceOpener>> retired_;  // cancelled, their workers not yet ended
};

}  // namespace convlive
