// The video command line (headless runs and export): outputs, reports, the error cases of the
// pipeline issue, and an interrupted export. Runs the real program.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "convlive/resources.hpp"
#include "pipeline_fixture.hpp"
#include "png_bytes.hpp"
#include "run_program.hpp"

using namespace convlive;
using namespace convlive::testing;
using namespace std::chrono_literals;

namespace {

using Result = ProgramResult;
std::string exe() { return convliveExe(); }
Result run(const std::string& args) { return runConvliveWith(args, "timeout 120"); }

std::string q(const fs::path& p) { return std::string("'").append(p.string()).append("'"); }

// Frames in a video file, counted by decoding it.
std::size_t countFrames(const std::string& file) {
  CaptureSink sink;
  PipelineConfig c;
  c.source = SourceSpec::file(file);
  c.variant = "cpu";
  c.params.filter = makeFilter("custom", {.weights = "1"});
  Pipeline p(c, sink);
  runToEnd(p);
  return sink.frames.size();
}

void expectFails(const std::string& args, std::initializer_list<const char*> words) {
  const Result r = run(args);
  EXPECT_NE(r.code, 0) << args << "\n" << r.output;
  EXPECT_NE(r.code, -1) << "crashed or hung: " << args << "\n" << r.output;
  for (const char* w : words) EXPECT_NE(r.output.find(w), std::string::npos) << "'" << w << "' missing:\n" << r.output;
  EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << r.output;
}

TEST(VideoCommand, HeadlessRunPrintsEveryStageAndWritesTheReport) {
  const fs::path report = scratch() / "report.json";
  const Result r =
      run("--headless --frames 25 --size 160x90 --mask box --radius 3 --border mirror --report " + q(report));
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* w : {"wait for source", "host copy", "upload", "convert", "filter", "output", "sink wait", "total",
                        "latency", "frames: 25 of 160x90", "border=mirror"})
    EXPECT_NE(r.output.find(w), std::string::npos) << w << " missing:\n" << r.output;
  std::ifstream in(report);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["frames"], 25);
  // The filter as asked for, under the spec's setting names (the flags without their dashes).
  EXPECT_EQ(j["filter"]["mask"], "box");
  EXPECT_EQ(j["filter"]["radius"], 3);
  EXPECT_EQ(j["filter"]["border"], "mirror");
  EXPECT_EQ(j["filter"]["filter-alpha"], false);
  EXPECT_EQ(j["filter"]["variant"], "auto");
  EXPECT_FALSE(j["filter"].contains("sigma")) << "sigma is not a setting of the box mask";
  EXPECT_EQ(j["mask"]["size"], "7x7");
  EXPECT_EQ(j["mask"]["separable"], true);
  // The pattern is drawn as I420 where the GPU converts (--input-format auto), else as RGBA.
  EXPECT_EQ(j["source"]["native_format"], deviceInfo().available ? "I420" : "RGBA");
  EXPECT_EQ(j["settings"]["input_format"], "auto");
  EXPECT_EQ(j["stages"].size(), 9u);
  EXPECT_EQ(j["stages"][4]["name"], "filter");
  EXPECT_EQ(j["stages"][4]["frames"], 25);
  EXPECT_GT(j["stages"][4]["average_ms"].get<double>(), 0);
  EXPECT_TRUE(j.contains("device") && j.contains("variant") && j.contains("settings"));
}

TEST(VideoCommand, ExportRoundTrip) {
  const fs::path out = scratch() / "exported.webm";
  Result r = run("--output " + q(out) + " --frames 24 --size 128x72 --mask sharpen --radius 2");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("100.0%"), std::string::npos) << r.output;
  ASSERT_TRUE(fs::exists(out));
  EXPECT_EQ(countFrames(out.string()), 24u);
  // And from that file into MJPEG/AVI: every frame goes through.
  const fs::path avi = scratch() / "again.avi";
  r = run("--input " + q(out) + " --output " + q(avi) + " --mask gaussian --radius 4");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(countFrames(avi.string()), 24u);
  for (const auto& e : fs::directory_iterator(scratch()))
    EXPECT_EQ(e.path().extension(), e.path().extension() == ".part" ? "no temporary files left" : e.path().extension());
}

// Ctrl-C, SIGTERM and SIGHUP (a closed terminal) each stop an export cleanly: no output, no
// temporary, and the exit code a shell gives a process the signal ended (128 + its number).
TEST(VideoCommand, InterruptedExportLeavesNoFile) {
  for (const auto& [sig, code] : {std::pair{SIGINT, 130}, {SIGTERM, 143}, {SIGHUP, 129}}) {
    const std::string name = "interrupted-" + std::to_string(sig) + ".webm";
    const fs::path out = scratch() / name;
    const std::string cmd = exe() + " --output " + q(out) + " --frames 100000 --size 320x240";
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      dup2(devnull, 2);
      execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    // Wait until the export is under way (its temporary file exists), then send the signal.
    bool started = false;
    for (int i = 0; i < 200 && !started; ++i) {
      std::this_thread::sleep_for(50ms);
      for (const auto& e : fs::directory_iterator(scratch()))
        started |= e.path().filename().string().rfind("." + name, 0) == 0;
    }
    EXPECT_TRUE(started) << "the export never started (signal " << sig << ")";
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << sig << " instead of stopping cleanly";
    EXPECT_EQ(WEXITSTATUS(status), code) << "signal " << sig;
    EXPECT_FALSE(fs::exists(out)) << "signal " << sig;
    for (const auto& e : fs::directory_iterator(scratch()))
      EXPECT_NE(e.path().filename().string().rfind("." + name, 0), 0u) << "temporary file left: " << e.path();
  }
}

TEST(VideoCommand, ErrorsNameTheProblem) {
  const std::string webm = generatedVideo("ball.webm", 20);
  const fs::path text = scratch() / "text.mp4";
  std::ofstream(text) << "not a video\n" << std::string(5000, '#');
  const fs::path cut = truncatedVideo(".avi");
  const std::string out = " --output " + q(scratch() / "x.webm");
  expectFails("--input " + q(scratch() / "missing.webm") + out, {"does not exist"});
  expectFails("--input " + q(scratch()) + out, {"is a directory"});
  expectFails("--input " + q(text) + out, {"not a video"});
  expectFails("--input " + q(cut) + out, {"truncated", "was not written"});
  EXPECT_FALSE(fs::exists(scratch() / "x.webm"));
  expectFails("--headless --input " + q(cut), {"truncated"});
  expectFails("--headless --input 'gopher2://x/y.mp4'", {"gopher2://", "no installed"});
  expectFails("--headless --launch 'videotestsrc ! ! appsink'", {"does not parse"});
  expectFails("--headless --launch 'videotestsrc ! fakesink'", {"no appsink"});
  expectFails("--headless --launch 'audiotestsrc ! appsink'", {"RGBA8"});
  if (listCameras().empty()) expectFails("--headless --camera", {"no camera found"});
  expectFails("--input " + q(webm) + " --output " + q(scratch() / "no/dir/x.webm"), {"does not exist", "create it"});
  expectFails("--input " + q(webm) + " --output " + q(scratch() / "x.flv"), {"unknown extension '.flv'"});
  expectFails("--output " + q(scratch() / "endless.webm"), {"does not end by itself", "--frames"});
  expectFails("--headless --pattern plaid", {"unknown test pattern"});
  expectFails("--headless --size 12", {"--size '12'"});
  expectFails("--headless --input " + q(webm) + " --camera", {"give one source"});
  expectFails("--headless --slots 40", {"slot", "40"});
}

// The commands' own checks, in the new forms: --seconds is stream time, an export never replaces
// its input, --loop with a limit exports, options of another command are refused by name.
TEST(VideoCommand, CommandsCheckTheirOptionsAndSecondsIsStreamTime) {
  const fs::path two = scratch() / "two-seconds.webm";
  Result r = run("export --seconds 2 --size 96x64 --fps 30 --output " + q(two));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(countFrames(two.string()), 60u) << "2 s of a 30 fps stream, however fast it was made";

  const std::string webm = generatedVideo("ball.webm", 20);
  const auto size = fs::file_size(webm);
  fs::create_symlink(webm, scratch() / "link.webm");
  for (const fs::path& out : {fs::path(webm), scratch() / "link.webm"})
    expectFails("export --input " + q(webm) + " --output " + q(out), {"is the input video"});
  EXPECT_EQ(fs::file_size(webm), size);

  const fs::path looped = scratch() / "looped.webm";
  r = run("export --input " + q(webm) + " --loop --frames 30 --output " + q(looped));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(countFrames(looped.string()), 30u);
  expectFails("export --input " + q(webm) + " --loop --output " + q(scratch() / "endless.webm"),
              {"--loop would never end an export", "--frames or --seconds"});

  for (const char* bad : {"nan", "-1", "0", "inf"}) expectFails(std::string("run --seconds ") + bad, {"--seconds"});
  expectFails("run --frames 0", {"--frames 0"});
  expectFails("run --input ''", {"--input is empty"});
  expectFails("run --launch ''", {"--launch is empty"});
  expectFails("run --frames 2 --tile 32x8 --variant cpu", {"--tile", "cpu has no tile shapes"});
  expectFails("export --offscreen --output " + q(scratch() / "x.webm"),
              {"--offscreen is not an option of convlive export", "convlive view"});
  expectFails("run --screenshot x.png", {"convlive view takes it"});
  expectFails("run --mask custom --weights '1,,2'", {"--weights", "empty value between commas"});
  // The report never replaces the input, and a run that cannot write it leaves no file.
  expectFails("run --frames 2 --input " + q(webm) + " --report " + q(webm), {"--report", "is the input video"});
  EXPECT_EQ(fs::file_size(webm), size);
  expectFails("run --frames 2 --report " + q(scratch() / "no" / "r.json"), {"--report", "check the folder"});
  const fs::path failed = scratch() / "failed-report.json";
  expectFails("run --frames 2 --input " + q(scratch() / "missing.webm") + " --report " + q(failed), {"does not exist"});
  EXPECT_FALSE(fs::exists(failed)) << "a run that failed left an empty report behind";

  // Every setting of the sharpen mask, typed: sigma given, pitch absent.
  const fs::path report = scratch() / "sharpen.json";
  r = run("run --frames 2 --size 64x48 --mask sharpen --radius 2 --sigma 1.5 --filter-alpha --report " + q(report));
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(report);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["filter"]["mask"], "sharpen");
  EXPECT_DOUBLE_EQ(j["filter"]["sigma"].get<double>(), 1.5);
  EXPECT_EQ(j["filter"]["filter-alpha"], true);
  EXPECT_EQ(j["filter"]["tile"], "default");
  EXPECT_FALSE(j["filter"].contains("pitch"));
  expectFails("frobnicate", {"'frobnicate' is not a command"});
  // A setting the mask does not use is an error, not ignored; CLI11's own wording is said plainly.
  expectFails("run --frames 2 --mask box --sigma 2", {"--sigma does not apply to the box mask", "--mask gaussian"});
  expectFails("run --frames 2 --weights 1,2,1 --pitch 3", {"--pitch does not apply to the custom mask"});
  expectFails("run --frames 2 --normalize", {"--normalize does not apply to the gaussian mask", "--mask custom"});
  expectFails("run --fps nan", {"--fps: 'nan' is not a number"});
  expectFails("run --decoder gpu", {"'gpu' is not one of auto|nvdec|cpu"});
  expectFails("list frobs", {"'frobs' is not one of variants|patterns|cameras|devices"});
  r = run("--version");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("convlive 0.9.0 (CUDA runtime "), std::string::npos) << r.output;

  const fs::path demo = scratch() / "new" / "demo";
  r = run("demo " + q(demo));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(demo / "input.png"));
  // Each mask's auto choice on a GPU; without one, that the CPU runs, said once.
  const auto lines = [&](const std::string& start, const std::string& with) {
    std::istringstream in(r.output);
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line.rfind(start, 0) == 0 && line.find(with) != line.npos;
    return n;
  };
  if (deviceInfo().available)
    EXPECT_EQ(lines("auto ", ""), 4) << r.output;
  else
    EXPECT_EQ(lines("note: ", "running on the CPU"), 1) << r.output;
}

TEST(VideoCommand, ListsCamerasAndPatterns) {
  Result r = run("--list-cameras");
  EXPECT_EQ(r.code, 0) << r.output;
  if (listCameras().empty()) {
    EXPECT_NE(r.output.find("no camera found"), std::string::npos) << r.output;
  }
  r = run("--list-patterns");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.output.find("moving"), std::string::npos);
  EXPECT_NE(r.output.find("zone-plate"), std::string::npos);
}

// ---- export: encoder settings and audio ----------------------------------------------------------

// Every option of the encoder is checked against the output's encoder before anything runs: one
// line naming the option, exit code 2, no file and no temporary.
TEST(VideoCommand, ExportEncoderOptionsAreCheckedBeforeAnyWork) {
  const fs::path dir = scratch() / "refused";
  fs::create_directories(dir);
  const std::string mp4 = q(dir / "x.mp4"), webm = q(dir / "x.webm"), avi = q(dir / "x.avi");
  const bool h264 = hasElement("x264enc");
  std::vector<std::pair<std::string, std::vector<std::string>>> cases{
      {"--output " + webm + " --quality 64", {"--quality 64 is out of range", "quantizer 0..63"}},
      {"--output " + webm + " --quality high", {"--quality 'high' is not a whole number", "0..63"}},
      {"--output " + webm + " --quality 10 --bitrate 1000", {"--quality and --bitrate were both given"}},
      {"--output " + webm + " --bitrate 0", {"--bitrate 0 is out of range", "kbit/s"}},
      {"--output " + webm + " --preset turbo", {"--preset 'turbo' is not a speed preset", "veryfast"}},
      {"--output " + webm + " --quality ''", {"--quality is empty"}},
      {"--output " + avi + " --bitrate 5000", {"--bitrate", "MJPEG (jpegenc) has no target bitrate"}},
      {"--output " + avi + " --preset fast", {"--preset", "MJPEG (jpegenc) has no speed preset"}},
      {"--output " + avi + " --quality 101", {"--quality 101 is out of range", "1..100"}},
  };
  if (h264) cases.push_back({"--output " + mp4 + " --quality=-3", {"--quality -3 is out of range", "CRF 0..50"}});
  for (const auto& [args, words] : cases) {
    const Result r = run("export --frames 5 --size 64x48 " + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    for (const auto& w : words)
      EXPECT_NE(r.output.find(w), std::string::npos) << args << ": '" << w << "' missing:\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << ": one line:\n" << r.output;
    EXPECT_EQ(r.output.find("export:"), std::string::npos) << args << ": refused after work began:\n" << r.output;
  }
  EXPECT_TRUE(fs::is_empty(dir)) << "a refused export left a file behind";
  const Result help = run("export --help");
  for (const char* w : {"--quality", "--bitrate", "--preset", "--no-audio", "CRF 0..50, default 18"})
    EXPECT_NE(help.output.find(w), std::string::npos) << w << " missing from export --help:\n" << help.output;
}

// --quality and --bitrate move the size the way they say: a better quality or a higher rate makes a
// larger file, for each encoder that takes them.
TEST(VideoCommand, ExportQualityAndBitrateSetTheSize) {
  const auto size = [&](const std::string& name, const std::string& options) -> std::uintmax_t {
    const fs::path out = scratch() / name;
    const Result r = run("export --frames 30 --size 320x240 --output " + q(out) + " " + options);
    EXPECT_EQ(r.code, 0) << options << "\n" << r.output;
    return fs::exists(out) ? fs::file_size(out) : 0;
  };
  std::vector<std::string> exts{".webm", ".avi"};
  if (hasElement("x264enc")) exts.push_back(".mp4");
  for (const std::string& ext : exts) {
    const bool mjpeg = ext == ".avi";
    const auto better = size("better" + ext, mjpeg ? "--quality 95" : "--quality 4");
    const auto worse = size("worse" + ext, mjpeg ? "--quality 30" : "--quality 40");
    EXPECT_GT(better, worse * 3 / 2) << ext << ": --quality barely changed the size";
    if (mjpeg) continue;
    const auto high = size("high" + ext, "--bitrate 4000 --preset faster");
    const auto low = size("low" + ext, "--bitrate 200 --preset faster");
    EXPECT_GT(high, low * 3) << ext << ": --bitrate barely changed the size";
    // 1 s at 200 kbit/s is 25 kB: the target is roughly met.
    EXPECT_LT(low, 25000u * 2) << ext;
  }
}

// What a file holds, stream by stream, read by demuxing it (parsebin: no decoding).
struct StreamFacts {
  std::string media;            // "video/x-h264", "audio/mpeg", "audio/x-opus", ...
  int mpegVersion = 0;          // audio/mpeg: 1 (MP3) or 4 (AAC)
  double start = -1, end = -1;  // running time of the first buffer and of the last one's end, in seconds
  int buffers = 0;
  bool audio() const { return media.rfind("audio/", 0) == 0; }
};

struct StreamReader {
  GstElement* pipeline = nullptr;
  std::mutex lock;
  std::vector<std::unique_ptr<StreamFacts>> streams;

  static GstPadProbeReturn onBuffer(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
    auto* facts = static_cast<StreamFacts*>(data);
    GstBuffer* buf = GST_PAD_PROBE_INFO_BUFFER(info);
    GstEvent* e = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
    if (!e) return GST_PAD_PROBE_OK;
    const GstSegment* segment = nullptr;
    gst_event_parse_segment(e, &segment);
    const GstClockTime t = gst_segment_to_running_time(segment, GST_FORMAT_TIME, GST_BUFFER_PTS(buf));
    gst_event_unref(e);
    if (facts->media.empty()) {
      GstCaps* caps = gst_pad_get_current_caps(pad);
      if (caps) {
        const GstStructure* s = gst_caps_get_structure(caps, 0);
        facts->media = gst_structure_get_name(s);
        gst_structure_get_int(s, "mpegversion", &facts->mpegVersion);
        gst_caps_unref(caps);
      }
    }
    ++facts->buffers;
    if (!GST_CLOCK_TIME_IS_VALID(t)) return GST_PAD_PROBE_OK;
    const double from = double(t) / GST_SECOND;
    const double to = from + (GST_BUFFER_DURATION_IS_VALID(buf) ? double(GST_BUFFER_DURATION(buf)) / GST_SECOND : 0);
    if (facts->start < 0 || from < facts->start) facts->start = from;
    facts->end = std::max(facts->end, to);
    return GST_PAD_PROBE_OK;
  }

  static void onPad(GstElement*, GstPad* pad, gpointer data) {
    auto* reader = static_cast<StreamReader*>(data);
    StreamFacts* facts;
    {
      std::lock_guard<std::mutex> hold(reader->lock);
      facts = reader->streams.emplace_back(std::make_unique<StreamFacts>()).get();
    }
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, onBuffer, facts, nullptr);
    GstElement* sink = gst_element_factory_make("fakesink", nullptr);
    g_object_set(sink, "sync", FALSE, "async", FALSE, nullptr);
    gst_bin_add(GST_BIN(reader->pipeline), sink);
    gst_element_sync_state_with_parent(sink);
    GstPad* sinkPad = gst_element_get_static_pad(sink, "sink");
    gst_pad_link(pad, sinkPad);
    gst_object_unref(sinkPad);
  }
};

std::vector<StreamFacts> streamsOf(const fs::path& file) {
  initGStreamer();
  StreamReader reader;
  GError* err = nullptr;
  reader.pipeline = gst_parse_launch(("filesrc name=src ! parsebin name=parse"), &err);
  EXPECT_TRUE(reader.pipeline && !err) << (err ? err->message : "?");
  if (err) g_error_free(err);
  if (!reader.pipeline) return {};
  GstElement* src = gst_bin_get_by_name(GST_BIN(reader.pipeline), "src");
  g_object_set(src, "location", file.c_str(), nullptr);
  gst_object_unref(src);
  GstElement* parse = gst_bin_get_by_name(GST_BIN(reader.pipeline), "parse");
  g_signal_connect(parse, "pad-added", G_CALLBACK(StreamReader::onPad), &reader);
  gst_object_unref(parse);
  gst_element_set_state(reader.pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(reader.pipeline);
  GstMessage* m = gst_bus_timed_pop_filtered(bus, 30 * GST_SECOND, GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  EXPECT_TRUE(m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS) << "reading " << file << " failed or took over 30 s";
  if (m) gst_message_unref(m);
  gst_object_unref(bus);
  gst_element_set_state(reader.pipeline, GST_STATE_NULL);
  gst_object_unref(reader.pipeline);
  std::vector<StreamFacts> facts;
  for (const auto& s : reader.streams) facts.push_back(*s);
  return facts;
}

// The one video and the one audio stream of a file (an audio stream with no media when there is none).
std::pair<StreamFacts, StreamFacts> videoAndAudio(const fs::path& file, int audioStreams = 1) {
  const std::vector<StreamFacts> streams = streamsOf(file);
  StreamFacts video, audio;
  int videos = 0, audios = 0;
  for (const StreamFacts& s : streams) {
    if (s.audio()) {
      audio = s;
      ++audios;
    } else {
      video = s;
      ++videos;
    }
  }
  EXPECT_EQ(videos, 1) << file;
  EXPECT_EQ(audios, audioStreams) << file;
  return {video, audio};
}

// A clip of `seconds` of video at 30 fps (from `videoStart` on) and 1.6 s of a tone, made with
// gst-launch: `video` and `audio` are the encoders (with their parsers), `mux` the muxer.
fs::path clipWithAudio(const std::string& name, const std::string& video, const std::string& audio,
                       const std::string& mux, double seconds = 1.5, double videoStart = 0) {
  const fs::path path = scratch() / name;
  runLaunch("videotestsrc num-buffers=" + std::to_string(int(std::lround(seconds * 30))) +
            " pattern=ball timestamp-offset=" + std::to_string(std::llround(videoStart * 1e9)) +
            " ! video/x-raw,width=160,height=120,framerate=30/1 ! " + video +
            " ! queue ! mux. audiotestsrc num-buffers=75 samplesperbuffer=1024 ! "
            "audio/x-raw,rate=48000,channels=2 ! audioconvert ! " +
            audio + " ! queue ! mux. " + mux + " name=mux ! filesink location=" + path.string());
  return path;
}

// An AAC encoder that mp4mux takes ("" when none is installed).
std::string aacEncoder() {
  for (const char* e : {"avenc_aac", "voaacenc"})
    if (hasElement(e)) return std::string(e) + " ! aacparse";
  return "";
}

constexpr double kFrame = 1.0 / 30;

// An export from a file with audio keeps it: copied untouched where the container holds the codec
// (the same codec comes out), timed with the frames (both from 0, ending together within two
// frames); --no-audio leaves it out.
TEST(VideoCommand, ExportKeepsTheInputsAudio) {
  if (!hasElement("opusenc") || !hasElement("vp8enc")) GTEST_SKIP() << "opusenc or vp8enc is not installed here";
  struct Case {
    fs::path input;
    std::string output, words, media;
    int mpegVersion = 0;
  };
  std::vector<Case> cases;
  const fs::path opusMkv = clipWithAudio("opus.mkv", "vp8enc deadline=1", "opusenc", "matroskamux");
  cases.push_back({opusMkv, "opus-copied.mkv", "audio: Opus, copied", "audio/x-opus"});
  cases.push_back({opusMkv, "opus-copied.webm", "audio: Opus, copied", "audio/x-opus"});
  const std::string aac = aacEncoder();
  if (hasElement("x264enc")) {
    cases.push_back({opusMkv, "opus-copied.mp4", "audio: Opus, copied", "audio/x-opus"});
    if (!aac.empty()) {
      const fs::path aacMp4 = clipWithAudio("aac.mp4", "x264enc ! h264parse", aac, "mp4mux");
      cases.push_back({aacMp4, "aac-copied.mp4", "audio: AAC, copied", "audio/mpeg", 4});
      cases.push_back({aacMp4, "aac-copied.mkv", "audio: AAC, copied", "audio/mpeg", 4});
    }
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input.filename().string() + " -> " + c.output);
    const fs::path out = scratch() / c.output;
    const Result r = run("export --input " + q(c.input) + " --output " + q(out));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find(c.words), std::string::npos) << r.output;
    const auto [video, audio] = videoAndAudio(out);
    EXPECT_EQ(video.buffers, 45);
    EXPECT_EQ(audio.media, c.media);
    EXPECT_EQ(audio.mpegVersion, c.mpegVersion);
    EXPECT_NEAR(video.start, 0, 1e-3);
    EXPECT_NEAR(video.end, 1.5, 1e-3);
    EXPECT_NEAR(audio.start, 0, kFrame) << "the audio starts with the first frame";
    EXPECT_NEAR(audio.end, video.end, 2 * kFrame) << "the audio (1.6 s in the input) ends with the last frame";
  }
  // --no-audio: the video alone.
  const fs::path silent = scratch() / "no-audio.mkv";
  const Result r = run("export --input " + q(opusMkv) + " --no-audio --output " + q(silent));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("audio: none (--no-audio)"), std::string::npos) << r.output;
  EXPECT_EQ(videoAndAudio(silent, 0).first.buffers, 45);
}

// A container that cannot hold the input's audio codec gets it re-encoded to its usual one (said
// in the summary); --seconds cuts the audio with the frames; a video that starts after the audio
// in the input starts the file, the audio put beside it; the test pattern exports as before.
TEST(VideoCommand, ExportReencodesAudioTheContainerCannotHoldAndKeepsItInTime) {
  if (!hasElement("vorbisenc") || !hasElement("opusenc") || !hasElement("vp8enc"))
    GTEST_SKIP() << "vorbisenc, opusenc or vp8enc is not installed here";
  const fs::path vorbisMkv = clipWithAudio("vorbis.mkv", "vp8enc deadline=1", "vorbisenc", "matroskamux");
  struct Case {
    fs::path input;
    std::string output, options, words;
    double seconds = 1.5;
  };
  std::vector<Case> cases{
      {vorbisMkv, "vorbis-to.avi", "", "audio: Vorbis, re-encoded to", 1.5},
      {vorbisMkv, "vorbis-cut.webm", "--seconds 1", "audio: Vorbis, copied", 1.0},
      {clipWithAudio("late.mkv", "vp8enc deadline=1", "opusenc", "matroskamux", 1.0, 0.5), "late-video.webm", "",
       "audio: Opus, copied", 1.0},
  };
  if (hasElement("x264enc")) cases.push_back({vorbisMkv, "vorbis-to.mp4", "", "audio: Vorbis, re-encoded to", 1.5});
  const std::string aac = aacEncoder();
  if (!aac.empty())
    cases.push_back({clipWithAudio("aac.mkv", "vp8enc deadline=1", aac, "matroskamux"), "aac-to.webm", "",
                     "audio: AAC, re-encoded to Opus (WebM holds Opus and Vorbis only)", 1.5});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input.filename().string() + " -> " + c.output + " " + c.options);
    const fs::path out = scratch() / c.output;
    const Result r = run("export --input " + q(c.input) + " " + c.options + " --output " + q(out));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find(c.words), std::string::npos) << r.output;
    const auto [video, audio] = videoAndAudio(out);
    EXPECT_EQ(video.buffers, int(std::lround(c.seconds * 30)));
    EXPECT_NEAR(video.end, c.seconds, 1e-3);
    EXPECT_TRUE(audio.audio());
    EXPECT_NEAR(audio.start, 0, kFrame) << "the audio starts with the first frame";
    EXPECT_NEAR(audio.end, video.end, 2 * kFrame) << "the audio ends with the last frame";
  }
  // No audio in the source: as before, and said.
  const fs::path pattern = scratch() / "pattern.mkv";
  const Result r = run("export --frames 10 --size 64x48 --output " + q(pattern));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("audio: none\n"), std::string::npos) << r.output;
  EXPECT_EQ(videoAndAudio(pattern, 0).first.buffers, 10);
}

// ---- image --max-pixels -------------------------------------------------------------------------

// A picture larger than --max-pixels is refused before it is decoded, naming the option; at the
// limit it is filtered; the option takes positive numbers only.
TEST(VideoCommand, ImageMaxPixelsBoundsThePicture) {
  const fs::path dir = scratch();
  const fs::path in = dir / "in.png", out = dir / "out.png";
  std::ofstream(in, std::ios::binary) << pngFile(4, 3, 8, 0, {"abcd", "efgh", "wxyz"});
  Result r = run("image " + q(in) + " " + q(out) + " --max-pixels 11 --variant cpu");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("12 pixels, more than the limit of 11 (--max-pixels raises it)"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out)) << "nothing is written for a refused picture";
  r = run("image " + q(in) + " " + q(out) + " --max-pixels 12 --variant cpu");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out));
  for (const char* bad : {"0", "=-5", "x", "=1.5"}) {
    r = run("image " + q(in) + " " + q(dir / "bad.png") + " --max-pixels" + (bad[0] == '=' ? "" : " ") + bad);
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("--max-pixels"), std::string::npos) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("is not a pixel count"), std::string::npos) << bad << "\n" << r.output;
    EXPECT_FALSE(fs::exists(dir / "bad.png"));
  }
}

// ---- --device and list devices -------------------------------------------------------------------

TEST(VideoCommand, EveryCommandThatUsesTheGpuTakesDevice) {
  for (const char* command : {"view", "run", "export", "image", "tune", "demo", "list"}) {
    const Result r = run(std::string(command) + " --help");
    EXPECT_EQ(r.code, 0) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("--device"), std::string::npos) << command << " --help lists no --device:\n" << r.output;
  }
}

TEST(VideoCommand, DeviceIsANonNegativeNumber) {
  for (const auto& [args, words] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"run --frames 2 --device x", {"--device: 'x' is not a number"}},
           {"run --frames 2 --device 1.5", {"--device: '1.5' is not a number"}},
           {"run --frames 2 --device -1", {"--device -1: a device index is 0 or more", "convlive list devices"}},
           {"image in.png out.png --device -3", {"--device -3: a device index is 0 or more"}},
           {"list patterns --device 0", {"--device goes with list variants"}},
       }) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    for (const auto& w : words)
      EXPECT_NE(r.output.find(w), std::string::npos) << args << ": '" << w << "' missing:\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << ": one line:\n" << r.output;
  }
}

// An index past the devices there are (any index but 0 where there is none) is refused before the
// command does anything (the pictures named here do not exist: the device is the first complaint).
TEST(VideoCommand, ADeviceIndexPastTheDevicesIsRefusedNamingThem) {
  const int past = std::max(deviceCount(), 1);
  const std::string asked = "--device " + std::to_string(past) + ": this machine has ";
  for (const std::string command : {"run --frames 2", "export --output x.webm", "image missing.png out.png", "tune",
                                    "demo d", "list variants --details", "view --offscreen --frames 1"}) {
    const Result r = run(command + " --device " + std::to_string(past));
    EXPECT_EQ(r.code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find(asked), std::string::npos) << command << "\n" << r.output;
    if (deviceCount() == 0) {
      EXPECT_NE(r.output.find("no CUDA device (" + deviceInfo().reason + ")"), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("leave --device out and the CPU variant runs"), std::string::npos) << r.output;
    } else {
      EXPECT_NE(r.output.find(describeDevices() + "; `convlive list devices` lists them"), std::string::npos)
          << r.output;
    }
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << command << ": one line:\n" << r.output;
  }
}

// CUDA_VISIBLE_DEVICES numbers the devices --device takes, as it does for every CUDA program.
TEST(VideoCommand, DeviceCountsTheDevicesCudaVisibleDevicesLeaves) {
  if (deviceCount() == 0) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  const Result r = runConvliveWith("run --frames 2 --device 1", "env CUDA_VISIBLE_DEVICES=0 timeout 120");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--device 1: this machine has 1 CUDA device (0: " + deviceInfo(0).name + ")"),
            std::string::npos)
      << r.output;
}

TEST(VideoCommand, DeviceZeroWithoutADeviceRunsTheCpuVariantAndSaysSo) {
  if (deviceInfo().available) GTEST_SKIP() << "there is a CUDA device here (" << deviceInfo().name << ")";
  const fs::path report = scratch() / "device0.json";
  const Result r = run("run --frames 3 --size 64x48 --device 0 --report " + q(report));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("note: --device 0: there is no CUDA device here (" + deviceInfo().reason +
                          "); the CPU variant runs"),
            std::string::npos)
      << r.output;
  std::ifstream in(report);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["frames"], 3);
}

TEST(VideoCommand, ListDevicesSaysWhatThereIs) {
  const Result r = run("list devices");
  ASSERT_EQ(r.code, 0) << r.output;
  if (deviceCount() == 0) {
    EXPECT_EQ(r.output, "no CUDA device: " + deviceInfo().reason + "\n");
    EXPECT_NE(r.output.find("(CUDA: "), std::string::npos) << "the CUDA error's own words:\n" << r.output;
    return;
  }
  std::istringstream lines(r.output);
  std::string header;
  std::getline(lines, header);
  for (const char* column : {"device", "name", "memory", "compute", "SMs", "NVDEC"})
    EXPECT_NE(header.find(column), std::string::npos) << column << " missing:\n" << r.output;
  for (int i = 0; i < deviceCount(); ++i) {
    const DeviceInfo& d = deviceInfo(i);
    std::string row;
    std::getline(lines, row);
    EXPECT_EQ(row.rfind(std::to_string(i) + " ", 0), 0u) << row;
    for (const std::string& cell : {d.name, std::to_string(d.major) + "." + std::to_string(d.minor),
                                    std::to_string(d.multiprocessors), std::string(" GiB")})
      EXPECT_NE(row.find(cell), std::string::npos) << "'" << cell << "' missing from device " << i << ": " << row;
    EXPECT_TRUE(row.find("yes (") != row.npos || row.find("no (") != row.npos || row.find("unknown (") != row.npos)
        << "NVDEC is yes, no or unknown, with the reason: " << row;
  }
}

// With a GPU: --device N runs the command on device N (the report names it).
TEST(VideoCommand, DeviceRunsTheCommandOnThatDevice) {
  if (deviceCount() == 0) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  for (int device = 0; device < std::min(deviceCount(), 2); ++device) {
    SCOPED_TRACE("--device " + std::to_string(device));
    const fs::path report = scratch() / ("device" + std::to_string(device) + ".json");
    const Result r = run("run --frames 5 --size 64x48 --device " + std::to_string(device) + " --report " + q(report));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find(deviceInfo(device).name), std::string::npos) << r.output;
    std::ifstream in(report);
    const auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j["frames"], 5);
  }
  if (deviceCount() < 2) GTEST_SKIP() << "this machine has 1 CUDA device; the second-device run needs 2";
}

}  // namespace
