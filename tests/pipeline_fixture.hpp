// Shared by the pipeline tests: generated video files, a sink that keeps what it is given, and
// comparison with the reference filter.
#pragma once

#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "convlive/export.hpp"
#include "convlive/pipeline.hpp"
#include "convlive/reference.hpp"
#include "image_compare.hpp"

#ifndef CONVLIVE_PIPELINE_GPU
#define CONVLIVE_PIPELINE_GPU 0
#endif

namespace convlive::testing {

// Built twice: with the GPU variants (CONVLIVE_PIPELINE_GPU=1, label gpu) and with the cpu variant.
inline constexpr bool kGpu = CONVLIVE_PIPELINE_GPU;
inline const char* const kVariant = kGpu ? "auto" : "cpu";

namespace fs = std::filesystem;

// A scratch folder for one test binary, removed at exit.
inline const fs::path& scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("convlive-test-" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(fs::temp_directory_path() / ("convlive-test-" + std::to_string(::getpid())), ec);
    });
    return d;
  }();
  return dir;
}

// Runs a gst-launch line to its end (bounded); fails the test when it errors.
inline void runLaunch(const std::string& line) {
  initGStreamer();
  GError* err = nullptr;
  GstElement* p = gst_parse_launch(line.c_str(), &err);
  ASSERT_TRUE(p && !err) << line << ": " << (err ? err->message : "?");
  gst_element_set_state(p, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(p);
  GstMessage* m = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND, GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const bool ok = m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS;
  if (m) gst_message_unref(m);
  gst_object_unref(bus);
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(p);
  ASSERT_TRUE(ok) << "generating with: " << line;
}

// A VP8/WebM (or MJPEG/AVI) file of `frames` frames of a moving ball at 30 fps, made once.
inline std::string generatedVideo(const std::string& name, int frames, int w = 96, int h = 64) {
  const fs::path path = scratch() / name;
  if (fs::exists(path)) return path.string();
  const bool avi = path.extension() == ".avi";
  const std::string line = "videotestsrc num-buffers=" + std::to_string(frames) +
                           " pattern=ball ! video/x-raw,width=" + std::to_string(w) + ",height=" + std::to_string(h) +
                           ",framerate=30/1 ! videoconvert ! " +
                           (avi ? "jpegenc ! avimux" : "vp8enc deadline=1 keyframe-max-dist=10 ! webmmux") +
                           " ! filesink location=" + path.string();
  runLaunch(line);
  return path.string();
}

// The first half of a 60-frame generated video ("cut.avi", "cut.webm", ...): a truncated file.
inline fs::path truncatedVideo(const std::string& ext) {
  const std::string whole = generatedVideo("long" + ext, 60, 160, 120);
  const fs::path cut = scratch() / ("cut" + ext);
  std::ifstream in(whole, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  return cut;
}

struct Captured {
  std::uint64_t index;
  std::int64_t pts;
  HostImage source, filtered;
};

inline HostImage copyOf(ConstImageView v) {
  HostImage img(v.width, v.height);
  for (int y = 0; y < v.height; ++y) std::memcpy(img.view().row(y), v.row(y), std::size_t(v.width) * 4);
  return img;
}

// Keeps a copy of every frame (source and filtered) in host memory.
class CaptureSink : public FrameSink {
 public:
  bool wantsHostFrames() const override { return true; }
  void deliver(const OutputFrame& f) override {
    EXPECT_FALSE(f.onDevice);
    frames.push_back({f.index, f.ptsNs, copyOf(f.sourceHost), copyOf(f.filtered)});
  }
  std::vector<Captured> frames;
};

// Largest channel difference between `got` and the reference filter of `source`.
inline int maxErrorAgainstReference(const FilterParams& p, const HostImage& source, const HostImage& got) {
  HostImage want(source.width(), source.height());
  referenceFilter(p.filter, p.border, p.filterAlpha, source.view(), want.view());
  return testcases::maxDifference(got.view(), want.view());
}

// The first frame of a video file, decoded to RGBA.
inline HostImage firstFrameOf(const std::string& path) {
  initGStreamer();
  GError* err = nullptr;
  GstElement* p = gst_parse_launch(
      ("filesrc location=" + path + " ! decodebin ! videoconvert ! video/x-raw,format=RGBA ! appsink name=s sync=false")
          .c_str(),
      &err);
  EXPECT_TRUE(p && !err);
  GstElement* s = gst_bin_get_by_name(GST_BIN(p), "s");
  gst_element_set_state(p, GST_STATE_PLAYING);
  GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(s), 10 * GST_SECOND);
  HostImage img;
  if (sample) {
    GstVideoInfo info;
    gst_video_info_from_caps(&info, gst_sample_get_caps(sample));
    GstMapInfo map;
    gst_buffer_map(gst_sample_get_buffer(sample), &map, GST_MAP_READ);
    img = HostImage(GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info));
    for (int y = 0; y < img.height(); ++y)
      std::memcpy(img.view().row(y), map.data + y * GST_VIDEO_INFO_PLANE_STRIDE(&info, 0),
                  std::size_t(img.width()) * 4);
    gst_buffer_unmap(gst_sample_get_buffer(sample), &map);
    gst_sample_unref(sample);
  }
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(s);
  gst_object_unref(p);
  return img;
}

inline double meanDifference(ConstImageView a, ConstImageView b) {
  double sum = 0;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width * 4; ++x)
      if (x % 4 != 3) sum += std::abs(int(a.row(y)[x]) - int(b.row(y)[x]));
  return sum / (double(a.width) * a.height * 3);
}

// A pipeline of `src` filtered by `variant` (the program's own: cpu or auto) with `p`, its frames
// taken as `format` says, the source given 20 s to open.
inline PipelineConfig testConfig(SourceSpec src, FilterParams p, InputFormat format = InputFormat::Rgba,
                                 const char* variant = kVariant) {
  PipelineConfig c;
  c.source = std::move(src);
  c.inputFormat = format;
  c.variant = variant;
  c.params = std::move(p);
  c.openTimeout = std::chrono::seconds(20);
  return c;
}

// Hands every frame to an exporter as the export command's sink does: host frames, I420 where the
// GPU makes them, in the colours the exporter asks for.
class ExportSink : public FrameSink {
 public:
  explicit ExportSink(FileExporter& to) : to_(to) {}
  bool wantsHostFrames() const override { return true; }
  bool acceptsYuvFrames() const override { return true; }
  ColourSpec yuvFramesColour(ColourSpec source, int w, int h) const override {
    return to_.yuvFramesColour(source, w, h);
  }
  void deliver(const OutputFrame& f) override { to_.deliver(f); }

 private:
  FileExporter& to_;
};

// Steps until something other than Idle happens (bounded by the source's own waits).
inline StepResult nextFrame(Pipeline& p) {
  StepResult r;
  do r = p.step(std::chrono::milliseconds(1000));
  while (r == StepResult::Idle);
  return r;
}

// Steps until end of stream, an error, or `maxSteps`; returns the last result.
inline StepResult runToEnd(Pipeline& p, int maxSteps = 2000) {
  StepResult r = StepResult::Idle;
  for (int i = 0; i < maxSteps; ++i) {
    r = p.step(std::chrono::milliseconds(200));
    if (r == StepResult::EndOfStream || r == StepResult::Error) break;
  }
  return r;
}

}  // namespace convlive::testing
