// Source kinds and graph building (internal to pipeline/). A SourceGraph is the GStreamer pipeline
// for one SourceSpec, built but not started, ending in the appsink the frames are read from.
//
// Threads: built, read and destroyed on the thread that opens and owns the Source. GStreamer's
// streaming threads report the decoder's streams into a StreamWatch the graph shares with them.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <optional>
#include <string>

#include "convlive/source.hpp"
#include "file_checks.hpp"
#include "gst_ptr.hpp"

namespace convlive {

class StreamWatch;

// The raw formats frames may reach the appsink in: RGBA always; NV12 and I420 with `yuv`; GRAY8 and
// GRAY16_LE (the latter on little-endian hosts, where it is the library's u16) with `grey`.
struct FrameFormats {
  bool yuv = false, grey = false;
  // As a caps format value: "RGBA", or a list ("{NV12,I420,RGBA,GRAY8,GRAY16_LE}").
  std::string capsValue() const;
};

class SourceGraph {
 public:
  // Validates the spec (file present, URI readable, camera present, pattern known, launch line
  // parses and has an appsink) and builds the pipeline. Throws SourceError saying what is wrong.
  // formats: the graph ends in one of them (the decoder's or camera's own format where it is one of
  // them: videoconvert passes it through) instead of RGBA alone. nvdec (with formats.yuv): files
  // and URIs are decoded by an NVDEC decoder where one takes the stream, in convlive's CUDA context,
  // and reach the appsink in CUDA memory (no host copy); launch lines get the context too. Throws
  // SourceError when it cannot.
  explicit SourceGraph(const SourceSpec& spec, FrameFormats formats = {}, bool nvdec = false);
  // Stops the pipeline (state NULL): no GStreamer thread touches it afterwards.
  ~SourceGraph();
  SourceGraph(const SourceGraph&) = delete;
  SourceGraph& operator=(const SourceGraph&) = delete;

  GstElement* pipeline() const { return pipeline_.get(); }
  GstElement* appsink() const { return appsink_; }  // owned by the pipeline
  const SourceSpec& spec() const { return spec_; }  // a camera's device resolved
  // File and URI sources: the checks made before opening, for the one made at end of stream.
  const std::optional<FileCheck>& fileCheck() const { return file_; }
  // Decoded files and URIs, once the decoder has found all its streams and none is video: why
  // (one line: "file 'x.mp4' has no video stream (audio only): ..."). "" until then, and for
  // other kinds of source. Cheap; called while waiting for the first frame.
  std::string noVideoReason() const;
  // Decoded files and URIs: whether the decoder found a stream of this kind ("audio", "text", ...)
  // besides the video. False for other kinds of source.
  bool hasStream(const std::string& kind) const;
  bool nvdec() const { return nvdec_; }
  // The element before the appsink draws the frames and keeps none (the test pattern), so the
  // appsink may size its buffer pool (SourceOptions::poolBuffers).
  bool appsinkSizesPool() const { return appsinkSizesPool_; }
  // The video decoder in the running graph ("nvh264dec", "avdec_h264", ...; "" when there is none).
  std::string videoDecoderName() const;

 private:
  void buildPattern();
  void buildDecoder(const std::string& uri);
  void buildLaunch();
  void parse(const std::string& line);

  SourceSpec spec_;
  FrameFormats formats_;
  bool nvdec_ = false;
  bool appsinkSizesPool_ = false;
  gst::ElementPtr pipeline_;
  GstElement* appsink_ = nullptr;
  std::optional<FileCheck> file_;
  std::shared_ptr<StreamWatch> streams_;  // decoders only
};

}  // namespace convlive
