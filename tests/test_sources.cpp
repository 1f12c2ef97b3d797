// Every way a source or an export can be wrong: one clear message naming the problem and the fix,
// and no hang (each open is bounded). These need no GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <fstream>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

#include "convlive/export.hpp"
#include "pipeline_fixture.hpp"
#include "source_messages.hpp"  // internal to pipeline/: its words are tested directly

using namespace convlive;
using namespace convlive::testing;
using namespace std::chrono_literals;

namespace {

// The message of the SourceError that opening `spec` throws ("" when it opens).
std::string openError(const SourceSpec& spec) {
  SourceOptions o;
  o.openTimeout = 15s;
  try {
    Source s(spec, o);
    // Some failures (a damaged file) only show while running: read it all.
    SourceFrame f;
    for (int i = 0; i < 10000; ++i)
      if (s.pull(f, 1000ms) == Source::Pull::EndOfStream) break;
  } catch (const SourceError& e) {
    return e.what();
  }
  return "";
}

void expectMentions(const std::string& message, std::initializer_list<const char*> words) {
  EXPECT_FALSE(message.empty()) << "expected an error";
  for (const char* w : words) EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' missing in: " << message;
}

// The distinct buffers a caller holding `held` frames at a time sees over 40 frames of the test
// pattern, pausing now and then so that the pattern runs ahead into the appsink's queue. Every
// pull must bring a frame (a bounded pool never leaves the caller waiting).
std::size_t patternBuffersSeen(int poolBuffers, std::size_t held) {
  SourceOptions o;
  o.maxQueued = 3;
  o.poolBuffers = poolBuffers;
  SourceSpec spec = SourceSpec::testPattern("gradient", 64, 48, 30);
  spec.frames = 40;
  Source s(spec, o);
  std::deque<SourceFrame> kept;
  std::set<const void*> buffers;
  for (int i = 0; i < 40; ++i) {
    if (i % 8 == 0) std::this_thread::sleep_for(20ms);
    SourceFrame f;
    EXPECT_EQ(s.pull(f, 2000ms), Source::Pull::Frame) << "frame " << i;
    if (!f.pixels.data) break;
    buffers.insert(f.pixels.data);
    kept.push_back(std::move(f));
    if (kept.size() > held) kept.pop_front();
  }
  return buffers.size();
}

TEST(SourcePool, TheTestPatternDrawsIntoNoMoreBuffersThanAsked) {
  // Unbounded, a source running ahead grows the pool to every buffer out at once: 2 held, 3 queued
  // and one being pushed; each stays in the cycle.
  EXPECT_GE(patternBuffersSeen(0, 2), 5u);
  // The tightest bounds: the frames held (the last pulled among them) and one to draw into.
  EXPECT_LE(patternBuffersSeen(3, 2), 3u);
  EXPECT_LE(patternBuffersSeen(2, 1), 2u);
  EXPECT_LE(patternBuffersSeen(sourcePoolBuffers(1), 0), 2u);  // the appsink keeps the last pulled
}

TEST(SourceErrors, MissingFile) {
  expectMentions(openError(SourceSpec::file((scratch() / "nope.webm").string())), {"nope.webm", "does not exist"});
}

TEST(SourceErrors, Directory) { expectMentions(openError(SourceSpec::file(scratch().string())), {"is a directory"}); }

TEST(SourceErrors, TextFileRenamedMp4) {
  const auto path = scratch() / "notes.mp4";
  std::ofstream(path) << "These are not the frames you are looking for.\n" << std::string(4000, 'x');
  expectMentions(openError(SourceSpec::file(path.string())), {"notes.mp4", "not a video"});
}

TEST(SourceErrors, EmptyFile) {
  const auto path = scratch() / "empty.webm";
  std::ofstream{path};
  expectMentions(openError(SourceSpec::file(path.string())), {"empty"});
}

TEST(SourceErrors, TruncatedVideo) {
  for (const char* ext : {".avi", ".webm"}) {
    const fs::path cut = truncatedVideo(ext);
    expectMentions(openError(SourceSpec::file(cut.string())), {"cut", "truncated"});
  }
}

// A recording whose audio runs on after its video (the camera stopped first) is whole: its
// container's duration is the audio's, and the video's last frame ending before it is no sign of
// a cut. (It was refused as "truncated or damaged".)
TEST(SourceErrors, AudioThatOutlastsTheVideoIsNotTruncation) {
  for (const char* e : {"vp8enc", "vorbisenc", "matroskamux", "audiotestsrc"})
    if (!hasElement(e)) GTEST_SKIP() << "GStreamer's " << e << " is not installed";
  const fs::path path = scratch() / "long-audio.mkv";
  if (!fs::exists(path))
    runLaunch(
        "videotestsrc num-buffers=10 ! video/x-raw,width=64,height=48,framerate=30/1 ! vp8enc ! mux. "
        "audiotestsrc num-buffers=60 ! audioconvert ! vorbisenc ! mux. matroskamux name=mux ! filesink "
        "location=" +
        path.string());
  SourceOptions o;
  o.openTimeout = 20s;
  Source src(SourceSpec::file(path.string()), o);
  EXPECT_GT(src.info().durationSeconds, 1.0) << "the audio should set the container's duration";
  int frames = 0;
  try {
    for (;;) {
      SourceFrame f;
      const Source::Pull r = src.pull(f, 5s);
      if (r == Source::Pull::EndOfStream) break;
      ASSERT_EQ(r, Source::Pull::Frame);
      ++frames;
    }
  } catch (const SourceError& e) {
    FAIL() << "refused after " << frames << " frames: " << e.what();
  }
  EXPECT_EQ(frames, 10);
}

TEST(SourceErrors, BadUriScheme) {
  expectMentions(openError(SourceSpec::input("nosuchscheme://host/video.mp4")), {"nosuchscheme://", "no installed"});
  expectMentions(openError(SourceSpec::uri("not a uri")), {"not a valid URI"});
}

TEST(SourceErrors, LaunchLineThatDoesNotParse) {
  expectMentions(openError(SourceSpec::launch("videotestsrc ! nosuchelement ! appsink")), {"does not parse"});
  expectMentions(openError(SourceSpec::launch("")), {"empty"});
}

TEST(SourceErrors, LaunchLineWithoutAppsink) {
  expectMentions(openError(SourceSpec::launch("videotestsrc ! fakesink")), {"no appsink"});
  expectMentions(openError(SourceSpec::launch("videotestsrc")), {"no appsink"});
}

TEST(SourceErrors, CapsThatCannotBecomeRgba) {
  expectMentions(openError(SourceSpec::launch("audiotestsrc ! appsink")), {"RGBA8"});
  expectMentions(openError(SourceSpec::launch("videotestsrc ! video/x-raw,format=I420 ! appsink")), {"RGBA8"});
}

TEST(SourceErrors, NoCamera) {
  if (!listCameras().empty()) GTEST_SKIP() << "this machine has a camera: the no-camera message cannot show";
  expectMentions(openError(SourceSpec::camera()), {"no camera found"});
  expectMentions(openError(SourceSpec::camera("/dev/video7")), {"/dev/video7", "does not exist", "none"});
}

TEST(SourceErrors, BadTestPattern) {
  expectMentions(openError(SourceSpec::testPattern("plaid")), {"unknown test pattern", "zone-plate"});
  expectMentions(openError(SourceSpec::testPattern("moving", 0, 10)), {"out of range"});
}

// videotestsrc's zone plates divide by half the width; a 1-pixel-wide frame must still work.
TEST(Sources, OnePixelWideOrHighPatternsWork) {
  for (const char* pattern : {"moving", "zone-plate", "chroma-zone-plate", "smpte", "ball"})
    for (auto [w, h] : {std::pair{1, 1}, {1, 9}, {9, 1}, {2, 1}}) {
      SourceSpec spec = SourceSpec::testPattern(pattern, w, h, 30);
      spec.frames = 2;
      SourceOptions o;
      o.openTimeout = 15s;
      Source src(spec, o);
      SourceFrame f;
      ASSERT_EQ(src.pull(f, 2000ms), Source::Pull::Frame) << spec.describe();
      EXPECT_EQ(f.pixels.width, w) << spec.describe();
      EXPECT_EQ(f.pixels.height, h) << spec.describe();
    }
}

// An audio-only file is told apart as soon as the decoder has found its streams, not after the
// open's timeout, and the message says what the file holds.
TEST(SourceErrors, AudioOnlyMp4IsToldAtOnce) {
  if (!hasElement("audiotestsrc") || !hasElement("mp4mux"))
    GTEST_SKIP() << "audiotestsrc or mp4mux is not installed here: no audio-only MP4 can be made";
  const char* encoder = hasElement("lamemp3enc") ? "lamemp3enc" : hasElement("opusenc") ? "opusenc" : nullptr;
  if (!encoder) GTEST_SKIP() << "no audio encoder that mp4mux takes (lamemp3enc, opusenc) is installed here";
  const auto path = scratch() / "tone.mp4";
  runLaunch("audiotestsrc num-buffers=20 ! audioconvert ! " + std::string(encoder) +
            " ! mp4mux ! filesink location=" + path.string());
  const auto t0 = std::chrono::steady_clock::now();
  const std::string message = openError(SourceSpec::file(path.string()));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  expectMentions(message, {"file '", "tone.mp4' has no video stream (audio only)"});
  EXPECT_EQ(message.find("device"), std::string::npos) << message;
  EXPECT_LT(seconds, 3.0) << "waited for the open's timeout";
}

TEST(SourceErrors, MessagesNameNoCommandLineFlags) {
  for (const SourceSpec& spec : {SourceSpec::camera(), SourceSpec::camera("/dev/video7"),
                                 SourceSpec::testPattern("moving", 0, 10), SourceSpec::launch("videotestsrc")}) {
    const std::string message = openError(spec);
    EXPECT_EQ(message.find("--"), std::string::npos) << message;
  }
}

// The words for bus errors and timeouts, checked on made-up messages (no camera or server needed).
TEST(SourceMessages, BusErrorsAndTimeoutsSayWhatToDo) {
  initGStreamer();
  const auto busError = [](const SourceSpec& spec, GQuark domain, int code, const char* text, const char* debug) {
    GError* err = g_error_new_literal(domain, code, text);
    GstMessage* msg = gst_message_new_error(nullptr, err, debug);
    const std::string words = explainBusError(msg, spec);
    gst_message_unref(msg);
    g_error_free(err);
    return words;
  };
  const SourceSpec cam = SourceSpec::camera("/dev/video0"), file = SourceSpec::file("clip.mkv");
  expectMentions(busError(cam, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ, "Could not read from resource.", ""),
                 {"camera '/dev/video0' stopped", "plugged in"});
  expectMentions(busError(cam, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY, "Device is busy", ""),
                 {"camera '/dev/video0' is busy", "close the program"});
  expectMentions(busError(file, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN, "No decoder", ""),
                 {"file 'clip.mkv' needs a decoder", "gstreamer1.0-libav"});
  expectMentions(busError(file, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, "Internal data stream error.",
                          "streaming stopped, reason not-linked (-1)"),
                 {"file 'clip.mkv' has no video stream"});
  expectMentions(busError(SourceSpec::uri("rtsp://cam/1"), GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ_WRITE,
                          "Could not open resource for reading and writing.", ""),
                 {"URI 'rtsp://cam/1' cannot be opened", "address"});
  for (const SourceSpec& spec : {cam, file, SourceSpec::uri("rtsp://cam/1"),
                                 SourceSpec::launch("videotestsrc ! appsink"), SourceSpec::testPattern()}) {
    const std::string words = noFirstFrameMessage(spec, 10s);
    expectMentions(words, {spec.describe().c_str(), "gave no frame within 10.0 s: "});
    EXPECT_EQ(words.find("--"), std::string::npos) << words;
  }
  EXPECT_EQ(noVideoMessage(file, {"audio", "text"}),
            "file 'clip.mkv' has no video stream (audio and text only): choose a file or address with video in it");
}

TEST(SourceErrors, AudioOnlyFile) {
  if (!hasElement("vorbisenc") || !hasElement("audiotestsrc"))
    GTEST_SKIP() << "vorbisenc or audiotestsrc is not installed here: no audio-only file can be made";
  const auto path = scratch() / "tone.webm";
  runLaunch("audiotestsrc num-buffers=20 ! audioconvert ! vorbisenc ! webmmux ! filesink location=" + path.string());
  expectMentions(openError(SourceSpec::file(path.string())), {"tone.webm", "no video stream (audio only)"});
}

TEST(ExportErrors, MissingFolderAndUnknownExtension) {
  try {
    checkExportPath((scratch() / "no/such/folder/out.webm").string());
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    expectMentions(e.what(), {"does not exist", "create it"});
  }
  try {
    checkExportPath((scratch() / "out.gif").string());
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    expectMentions(e.what(), {"unknown extension '.gif'", ".webm"});
  }
}

TEST(ExportErrors, Mp4SaysWhichPackageGivesH264) {
  const std::string out = (scratch() / "out.mp4").string();
  if (hasElement("x264enc")) {
    EXPECT_EQ(checkExportPath(out).codec, "H.264");
  } else {
    try {
      checkExportPath(out);
      FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
      expectMentions(e.what(), {"x264enc", "gstreamer1.0-plugins-ugly", ".webm"});
    }
  }
  EXPECT_EQ(checkExportPath((scratch() / "out.webm").string()).codec, "VP8");
  EXPECT_EQ(checkExportPath((scratch() / "out.avi").string()).codec, "MJPEG");
}

// Each encoder's defaults: constant quality on its own scale, and x264's preset names.
TEST(ExportSettings, DefaultsAreConstantQualityPerEncoder) {
  const ExportFormat h264{"mp4", "H.264", "x264enc", "mp4mux"}, vp8{"webm", "VP8", "vp8enc", "webmmux"},
      mjpeg{"avi", "MJPEG", "jpegenc", "avimux"};
  EncoderSettings s = encoderSettingsFor(h264, {});
  EXPECT_TRUE(s.constantQuality);
  EXPECT_EQ(s.quality, 18);
  EXPECT_EQ(s.preset, "veryfast");
  EXPECT_EQ(s.describe(), "CRF 18, preset veryfast");
  s = encoderSettingsFor(vp8, {});
  EXPECT_EQ(s.describe(), "quantizer 12, preset veryfast");
  s = encoderSettingsFor(mjpeg, {});
  EXPECT_EQ(s.describe(), "quality 85") << "jpegenc has no preset";
  s = encoderSettingsFor(h264, {.bitrate = "4000", .preset = "slow"});
  EXPECT_FALSE(s.constantQuality);
  EXPECT_EQ(s.describe(), "4000 kbit/s, preset slow");
  s = encoderSettingsFor(vp8, {.quality = "0", .preset = "ultrafast"});
  EXPECT_EQ(s.quality, 0);
  EXPECT_EQ(qualityScale(mjpeg).max, 100);
  EXPECT_TRUE(qualityScale(mjpeg).higherIsBetter);
  EXPECT_EQ(speedPresets().size(), 9u);
}

// A bad value is refused with one line naming the option, what is wrong and what it takes.
TEST(ExportSettings, BadValuesNameTheOptionAndWhatItTakes) {
  const ExportFormat h264{"mp4", "H.264", "x264enc", "mp4mux"}, vp8{"webm", "VP8", "vp8enc", "webmmux"},
      mjpeg{"avi", "MJPEG", "jpegenc", "avimux"};
  const std::vector<std::tuple<ExportFormat, EncoderRequest, std::vector<const char*>>> cases{
      {h264, {.quality = "51"}, {"--quality 51 is out of range", "CRF 0..50", "default 18"}},
      {h264, {.quality = "-1"}, {"--quality -1 is out of range", "CRF 0..50"}},
      {h264, {.quality = "x"}, {"--quality 'x' is not a whole number", "CRF 0..50"}},
      {h264, {.quality = "20.5"}, {"--quality '20.5' is not a whole number"}},
      {vp8, {.quality = "64"}, {"--quality 64 is out of range", "VP8 (vp8enc)", "quantizer 0..63", "default 12"}},
      {mjpeg, {.quality = "0"}, {"--quality 0 is out of range", "quality 1..100", "higher is better"}},
      {h264, {.quality = "20", .bitrate = "100"}, {"--quality and --bitrate were both given", "give one"}},
      {h264, {.bitrate = "0"}, {"--bitrate 0 is out of range", "kbit/s, 1..2048000"}},
      {h264, {.bitrate = "1e3"}, {"--bitrate '1e3' is not a whole number", "kbit/s"}},
      {vp8, {.bitrate = "3000000"}, {"--bitrate 3000000 is out of range", "1..2147483"}},
      {mjpeg, {.bitrate = "100"}, {"--bitrate", "MJPEG (jpegenc) has no target bitrate", "--quality 1..100"}},
      {mjpeg, {.preset = "fast"}, {"--preset", "has no speed preset", "leave --preset out"}},
      {h264, {.preset = "fastest"}, {"--preset 'fastest' is not a speed preset of H.264", "ultrafast", "veryslow"}},
      {vp8, {.preset = "placebo"}, {"--preset 'placebo'", "VP8 (vp8enc)", "default veryfast"}},
  };
  for (const auto& [format, request, words] : cases) {
    try {
      encoderSettingsFor(format, request);
      ADD_FAILURE() << format.encoder << " took quality '" << request.quality << "' bitrate '" << request.bitrate
                    << "' preset '" << request.preset << "'";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      for (const char* w : words) EXPECT_NE(what.find(w), std::string::npos) << "'" << w << "' missing in: " << what;
    }
  }
}

TEST(Sources, ListsPatternsAndCameras) {
  const auto patterns = testPatterns();
  ASSERT_GE(patterns.size(), 10u);
  EXPECT_EQ(patterns.front(), "moving");
  EXPECT_NE(std::find(patterns.begin(), patterns.end(), "ball"), patterns.end());
  for (const CameraInfo& c : listCameras()) EXPECT_EQ(c.device.rfind("/dev/video", 0), 0u);
}

TEST(Sources, InputTellsUrisFromPaths) {
  EXPECT_EQ(SourceSpec::input("clip.webm").kind, SourceSpec::Kind::File);
  EXPECT_EQ(SourceSpec::input("C:file.webm").kind, SourceSpec::Kind::File);
  EXPECT_EQ(SourceSpec::input("https://example.com/a.webm").kind, SourceSpec::Kind::Uri);
  EXPECT_EQ(SourceSpec::input("file:///tmp/a.webm").kind, SourceSpec::Kind::Uri);
}

// A player that falls behind: with newestOnly the next frame is the newest, not the next in a queue.
TEST(SourcePacing, NewestOnlyDropsStaleFrames) {
  // poolBuffers: the pool the pipeline gives the pattern (3 slots), the caller holding 2 frames
  // as its ring may: the appsink must still draw newer frames to drop the queued one.
  auto gapAfterStall = [](bool newestOnly, int poolBuffers) {
    SourceOptions o;
    o.sync = true;
    o.newestOnly = newestOnly;
    o.poolBuffers = poolBuffers;
    Source src(SourceSpec::testPattern("smpte", 160, 120, 30), o);
    SourceFrame held, a, b;
    EXPECT_EQ(src.pull(held, 2000ms), Source::Pull::Frame);
    EXPECT_EQ(src.pull(a, 2000ms), Source::Pull::Frame);
    std::this_thread::sleep_for(400ms);  // the consumer stalls for 12 frame times
    EXPECT_EQ(src.pull(b, 2000ms), Source::Pull::Frame);
    return double(b.ptsNs - a.ptsNs) / 1e6;
  };
  for (int pool : {0, sourcePoolBuffers(3)}) {
    SCOPED_TRACE("pool of " + std::to_string(pool) + " buffers (0: unbounded)");
    EXPECT_LT(gapAfterStall(false, pool), 100) << "without newestOnly the queued frame right after comes next";
    EXPECT_GT(gapAfterStall(true, pool), 300) << "with newestOnly the frames queued during the stall are dropped";
  }
}

}  // namespace

// Where nvcodec's NVDEC decoders are registered (plugins-bad and an NVIDIA driver), decodebin must
// not pick them for the RGBA path: their rank is none after GStreamer's set-up.
TEST(Sources, AutoplugKeepsOffTheNvdecDecoders) {
  if (g_getenv("GST_PLUGIN_FEATURE_RANK")) GTEST_SKIP() << "GST_PLUGIN_FEATURE_RANK is set: the ranks are the user's";
  initGStreamer();
  GList* features = gst_registry_get_feature_list_by_plugin(gst_registry_get(), "nvcodec");
  int decoders = 0;
  for (GList* f = features; f; f = f->next) {
    auto* feature = GST_PLUGIN_FEATURE(f->data);
    if (!GST_IS_ELEMENT_FACTORY(feature)) continue;
    const char* klass = gst_element_factory_get_metadata(GST_ELEMENT_FACTORY(feature), GST_ELEMENT_METADATA_KLASS);
    if (!klass || !std::strstr(klass, "Decoder")) continue;
    ++decoders;
    EXPECT_EQ(gst_plugin_feature_get_rank(feature), GST_RANK_NONE) << gst_plugin_feature_get_name(feature);
  }
  gst_plugin_feature_list_free(features);
  if (decoders == 0)
    GTEST_SKIP() << "no NVDEC decoders registered here (nvcodec needs plugins-bad and an NVIDIA driver)";
}
