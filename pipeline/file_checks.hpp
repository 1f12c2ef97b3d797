// File integrity checks (internal to pipeline/): what can be known about a file or URI before it
// is played (it exists, can be read, is not empty; a URI's scheme has a reader) and after it has
// played to its end (it was not cut short). Any thread; no state beyond the returned values.
#pragma once

#include <cstdint>
#include <string>

#include "convlive/source.hpp"

namespace convlive {

class FileCheck {
 public:
  // Checks a path and returns what to open; throws SourceError saying what is wrong with it.
  static FileCheck ofPath(const std::string& path);
  // Checks a URI's form and that an installed GStreamer source reads its scheme; a file:// URI
  // also gets the path checks. Throws SourceError.
  static FileCheck ofUri(const std::string& uri);

  const std::string& uri() const { return uri_; }  // what uridecodebin opens

  // After end of stream: "" when the file looks whole, else one line saying it was cut short
  // (it ends before the size or the duration its container declares). `lastPtsSeconds` is the
  // last frame's time, `fps` and `durationSeconds` what the source reported (0 / -1: unknown; the
  // source passes -1 where the file has audio, whose length the container's duration may be).
  std::string truncation(const SourceSpec& spec, std::uint64_t framesRead, double lastPtsSeconds, double fps,
                         double durationSeconds) const;

 private:
  std::string uri_;
  // RIFF files (AVI) declare their size up front; demuxers play a cut one to where it ends
  // without a word.
  std::uintmax_t declaredBytes_ = 0, actualBytes_ = 0;
};

}  // namespace convlive
