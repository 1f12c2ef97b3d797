#include "convlive/source.hpp"

#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "gst_ptr.hpp"
#include "host_registry.hpp"

namespace convlive {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const char* const kRgbaTail = "videoconvert ! video/x-raw,format=RGBA ! appsink name=clsink";

std::string quote(const std::string& s) { return "'" + s + "'"; }

bool hasScheme(const std::string& s) {
  const auto colon = s.find("://");
  return colon != std::string::npos && colon > 0 && std::all_of(s.begin(), s.begin() + long(colon), [](char c) {
           return std::isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
         });
}

// Turns a bus error into one line that says what was wrong and what to do.
std::string explain(GstMessage* msg, const SourceSpec& spec) {
  GError* raw = nullptr;
  gchar* debugRaw = nullptr;
  gst_message_parse_error(msg, &raw, &debugRaw);
  gst::ErrorPtr err(raw);
  gst::CharPtr debug(debugRaw);
  const std::string what = spec.describe();
  const std::string text = err ? err->message : "unknown error";
  const std::string dbg = gst::str(debug.get());
  if (err && err->domain == GST_STREAM_ERROR &&
      (err->code == GST_STREAM_ERROR_TYPE_NOT_FOUND || err->code == GST_STREAM_ERROR_WRONG_TYPE))
    return what + " is not a video GStreamer can read (" + text + "): check the file, or convert it to WebM or MP4";
  if (err && err->domain == GST_CORE_ERROR && err->code == GST_CORE_ERROR_MISSING_PLUGIN)
    return what + " needs a decoder that is not installed (" + text +
           "): install gstreamer1.0-plugins-good, -bad, -ugly or gstreamer1.0-libav";
  if (err && err->domain == GST_STREAM_ERROR && err->code == GST_STREAM_ERROR_CODEC_NOT_FOUND)
    return what + " uses a codec with no decoder installed (" + text +
           "): install gstreamer1.0-plugins-bad, -ugly or gstreamer1.0-libav";
  if (dbg.find("not-negotiated") != std::string::npos)
    return what +
           ": its caps cannot become RGBA8 video (not-negotiated): end a launch line with "
           "'! videoconvert ! appsink', and make sure the source produces video";
  if (dbg.find("not-linked") != std::string::npos)
    return what + " has no video stream (" + text + "): give a file with video in it";
  if (err && err->domain == GST_RESOURCE_ERROR &&
      (err->code == GST_RESOURCE_ERROR_NOT_FOUND || err->code == GST_RESOURCE_ERROR_OPEN_READ))
    return what + " cannot be opened (" + text + "): check the path or address";
  if (err && err->domain == GST_STREAM_ERROR &&
      (err->code == GST_STREAM_ERROR_DECODE || err->code == GST_STREAM_ERROR_DEMUX))
    return what + " is damaged or truncated (" + text + "): re-download or re-encode it";
  std::string firstDebugLine = dbg.substr(0, dbg.find('\n'));
  return what + " failed: " + text + (firstDebugLine.empty() ? "" : " (" + firstDebugLine + ")");
}

std::string formatOf(const GstCaps* caps) {
  if (!caps || gst_caps_get_size(caps) == 0) return "";
  const GstStructure* s = gst_caps_get_structure(caps, 0);
  const std::string name = gst_structure_get_name(s);
  if (name == "video/x-raw") {
    const gchar* f = gst_structure_get_string(s, "format");
    return f ? f : "raw";
  }
  if (name == "image/jpeg") return "MJPEG";
  return name;
}

bool isPictureCaps(const GstCaps* caps) {
  if (!caps || gst_caps_get_size(caps) == 0) return false;
  const std::string name = gst_structure_get_name(gst_caps_get_structure(caps, 0));
  return name == "video/x-raw" || name.rfind("image/", 0) == 0;
}

gst::PadPtr firstSinkPad(GstElement* el) {
  GstIterator* it = gst_element_iterate_sink_pads(el);
  GValue item = G_VALUE_INIT;
  gst::PadPtr pad;
  if (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
    pad.reset(GST_PAD(g_value_dup_object(&item)));
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(it);
  return pad;
}

// Walks upstream from the appsink and returns the caps nearest the source that are still pictures
// (raw video or images): the source's own format, before any conversion.
gst::CapsPtr nativeCaps(GstElement* appsink) {
  gst::CapsPtr best;
  gst::PadPtr pad(gst_element_get_static_pad(appsink, "sink"));
  for (int depth = 0; pad && depth < 64; ++depth) {
    gst::PadPtr peer(gst_pad_get_peer(pad.get()));
    if (!peer) break;
    // A ghost pad's target side: its parent is the bin, whose own sink pads continue the walk.
    gst::CapsPtr caps(gst_pad_get_current_caps(peer.get()));
    if (isPictureCaps(caps.get())) best = std::move(caps);
    gst::ElementPtr el(gst_pad_get_parent_element(peer.get()));
    if (!el) break;
    pad = firstSinkPad(el.get());
  }
  return best;
}

}  // namespace

void initGStreamer() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    GError* raw = nullptr;
    if (!gst_init_check(nullptr, nullptr, &raw)) {
      gst::ErrorPtr e(raw);
      failure = std::string("GStreamer cannot start: ") + (e ? e->message : "unknown reason");
    }
  });
  if (!failure.empty()) throw SourceError(failure);
}

bool hasElement(const char* factory) {
  initGStreamer();
  gst::ElementPtr f(reinterpret_cast<GstElement*>(gst_element_factory_find(factory)));
  return f != nullptr;
}

std::vector<std::string> testPatterns() {
  initGStreamer();
  std::vector<std::string> out{"moving"};
  gst::ElementPtr src(gst_element_factory_make("videotestsrc", nullptr));
  if (!src) return out;
  gst_object_ref_sink(src.get());
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(src.get()), "pattern");
  if (spec && G_IS_PARAM_SPEC_ENUM(spec)) {
    GEnumClass* e = G_PARAM_SPEC_ENUM(spec)->enum_class;
    for (guint i = 0; i < e->n_values; ++i) out.emplace_back(e->values[i].value_nick);
  }
  return out;
}

std::vector<CameraInfo> listCameras() {
  initGStreamer();
  std::vector<CameraInfo> out;
  GstDeviceMonitor* monitor = gst_device_monitor_new();
  gst_device_monitor_add_filter(monitor, "Video/Source", nullptr);
  if (gst_device_monitor_start(monitor)) {
    GList* devices = gst_device_monitor_get_devices(monitor);
    for (GList* d = devices; d; d = d->next) {
      GstDevice* dev = GST_DEVICE(d->data);
      gst::CharPtr name(gst_device_get_display_name(dev));
      std::string path;
      if (GstStructure* props = gst_device_get_properties(dev)) {
        for (const char* key : {"device.path", "api.v4l2.path", "object.path"})
          if (const gchar* v = gst_structure_get_string(props, key); v && path.empty()) path = v;
        gst_structure_free(props);
      }
      if (path.rfind("/dev/video", 0) == 0) out.push_back({path, gst::str(name.get())});
    }
    g_list_free_full(devices, gst_object_unref);
    gst_device_monitor_stop(monitor);
  }
  gst_object_unref(monitor);
  // Without a device provider (or when it found nothing), fall back on the device nodes.
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev", ec)) {
    const std::string p = e.path().string();
    if (p.rfind("/dev/video", 0) == 0 &&
        std::none_of(out.begin(), out.end(), [&](const CameraInfo& c) { return c.device == p; }))
      out.push_back({p, "V4L2 device"});
  }
  std::sort(out.begin(), out.end(), [](const CameraInfo& a, const CameraInfo& b) { return a.device < b.device; });
  return out;
}

SourceSpec SourceSpec::testPattern(std::string pattern, int w, int h, int fps) {
  SourceSpec s;
  s.kind = Kind::Pattern;
  s.pattern = std::move(pattern);
  s.width = w;
  s.height = h;
  s.fps = fps;
  return s;
}
SourceSpec SourceSpec::file(std::string path) {
  SourceSpec s;
  s.kind = Kind::File;
  s.location = std::move(path);
  return s;
}
SourceSpec SourceSpec::uri(std::string uri) {
  SourceSpec s;
  s.kind = Kind::Uri;
  s.location = std::move(uri);
  return s;
}
SourceSpec SourceSpec::camera(std::string device) {
  SourceSpec s;
  s.kind = Kind::Camera;
  s.location = std::move(device);
  return s;
}
SourceSpec SourceSpec::launch(std::string line) {
  SourceSpec s;
  s.kind = Kind::Launch;
  s.location = std::move(line);
  return s;
}
SourceSpec SourceSpec::input(std::string pathOrUri) {
  return hasScheme(pathOrUri) ? uri(std::move(pathOrUri)) : file(std::move(pathOrUri));
}

std::string SourceSpec::describe() const {
  switch (kind) {
    case Kind::Pattern:
      return "test pattern " + quote(pattern) + " " + std::to_string(width) + "x" + std::to_string(height) + " at " +
             std::to_string(fps) + " fps";
    case Kind::File:
      return "file " + quote(location);
    case Kind::Uri:
      return "URI " + quote(location);
    case Kind::Camera:
      return "camera " + quote(location.empty() ? "(first)" : location);
    case Kind::Launch:
      return "launch line " + quote(location);
  }
  return "source";
}

struct Source::Impl {
  SourceSpec spec;
  SourceOptions options;
  SourceInfo info;
  gst::ElementPtr pipeline;
  GstElement* appsink = nullptr;  // owned by the pipeline
  gst::BusPtr bus;
  bool eos = false;
  bool paused = false;
  std::uint64_t pulled = 0;
  double position = 0;
  gst::SamplePtr pending;  // the first frame, pulled while opening
  // After a flushing seek the appsink hands out the prerolled frame twice: the second is dropped.
  enum class AfterSeek { No, First, Second } afterSeek = AfterSeek::No;
  GstClockTime afterSeekPts = GST_CLOCK_TIME_NONE;

  // Arrival times of buffers at the appsink, recorded on GStreamer's streaming thread.
  std::mutex arrivalsMutex;
  std::array<std::pair<GstClockTime, Clock::time_point>, 64> arrivals{};
  std::size_t arrivalNext = 0;

  ~Impl() {
    if (pipeline) gst_element_set_state(pipeline.get(), GST_STATE_NULL);
  }

  static GstPadProbeReturn onBuffer(GstPad*, GstPadProbeInfo* info, gpointer self) {
    auto* impl = static_cast<Impl*>(self);
    GstBuffer* buf = GST_PAD_PROBE_INFO_BUFFER(info);
    std::lock_guard lock(impl->arrivalsMutex);
    impl->arrivals[impl->arrivalNext++ % impl->arrivals.size()] = {GST_BUFFER_PTS(buf), Clock::now()};
    return GST_PAD_PROBE_OK;
  }
  Clock::time_point arrivalOf(GstClockTime pts) {
    std::lock_guard lock(arrivalsMutex);
    for (const auto& [p, t] : arrivals)
      if (p == pts && t != Clock::time_point{}) return t;
    return Clock::now();
  }

  static void onPadAdded(GstElement*, GstPad* pad, gpointer tailSink) {
    gst::CapsPtr caps(gst_pad_get_current_caps(pad));
    if (!caps) caps.reset(gst_pad_query_caps(pad, nullptr));
    if (!caps || gst_caps_is_empty(caps.get())) return;
    const std::string name = gst_structure_get_name(gst_caps_get_structure(caps.get(), 0));
    auto* sink = static_cast<GstPad*>(tailSink);
    if (name.rfind("video/", 0) == 0 && !gst_pad_is_linked(sink)) gst_pad_link(pad, sink);
  }

  void build() {
    gst::ErrorPtr err;
    GError* raw = nullptr;
    switch (spec.kind) {
      case SourceSpec::Kind::Pattern:
        buildPattern();
        break;
      case SourceSpec::Kind::File:
        buildDecoder(checkedFileUri());
        break;
      case SourceSpec::Kind::Uri:
        buildDecoder(checkedUri());
        break;
      case SourceSpec::Kind::Camera: {
        const std::string dev = checkedCamera();
        parse("v4l2src device=" + dev + " ! decodebin ! " + kRgbaTail, "camera " + quote(dev));
        break;
      }
      case SourceSpec::Kind::Launch: {
        if (spec.location.find_first_not_of(" \t\n") == std::string::npos)
          throw SourceError("the launch line is empty: give one that ends in '! videoconvert ! appsink'");
        GstElement* el = gst_parse_launch_full(spec.location.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &raw);
        err.reset(raw);
        if (!el || err) {
          if (el) gst_object_unref(el);
          throw SourceError("the launch line does not parse (" + std::string(err ? err->message : "unknown error") +
                            "): check it with gst-launch-1.0");
        }
        if (!GST_IS_PIPELINE(el)) {
          gst_object_unref(el);
          throw SourceError("the launch line has no appsink: end it with '! videoconvert ! appsink'");
        }
        pipeline.reset(el);
        appsink = findAppsink();
        if (!appsink) throw SourceError("the launch line has no appsink: end it with '! videoconvert ! appsink'");
        break;
      }
    }
  }

  void parse(const std::string& line, const std::string& what) {
    GError* raw = nullptr;
    GstElement* el = gst_parse_launch_full(line.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &raw);
    gst::ErrorPtr err(raw);
    if (!el || err) {
      if (el) gst_object_unref(el);
      throw SourceError("cannot build the pipeline for " + what + " (" + (err ? err->message : "unknown error") +
                        "): is gstreamer1.0-plugins-base/-good installed?");
    }
    pipeline.reset(el);
    appsink = gst_bin_get_by_name(GST_BIN(el), "clsink");
    gst_object_unref(appsink);  // the pipeline keeps it alive
  }

  void buildPattern() {
    if (spec.width < 1 || spec.height < 1 || spec.width > 16384 || spec.height > 16384)
      throw SourceError("test pattern size " + std::to_string(spec.width) + "x" + std::to_string(spec.height) +
                        " is out of range: use 1x1 to 16384x16384");
    if (spec.fps < 1 || spec.fps > 1000)
      throw SourceError("test pattern rate " + std::to_string(spec.fps) + " fps is out of range: use 1 to 1000");
    const auto names = testPatterns();
    if (std::find(names.begin(), names.end(), spec.pattern) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw SourceError("unknown test pattern " + quote(spec.pattern) + ": use one of " + list);
    }
    // "moving": a zone plate whose rings drift, with every spatial frequency in view.
    const std::string pattern =
        spec.pattern == "moving" ? "pattern=zone-plate kx2=24 ky2=24 kt=2" : "pattern=" + spec.pattern;
    std::ostringstream line;
    line << "videotestsrc " << pattern << (spec.frames >= 0 ? " num-buffers=" + std::to_string(spec.frames) : "")
         << " ! video/x-raw,format=RGBA,width=" << spec.width << ",height=" << spec.height << ",framerate=" << spec.fps
         << "/1 ! appsink name=clsink";
    parse(line.str(), spec.describe());
  }

  std::string checkedFileUri() {
    const std::string& path = spec.location;
    std::error_code ec;
    if (path.empty()) throw SourceError("no input file given: name a video file");
    const auto st = fs::status(path, ec);
    if (!fs::exists(st)) throw SourceError("input file " + quote(path) + " does not exist: check the path");
    if (fs::is_directory(st))
      throw SourceError("input " + quote(path) + " is a directory, not a video file: name a file inside it");
    if (std::ifstream probe(path, std::ios::binary); !probe)
      throw SourceError("input file " + quote(path) + " cannot be read: check its permissions");
    if (fs::file_size(path, ec) == 0) throw SourceError("input file " + quote(path) + " is empty: it holds no video");
    readDeclaredSize(path);
    GError* raw = nullptr;
    gst::CharPtr uri(gst_filename_to_uri(path.c_str(), &raw));
    gst::ErrorPtr err(raw);
    if (!uri) throw SourceError("input file " + quote(path) + " has no URI form: " + (err ? err->message : "?"));
    return uri.get();
  }

  std::string checkedUri() {
    const std::string& uri = spec.location;
    if (!gst_uri_is_valid(uri.c_str()))
      throw SourceError("URI " + quote(uri) + " is not a valid URI: write it as scheme://address");
    gst::CharPtr protocol(gst_uri_get_protocol(uri.c_str()));
    if (!gst_uri_protocol_is_supported(GST_URI_SRC, protocol.get()))
      throw SourceError(
          "URI " + quote(uri) + ": no installed GStreamer source reads '" + gst::str(protocol.get()) +
          "://' (file:// works; http(s) needs gstreamer1.0-plugins-good's souphttpsrc, rtsp its rtspsrc)");
    if (std::string(protocol.get()) == "file") {
      GError* raw = nullptr;
      gst::CharPtr path(g_filename_from_uri(uri.c_str(), nullptr, &raw));
      gst::ErrorPtr err(raw);
      if (path) {
        spec.location = path.get();
        const std::string checked = checkedFileUri();
        spec.location = uri;
        return checked;
      }
    }
    return uri;
  }

  std::string checkedCamera() {
    const auto cams = listCameras();
    std::string present;
    for (const auto& c : cams) present += (present.empty() ? "" : ", ") + c.device;
    if (spec.location.empty()) {
      if (cams.empty())
        throw SourceError(
            "no camera found: no V4L2 device (/dev/video*) is present; plug one in, or use "
            "--pattern or --input");
      spec.location = cams.front().device;
      return spec.location;
    }
    std::error_code ec;
    if (!fs::exists(spec.location, ec))
      throw SourceError("camera " + quote(spec.location) + " does not exist (cameras present: " +
                        (present.empty() ? "none" : present) + "): see --list-cameras");
    return spec.location;
  }

  void buildDecoder(const std::string& uri) {
    pipeline.reset(gst_pipeline_new("convlive-source"));
    GstElement* decode = gst_element_factory_make("uridecodebin", "src");
    if (!decode) throw SourceError("uridecodebin is missing: install gstreamer1.0-plugins-base");
    g_object_set(decode, "uri", uri.c_str(), nullptr);
    GError* raw = nullptr;
    GstElement* tail = gst_parse_bin_from_description(kRgbaTail, TRUE, &raw);
    gst::ErrorPtr err(raw);
    if (!tail) throw SourceError(std::string("cannot build the conversion tail: ") + (err ? err->message : "?"));
    gst_bin_add_many(GST_BIN(pipeline.get()), decode, tail, nullptr);
    appsink = gst_bin_get_by_name(GST_BIN(tail), "clsink");
    gst_object_unref(appsink);
    GstPad* tailSink = gst_element_get_static_pad(tail, "sink");
    g_signal_connect_data(
        decode, "pad-added", G_CALLBACK(onPadAdded), tailSink, [](gpointer pad, GClosure*) { gst_object_unref(pad); },
        GConnectFlags(0));
  }

  GstElement* findAppsink() {
    GstIterator* it = gst_bin_iterate_recurse(GST_BIN(pipeline.get()));
    GValue item = G_VALUE_INIT;
    GstElement* found = nullptr;
    bool done = false;
    while (!done) {
      switch (gst_iterator_next(it, &item)) {
        case GST_ITERATOR_OK: {
          auto* el = GST_ELEMENT(g_value_get_object(&item));
          if (GST_IS_APP_SINK(el)) {
            gst::CharPtr name(gst_element_get_name(el));
            if (!found || gst::str(name.get()) == "sink") found = el;
          }
          g_value_reset(&item);
          break;
        }
        case GST_ITERATOR_RESYNC:
          gst_iterator_resync(it);
          break;
        default:
          done = true;
      }
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    return found;
  }

  // RIFF files (AVI) declare their size up front; demuxers play a cut one to where it ends
  // without a word, so the pipeline compares the two at the end of the stream.
  std::uintmax_t declaredBytes = 0, actualBytes = 0;
  void readDeclaredSize(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    unsigned char h[12] = {};
    if (!in.read(reinterpret_cast<char*>(h), sizeof h) || std::memcmp(h, "RIFF", 4) != 0) return;
    declaredBytes = 8 + (std::uintmax_t(h[4]) | std::uintmax_t(h[5]) << 8 | std::uintmax_t(h[6]) << 16 |
                         std::uintmax_t(h[7]) << 24);
    std::error_code ec;
    actualBytes = fs::file_size(path, ec);
  }

  // A file that ends well before what its container declares (size or duration) was cut short.
  void checkComplete() {
    const bool isFile = spec.kind == SourceSpec::Kind::File || spec.kind == SourceSpec::Kind::Uri;
    if (!isFile || pulled == 0 || truncationReported) return;
    if (declaredBytes > actualBytes) {
      truncationReported = true;
      throw SourceError(spec.describe() + " is truncated: it has " + std::to_string(actualBytes) + " of the " +
                        std::to_string(declaredBytes) + " bytes its header declares; re-download or re-encode it");
    }
    if (info.durationSeconds <= 0) return;
    const double frame = info.fps > 0 ? 1.0 / info.fps : 0.04;
    const double missing = info.durationSeconds - (position + frame);
    if (missing > std::max(0.25, 3 * frame)) {
      truncationReported = true;
      std::ostringstream msg;
      msg.precision(3);
      msg << spec.describe() << " is truncated or damaged: its frames end at " << position + frame << " s of the "
          << info.durationSeconds << " s it declares; re-download or re-encode it";
      throw SourceError(msg.str());
    }
  }
  bool truncationReported = false;

  [[noreturn]] void fail(GstMessage* msg) {
    const std::string text = explain(msg, spec);
    throw SourceError(text);
  }

  // Pops bus messages without waiting: errors throw, end of stream is noted.
  void drainBus() {
    while (gst::MessagePtr msg{gst_bus_pop_filtered(bus.get(), GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS))}) {
      if (GST_MESSAGE_TYPE(msg.get()) == GST_MESSAGE_ERROR) fail(msg.get());
      eos = true;
    }
  }

  void start() {
    GstCaps* rgba = gst_caps_from_string("video/x-raw,format=RGBA");
    g_object_set(appsink, "caps", rgba, "sync", gboolean(options.sync), "max-buffers",
                 guint(std::max(1, options.maxQueued)), "drop", FALSE, "emit-signals", FALSE, nullptr);
    gst_caps_unref(rgba);
    gst::PadPtr sinkPad(gst_element_get_static_pad(appsink, "sink"));
    gst_pad_add_probe(sinkPad.get(), GST_PAD_PROBE_TYPE_BUFFER, onBuffer, this, nullptr);
    bus.reset(gst_element_get_bus(pipeline.get()));

    // Through PAUSED first: a live source answers NO_PREROLL there.
    GstStateChangeReturn r = gst_element_set_state(pipeline.get(), GST_STATE_PAUSED);
    info.live = r == GST_STATE_CHANGE_NO_PREROLL;
    if (r != GST_STATE_CHANGE_FAILURE) r = gst_element_set_state(pipeline.get(), GST_STATE_PLAYING);
    if (info.live || options.newestOnly)
      g_object_set(appsink, "drop", TRUE, "max-buffers", 1u, nullptr);  // the newest frame wins
    if (r == GST_STATE_CHANGE_FAILURE) {
      drainBus();  // throws with the reason when there is one
      throw SourceError(spec.describe() + " cannot start: check it with gst-launch-1.0");
    }
    // Bounded wait for the first frame: it proves negotiation worked and tells us the format.
    const auto deadline = Clock::now() + options.openTimeout;
    while (!pending) {
      drainBus();
      if (eos) throw SourceError(spec.describe() + " ended before its first frame: it holds no video frames");
      pending.reset(gst_app_sink_try_pull_sample(GST_APP_SINK(appsink), GST_MSECOND * 50));
      if (!pending && gst_app_sink_is_eos(GST_APP_SINK(appsink))) {
        drainBus();
        throw SourceError(spec.describe() + " ended before its first frame: it holds no video frames");
      }
      if (!pending && Clock::now() > deadline) {
        drainBus();
        throw SourceError(spec.describe() + " gave no frame within " +
                          std::to_string(options.openTimeout.count() / 1000.0).substr(0, 4) +
                          " s: is the device busy or the address unreachable?");
      }
    }
    fillInfo();
  }

  void fillInfo() {
    info.description = spec.describe();
    gst::CapsPtr native = nativeCaps(appsink);
    GstCaps* caps = native ? native.get() : gst_sample_get_caps(pending.get());
    info.nativeFormat = formatOf(caps);
    if (caps && gst_caps_get_size(caps) > 0) {
      const GstStructure* s = gst_caps_get_structure(caps, 0);
      gst_structure_get_int(s, "width", &info.nativeWidth);
      gst_structure_get_int(s, "height", &info.nativeHeight);
      int n = 0, d = 1;
      if (gst_structure_get_fraction(s, "framerate", &n, &d) && d > 0) info.fps = double(n) / d;
    }
    if (info.fps == 0) {  // the native caps may lack a rate (images); the converted ones may have it
      const GstStructure* s = gst_caps_get_structure(gst_sample_get_caps(pending.get()), 0);
      int n = 0, d = 1;
      if (gst_structure_get_fraction(s, "framerate", &n, &d) && d > 0) info.fps = double(n) / d;
    }
    gint64 duration = -1;
    if (gst_element_query_duration(pipeline.get(), GST_FORMAT_TIME, &duration) && duration > 0)
      info.durationSeconds = double(duration) / GST_SECOND;
    GstQuery* q = gst_query_new_seeking(GST_FORMAT_TIME);
    if (gst_element_query(pipeline.get(), q)) {
      gboolean seekable = FALSE;
      gst_query_parse_seeking(q, nullptr, &seekable, nullptr, nullptr);
      info.seekable = seekable && !info.live;
    }
    gst_query_unref(q);
  }

  bool toFrame(gst::SamplePtr sample, SourceFrame& frame) {
    GstCaps* caps = gst_sample_get_caps(sample.get());
    GstBuffer* buffer = gst_sample_get_buffer(sample.get());
    if (!caps || !buffer) return false;
    struct Mapped {
      gst::SamplePtr sample;
      GstVideoInfo vinfo;
      GstVideoFrame frame;
      ~Mapped() { gst_video_frame_unmap(&frame); }
    };
    auto m = std::make_unique<Mapped>();
    if (!gst_video_info_from_caps(&m->vinfo, caps) || GST_VIDEO_INFO_FORMAT(&m->vinfo) != GST_VIDEO_FORMAT_RGBA)
      throw SourceError(spec.describe() +
                        " delivered a frame that is not RGBA8: end a launch line with "
                        "'! videoconvert ! appsink'");
    if (!gst_video_frame_map(&m->frame, &m->vinfo, buffer, GST_MAP_READ))
      throw SourceError(spec.describe() + ": a frame could not be mapped for reading");
    m->sample = std::move(sample);
    frame.pixels = ConstImageView(static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&m->frame, 0)),
                                  GST_VIDEO_FRAME_WIDTH(&m->frame), GST_VIDEO_FRAME_HEIGHT(&m->frame),
                                  std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&m->frame, 0)));
    frame.pinned = options.registerWithCuda && gst_buffer_n_memory(buffer) == 1 &&
                   registerHostMemory(gst_buffer_peek_memory(buffer, 0));
    const GstClockTime pts = GST_BUFFER_PTS(buffer);
    frame.ptsNs = GST_CLOCK_TIME_IS_VALID(pts) ? std::int64_t(pts) : -1;
    frame.arrival = arrivalOf(pts);
    frame.index = pulled++;
    if (frame.ptsNs >= 0) position = double(frame.ptsNs) / GST_SECOND;
    frame.keep = std::shared_ptr<void>(m.release(), [](void* p) { delete static_cast<Mapped*>(p); });
    return true;
  }
};

Source::Source(const SourceSpec& spec, const SourceOptions& options) : impl_(std::make_unique<Impl>()) {
  initGStreamer();
  impl_->spec = spec;
  impl_->options = options;
  impl_->build();
  impl_->start();
}

Source::~Source() = default;

Source::Pull Source::pull(SourceFrame& frame, std::chrono::milliseconds timeout) {
  Impl& s = *impl_;
  if (s.pending) return s.toFrame(std::move(s.pending), frame) ? Pull::Frame : Pull::Timeout;
  s.drainBus();
  if (s.paused) return Pull::Timeout;
  gst::SamplePtr sample(gst_app_sink_try_pull_sample(GST_APP_SINK(s.appsink), GST_MSECOND * timeout.count()));
  if (sample && s.afterSeek != Impl::AfterSeek::No) {
    const GstClockTime pts = GST_BUFFER_PTS(gst_sample_get_buffer(sample.get()));
    if (s.afterSeek == Impl::AfterSeek::Second && pts == s.afterSeekPts) {
      s.afterSeek = Impl::AfterSeek::No;
      sample.reset(gst_app_sink_try_pull_sample(GST_APP_SINK(s.appsink), GST_MSECOND * timeout.count()));
    } else {
      s.afterSeek = s.afterSeek == Impl::AfterSeek::First ? Impl::AfterSeek::Second : Impl::AfterSeek::No;
      s.afterSeekPts = pts;
    }
  }
  if (!sample) {
    s.drainBus();
    if (gst_app_sink_is_eos(GST_APP_SINK(s.appsink))) s.eos = true;
    if (s.eos) s.checkComplete();
    return s.eos ? Pull::EndOfStream : Pull::Timeout;
  }
  return s.toFrame(std::move(sample), frame) ? Pull::Frame : Pull::Timeout;
}

void Source::setPaused(bool paused) {
  if (paused == impl_->paused) return;
  impl_->paused = paused;
  gst_element_set_state(impl_->pipeline.get(), paused ? GST_STATE_PAUSED : GST_STATE_PLAYING);
}

void Source::seek(double seconds) {
  Impl& s = *impl_;
  if (!s.info.seekable) throw SourceError(s.spec.describe() + " cannot seek (it is live or not seekable)");
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  if (s.info.durationSeconds > 0) seconds = std::min(seconds, s.info.durationSeconds);
  s.pending.reset();
  // The pipeline must be prerolled for a flushing seek to be taken at once.
  gst_element_get_state(s.pipeline.get(), nullptr, nullptr, 2 * GST_SECOND);
  if (!gst_element_seek_simple(s.pipeline.get(), GST_FORMAT_TIME,
                               GstSeekFlags(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE),
                               gint64(seconds * GST_SECOND)))
    throw SourceError(s.spec.describe() + ": the seek to " + std::to_string(seconds) + " s was refused");
  s.eos = false;
  s.position = seconds;
  s.afterSeek = Impl::AfterSeek::First;
  // Wait (bounded) until the flush is through, so the next pull gets a frame from after the seek.
  gst_element_get_state(s.pipeline.get(), nullptr, nullptr, 5 * GST_SECOND);
}

double Source::positionSeconds() const { return impl_->position; }
const SourceInfo& Source::info() const { return impl_->info; }
bool Source::eos() const { return impl_->eos; }

}  // namespace convlive
