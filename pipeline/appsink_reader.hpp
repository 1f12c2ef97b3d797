// The appsink reader (internal to pipeline/): plays a SourceGraph, waits for its first frame, then
// hands out its RGBA8 frames mapped in host memory, with their arrival times.
//
// Threads: every method runs on the thread that owns the Source (the opener's worker while it
// opens, then the pipeline's). GStreamer's streaming thread only writes the arrival log, which
// has its own lock and lives as long as the pad probe that writes it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "convlive/source.hpp"
#include "gst_ptr.hpp"
#include "source_graph.hpp"

namespace convlive {

class ArrivalLog;

class AppsinkReader {
 public:
  // `graph` is borrowed and must outlive the reader; nothing runs until open().
  AppsinkReader(const SourceGraph& graph, const SourceOptions& options);
  ~AppsinkReader();
  AppsinkReader(const AppsinkReader&) = delete;
  AppsinkReader& operator=(const AppsinkReader&) = delete;

  // Plays the graph and waits for its first frame, at most options.openTimeout, and no more than
  // about 50 ms after options.cancel is set. Throws SourceError with the reason it got none.
  void open();

  Source::Pull pull(SourceFrame& frame, std::chrono::milliseconds timeout);
  void setPaused(bool paused);
  void seek(double seconds);  // throws SourceError when the source cannot seek

  const SourceInfo& info() const { return info_; }
  void setDecoderNote(std::string note) { info_.decoderNote = std::move(note); }
  double positionSeconds() const { return position_; }
  bool eos() const { return eos_; }
  std::uint64_t framesPulled() const { return pulled_; }

 private:
  void drainBus();  // errors throw; end of stream is noted
  void fillInfo();
  bool toFrame(gst::SamplePtr sample, SourceFrame& frame);

  const SourceGraph& graph_;
  SourceOptions options_;
  SourceInfo info_;
  gst::BusPtr bus_;
  std::shared_ptr<ArrivalLog> arrivals_;
  bool eos_ = false, paused_ = false;
  std::uint64_t pulled_ = 0;
  double position_ = 0;
  gst::SamplePtr first_;  // the first frame, pulled while opening
  // After a flushing seek the appsink hands out the prerolled frame twice: the second is dropped.
  enum class AfterSeek { No, First, Second } afterSeek_ = AfterSeek::No;
  GstClockTime afterSeekPts_ = GST_CLOCK_TIME_NONE;
};

}  // namespace convlive
