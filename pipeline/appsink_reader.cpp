#include "appsink_reader.hpp"

#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <optional>

#include "colorimetry.hpp"
#include "cuda_share.hpp"
#include "host_registry.hpp"
#include "network_probe.hpp"
#include "source_messages.hpp"

namespace convlive {

using Clock = std::chrono::steady_clock;

// When each buffer reached the appsink, by presentation time: written by the streaming thread.
class ArrivalLog {
 public:
  void add(GstClockTime pts) {
    std::lock_guard lock(mutex_);
    entries_[next_++ % entries_.size()] = {pts, Clock::now()};
  }
  Clock::time_point of(GstClockTime pts) const {
    std::lock_guard lock(mutex_);
    for (const auto& [p, t] : entries_)
      if (p == pts && t != Clock::time_point{}) return t;
    return Clock::now();
  }

 private:
  mutable std::mutex mutex_;
  std::array<std::pair<GstClockTime, Clock::time_point>, 64> entries_{};
  std::size_t next_ = 0;
};

namespace {

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

// The library's type for a grey format the pipeline filters as it is: GRAY8 (u8), GRAY16_LE (u16;
// FrameFormats offers it on little-endian hosts only, where it is the library's u16).
std::optional<PixelType> greyTypeOf(GstVideoFormat format) {
  if (format == GST_VIDEO_FORMAT_GRAY8) return PixelType::U8;
  if (format == GST_VIDEO_FORMAT_GRAY16_LE) return PixelType::U16;
  return std::nullopt;
}

// What becomes of frames of more than 8 bits a channel ("" for 8 bits or fewer, and for coded
// formats). `frameFormat`: what the frames arrive as (16-bit grey ones are filtered as they are).
std::string depthNoteOf(const GstCaps* caps, const std::string& frameFormat) {
  if (!caps || gst_caps_get_size(caps) == 0) return "";
  const GstStructure* s = gst_caps_get_structure(caps, 0);
  const gchar* format = gst_structure_get_string(s, "format");
  if (std::string(gst_structure_get_name(s)) != "video/x-raw" || !format) return "";
  const GstVideoFormatInfo* info = gst_video_format_get_info(gst_video_format_from_string(format));
  const int depth = info ? int(GST_VIDEO_FORMAT_INFO_DEPTH(info, 0)) : 8;
  if (depth <= 8) return "";
  if (frameFormat == format && frameFormat == "GRAY16_LE")
    return "GRAY16_LE has 16 bits a channel: filtered at 16 bits, shown and exported at 8 (to nearest of v / 257)";
  return std::string(format) + " has " + std::to_string(depth) +
         " bits a channel: the pipeline filters 8-bit frames, so each frame is converted to 8 bits first (its " +
         "lowest " + std::to_string(depth - 8) +
         " bits are dropped); `convlive image` filters 16-bit pictures at 16 bits";
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

double framerateOf(const GstCaps* caps) {
  if (!caps || gst_caps_get_size(caps) == 0) return 0;
  int n = 0, d = 1;
  return gst_structure_get_fraction(gst_caps_get_structure(caps, 0), "framerate", &n, &d) && d > 0 ? double(n) / d : 0;
}

// A network URI whose source failed or gave nothing: why its server cannot be reached, as the
// error's whole text ("" when it can be reached, and for other sources). Bounded: 3 s for the name
// lookup and 3 s for the connection.
std::string unreachableMessage(const SourceSpec& spec) {
  if (spec.kind != SourceSpec::Kind::Uri) return "";
  const std::optional<NetworkTarget> target = networkTargetOf(spec.location);
  if (!target) return "";
  const std::string why = whyUnreachable(*target, std::chrono::seconds(3));
  return why.empty() ? "" : spec.describe() + " cannot be reached: " + why + ": " + unreachableAdvice(why);
}

GstPadProbeReturn onBuffer(GstPad*, GstPadProbeInfo* info, gpointer log) {
  (*static_cast<std::shared_ptr<ArrivalLog>*>(log))->add(GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info)));
  return GST_PAD_PROBE_OK;
}

// Answers the producer's allocation query (the test pattern's, in system memory) with a pool of
// at most `max` buffers of the frame's size, made by the producer; other queries go on.
GstPadProbeReturn boundPool(GstPad*, GstPadProbeInfo* info, gpointer max) {
  GstQuery* query = GST_PAD_PROBE_INFO_QUERY(info);
  if (GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION) return GST_PAD_PROBE_OK;
  GstCaps* caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo vinfo;
  if (!caps || !gst_video_info_from_caps(&vinfo, caps)) return GST_PAD_PROBE_OK;
  const GstCapsFeatures* features = gst_caps_get_features(caps, 0);
  if (features && !gst_caps_features_is_equal(features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
    return GST_PAD_PROBE_OK;
  gst_query_add_allocation_pool(query, nullptr, guint(GST_VIDEO_INFO_SIZE(&vinfo)), 0, GPOINTER_TO_UINT(max));
  return GST_PAD_PROBE_HANDLED;  // answered: the appsink proposes nothing of its own
}

}  // namespace

AppsinkReader::AppsinkReader(const SourceGraph& graph, const SourceOptions& options)
    : graph_(graph), options_(options), arrivals_(std::make_shared<ArrivalLog>()) {}

AppsinkReader::~AppsinkReader() = default;

void AppsinkReader::drainBus() {
  while (gst::MessagePtr msg{gst_bus_pop_filtered(bus_.get(), GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS))}) {
    if (GST_MESSAGE_TYPE(msg.get()) == GST_MESSAGE_ERROR) {
      // An unlinked audio stream fails with not-linked; the decoder's own account says more.
      if (std::string why = graph_.noVideoReason(); !why.empty()) throw SourceError(why);
      // GStreamer's HTTP source says only "Internal data stream error" when the server is not there.
      if (std::string why = unreachableMessage(graph_.spec()); !why.empty()) throw SourceError(why);
      throw SourceError(explainBusError(msg.get(), graph_.spec()));
    }
    eos_ = true;
  }
}

void AppsinkReader::open() {
  GstElement* pipeline = graph_.pipeline();
  GstElement* appsink = graph_.appsink();
  const SourceSpec& spec = graph_.spec();
  const std::string system = "video/x-raw,format=" + FrameFormats{options_.acceptYuv, options_.acceptGrey}.capsValue();
  gst::CapsPtr accepted(gst_caps_from_string(
      (graph_.nvdec() ? "video/x-raw(memory:CUDAMemory),format={NV12,I420}; " + system : system).c_str()));
  // No last sample kept: nothing reads it.
  g_object_set(appsink, "caps", accepted.get(), "sync", gboolean(options_.sync), "max-buffers",
               guint(std::max(1, options_.maxQueued)), "drop", FALSE, "emit-signals", FALSE, "enable-last-sample",
               FALSE, nullptr);
  gst::PadPtr sinkPad(gst_element_get_static_pad(appsink, "sink"));
  if (!sinkPad) throw SourceError(spec.describe() + ": its appsink has no input");
  if (graph_.appsinkSizesPool() && options_.poolBuffers > 0) {
    // Dropping a queued frame for a newer one needs a buffer to draw the newer one into.
    const int buffers = options_.poolBuffers + (options_.newestOnly ? 1 : 0);
    gst_pad_add_probe(sinkPad.get(), GstPadProbeType(GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PUSH),
                      boundPool, GUINT_TO_POINTER(guint(buffers)), nullptr);
  }
  gst_pad_add_probe(sinkPad.get(), GST_PAD_PROBE_TYPE_BUFFER, onBuffer, new std::shared_ptr<ArrivalLog>(arrivals_),
                    [](gpointer p) { delete static_cast<std::shared_ptr<ArrivalLog>*>(p); });
  bus_.reset(gst_element_get_bus(pipeline));
  if (!bus_) throw SourceError(spec.describe() + ": its pipeline has no message bus");

  // Through PAUSED first: a live source answers NO_PREROLL there.
  GstStateChangeReturn r = gst_element_set_state(pipeline, GST_STATE_PAUSED);
  info_.live = r == GST_STATE_CHANGE_NO_PREROLL;
  if (r != GST_STATE_CHANGE_FAILURE) r = gst_element_set_state(pipeline, GST_STATE_PLAYING);
  if (info_.live || options_.newestOnly)
    g_object_set(appsink, "drop", TRUE, "max-buffers", 1u, nullptr);  // the newest frame wins
  if (r == GST_STATE_CHANGE_FAILURE) {
    drainBus();  // throws with the reason when there is one
    throw SourceError(spec.describe() + " cannot start: check it with gst-launch-1.0");
  }
  // Bounded wait for the first frame: it proves negotiation worked and tells us the format.
  const auto deadline = Clock::now() + options_.openTimeout;
  const auto ended = [&] { return SourceError(spec.describe() + " ended before its first frame: it holds no video"); };
  while (!first_) {
    if (options_.cancel && options_.cancel->load()) throw SourceError(spec.describe() + ": opening it was cancelled");
    if (std::string why = graph_.noVideoReason(); !why.empty()) throw SourceError(why);
    drainBus();
    if (eos_) throw ended();
    first_.reset(gst_app_sink_try_pull_sample(GST_APP_SINK(appsink), GST_MSECOND * 50));
    if (!first_ && gst_app_sink_is_eos(GST_APP_SINK(appsink))) {
      drainBus();
      throw ended();
    }
    if (!first_ && Clock::now() > deadline) {
      drainBus();
      if (std::string why = unreachableMessage(spec); !why.empty()) throw SourceError(why);
      throw SourceError(noFirstFrameMessage(spec, options_.openTimeout));
    }
  }
  fillInfo();
}

void AppsinkReader::fillInfo() {
  info_.description = graph_.spec().describe();
  GstCaps* converted = gst_sample_get_caps(first_.get());
  gst::CapsPtr native = nativeCaps(graph_.appsink());
  GstCaps* caps = native ? native.get() : converted;
  info_.nativeFormat = formatOf(caps);
  info_.frameFormat = formatOf(converted);
  info_.depthNote = depthNoteOf(caps, info_.frameFormat);
  if (caps && gst_caps_get_size(caps) > 0) {
    const GstStructure* s = gst_caps_get_structure(caps, 0);
    gst_structure_get_int(s, "width", &info_.nativeWidth);
    gst_structure_get_int(s, "height", &info_.nativeHeight);
  }
  // The native caps may lack a rate (images); the converted ones may have it.
  info_.fps = framerateOf(caps);
  if (info_.fps == 0) info_.fps = framerateOf(converted);
  gint64 duration = -1;
  if (gst_element_query_duration(graph_.pipeline(), GST_FORMAT_TIME, &duration) && duration > 0)
    info_.durationSeconds = double(duration) / GST_SECOND;
  GstQuery* q = gst_query_new_seeking(GST_FORMAT_TIME);
  if (gst_element_query(graph_.pipeline(), q)) {
    gboolean seekable = FALSE;
    gst_query_parse_seeking(q, nullptr, &seekable, nullptr, nullptr);
    info_.seekable = seekable && !info_.live;
  }
  gst_query_unref(q);
  info_.decoder = graph_.videoDecoderName();
  GstBuffer* buffer = gst_sample_get_buffer(first_.get());
  info_.framesOnDevice = buffer && graph_.nvdec() && inSharedCudaContext(buffer);
}

namespace {

// A mapped NV12/I420 frame's planes, colours and the memory block they lie in (none, when they
// span more than the buffer's size: planes in separate memories).
void describeYuv(const GstVideoFrame& mapped, std::size_t bufferSize, SourceFrame& frame) {
  frame.yuv = yuvViewOf(mapped);
  frame.colour = colourSpecOf(mapped.info);
  frame.pixels = ConstImageView(nullptr, frame.yuv.width, frame.yuv.height, 0);
  const std::uint8_t* lo = frame.yuv.planes[0];
  const std::uint8_t* hi = lo;
  for (int p = 0; p < yuvPlaneCount(frame.yuv.format); ++p) {
    const std::uint8_t* start = frame.yuv.planes[p];
    const std::size_t rows = std::size_t(yuvPlaneRows(frame.yuv.height, p));
    lo = std::min(lo, start);
    hi = std::max(hi, start + frame.yuv.pitches[p] * (rows - 1) + yuvRowBytes(frame.yuv.format, frame.yuv.width, p));
  }
  const bool oneBlock = std::size_t(hi - lo) <= bufferSize;
  frame.bytes = oneBlock ? lo : nullptr;
  frame.byteCount = oneBlock ? std::size_t(hi - lo) : 0;
}

}  // namespace

bool AppsinkReader::toFrame(gst::SamplePtr sample, SourceFrame& frame) {
  frame = SourceFrame{};  // nothing of a frame pulled into it before stays (its views, its kind)
  GstCaps* caps = gst_sample_get_caps(sample.get());
  GstBuffer* buffer = gst_sample_get_buffer(sample.get());
  if (!caps || !buffer) return false;
  struct Mapped {
    gst::SamplePtr sample;
    GstVideoInfo vinfo;
    GstVideoFrame frame;
    bool mapped = false;
    ~Mapped() {
      if (mapped) gst_video_frame_unmap(&frame);
    }
  };
  auto m = std::make_unique<Mapped>();
  const bool parsed = gst_video_info_from_caps(&m->vinfo, caps);
  const GstVideoFormat format = parsed ? GST_VIDEO_INFO_FORMAT(&m->vinfo) : GST_VIDEO_FORMAT_UNKNOWN;
  const bool yuv = options_.acceptYuv && yuvFormatOf(format);
  const std::optional<PixelType> grey = options_.acceptGrey ? greyTypeOf(format) : std::nullopt;
  if (format != GST_VIDEO_FORMAT_RGBA && !yuv && !grey)
    throw SourceError(graph_.spec().describe() + " delivered a frame that is not " +
                      FrameFormats{options_.acceptYuv, options_.acceptGrey}.capsValue() +
                      ": end a launch line with '! videoconvert ! appsink'");
  // NVDEC's frames in convlive's context: mapped as device pointers, read where they are.
  const bool onDevice = yuv && graph_.nvdec() && inSharedCudaContext(buffer);
  m->mapped = gst_video_frame_map(&m->frame, &m->vinfo, buffer, onDevice ? cudaMapFlags() : GST_MAP_READ);
  if (!m->mapped) throw SourceError(graph_.spec().describe() + ": a frame could not be mapped for reading");
  m->sample = std::move(sample);
  if (onDevice) {
    frame.yuv = yuvViewOf(m->frame);
    frame.colour = colourSpecOf(m->vinfo);
    frame.pixels = ConstImageView(nullptr, frame.yuv.width, frame.yuv.height, 0);
    frame.onDevice = true;
  } else if (yuv) {
    describeYuv(m->frame, gst_buffer_get_size(buffer), frame);
  } else if (grey) {
    frame.grey = GST_VIDEO_FRAME_PLANE_DATA(&m->frame, 0);
    frame.greyDesc = ImageDesc{.width = GST_VIDEO_FRAME_WIDTH(&m->frame),
                               .height = GST_VIDEO_FRAME_HEIGHT(&m->frame),
                               .type = *grey,
                               .channels = 1,
                               .pitch = std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&m->frame, 0))};
    frame.pixels = ConstImageView(nullptr, frame.greyDesc.width, frame.greyDesc.height, 0);
  } else
    frame.pixels = ConstImageView(static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&m->frame, 0)),
                                  GST_VIDEO_FRAME_WIDTH(&m->frame), GST_VIDEO_FRAME_HEIGHT(&m->frame),
                                  std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&m->frame, 0)));
  if (options_.registerWithCuda && !onDevice && gst_buffer_n_memory(buffer) == 1) {
    const HostRegistration reg = registerHostMemory(gst_buffer_peek_memory(buffer, 0));
    frame.pinned = reg.registered;
    if (reg.firstSeen) frame.pageLockMs = reg.ms;
  }
  const GstClockTime pts = GST_BUFFER_PTS(buffer);
  frame.ptsNs = GST_CLOCK_TIME_IS_VALID(pts) ? std::int64_t(pts) : -1;
  frame.arrival = arrivals_->of(pts);
  frame.index = pulled_++;
  if (frame.ptsNs >= 0) position_ = double(frame.ptsNs) / GST_SECOND;
  frame.keep = std::shared_ptr<void>(m.release(), [](void* p) { delete static_cast<Mapped*>(p); });
  return true;
}

Source::Pull AppsinkReader::pull(SourceFrame& frame, std::chrono::milliseconds timeout) {
  auto* appsink = GST_APP_SINK(graph_.appsink());
  if (first_) return toFrame(std::move(first_), frame) ? Source::Pull::Frame : Source::Pull::Timeout;
  drainBus();
  if (paused_) return Source::Pull::Timeout;
  gst::SamplePtr sample(gst_app_sink_try_pull_sample(appsink, GST_MSECOND * timeout.count()));
  if (sample && afterSeek_ != AfterSeek::No) {
    const GstClockTime pts = GST_BUFFER_PTS(gst_sample_get_buffer(sample.get()));
    if (afterSeek_ == AfterSeek::Second && pts == afterSeekPts_) {
      afterSeek_ = AfterSeek::No;
      sample.reset(gst_app_sink_try_pull_sample(appsink, GST_MSECOND * timeout.count()));
    } else {
      afterSeek_ = afterSeek_ == AfterSeek::First ? AfterSeek::Second : AfterSeek::No;
      afterSeekPts_ = pts;
    }
  }
  if (!sample) {
    drainBus();
    if (gst_app_sink_is_eos(appsink)) eos_ = true;
    return eos_ ? Source::Pull::EndOfStream : Source::Pull::Timeout;
  }
  return toFrame(std::move(sample), frame) ? Source::Pull::Frame : Source::Pull::Timeout;
}

void AppsinkReader::setPaused(bool paused) {
  if (paused == paused_) return;
  if (gst_element_set_state(graph_.pipeline(), paused ? GST_STATE_PAUSED : GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    drainBus();  // throws with the reason when there is one
    throw SourceError(graph_.spec().describe() + (paused ? " cannot pause" : " cannot resume") +
                      ": it may have been unplugged or closed");
  }
  paused_ = paused;
}

void AppsinkReader::seek(double seconds) {
  const std::string what = graph_.spec().describe();
  if (!info_.seekable) throw SourceError(what + " cannot seek (it is live or not seekable)");
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  if (info_.durationSeconds > 0) seconds = std::min(seconds, info_.durationSeconds);
  first_.reset();
  GstElement* pipeline = graph_.pipeline();
  // The pipeline must be prerolled for a flushing seek to be taken at once.
  gst_element_get_state(pipeline, nullptr, nullptr, 2 * GST_SECOND);
  if (!gst_element_seek_simple(pipeline, GST_FORMAT_TIME, GstSeekFlags(GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE),
                               gint64(seconds * GST_SECOND)))
    throw SourceError(what + ": the seek to " + std::to_string(seconds) + " s was refused");
  eos_ = false;
  position_ = seconds;
  afterSeek_ = AfterSeek::First;
  // Wait (bounded) until the flush is through, so the next pull gets a frame from after the seek.
  gst_element_get_state(pipeline, nullptr, nullptr, 5 * GST_SECOND);
}

}  // namespace convlive
