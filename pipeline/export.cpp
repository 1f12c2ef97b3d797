#include "convlive/export.hpp"

#include <gst/app/gstappsrc.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "colorimetry.hpp"
#include "gst_ptr.hpp"

namespace convlive {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower((unsigned char)c));
  return s;
}

std::string busError(GstMessage* msg) {
  GError* raw = nullptr;
  gchar* dbg = nullptr;
  gst_message_parse_error(msg, &raw, &dbg);
  gst::ErrorPtr err(raw);
  gst::CharPtr debug(dbg);
  return err ? err->message : "unknown error";
}

}  // namespace

ExportFormat checkExportPath(const std::string& output) {
  if (output.empty()) throw std::invalid_argument("no output file given: name the video file to write");
  const fs::path p(output);
  const std::string ext = lower(p.extension().string());
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::invalid_argument("output file '" + output + "': folder '" + dir.string() +
                                "' does not exist: create it first");
  if (fs::is_directory(p, ec)) throw std::invalid_argument("output file '" + output + "' is a folder: name a file");
  initGStreamer();
  const bool h264 = hasElement("x264enc"), vp8 = hasElement("vp8enc");
  const std::string vp8Missing = "the VP8 encoder vp8enc is not installed: install gstreamer1.0-plugins-good";
  if (ext == ".webm") {
    if (!vp8) throw std::invalid_argument("output file '" + output + "': " + vp8Missing);
    return {"webm", "VP8", "vp8enc", "webmmux"};
  }
  if (ext == ".mkv") {
    if (h264) return {"matroska", "H.264", "x264enc", "matroskamux"};
    if (!vp8) throw std::invalid_argument("output file '" + output + "': " + vp8Missing);
    return {"matroska", "VP8", "vp8enc", "matroskamux"};
  }
  if (ext == ".mp4") {
    if (!h264)
      throw std::invalid_argument("output file '" + output +
                                  "': MP4 needs the H.264 encoder x264enc, which is not installed: install "
                                  "gstreamer1.0-plugins-ugly, or write .webm or .mkv");
    return {"mp4", "H.264", "x264enc", "mp4mux"};
  }
  if (ext == ".avi") {
    if (!hasElement("jpegenc"))
      throw std::invalid_argument("output file '" + output +
                                  "': the MJPEG encoder jpegenc is not installed: install "
                                  "gstreamer1.0-plugins-good");
    return {"avi", "MJPEG", "jpegenc", "avimux"};
  }
  throw std::invalid_argument("output file '" + output + "': unknown extension '" + ext +
                              "': use .webm (VP8), .mkv (H.264 or VP8), .mp4 (H.264) or .avi (MJPEG)");
}

struct FileExporter::Impl {
  std::string output, temp;
  ExportFormat format;
  double fps = 30;
  gst::ElementPtr pipeline;
  GstElement* appsrc = nullptr;  // owned by the pipeline
  gst::BusPtr bus;
  int width = 0, height = 0;  // of the file (the first frame's; later frames are scaled to it)
  int capsW = 0, capsH = 0;   // of the frames now going into appsrc
  bool capsYuv = false;       // they are I420 (else RGBA) ...
  ColourSpec capsColour;      // ... with these colours
  std::uint64_t frames = 0;
  bool done = false;

  std::string encoderSettings(int w, int h) const {
    // Bitrates generous enough that the filter's effect, not the codec, is what one sees.
    const long kbps = std::clamp(long(double(w) * h * fps * 0.25 / 1000), 2000L, 200000L);
    if (format.encoder == "vp8enc")
      return "vp8enc deadline=1 cpu-used=8 threads=4 end-usage=vbr max-quantizer=24 target-bitrate=" +
             std::to_string(kbps * 1000);
    if (format.encoder == "x264enc")
      return "video/x-raw,format=I420 ! x264enc speed-preset=veryfast bitrate=" + std::to_string(kbps);
    return "jpegenc quality=92";
  }

  void start(int w, int h) {
    width = w;
    height = h;
    const std::string line =
        "appsrc name=src format=time block=true ! videoscale ! video/x-raw,width=" + std::to_string(w) +
        ",height=" + std::to_string(h) + " ! videoconvert ! " + encoderSettings(w, h) + " ! " + format.muxer +
        " ! filesink name=file";
    GError* raw = nullptr;
    GstElement* el = gst_parse_launch_full(line.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &raw);
    gst::ErrorPtr err(raw);
    if (!el || err) {
      if (el) gst_object_unref(el);
      throw ExportError("cannot build the encoder for " + format.describe() + ": " + (err ? err->message : "?"));
    }
    pipeline.reset(el);
    appsrc = gst_bin_get_by_name(GST_BIN(el), "src");
    gst_object_unref(appsrc);
    GstElement* file = gst_bin_get_by_name(GST_BIN(el), "file");
    g_object_set(file, "location", temp.c_str(), nullptr);
    gst_object_unref(file);
    g_object_set(appsrc, "max-bytes", guint64(std::size_t(w) * h * 4 * 4), nullptr);  // 4 RGBA frames (more I420)
    bus.reset(gst_element_get_bus(el));
    if (gst_element_set_state(el, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
      checkBus();
      throw ExportError("the encoder for " + format.describe() + " cannot start (writing " + temp + ")");
    }
  }

  void checkBus() {
    while (gst::MessagePtr msg{gst_bus_pop_filtered(bus.get(), GST_MESSAGE_ERROR)})
      throw ExportError("encoding " + output + " failed: " + busError(msg.get()));
  }

  // The frames' description: RGBA, or I420 with the source's colours (GStreamer's default layout).
  GstVideoInfo infoFor(int w, int h, bool yuv, ColourSpec colour) const {
    GstVideoInfo info;
    gst_video_info_set_format(&info, yuv ? GST_VIDEO_FORMAT_I420 : GST_VIDEO_FORMAT_RGBA, guint(w), guint(h));
    if (yuv) info.colorimetry = colorimetryOf(colour);
    info.fps_n = int(std::lround(fps * 1000));
    info.fps_d = 1000;
    return info;
  }

  // RGBA caps name no colorimetry (as before I420 frames came: with sRGB named, videoconvert hands
  // the encoders other colours); I420 caps carry the frames' colorimetry.
  void setCaps(int w, int h, bool yuv, ColourSpec colour) {
    const GstVideoInfo info = infoFor(w, h, yuv, colour);
    GstCaps* caps =
        yuv ? gst_video_info_to_caps(&info)
            : gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "RGBA", "width", G_TYPE_INT, w, "height",
                                  G_TYPE_INT, h, "framerate", GST_TYPE_FRACTION, info.fps_n, info.fps_d, nullptr);
    gst_app_src_set_caps(GST_APP_SRC(appsrc), caps);
    gst_caps_unref(caps);
    capsW = w;
    capsH = h;
    capsYuv = yuv;
    capsColour = colour;
  }

  // A buffer holding the frame in appsrc's caps layout.
  GstBuffer* bufferOf(const OutputFrame& frame) const {
    const bool yuv = frame.filteredYuv.planes[0] != nullptr;
    const int w = yuv ? frame.filteredYuv.width : frame.filtered.width;
    const int h = yuv ? frame.filteredYuv.height : frame.filtered.height;
    const GstVideoInfo info = infoFor(w, h, yuv, frame.filteredColour);
    GstBuffer* buf = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    GstMapInfo map;
    gst_buffer_map(buf, &map, GST_MAP_WRITE);
    if (yuv) {
      const YuvLayout l{
          YuvFormat::I420,
          w,
          h,
          {GST_VIDEO_INFO_PLANE_OFFSET(&info, 0), GST_VIDEO_INFO_PLANE_OFFSET(&info, 1),
           GST_VIDEO_INFO_PLANE_OFFSET(&info, 2)},
          {std::size_t(GST_VIDEO_INFO_PLANE_STRIDE(&info, 0)), std::size_t(GST_VIDEO_INFO_PLANE_STRIDE(&info, 1)),
           std::size_t(GST_VIDEO_INFO_PLANE_STRIDE(&info, 2))},
          GST_VIDEO_INFO_SIZE(&info)};
      const YuvView to = yuvViewAt(l, map.data);
      const ConstYuvView& from = frame.filteredYuv;
      for (int p = 0; p < 3; ++p)
        for (int y = 0; y < yuvPlaneRows(h, p); ++y)
          std::memcpy(to.planes[p] + y * to.pitches[p], from.planes[p] + y * from.pitches[p],
                      yuvRowBytes(YuvFormat::I420, w, p));
    } else {
      const std::size_t stride = std::size_t(GST_VIDEO_INFO_PLANE_STRIDE(&info, 0)), rowBytes = std::size_t(w) * 4;
      for (int y = 0; y < h; ++y) std::memcpy(map.data + y * stride, frame.filtered.row(y), rowBytes);
    }
    gst_buffer_unmap(buf, &map);
    return buf;
  }

  void removeTemp() noexcept {
    std::error_code ec;
    fs::remove(temp, ec);
  }
};

FileExporter::FileExporter(const std::string& output, double fps) : impl_(std::make_unique<Impl>()) {
  impl_->format = checkExportPath(output);
  impl_->output = output;
  impl_->fps = fps > 0 && std::isfinite(fps) ? fps : 30;
  const fs::path p(output);
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::string name = ".";  // hidden, beside the output (so the rename stays on one file system)
  name.append(p.filename().string()).append(".").append(std::to_string(::getpid())).append(".part");
  impl_->temp = (dir / name).string();
}

FileExporter::~FileExporter() { abort(); }

ColourSpec FileExporter::yuvFramesColour(ColourSpec source, int /*width*/, int height) const {
  // MJPEG is read back as JPEG (full-range BT.601) and VP8 by GStreamer's default for the size,
  // whatever the caps said when it was written; H.264 carries the colours in the stream.
  if (impl_->format.encoder == "jpegenc") return {ColourMatrix::Bt601, ColourRange::Full};
  if (impl_->format.encoder == "vp8enc")
    return {height > 576 ? ColourMatrix::Bt709 : ColourMatrix::Bt601, ColourRange::Limited};
  return source;
}

void FileExporter::deliver(const OutputFrame& frame) {
  Impl& s = *impl_;
  if (s.done) throw ExportError("the export of " + s.output + " has already ended");
  const bool yuv = frame.filteredYuv.planes[0] != nullptr;
  const int w = yuv ? frame.filteredYuv.width : frame.filtered.width;
  const int h = yuv ? frame.filteredYuv.height : frame.filtered.height;
  if (!s.pipeline) s.start(w, h);
  if (w != s.capsW || h != s.capsH || yuv != s.capsYuv || (yuv && !(frame.filteredColour == s.capsColour)))
    s.setCaps(w, h, yuv, frame.filteredColour);
  GstBuffer* buf = s.bufferOf(frame);
  // The file is timed at a steady rate: a looped or seeked source still makes a playable file.
  GST_BUFFER_PTS(buf) = gst_util_uint64_scale(s.frames, GST_SECOND * 1000, guint64(std::lround(s.fps * 1000)));
  GST_BUFFER_DURATION(buf) = gst_util_uint64_scale(1, GST_SECOND * 1000, guint64(std::lround(s.fps * 1000)));
  const GstFlowReturn r = gst_app_src_push_buffer(GST_APP_SRC(s.appsrc), buf);  // takes the buffer
  s.checkBus();
  if (r != GST_FLOW_OK)
    throw ExportError("encoding " + s.output + " failed: the encoder refused a frame (" + gst_flow_get_name(r) + ")");
  ++s.frames;
}

void FileExporter::finish() {
  Impl& s = *impl_;
  if (s.done) return;
  if (!s.pipeline || s.frames == 0) {
    abort();
    throw ExportError("no frame was exported, so " + s.output + " was not written");
  }
  gst_app_src_end_of_stream(GST_APP_SRC(s.appsrc));
  // Bounded: the encoder has at most a few frames queued.
  gst::MessagePtr msg(
      gst_bus_timed_pop_filtered(s.bus.get(), 120 * GST_SECOND, GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
  std::string failure;
  if (!msg)
    failure = "the encoder did not finish within 120 s";
  else if (GST_MESSAGE_TYPE(msg.get()) == GST_MESSAGE_ERROR)
    failure = busError(msg.get());
  gst_element_set_state(s.pipeline.get(), GST_STATE_NULL);
  s.pipeline.reset();
  s.done = true;
  if (!failure.empty()) {
    s.removeTemp();
    throw ExportError("encoding " + s.output + " failed: " + failure + "; nothing was written");
  }
  std::error_code ec;
  fs::rename(s.temp, s.output, ec);
  if (ec) {
    s.removeTemp();
    throw ExportError("cannot rename " + s.temp + " to " + s.output + ": " + ec.message());
  }
}

void FileExporter::abort() noexcept {
  Impl& s = *impl_;
  if (s.pipeline) {
    gst_element_set_state(s.pipeline.get(), GST_STATE_NULL);
    s.pipeline.reset();
  }
  if (!s.done) s.removeTemp();
  s.done = true;
}

std::uint64_t FileExporter::frames() const { return impl_->frames; }
const ExportFormat& FileExporter::format() const { return impl_->format; }
const std::string& FileExporter::temporaryPath() const { return impl_->temp; }

}  // namespace convlive
