#include "convlive/export.hpp"

#include <gst/app/gstappsrc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>

#include "colorimetry.hpp"
#include "gst_ptr.hpp"

namespace convlive {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

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

std::string joined(const std::vector<std::string>& v, const char* sep, const char* last) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : i + 1 == v.size() ? last : sep) + v[i];
  return s;
}

// A whole number, all of `text` (no sign but '-', no spaces, no fraction).
bool wholeNumber(const std::string& text, long& value) {
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && at == end && !text.empty();
}

// "H.264 (x264enc)": the codec and the element, as the messages name an encoder.
std::string encoderWords(const ExportFormat& f) { return f.codec + " (" + f.encoder + ")"; }

// Constant-quality defaults, so that the filter's effect, not the codec's, is what one sees: H.264
// and VP8 at about the same PSNR (43 dB on the 1080p test pattern); sizes in docs/video.md.
constexpr int kDefaultCrf = 18;           // x264enc pass=qual quantizer (x264's CRF; its own default is 23)
constexpr int kDefaultVp8Quantizer = 12;  // vp8enc min-quantizer = max-quantizer
constexpr int kDefaultJpeg = 85;          // jpegenc quality (jpegenc's own default)

// The most --bitrate each encoder takes, in kbit/s (its property's range).
long maxBitrateKbps(const ExportFormat& f) { return f.encoder == "x264enc" ? 2048000L : INT_MAX / 1000; }

// VP8's speed for each of x264's preset names: libvpx's realtime mode (deadline 1) for the fast
// four, its good-quality mode (a deadline longer than a frame) for the middle ones, best for
// veryslow; cpu-used trades quality for speed within each mode.
struct Vp8Speed {
  long deadline;
  int cpuUsed;
};
Vp8Speed vp8Speed(const std::string& preset) {
  static const std::pair<const char*, Vp8Speed> table[] = {
      {"ultrafast", {1, 16}}, {"superfast", {1, 12}},   {"veryfast", {1, 8}},
      {"faster", {1, 4}},     {"fast", {1000000, 5}},   {"medium", {1000000, 3}},
      {"slow", {1000000, 2}}, {"slower", {1000000, 1}}, {"veryslow", {0, 0}}};
  for (const auto& [name, speed] : table)
    if (preset == name) return speed;
  return {1, 8};
}

// ---- Audio codecs -------------------------------------------------------------------------------

// The name people know an audio codec by, from its caps.
std::string audioCodecName(const GstCaps* caps) {
  if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps)) return "unknown";
  const GstStructure* s = gst_caps_get_structure(caps, 0);
  const std::string name = gst_structure_get_name(s);
  if (name == "audio/mpeg") {
    int version = 0, layer = 3;
    gst_structure_get_int(s, "mpegversion", &version);
    gst_structure_get_int(s, "layer", &layer);
    if (version == 1) return layer == 3 ? "MP3" : "MPEG-1 layer " + std::to_string(layer);
    return "AAC";
  }
  static const std::pair<const char*, const char*> names[] = {
      {"audio/x-opus", "Opus"},   {"audio/x-vorbis", "Vorbis"}, {"audio/x-flac", "FLAC"},   {"audio/x-ac3", "AC-3"},
      {"audio/x-eac3", "E-AC-3"}, {"audio/x-dts", "DTS"},       {"audio/x-alac", "ALAC"},   {"audio/x-raw", "PCM"},
      {"audio/x-alaw", "A-law"},  {"audio/x-mulaw", "mu-law"},  {"audio/x-speex", "Speex"}, {"audio/x-wma", "WMA"},
      {"audio/x-adpcm", "ADPCM"}, {"audio/AMR", "AMR"},         {"audio/AMR-WB", "AMR-WB"}};
  for (const auto& [media, codec] : names)
    if (name == media) return codec;
  return name;
}

// The caps a muxer's audio pads take.
gst::CapsPtr muxerAudioCaps(const std::string& muxer) {
  GstElementFactory* factory = gst_element_factory_find(muxer.c_str());
  gst::CapsPtr caps(gst_caps_new_empty());
  if (!factory) return caps;
  for (const GList* l = gst_element_factory_get_static_pad_templates(factory); l; l = l->next) {
    auto* t = static_cast<GstStaticPadTemplate*>(l->data);
    if (t->direction == GST_PAD_SINK && std::string(t->name_template).rfind("audio", 0) == 0)
      caps.reset(gst_caps_merge(caps.release(), gst_static_caps_get(&t->static_caps)));
  }
  gst_object_unref(factory);
  return caps;
}

// Whether an installed decoder takes `caps`.
bool hasDecoderFor(const GstCaps* caps) {
  GList* decoders = gst_element_factory_list_get_elements(
      GstElementFactoryListType(GST_ELEMENT_FACTORY_TYPE_DECODER | GST_ELEMENT_FACTORY_TYPE_MEDIA_AUDIO),
      GST_RANK_MARGINAL);
  GList* taking = gst_element_factory_list_filter(decoders, caps, GST_PAD_SINK, FALSE);
  const bool found = taking != nullptr;
  gst_plugin_feature_list_free(taking);
  gst_plugin_feature_list_free(decoders);
  return found;
}

// The container's usual audio codecs, in the order tried when the input's must be re-encoded.
struct AudioTarget {
  const char* element;  // the encoder (audioconvert: PCM)
  const char* codec;
  const char* settings;  // the chain from the encoder on
};
std::vector<AudioTarget> audioTargets(const ExportFormat& f) {
  const AudioTarget opus{"opusenc", "Opus", "opusenc bitrate=128000"};
  const AudioTarget vorbis{"vorbisenc", "Vorbis", "vorbisenc quality=0.5"};
  if (f.container == "mp4")
    return {{"avenc_aac", "AAC", "avenc_aac bitrate=192000 ! aacparse"},
            {"voaacenc", "AAC", "voaacenc bitrate=192000 ! aacparse"},
            opus};
  if (f.container == "avi")
    return {{"lamemp3enc", "MP3", "lamemp3enc target=bitrate bitrate=192 cbr=true ! mpegaudioparse"},
            {"audioconvert", "PCM", "audioconvert ! audio/x-raw,format=S16LE"}};
  return {opus, vorbis};
}

std::string containerName(const ExportFormat& f) {
  if (f.container == "webm") return "WebM";
  if (f.container == "mp4") return "MP4";
  if (f.container == "avi") return "AVI";
  return "Matroska";
}

// Why a codec the muxer does not take must be re-encoded.
std::string containerWords(const ExportFormat& f) {
  if (f.container == "webm") return "WebM holds Opus and Vorbis only";
  if (f.container == "mp4") return "MP4 holds AAC, MP3, AC-3, ALAC and Opus";
  if (f.container == "avi") return "AVI holds PCM, MP3, AAC, AC-3, A-law, mu-law and WMA";
  return "Matroska does not hold it";
}

// The streams of a file, found by parsebin (no decoding), within a time limit.
struct FileStreams {
  std::vector<gst::CapsPtr> audio;
  std::uint64_t videoSegmentStart = 0;
};

struct StreamProbe {
  std::mutex lock;
  std::condition_variable changed;
  GstElement* pipeline = nullptr;
  std::vector<gst::CapsPtr> audio;
  int exposed = 0;     // the streams parsebin has found (all at once, before any data flows)
  int segments = 0;    // the streams whose segment has arrived (their caps are known by then)
  bool video = false;  // one is video: its segment's start is ...
  std::uint64_t videoSegmentStart = 0;
};

// The first segment on each of parsebin's pads: the stream's caps are final, and the video's
// segment says where its running time starts.
GstPadProbeReturn onProbeSegment(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
  GstEvent* e = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(e) != GST_EVENT_SEGMENT) return GST_PAD_PROBE_OK;
  auto* probe = static_cast<StreamProbe*>(data);
  gst::CapsPtr caps(gst_pad_get_current_caps(pad));
  const std::string media =
      caps && !gst_caps_is_empty(caps.get()) ? gst_structure_get_name(gst_caps_get_structure(caps.get(), 0)) : "";
  const GstSegment* segment = nullptr;
  gst_event_parse_segment(e, &segment);
  std::lock_guard<std::mutex> hold(probe->lock);
  if (media.rfind("audio/", 0) == 0) probe->audio.push_back(std::move(caps));
  if (media.rfind("video/", 0) == 0 && !probe->video) {
    probe->video = true;
    if (segment->format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID(segment->start))
      probe->videoSegmentStart = segment->start;
  }
  ++probe->segments;
  probe->changed.notify_all();
  return GST_PAD_PROBE_REMOVE;
}

void onProbePad(GstElement* /*parsebin*/, GstPad* pad, gpointer data) {
  auto* probe = static_cast<StreamProbe*>(data);
  {
    std::lock_guard<std::mutex> hold(probe->lock);
    ++probe->exposed;
  }
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, onProbeSegment, probe, nullptr);
  // Every stream ends in a sink, so that the demuxer reads on until each stream's segment is out
  // (not async: a sink added to a playing pipeline would otherwise wait to preroll).
  GstElement* sink = gst_element_factory_make("fakesink", nullptr);
  g_object_set(sink, "sync", FALSE, "async", FALSE, nullptr);
  gst_bin_add(GST_BIN(probe->pipeline), sink);
  gst_element_sync_state_with_parent(sink);
  GstPad* sinkPad = gst_element_get_static_pad(sink, "sink");
  gst_pad_link(pad, sinkPad);
  gst_object_unref(sinkPad);
}

// Reads the file until the segment of every stream parsebin found has come out (or an error, the
// end, or `timeout`); what was found by then.
FileStreams probeFile(const std::string& path, std::chrono::milliseconds timeout) {
  FileStreams found;
  initGStreamer();
  gst::ElementPtr pipeline = gst::owned(gst_pipeline_new("export-audio-probe"));
  GstElement* src = gst_element_factory_make("filesrc", nullptr);
  GstElement* parse = gst_element_factory_make("parsebin", nullptr);
  if (!src || !parse) {
    if (src) gst_object_unref(gst_object_ref_sink(src));
    if (parse) gst_object_unref(gst_object_ref_sink(parse));
    return found;
  }
  g_object_set(src, "location", path.c_str(), nullptr);
  gst_bin_add_many(GST_BIN(pipeline.get()), src, parse, nullptr);
  gst_element_link(src, parse);
  StreamProbe probe;
  probe.pipeline = pipeline.get();
  const gulong added = g_signal_connect(parse, "pad-added", G_CALLBACK(onProbePad), &probe);
  gst::BusPtr bus(gst_element_get_bus(pipeline.get()));
  // Playing (the sinks do not hold the first buffers): read until every stream found is known.
  if (gst_element_set_state(pipeline.get(), GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE) {
    const auto deadline = Clock::now() + timeout;
    std::unique_lock<std::mutex> hold(probe.lock);
    while (!(probe.exposed > 0 && probe.segments == probe.exposed) && Clock::now() < deadline) {
      probe.changed.wait_for(hold, 20ms);
      if (gst::MessagePtr msg{gst_bus_pop_filtered(bus.get(), GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS))})
        break;
    }
  }
  gst_element_set_state(pipeline.get(), GST_STATE_NULL);  // no streaming thread runs after this
  g_signal_handler_disconnect(parse, added);
  found.audio = std::move(probe.audio);
  found.videoSegmentStart = probe.videoSegmentStart;
  return found;
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

// ---- Encoder settings ----------------------------------------------------------------------------

QualityScale qualityScale(const ExportFormat& f) {
  if (f.encoder == "x264enc") return {"CRF", 0, 50, kDefaultCrf, false};
  if (f.encoder == "vp8enc") return {"quantizer", 0, 63, kDefaultVp8Quantizer, false};
  return {"quality", 1, 100, kDefaultJpeg, true};
}

const std::vector<std::string>& speedPresets() {
  static const std::vector<std::string> names{"ultrafast", "superfast", "veryfast", "faster",  "fast",
                                              "medium",    "slow",      "slower",   "veryslow"};
  return names;
}

std::string EncoderSettings::describe() const {
  std::string s = constantQuality ? scale + " " + std::to_string(quality) : std::to_string(bitrateKbps) + " kbit/s";
  return preset.empty() ? s : s + ", preset " + preset;
}

EncoderSettings encoderSettingsFor(const ExportFormat& f, const EncoderRequest& r) {
  const std::string who = encoderWords(f);
  const QualityScale q = qualityScale(f);
  const std::string scale = "a " + q.name + " " + std::to_string(q.min) + ".." + std::to_string(q.max) + " (" +
                            (q.higherIsBetter ? "higher" : "lower") + " is better quality and a larger file; default " +
                            std::to_string(q.fallback) + ")";
  if (!r.quality.empty() && !r.bitrate.empty())
    throw std::invalid_argument(
        "--quality and --bitrate were both given: give one (--quality keeps the quality constant and the size "
        "follows the content; --bitrate aims at a size)");
  EncoderSettings s;
  s.scale = q.name;
  s.quality = q.fallback;
  if (!r.quality.empty()) {
    long v = 0;
    if (!wholeNumber(r.quality, v))
      throw std::invalid_argument("--quality '" + r.quality + "' is not a whole number: " + who + " takes " + scale);
    if (v < q.min || v > q.max)
      throw std::invalid_argument("--quality " + r.quality + " is out of range: " + who + " takes " + scale);
    s.quality = int(v);
  }
  if (!r.bitrate.empty()) {
    if (f.encoder == "jpegenc")
      throw std::invalid_argument("--bitrate: " + who + " has no target bitrate: use --quality " +
                                  std::to_string(q.min) + ".." + std::to_string(q.max) + " (default " +
                                  std::to_string(q.fallback) + "), or write .mp4, .mkv or .webm");
    const std::string range = "a target in kbit/s, 1.." + std::to_string(maxBitrateKbps(f)) + " for " + who;
    long v = 0;
    if (!wholeNumber(r.bitrate, v))
      throw std::invalid_argument("--bitrate '" + r.bitrate + "' is not a whole number: give " + range);
    if (v < 1 || v > maxBitrateKbps(f))
      throw std::invalid_argument("--bitrate " + r.bitrate + " is out of range: give " + range);
    s.constantQuality = false;
    s.bitrateKbps = v;
  }
  if (f.encoder == "jpegenc") {
    if (!r.preset.empty())
      throw std::invalid_argument("--preset: " + who +
                                  " has no speed preset: leave --preset out, or write .mp4, "
                                  ".mkv or .webm");
    return s;
  }
  s.preset = r.preset.empty() ? kDefaultSpeedPreset : r.preset;
  const auto& names = speedPresets();
  if (std::find(names.begin(), names.end(), s.preset) == names.end())
    throw std::invalid_argument("--preset '" + r.preset + "' is not a speed preset of " + who + ": use " +
                                joined(names, ", ", " or ") + " (default " + kDefaultSpeedPreset + ")");
  return s;
}

// ---- Audio --------------------------------------------------------------------------------------

std::string localFileOf(const SourceSpec& source) {
  if (source.kind == SourceSpec::Kind::File) return source.location;
  if (source.kind != SourceSpec::Kind::Uri || lower(source.location).rfind("file:", 0) != 0) return "";
  gst::CharPtr path(g_filename_from_uri(source.location.c_str(), nullptr, nullptr));
  return gst::str(path.get());
}

AudioPlan planExportAudio(const ExportFormat& format, const SourceSpec& source, std::chrono::milliseconds timeout) {
  const std::string file = localFileOf(source);
  return file.empty() ? AudioPlan{} : planExportAudio(format, file, timeout);
}

std::string AudioPlan::describe() const {
  switch (action) {
    case Action::None:
      return "none";
    case Action::Copy:
      return codec + ", copied";
    case Action::Reencode:
      break;
  }
  return codec + ", re-encoded to " + outCodec + " (" + why + ")";
}

AudioPlan planExportAudio(const ExportFormat& format, const std::string& inputPath, std::chrono::milliseconds timeout) {
  AudioPlan plan;
  const FileStreams streams = probeFile(inputPath, timeout);
  if (streams.audio.empty()) return plan;
  plan.input = inputPath;
  plan.streams = int(streams.audio.size());
  plan.videoSegmentStartNs = streams.videoSegmentStart;
  const GstCaps* caps = streams.audio.front().get();
  plan.codec = audioCodecName(caps);
  const gst::CapsPtr takes = muxerAudioCaps(format.muxer);
  if (gst_caps_can_intersect(caps, takes.get())) {
    plan.action = AudioPlan::Action::Copy;
    plan.outCodec = plan.codec;
    return plan;
  }
  // AAC framed for streaming (ADTS: MPEG-TS, .aac) is the same audio as the raw AAC the muxers take:
  // aacparse reframes it without decoding.
  if (plan.codec == "AAC") {
    gst::CapsPtr raw(gst_caps_copy(caps));
    gst_caps_set_simple(raw.get(), "stream-format", G_TYPE_STRING, "raw", nullptr);
    if (gst_caps_can_intersect(raw.get(), takes.get())) {
      plan.action = AudioPlan::Action::Copy;
      plan.outCodec = plan.codec;
      plan.chain = "aacparse";
      return plan;
    }
  }
  plan.why = containerWords(format);
  const std::string otherwise = format.container == "matroska"
                                    ? "add --no-audio to leave the audio out"
                                    : "add --no-audio to leave the audio out, or write .mkv, which holds it";
  if (plan.codec != "PCM" && !hasDecoderFor(caps))  // PCM needs none
    throw std::invalid_argument("the input's audio is " + plan.codec + ", which " + containerName(format) +
                                " cannot hold (" + plan.why +
                                "), and no decoder for it is installed to re-encode it: " + otherwise);
  std::vector<std::string> tried;
  for (const AudioTarget& t : audioTargets(format)) {
    if (!hasElement(t.element)) {
      tried.push_back(t.element);
      continue;
    }
    plan.action = AudioPlan::Action::Reencode;
    plan.outCodec = t.codec;
    plan.chain = std::string("decodebin ! audioconvert ! audioresample ! ") + t.settings;
    return plan;
  }
  throw std::invalid_argument("the input's audio is " + plan.codec + ", which " + containerName(format) +
                              " cannot hold (" + plan.why + "), and no encoder to re-encode it is installed (" +
                              joined(tried, ", ", " or ") +
                              ": gstreamer1.0-plugins-base, -good or -libav): " + otherwise);
}

struct FileExporter::Impl {
  std::string output, temp;
  ExportFormat format;
  EncoderSettings encoder;
  AudioPlan audio;
  std::function<bool()> interrupted;
  std::chrono::milliseconds stallLimit{120000};
  double fps = 30;
  struct AudioBranch;
  std::unique_ptr<AudioBranch> branch;  // the audio's state, which the pipeline's threads use: outlives it
  gst::ElementPtr pipeline;
  GstElement* appsrc = nullptr;  // owned by the pipeline
  guint64 maxQueuedBytes = 0;
  gst::BusPtr bus;
  int width = 0, height = 0;                    // of the file (the first frame's; later frames are scaled to it)
  std::vector<std::pair<int, int>> sizesNoted;  // other frame sizes seen, each said once
  std::vector<std::string> notes;
  int capsW = 0, capsH = 0;  // of the frames now going into appsrc
  bool capsYuv = false;      // they are I420 (else RGBA) ...
  ColourSpec capsColour;     // ... with these colours
  std::uint64_t frames = 0;
  // The file's clock (timeOf): the last frame's time in the file and the source time at the file's 0.
  GstClockTime lastTime = 0, endTime = 0;
  std::int64_t sourceAtZero = 0;
  bool sourceTimed = false;  // sourceAtZero is set
  bool done = false;

  // The audio branch, touched by GStreamer's streaming threads.
  struct AudioBranch {
    GstPad* entry = nullptr;  // the sink pad the input's audio stream is linked to (owned by the pipeline)
    std::atomic<bool> linked{false};
    std::atomic<bool> missing{false};  // the input's audio stream was not found, or not taken, when read again
    std::atomic<bool> ended{false};    // the audio's end has been sent to the muxer
    // The gate: audio goes to the muxer only up to the time of the frames pushed so far, so that
    // none from after the last frame is written (the video's end is known only at its end).
    std::mutex lock;
    std::condition_variable changed;
    GstClockTime videoNs = 0;  // the end of the frames pushed
    bool videoEnded = false;   // ... which is the end of the file's video
    bool released = false;     // the pipeline is stopping: wait no more

    void setVideo(GstClockTime t, bool end) {
      std::lock_guard<std::mutex> hold(lock);
      videoNs = t;
      videoEnded = end;
      changed.notify_all();
    }
    void release() {
      std::lock_guard<std::mutex> hold(lock);
      released = true;
      changed.notify_all();
    }
    // The audio will not come: the muxer is told (so that it waits for none), the export fails.
    void lost() {
      missing = true;
      gst_pad_send_event(entry, gst_event_new_eos());
    }
  };

  // rgbaFrames: the first frame is RGBA (I420 frames come converted for the encoder already).
  std::string encoderLine(int w, int h, bool rgbaFrames) const {
    const EncoderSettings& e = encoder;
    if (format.encoder == "vp8enc") {
      const Vp8Speed speed = vp8Speed(e.preset);
      std::string line =
          "vp8enc threads=4 deadline=" + std::to_string(speed.deadline) + " cpu-used=" + std::to_string(speed.cpuUsed);
      if (!e.constantQuality) return line + " end-usage=vbr target-bitrate=" + std::to_string(e.bitrateKbps * 1000);
      // One quantizer for every frame (libvpx's constrained-quality mode spent 30-50% more bytes for
      // the same PSNR on the test pattern), under a rate no frame reaches (2 bits a pixel).
      const double ceiling = std::min(double(INT_MAX), double(w) * h * fps * 2);
      return line + " end-usage=vbr min-quantizer=" + std::to_string(e.quality) +
             " max-quantizer=" + std::to_string(e.quality) + " target-bitrate=" + std::to_string(long(ceiling));
    }
    if (format.encoder == "x264enc") {
      const std::string line = "video/x-raw,format=I420 ! x264enc speed-preset=" + e.preset;
      if (!e.constantQuality) return line + " pass=cbr bitrate=" + std::to_string(e.bitrateKbps);
      // x264enc caps constant quality by its bitrate property (as a VBV rate): lifted to its maximum.
      return line + " pass=qual qp-min=0 bitrate=2048000 quantizer=" + std::to_string(e.quality);
    }
    // RGBA becomes 4:2:0 in JPEG's own colours (full-range BT.601) before jpegenc, as I420 frames
    // come (yuvFramesColour): given RGB, jpegenc writes 4:4:4, three times the size.
    return std::string(rgbaFrames ? "video/x-raw,format=I420,colorimetry=1:4:0:0 ! " : "") +
           "jpegenc quality=" + std::to_string(e.quality);
  }

  // ---- the audio branch ----

  // parsebin found a stream of the input: the first audio one goes to the muxer.
  static void onInputPad(GstElement* /*parsebin*/, GstPad* pad, gpointer data) {
    auto* b = static_cast<AudioBranch*>(data);
    gst::CapsPtr caps(gst_pad_get_current_caps(pad));
    if (!caps) caps.reset(gst_pad_query_caps(pad, nullptr));
    if (!caps || gst_caps_is_empty(caps.get()) ||
        std::string(gst_structure_get_name(gst_caps_get_structure(caps.get(), 0))).rfind("audio/", 0) != 0 ||
        b->linked.exchange(true)) {
      // Other streams stay unlinked (the demuxer skips them).
      gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, onInputSegment, b, nullptr);
      return;
    }
    if (GST_PAD_LINK_FAILED(gst_pad_link(pad, b->entry))) b->lost();
  }

  // parsebin exposes every stream before data flows: at the first segment of another stream, no
  // audio stream linked means there is none (the file changed since it was planned).
  static GstPadProbeReturn onInputSegment(GstPad* /*pad*/, GstPadProbeInfo* info, gpointer data) {
    if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) != GST_EVENT_SEGMENT) return GST_PAD_PROBE_OK;
    auto* b = static_cast<AudioBranch*>(data);
    if (!b->linked.exchange(true)) b->lost();
    return GST_PAD_PROBE_REMOVE;
  }

  // On the pad into the muxer: each audio buffer waits until the frames pushed reach its time
  // (bounded: the pipeline's end releases it); the first at or after the last frame's end ends the
  // audio (EOS), and the muxer's ended pad refuses the buffers after it, which stops the reading.
  static GstPadProbeReturn onAudioOut(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
    auto* b = static_cast<AudioBranch*>(data);
    if (b->ended.load()) return GST_PAD_PROBE_OK;
    GstBuffer* buf = GST_PAD_PROBE_INFO_BUFFER(info);
    GstClockTime t = GST_BUFFER_PTS(buf);
    if (!GST_CLOCK_TIME_IS_VALID(t)) t = GST_BUFFER_DTS(buf);
    if (!GST_CLOCK_TIME_IS_VALID(t)) return GST_PAD_PROBE_OK;
    GstClockTime running = GST_CLOCK_TIME_NONE;
    if (GstEvent* e = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0)) {
      const GstSegment* segment = nullptr;
      gst_event_parse_segment(e, &segment);
      running = gst_segment_to_running_time(segment, GST_FORMAT_TIME, t);
      gst_event_unref(e);
    }
    // Before the first frame (or the input's segment): dropped.
    if (!GST_CLOCK_TIME_IS_VALID(running)) return GST_PAD_PROBE_DROP;
    std::unique_lock<std::mutex> hold(b->lock);
    while (!b->released && !b->videoEnded && running >= b->videoNs) b->changed.wait_for(hold, 100ms);
    if (b->released) return GST_PAD_PROBE_DROP;
    if (!b->videoEnded || running < b->videoNs) return GST_PAD_PROBE_OK;
    hold.unlock();
    b->ended = true;
    gst_pad_push_event(pad, gst_event_new_eos());
    return GST_PAD_PROBE_DROP;
  }

  // Adds the input's audio: filesrc ! parsebin, its first audio stream -> queue ! chain -> muxer,
  // put in time so that the input's audio at the first frame's time is at 0 in the file.
  void addAudio(GstElement* bin, GstClockTimeDiff firstFramePts) {
    const std::string line = "filesrc name=audiofile ! parsebin name=audioparse  queue name=audioin ! " +
                             (audio.chain.empty() ? "" : audio.chain + " ! ") + "identity name=audioout silent=true";
    GError* raw = nullptr;
    GstElement* part =
        gst_parse_bin_from_description_full(line.c_str(), FALSE, nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &raw);
    gst::ErrorPtr err(raw);
    if (!part || err) {
      if (part) gst_object_unref(gst_object_ref_sink(part));
      throw ExportError("cannot build the audio branch for " + audio.describe() + ": " + (err ? err->message : "?"));
    }
    gst_bin_add(GST_BIN(bin), part);
    auto child = [&](const char* name) { return gst::ElementPtr(gst_bin_get_by_name(GST_BIN(part), name)); };
    g_object_set(child("audiofile").get(), "location", audio.input.c_str(), nullptr);
    branch = std::make_unique<AudioBranch>();
    gst::PadPtr entry(gst_element_get_static_pad(child("audioin").get(), "sink"));
    branch->entry = entry.get();  // parsebin is in the same bin: linked directly
    // The muxer is outside: reached through a ghost pad (the parse made none).
    gst::PadPtr out(gst_element_get_static_pad(child("audioout").get(), "src"));
    GstPad* ghostOut = gst_ghost_pad_new("src", out.get());
    gst_element_add_pad(part, ghostOut);
    // The first frame's running time in the input: the audio there is the file's 0.
    const GstClockTimeDiff start = std::max<GstClockTimeDiff>(
        0, firstFramePts >= 0 ? firstFramePts - GstClockTimeDiff(audio.videoSegmentStartNs) : 0);
    gst_pad_set_offset(entry.get(), -start);
    gst_pad_add_probe(out.get(), GST_PAD_PROBE_TYPE_BUFFER, onAudioOut, branch.get(), nullptr);
    gst::ElementPtr parse = child("audioparse");
    g_signal_connect(parse.get(), "pad-added", G_CALLBACK(onInputPad), branch.get());
    gst::ElementPtr mux(gst_bin_get_by_name(GST_BIN(bin), "mux"));
    gst::PadPtr muxPad(gst_element_request_pad_simple(mux.get(), "audio_%u"));
    if (!muxPad || GST_PAD_LINK_FAILED(gst_pad_link(ghostOut, muxPad.get())))
      throw ExportError("cannot add the audio (" + audio.describe() + ") to " + format.container);
  }

  void start(int w, int h, bool yuv, std::int64_t firstFramePts) {
    width = w;
    height = h;
    // avimux writes audio half a second ahead of the video: with audio, up to a second of encoded
    // frames waits for it in a queue (the audio is let through only up to the frames pushed).
    const std::string lead = audio.action != AudioPlan::Action::None && format.muxer == "avimux"
                                 ? " ! queue max-size-time=1000000000 max-size-bytes=0 max-size-buffers=0"
                                 : "";
    const std::string line = "appsrc name=src format=time ! videoscale ! video/x-raw,width=" + std::to_string(w) +
                             ",height=" + std::to_string(h) + " ! videoconvert ! " + encoderLine(w, h, !yuv) + lead +
                             " ! mux. " + format.muxer + " name=mux ! filesink name=file";
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
    // 4 RGBA frames (more I420); deliver waits, bounded, while the queue holds that much.
    maxQueuedBytes = guint64(std::size_t(w) * h * 4 * 4);
    g_object_set(appsrc, "max-bytes", maxQueuedBytes, "block", FALSE, nullptr);
    if (audio.action != AudioPlan::Action::None) addAudio(el, firstFramePts);
    bus.reset(gst_element_get_bus(el));
    if (gst_element_set_state(el, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
      checkBus();
      throw ExportError("the encoder for " + format.describe() + " cannot start (writing " + temp + ")");
    }
  }

  void checkBus() {
    while (gst::MessagePtr msg{gst_bus_pop_filtered(bus.get(), GST_MESSAGE_ERROR)})
      throw ExportError("encoding " + output + " failed: " + busError(msg.get()));
    if (branch && branch->missing)
      throw ExportError("encoding " + output + " failed: the input's audio stream (" + audio.codec +
                        ") could not be read again (--no-audio leaves it out)");
  }

  bool wasInterrupted() const { return interrupted && interrupted(); }

  // Waits while the encoder's queue is full: bounded by stallLimit without progress, ended by an
  // error on the bus or by `interrupted`.
  void waitForRoom() {
    guint64 level = gst_app_src_get_current_level_bytes(GST_APP_SRC(appsrc));
    auto progress = Clock::now();
    while (level >= maxQueuedBytes) {
      checkBus();
      if (wasInterrupted()) throw ExportError("the export of " + output + " was interrupted");
      if (Clock::now() - progress > stallLimit)
        throw ExportError("encoding " + output + " failed: the encoder took no frame for " +
                          std::to_string(stallLimit.count() / 1000) + " s");
      std::this_thread::sleep_for(1ms);
      const guint64 now = gst_app_src_get_current_level_bytes(GST_APP_SRC(appsrc));
      if (now < level) progress = Clock::now();
      level = now;
    }
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

  // Frame n's time in the file at the steady rate.
  GstClockTime frameTime(std::uint64_t n) const {
    return gst_util_uint64_scale(n, GST_SECOND * 1000, guint64(std::lround(fps * 1000)));
  }

  // The next frame's time in the file. Frames keep their source's times, from the first frame's (a
  // variable-rate source keeps its timing, and its audio stays in step with it); where the source
  // time is missing, goes back or jumps ahead by more than a second (a loop, a seek), the frame
  // comes one period after the last and the later ones follow on from there, so the file still
  // plays through. AVI holds one rate: there every frame is one period after the last.
  GstClockTime timeOf(std::int64_t sourceNs) {
    const GstClockTime period = frameTime(1);
    GstClockTime t = frames == 0 ? 0 : lastTime + period;
    if (sourceNs >= 0 && format.muxer != "avimux") {
      if (!sourceTimed) sourceAtZero = sourceNs - std::int64_t(t), sourceTimed = true;
      const std::int64_t at = sourceNs - sourceAtZero;
      if (frames == 0 || (at > std::int64_t(lastTime) && at <= std::int64_t(lastTime + GST_SECOND)))
        t = GstClockTime(std::max<std::int64_t>(at, 0));
      else
        sourceAtZero = sourceNs - std::int64_t(t);  // a loop or a seek: on from the last frame
    }
    lastTime = t;
    endTime = t + period;
    return t;
  }

  void removeTemp() noexcept {
    std::error_code ec;
    fs::remove(temp, ec);
  }
};

FileExporter::FileExporter(const std::string& output, double fps, ExportSettings settings)
    : impl_(std::make_unique<Impl>()) {
  impl_->format = checkExportPath(output);
  impl_->encoder = settings.encoder ? *settings.encoder : encoderSettingsFor(impl_->format, {});
  impl_->audio = std::move(settings.audio);
  impl_->interrupted = std::move(settings.interrupted);
  impl_->stallLimit = settings.stallLimit;
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

std::vector<std::string> FileExporter::takeNotes() { return std::exchange(impl_->notes, {}); }

void FileExporter::deliver(const OutputFrame& frame) {
  Impl& s = *impl_;
  if (s.done) throw ExportError("the export of " + s.output + " has already ended");
  const bool yuv = frame.filteredYuv.planes[0] != nullptr;
  const int w = yuv ? frame.filteredYuv.width : frame.filtered.width;
  const int h = yuv ? frame.filteredYuv.height : frame.filtered.height;
  if (!s.pipeline) s.start(w, h, yuv, frame.ptsNs);
  if (w != s.capsW || h != s.capsH || yuv != s.capsYuv || (yuv && !(frame.filteredColour == s.capsColour)))
    s.setCaps(w, h, yuv, frame.filteredColour);
  if ((w != s.width || h != s.height) &&
      std::find(s.sizesNoted.begin(), s.sizesNoted.end(), std::pair{w, h}) == s.sizesNoted.end()) {
    s.sizesNoted.emplace_back(w, h);
    s.notes.push_back("frame " + std::to_string(s.frames + 1) + " is " + std::to_string(w) + "x" + std::to_string(h) +
                      ", the file's frames " + std::to_string(s.width) + "x" + std::to_string(s.height) +
                      ": the source changed size, and it is scaled to the file's size (a video file keeps one " +
                      "size; export each part apart to keep its own)");
  }
  s.waitForRoom();
  GstBuffer* buf = s.bufferOf(frame);
  // The file keeps the source's times where they run forward (timeOf).
  GST_BUFFER_PTS(buf) = s.timeOf(frame.ptsNs);
  GST_BUFFER_DURATION(buf) = s.frameTime(1);
  const GstFlowReturn r = gst_app_src_push_buffer(GST_APP_SRC(s.appsrc), buf);  // takes the buffer
  s.checkBus();
  if (r != GST_FLOW_OK)
    throw ExportError("encoding " + s.output + " failed: the encoder refused a frame (" + gst_flow_get_name(r) + ")");
  ++s.frames;
  if (s.branch) s.branch->setVideo(s.endTime, false);
}

void FileExporter::finish() {
  Impl& s = *impl_;
  if (s.done) return;
  if (!s.pipeline || s.frames == 0) {
    abort();
    throw ExportError("no frame was exported, so " + s.output + " was not written");
  }
  // The audio ends where the last frame does.
  if (s.branch) s.branch->setVideo(s.endTime, true);
  gst_app_src_end_of_stream(GST_APP_SRC(s.appsrc));
  // Bounded: the encoder has at most a few frames queued, and the audio ends with the video.
  std::string failure;
  const auto deadline = Clock::now() + s.stallLimit;
  for (;;) {
    gst::MessagePtr msg(gst_bus_timed_pop_filtered(s.bus.get(), 100 * GST_MSECOND,
                                                   GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
    if (msg) {
      if (GST_MESSAGE_TYPE(msg.get()) == GST_MESSAGE_ERROR) failure = busError(msg.get());
      break;
    }
    if (s.wasInterrupted()) {
      failure = "interrupted";
      break;
    }
    if (Clock::now() > deadline) {
      failure = "the encoder did not finish within " + std::to_string(s.stallLimit.count() / 1000) + " s";
      break;
    }
  }
  if (failure.empty() && s.branch && s.branch->missing)
    failure = "the input's audio stream (" + s.audio.codec + ") could not be read again (--no-audio leaves it out)";
  if (s.branch) s.branch->release();
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
  if (s.branch) s.branch->release();
  if (s.pipeline) {
    gst_element_set_state(s.pipeline.get(), GST_STATE_NULL);
    s.pipeline.reset();
  }
  if (!s.done) s.removeTemp();
  s.done = true;
}

std::uint64_t FileExporter::frames() const { return impl_->frames; }
const ExportFormat& FileExporter::format() const { return impl_->format; }
const EncoderSettings& FileExporter::encoder() const { return impl_->encoder; }
const AudioPlan& FileExporter::audio() const { return impl_->audio; }
const std::string& FileExporter::temporaryPath() const { return impl_->temp; }

}  // namespace convlive
