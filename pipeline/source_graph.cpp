#include "source_graph.hpp"

#include <gst/app/gstappsink.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>
#include <sstream>
#include <vector>

#include "cameras.hpp"
#include "cuda_share.hpp"
#include "source_messages.hpp"

namespace convlive {

namespace {

// Everything reaches the appsink as RGBA8; or, accepting YUV or grey frames, in one of the formats
// taken: videoconvert then passes a decoder's NV12/I420 or a mono camera's GRAY8 through untouched
// and converts only other formats (it never picks a grey format for a colour source: that loses
// colour, the worst of its scores).
std::string convertTail(FrameFormats formats) {
  return "videoconvert ! video/x-raw,format=" + formats.capsValue() + " ! appsink name=clsink";
}
// NVDEC: the decoder's frames straight to the appsink, which takes NV12/I420 in CUDA memory (or
// the formats taken in system memory, from decoders of streams NVDEC does not take).
const char* const kDeviceTail = "appsink name=clsink";

std::string mediaKind(const GstCaps* caps) {
  if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return "";
  const std::string name = gst_structure_get_name(gst_caps_get_structure(caps, 0));
  return name.substr(0, name.find('/'));
}

// Calls visit(element) on every element of the bin, recursively, until it returns true. When the
// bin changes meanwhile, calls restart() and goes through again from the start.
template <class Visit, class Restart>
void forEachElement(GstElement* bin, Visit visit, Restart restart) {
  GstIterator* it = gst_bin_iterate_recurse(GST_BIN(bin));
  GValue item = G_VALUE_INIT;
  for (bool done = false; !done;) {
    switch (gst_iterator_next(it, &item)) {
      case GST_ITERATOR_OK:
        done = visit(GST_ELEMENT(g_value_get_object(&item)));
        g_value_reset(&item);
        break;
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync(it);
        restart();
        break;
      default:
        done = true;
    }
  }
  g_value_unset(&item);
  gst_iterator_free(it);
}

GstElement* findAppsink(GstElement* pipeline) {
  GstElement* found = nullptr;
  forEachElement(
      pipeline,
      [&](GstElement* el) {
        if (GST_IS_APP_SINK(el)) {
          gst::CharPtr name(gst_element_get_name(el));
          if (!found || gst::str(name.get()) == "sink") found = el;
        }
        return false;
      },
      [&] { found = nullptr; });
  return found;  // the pipeline holds it
}

// The first element of the bin (recursively) whose factory is a video decoder.
std::string findVideoDecoder(GstElement* pipeline) {
  std::string found;
  forEachElement(
      pipeline,
      [&](GstElement* el) {
        GstElementFactory* f = gst_element_get_factory(el);
        const char* klass = f ? gst_element_factory_get_metadata(f, GST_ELEMENT_METADATA_KLASS) : nullptr;
        if (klass && std::strstr(klass, "Decoder") && std::strstr(klass, "Video"))
          found = gst::str(gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(f)));
        return !found.empty();
      },
      [&] { found.clear(); });
  return found;
}

}  // namespace

// What a decoder found in a stream, written from GStreamer's streaming threads.
class StreamWatch {
 public:
  void sawStream(const std::string& kind, bool linkedVideo) {
    std::lock_guard lock(mutex_);
    if (linkedVideo) video_ = true;
    if (!kind.empty() && std::find(kinds_.begin(), kinds_.end(), kind) == kinds_.end()) kinds_.push_back(kind);
  }
  void sawUndecodable(const std::string& capsName) {
    std::lock_guard lock(mutex_);
    if (capsName.rfind("video/", 0) == 0 || capsName.rfind("image/", 0) == 0) undecodableVideo_ = capsName;
  }
  void sawAllStreams() {
    std::lock_guard lock(mutex_);
    complete_ = true;
  }
  bool has(const std::string& kind) const {
    std::lock_guard lock(mutex_);
    return std::find(kinds_.begin(), kinds_.end(), kind) != kinds_.end();
  }
  std::string verdict(const SourceSpec& spec) const {
    std::lock_guard lock(mutex_);
    if (!complete_ || video_) return "";
    if (!undecodableVideo_.empty())
      return spec.describe() + " has video in a format with no decoder installed (" + undecodableVideo_ +
             "): install gstreamer1.0-plugins-bad, -ugly or gstreamer1.0-libav";
    return noVideoMessage(spec, kinds_);
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> kinds_;
  std::string undecodableVideo_;
  bool video_ = false, complete_ = false;
};

namespace {

// The decoder's signal handlers share this; freed when the signals are disconnected.
struct DecoderLink {
  gst::PadPtr tailSink;
  std::shared_ptr<StreamWatch> watch;
};

void onPadAdded(GstElement*, GstPad* pad, gpointer data) {
  auto* link = static_cast<DecoderLink*>(data);
  gst::CapsPtr caps(gst_pad_get_current_caps(pad));
  if (!caps) caps.reset(gst_pad_query_caps(pad, nullptr));
  const std::string kind = mediaKind(caps.get());
  bool linked = false;
  if (kind == "video" && !gst_pad_is_linked(link->tailSink.get()))
    linked = GST_PAD_LINK_SUCCESSFUL(gst_pad_link(pad, link->tailSink.get()));
  link->watch->sawStream(kind, linked);
}

void onUnknownType(GstElement*, GstPad*, GstCaps* caps, gpointer data) {
  if (!caps || gst_caps_is_empty(caps)) return;
  static_cast<DecoderLink*>(data)->watch->sawUndecodable(gst_structure_get_name(gst_caps_get_structure(caps, 0)));
}

void onNoMorePads(GstElement*, gpointer data) { static_cast<DecoderLink*>(data)->watch->sawAllStreams(); }

}  // namespace

std::string FrameFormats::capsValue() const {
  if (!yuv && !grey) return "RGBA";
  std::string list = yuv ? "NV12,I420,RGBA" : "RGBA";
  if (grey) list += std::endian::native == std::endian::little ? ",GRAY8,GRAY16_LE" : ",GRAY8";
  return "{" + list + "}";
}

SourceGraph::SourceGraph(const SourceSpec& spec, FrameFormats formats, bool nvdec)
    : spec_(spec), formats_(formats), nvdec_(nvdec && formats.yuv) {
  switch (spec_.kind) {
    case SourceSpec::Kind::Pattern:
      buildPattern();
      break;
    case SourceSpec::Kind::File:
      file_ = FileCheck::ofPath(spec_.location);
      buildDecoder(file_->uri());
      break;
    case SourceSpec::Kind::Uri:
      file_ = FileCheck::ofUri(spec_.location);
      buildDecoder(file_->uri());
      break;
    case SourceSpec::Kind::Camera: {
      spec_.location = resolveCameraDevice(spec_.location);
      gst::CharPtr device(g_strescape(spec_.location.c_str(), nullptr));
      parse("v4l2src device=\"" + gst::str(device.get()) + "\" ! decodebin ! " + convertTail(formats_));
      break;
    }
    case SourceSpec::Kind::Launch:
      buildLaunch();
      break;
  }
  if (nvdec_) {
    std::string why;
    if (!shareCudaContext(pipeline_.get(), why))
      throw SourceError(spec_.describe() + ": NVDEC decoding needs convlive's CUDA context shared (" + why +
                        "): use --decoder cpu");
  }
}

std::string SourceGraph::videoDecoderName() const { return pipeline_ ? findVideoDecoder(pipeline_.get()) : ""; }

SourceGraph::~SourceGraph() {
  if (pipeline_) gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
}

std::string SourceGraph::noVideoReason() const { return streams_ ? streams_->verdict(spec_) : ""; }

void SourceGraph::parse(const std::string& line) {
  GError* raw = nullptr;
  gst::ElementPtr el = gst::owned(gst_parse_launch_full(line.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &raw));
  gst::ErrorPtr err(raw);
  if (!el || err)
    throw SourceError("cannot build the pipeline for " + spec_.describe() + " (" +
                      (err ? err->message : "unknown error") + "): is gstreamer1.0-plugins-base/-good installed?");
  appsink_ = GST_IS_BIN(el.get()) ? gst_bin_get_by_name(GST_BIN(el.get()), "clsink") : nullptr;
  if (!appsink_) throw SourceError("cannot build the pipeline for " + spec_.describe() + ": its appsink is missing");
  gst_object_unref(appsink_);  // the pipeline keeps it alive
  pipeline_ = std::move(el);
}

bool SourceGraph::hasStream(const std::string& kind) const { return streams_ && streams_->has(kind); }

void SourceGraph::buildPattern() {
  const int w = spec_.width, h = spec_.height;
  if (w < 1 || h < 1 || w > 16384 || h > 16384)
    throw SourceError("test pattern size " + std::to_string(w) + "x" + std::to_string(h) +
                      " is out of range: use 1x1 to 16384x16384");
  if (spec_.fps < 1 || spec_.fps > 1000)
    throw SourceError("test pattern rate " + std::to_string(spec_.fps) + " fps is out of range: use 1 to 1000");
  const auto names = testPatterns();
  if (std::find(names.begin(), names.end(), spec_.pattern) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw SourceError("unknown test pattern " + quoted(spec_.pattern) + ": use one of " + list);
  }
  // videotestsrc's zone plates divide by half the width, which is 0 for a 1-pixel-wide frame
  // (SIGFPE). A 1xN frame is a fair test of a filter, so every pattern is drawn 2 wide then and
  // cropped to 1.
  const bool narrow = w == 1;
  // videotestsrc draws I420 natively; a cropped 1-wide frame stays RGBA.
  const char* format = formats_.yuv && !narrow ? "I420" : "RGBA";
  if (narrow && !hasElement("videocrop"))
    throw SourceError("test pattern size " + std::to_string(w) + "x" + std::to_string(h) +
                      " needs GStreamer's videocrop (gstreamer1.0-plugins-good): install it, or use a width of 2 or "
                      "more");
  // "moving": a zone plate whose rings drift, with every spatial frequency in view.
  const std::string pattern =
      spec_.pattern == "moving" ? "pattern=zone-plate kx2=24 ky2=24 kt=2" : "pattern=" + spec_.pattern;
  std::ostringstream line;
  line << "videotestsrc " << pattern << (spec_.frames >= 0 ? " num-buffers=" + std::to_string(spec_.frames) : "")
       << " ! video/x-raw,format=" << format << ",width=" << (narrow ? 2 : w) << ",height=" << h
       << ",framerate=" << spec_.fps << "/1 ! " << (narrow ? "videocrop right=1 ! " : "") << "appsink name=clsink";
  parse(line.str());
  // videotestsrc takes the pool its peer proposes. Through videocrop a pool of 2-3 buffers left its
  // thread blocked in acquire and the pipeline's stop deadlocked: a 1-wide frame keeps its own pool.
  appsinkSizesPool_ = !narrow;
}

void SourceGraph::buildDecoder(const std::string& uri) {
  gst::ElementPtr pipeline = gst::owned(gst_pipeline_new("convlive-source"));
  GstElement* decode = gst_element_factory_make("uridecodebin", "src");
  if (!pipeline || !decode) {
    if (decode) gst_object_unref(gst_object_ref_sink(decode));
    throw SourceError("GStreamer's uridecodebin is missing: install gstreamer1.0-plugins-base");
  }
  g_object_set(decode, "uri", uri.c_str(), nullptr);
  GError* raw = nullptr;
  GstElement* tail = gst_parse_bin_from_description(nvdec_ ? kDeviceTail : convertTail(formats_).c_str(), TRUE, &raw);
  gst::ErrorPtr err(raw);
  if (!tail) {
    gst_object_unref(gst_object_ref_sink(decode));
    throw SourceError(std::string("cannot build the RGBA conversion (") + (err ? err->message : "unknown error") +
                      "): is gstreamer1.0-plugins-base installed?");
  }
  gst_bin_add_many(GST_BIN(pipeline.get()), decode, tail, nullptr);  // the pipeline owns both now
  appsink_ = gst_bin_get_by_name(GST_BIN(tail), "clsink");
  if (!appsink_) throw SourceError("cannot build the RGBA conversion: its appsink is missing");
  gst_object_unref(appsink_);
  streams_ = std::make_shared<StreamWatch>();
  const auto connect = [&](const char* signal, GCallback handler) {
    auto* link = new DecoderLink{gst::PadPtr(gst_element_get_static_pad(tail, "sink")), streams_};
    g_signal_connect_data(
        decode, signal, handler, link, [](gpointer p, GClosure*) { delete static_cast<DecoderLink*>(p); },
        GConnectFlags(0));
  };
  connect("pad-added", G_CALLBACK(onPadAdded));
  connect("unknown-type", G_CALLBACK(onUnknownType));
  connect("no-more-pads", G_CALLBACK(onNoMorePads));
  if (nvdec_) preferNvdec(decode);
  pipeline_ = std::move(pipeline);
}

void SourceGraph::buildLaunch() {
  const std::string& line = spec_.location;
  if (line.find_first_not_of(" \t\n") == std::string::npos)
    throw SourceError("the launch line is empty: give one that ends in '! videoconvert ! appsink'");
  GError* raw = nullptr;
  gst::ElementPtr el = gst::owned(gst_parse_launch_full(line.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &raw));
  gst::ErrorPtr err(raw);
  if (!el || err)
    throw SourceError("the launch line does not parse (" + std::string(err ? err->message : "unknown error") +
                      "): check it with gst-launch-1.0");
  if (!GST_IS_PIPELINE(el.get()) || !(appsink_ = findAppsink(el.get())))
    throw SourceError("the launch line has no appsink: end it with '! videoconvert ! appsink'");
  pipeline_ = std::move(el);
}

}  // namespace convlive
