#include "cli.hpp"

#include <cuda_runtime_api.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>

#include "convlive/export.hpp"
#include "convlive/resources.hpp"
#include "convlive/spec.hpp"
#include "demo.hpp"
#include "guarded.hpp"
#include "list_devices.hpp"
#include "list_variants.hpp"
#include "still.hpp"
#include "tune.hpp"
#include "variant_details.hpp"
#include "video.hpp"
#include "viewer/command.hpp"
#include "words.hpp"

namespace convlive {

namespace {

const std::vector<std::string>& commandNames() {
  static const std::vector<std::string> names{"view", "run", "export", "image", "list", "bench", "tune", "demo"};
  return names;
}

bool isCommand(const std::string& s) {
  return std::find(commandNames().begin(), commandNames().end(), s) != commandNames().end();
}

std::string joinNames(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// Everything the options of every command write into; one command parses, the others' stay unset.
struct Values {
  VideoOptions video;
  ViewerCommandOptions viewer;
  std::string input, output;                    // image: the pictures
  int quality = kDefaultJpegQuality;            // image: JPEG quality (only when given)
  std::uint64_t maxPixels = kDefaultMaxPixels;  // image: the most pixels an input may declare
  bool floatOutput = false;                     // image: --float
  std::map<std::string, std::string> settings;  // --radius 4 ... (text, set into the spec after parsing)
  std::map<std::string, bool> flags;            // --normalize, --filter-alpha
  std::string listWhat = "variants";
  VariantDetailsOptions details;  // list variants --details
  bool listDetails = false;
  std::string demoDir;
  std::vector<std::string> benchArgs;
  int device = -1;         // --device (only when given)
  EncoderRequest encoder;  // export: --quality, --bitrate, --preset (as typed; checked for the output's encoder)
  bool noAudio = false;    // export: --no-audio
};

// export's encoder options: what each encoder's scale is, from the table the checks use.
void addEncoderOptions(CLI::App* c, Values& v) {
  const char* g = "Encoding (checked against the output's encoder before anything runs)";
  std::string scales;
  for (const ExportFormat& f :
       {ExportFormat{"mp4", "H.264", "x264enc", "mp4mux"}, ExportFormat{"webm", "VP8", "vp8enc", "webmmux"},
        ExportFormat{"avi", "MJPEG", "jpegenc", "avimux"}}) {
    const QualityScale q = qualityScale(f);
    scales += (scales.empty() ? "" : "; ") + f.codec + " " + q.name + " " + std::to_string(q.min) + ".." +
              std::to_string(q.max) + ", default " + std::to_string(q.fallback) +
              (q.higherIsBetter ? ", higher is better" : ", lower is better");
  }
  c->add_option("--quality", v.encoder.quality,
                "constant quality (the size follows the content), on the encoder's own scale: " + scales)
      ->type_name("Q")
      ->group(g);
  c->add_option("--bitrate", v.encoder.bitrate,
                "a target bitrate in kbit/s instead of --quality (H.264 and VP8; MJPEG has none)")
      ->type_name("KBPS")
      ->group(g);
  std::string presets;
  for (const std::string& p : speedPresets()) presets += (presets.empty() ? "" : ", ") + p;
  c->add_option("--preset", v.encoder.preset,
                "the encoder's speed preset, fastest first: " + presets + " (default " + kDefaultSpeedPreset +
                    "; H.264 and VP8, MJPEG has none)")
      ->type_name("NAME")
      ->group(g);
  c->add_flag("--no-audio", v.noAudio,
              "leave out the input file's audio (kept by default: copied as it is, or re-encoded where the "
              "container cannot hold it)")
      ->group(g);
}

// --device N: the CUDA device the command works on (list_devices.hpp says how).
void addDeviceOption(CLI::App* c, Values& v, const char* group) {
  c->add_option("--device", v.device,
                "the CUDA device to work on, by index (convlive list devices); default: device 0, or the CPU "
                "variant without one")
      ->type_name("INDEX")
      ->group(group);
}

void addSourceOptions(CLI::App* c, Values& v) {
  auto* g = "Source (one of these; none: the test pattern)";
  c->add_option("--input", v.video.input, "a video file or a URI (file://, http://, rtsp://)")->group(g);
  c->add_option("--camera", v.video.camera, "a V4L2 camera (default: the first one)")->expected(0, 1)->group(g);
  c->add_option("--launch", v.video.launch, "a gst-launch line ending in '! videoconvert ! appsink'")->group(g);
  c->add_option("--pattern", v.video.pattern, "test pattern (convlive list patterns)")->capture_default_str()->group(g);
  c->add_option("--size", v.video.size, "test pattern size WxH")->capture_default_str()->group(g);
  c->add_option("--fps", v.video.fps, "test pattern rate")->capture_default_str()->group(g);
}

void addInputFormat(CLI::App* c, Values& v, const char* group) {
  c->add_option("--input-format", v.video.inputFormat,
                "auto: NV12/I420 frames as decoded, converted to RGBA on the GPU (RGBA without a device); rgba: "
                "converted to RGBA by GStreamer on the CPU (the old path); yuv: NV12/I420 everywhere")
      ->check(CLI::IsMember({"auto", "rgba", "yuv"}))
      ->default_str("auto")
      ->group(group);
  c->add_option("--decoder", v.video.decoder,
                "files, URIs and launch lines: nvdec decodes on the GPU (gstreamer1.0-plugins-bad's nvcodec) and "
                "keeps frames in GPU memory; cpu: GStreamer's software decoders; auto: nvdec where it is present")
      ->check(CLI::IsMember({"auto", "nvdec", "cpu"}))
      ->capture_default_str()
      ->group(group);
}

std::string describeSetting(const Setting& s) {
  std::vector<std::string> notes;
  if (s.type == Setting::Type::Int || s.type == Setting::Type::Float) {
    std::ostringstream r;
    r << s.min << ".." << s.max;
    notes.push_back(r.str());
  } else if (s.type == Setting::Type::Choice && s.name != "mask" && s.name != "variant") {
    notes.push_back(joinNames(s.choices, ", "));
  }
  if (s.type != Setting::Type::Flag && !s.defaultText().empty() && s.name != "tile")
    notes.push_back("default " + s.defaultText());
  if (!s.masks.empty()) notes.push_back("for " + joinNames(s.masks, ", "));
  return notes.empty() ? s.help : s.help + " (" + joinNames(notes, "; ") + ")";
}

const char* typeName(Setting::Type t) {
  switch (t) {
    case Setting::Type::Int:
      return "INT";
    case Setting::Type::Float:
      return "NUMBER";
    case Setting::Type::Choice:
      return "NAME";
    default:
      return "TEXT";
  }
}

// One option per setting of the spec, generated from the table.
void addFilterOptions(CLI::App* c, Values& v) {
  const char* g = "Filter (the same names as the panel's widgets and the element's properties)";
  for (const Setting& s : specSettings()) {
    if (s.type == Setting::Type::Flag)
      c->add_flag("--" + s.name, v.flags[s.name], s.help)->group(g);
    else
      c->add_option("--" + s.name, v.settings[s.name], describeSetting(s))->type_name(typeName(s.type))->group(g);
  }
}

void addLimits(CLI::App* c, Values& v, bool report) {
  const char* g = "Run";
  c->add_option("--frames", v.video.frames, "stop after this many frames")->group(g);
  c->add_option("--seconds", v.video.seconds,
                "stop after this much of the stream (its timestamps; wall-clock time where it has none)")
      ->group(g);
  if (report) c->add_option("--report", v.video.report, "write the run's figures to this JSON file")->group(g);
}

// `convlive --version`: what was built, and what it runs on here.
std::string versionText() {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  const DeviceInfo& d = deviceInfo();
  return std::string("convlive ") + kConvliveVersion + " (CUDA runtime " + std::to_string(runtime / 1000) + "." +
         std::to_string(runtime % 1000 / 10) + "; " +
         (d.available ? "GPU: " + d.name + ", compute " + std::to_string(d.major) + "." + std::to_string(d.minor)
                      : d.reason + ": the CPU variants run") +
         ")";
}

// The command that takes each option, for "--screenshot belongs to convlive view".
std::vector<std::string> commandsTaking(CLI::App& app, const std::string& option) {
  std::vector<std::string> found;
  for (const std::string& name : commandNames()) {
    CLI::App* c = app.get_subcommand(name);
    if (c->get_option_no_throw(option)) found.push_back("convlive " + name);
  }
  return found;
}

// Words a parse error: options that belong to another command, commands that do not exist.
std::string explainParseError(CLI::App& app, const std::string& command, const std::vector<std::string>& args,
                              const CLI::ParseError& e) {
  CLI::App* c = app.get_subcommand(command);
  for (std::size_t i = 2; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-' || a == "--") continue;
    const std::string name = a.substr(0, a.find('='));
    if (c->get_option_no_throw(name)) continue;
    const auto others = commandsTaking(app, name);
    if (!others.empty())
      return name + " is not an option of convlive " + command + ": " + joinNames(others, " and ") + " take" +
             (others.size() == 1 ? "s" : "") + " it";
    return name + " is not an option of convlive " + command + " (see convlive " + command + " --help)";
  }
  // CLI11's own words for a value it cannot read or a choice it does not know, said plainly.
  const std::string what = e.what();
  if (const auto at = what.find("Could not convert: "); at != std::string::npos) {
    const std::string rest = what.substr(at + 19);  // "--fps = nan"
    const auto eq = rest.find(" = ");
    if (eq != std::string::npos)
      return rest.substr(0, eq) + ": '" + rest.substr(eq + 3) + "' is not a number (see convlive " + command +
             " --help)";
  }
  if (const auto at = what.find(" not in {"); at != std::string::npos && what.find(": ") < at) {
    const std::string value = what.substr(what.find(": ") + 2, at - what.find(": ") - 2);
    std::string choices = what.substr(at + 9);
    choices = choices.substr(0, choices.find('}'));
    for (auto& ch : choices)
      if (ch == ',') ch = '|';
    return "'" + value + "' is not one of " + choices + " (see convlive " + command + " --help)";
  }
  return what + " (see convlive " + command + " --help)";
}

bool samePath(const std::string& a, const std::string& b) {
  std::error_code ec;
  return !a.empty() && !b.empty() && std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec) &&
         std::filesystem::equivalent(a, b, ec);
}

// The spec from the generated options: each given setting set by name, in the table's order.
// Weights given without --mask ask for the custom mask.
FilterSpec specFrom(CLI::App* c, Values& v) {
  FilterSpec spec;
  spec.radius = 1;
  for (const Setting& s : specSettings()) {
    if (c->count("--" + s.name) == 0) continue;
    if (c->count("--mask") == 0 && s.masks == std::vector<std::string>{"custom"} && s.type == Setting::Type::Text)
      spec.mask = "custom";
    const std::string text = s.type == Setting::Type::Flag ? (v.flags[s.name] ? "true" : "false") : v.settings[s.name];
    if (const Problem why = spec.set(s.name, text)) throw ProblemError(why);
  }
  // A setting given for a mask that does not use it would be ignored without a word.
  for (const Setting& s : specSettings())
    if (c->count("--" + s.name) && !s.appliesTo(spec.mask))
      throw std::invalid_argument("--" + s.name + " does not apply to the " + spec.mask + " mask: it is a setting of " +
                                  joinNames(s.masks, ", ") + " (--mask " + s.masks.front() + ")");
  if (const Problem why = spec.validate()) throw ProblemError(why);
  return spec;
}

void checkVideo(CLI::App* c, Values& v) {
  VideoOptions& o = v.video;
  o.useCamera = c->get_option_no_throw("--camera") && c->count("--camera") > 0;
  if (c->get_option_no_throw("--input") && c->count("--input") && o.input.empty())
    throw std::invalid_argument("--input is empty: name a video file or a URI");
  if (c->get_option_no_throw("--launch") && c->count("--launch") && o.launch.empty())
    throw std::invalid_argument("--launch is empty: give a gst-launch line ending in an appsink");
  if (c->get_option_no_throw("--frames") && c->count("--frames") && o.frames <= 0)
    throw std::invalid_argument("--frames " + std::to_string(o.frames) + " must be at least 1");
  if (c->get_option_no_throw("--slots") && c->count("--slots") && (o.slots < 1 || o.slots > 16))
    throw std::invalid_argument("--slots " + std::to_string(o.slots) + " is out of range: use 1..16");
  if (c->get_option_no_throw("--seconds") && c->count("--seconds") && !(std::isfinite(o.seconds) && o.seconds > 0))
    throw std::invalid_argument("--seconds must be a number above 0 (a length of the stream)");
  if (samePath(o.input, o.report))
    throw std::invalid_argument("--report '" + o.report + "' is the input video: name another file");
}

// The options of `list` that only --details takes, when one was given ("" when none).
std::string detailsOptionGiven(CLI::App* c) {
  for (const std::string& name : {std::string("--size"), std::string("--frames"), std::string("--report")})
    if (c->count(name)) return name;
  for (const Setting& s : specSettings())
    if (c->count("--" + s.name)) return "--" + s.name;
  return "";
}

int listDetails(CLI::App* c, Values& v, std::ostream& out, std::ostream& err) {
  return guarded(err, [&]() -> int {
    if (!v.listDetails)
      throw std::invalid_argument(
          detailsOptionGiven(c) +
          " goes with --details: convlive list variants --details [filter options] [--size WxH]");
    if (v.listWhat != "variants")
      throw std::invalid_argument("--details lists variants: convlive list variants --details");
    v.details.spec = specFrom(c, v);
    return listVariantDetails(v.details, out, err);
  });
}

// The width to wrap tables to: COLUMNS where it is a number, else the terminal's when standard
// output is one, else 0 (not wrapped: a pipe or a file gets whole lines).
int terminalWidth() {
  if (const char* c = std::getenv("COLUMNS"); c && *c) {
    char* end = nullptr;
    const long n = std::strtol(c, &end, 10);
    if (*end == '\0' && n > 0 && n < 10000) return int(n);
  }
  winsize w{};
  if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 0;
}

int dispatch(CLI::App& app, const std::string& command, Values& v, std::ostream& out, std::ostream& err) {
  CLI::App* c = app.get_subcommand(command);
  if (c->get_option_no_throw("--device") && c->count("--device")) {
    if (command == "list" && v.listWhat != "variants") {
      err << "convlive: --device goes with list variants (list " << v.listWhat << " is the same on every device)\n";
      return kBadInput;
    }
    if (const int code = applyDeviceOption(v.device, err); code >= 0) return code;
  }
  if (command == "list") {
    if (v.listDetails || !detailsOptionGiven(c).empty()) return listDetails(c, v, out, err);
    if (v.listWhat == "variants") return listVariants(out, terminalWidth()), kOk;
    if (v.listWhat == "patterns") return listPatternsCommand(out, err);
    if (v.listWhat == "devices") return listDevicesCommand(out, err);
    return listCamerasCommand(out, err);
  }
  if (command == "tune") return runTune(out, err);
  if (command == "demo") return runDemo(v.demoDir, out, err);
  if (command == "bench") {
    // The benchmark is its own program (no GStreamer, no GL): run it from beside this one.
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const auto bench = (ec ? std::filesystem::path(".") : self.parent_path()) / "convlive-bench";
    std::vector<std::string> a{bench.string()};
    a.insert(a.end(), v.benchArgs.begin(), v.benchArgs.end());
    std::vector<char*> argv;
    for (auto& s : a) argv.push_back(s.data());
    argv.push_back(nullptr);
    out.flush();
    ::execv(argv[0], argv.data());
    err << "convlive: cannot run " << bench.string() << " (" << std::strerror(errno)
        << "): build it beside convlive (ninja convlive-bench)\n";
    return kFailed;
  }
  return guarded(err, [&]() -> int {
    const FilterSpec filter = specFrom(c, v);
    if (command == "image") {
      if (v.input.empty()) throw std::invalid_argument("name the picture to filter: convlive image IN.png OUT.png");
      if (v.output.empty()) throw std::invalid_argument("name the picture to write: convlive image IN.png OUT.png");
      if (samePath(v.input, v.output))
        throw std::invalid_argument("--output '" + v.output + "' is the input picture: name another file");
      StillOptions still{.input = v.input, .output = v.output, .spec = filter};
      if (c->count("--quality")) still.jpegQuality = v.quality;
      still.maxPixels = v.maxPixels;
      still.floatOutput = v.floatOutput;
      return runStill(still, out, err);
    }
    checkVideo(c, v);
    if (command == "run") return runHeadless(v.video, filter, out, err);
    if (command == "export") {
      if (v.video.output.empty()) throw std::invalid_argument("--output is missing: name the video file to write");
      if (samePath(v.video.input, v.video.output))
        throw std::invalid_argument("--output '" + v.video.output + "' is the input video: name another file");
      for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"--quality", &v.encoder.quality},
                                        {"--bitrate", &v.encoder.bitrate},
                                        {"--preset", &v.encoder.preset}})
        if (c->count(name) && value->empty())
          throw std::invalid_argument(std::string(name) +
                                      " is empty: give a value (convlive export --help lists them)");
      return runExport(v.video, filter, v.encoder, !v.noAudio, out, err);
    }
    return runViewer(v.video, filter, v.viewer, out, err);
  });
}

}  // namespace

LegacyTranslation translateLegacy(const std::vector<std::string>& args) {
  LegacyTranslation t;
  const std::string prog = args.empty() ? "convlive" : args[0];
  if (args.size() < 2) {
    t.args = {prog, "view"};
    return t;
  }
  const std::string& first = args[1];
  if (isCommand(first) || first == "-h" || first == "--help" || first == "--version" || first[0] != '-') {
    t.args = args;
    return t;
  }
  // Options first: the old forms, where flags chose the mode.
  std::vector<std::string> rest;
  std::vector<std::string> command;
  std::vector<std::string> modes;
  std::string image, output;
  bool hasInput = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string name = a.substr(0, a.find('='));
    auto value = [&]() -> std::string {
      if (a.find('=') != std::string::npos) return a.substr(a.find('=') + 1);
      return i + 1 < args.size() ? args[++i] : "";
    };
    if (name == "--list-variants")
      modes.push_back(a), command = {"list", "variants"};
    else if (name == "--list-patterns")
      modes.push_back(a), command = {"list", "patterns"};
    else if (name == "--list-cameras")
      modes.push_back(a), command = {"list", "cameras"};
    else if (name == "--tune")
      modes.push_back(a), command = {"tune"};
    else if (name == "--headless")
      modes.push_back(a), command = {"run"};
    else if (name == "--demo")
      modes.push_back(name), command = {"demo", value()};
    else if (name == "--image")
      modes.push_back(name), image = value();
    else {
      if (name == "--output") {
        output = value();
        rest.push_back("--output");
        rest.push_back(output);
        continue;
      }
      hasInput |= name == "--input";
      rest.push_back(a);
    }
  }
  const auto lower = [](std::string s) {
    for (char& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  const bool png = output.size() >= 4 && lower(output.substr(output.size() - 4)) == ".png";
  if (!image.empty() || (png && modes.empty())) {
    if (hasInput) {
      t.error = "--input names a video source and --image a picture: give one (convlive image IN.png OUT.png)";
      return t;
    }
    command = {"image"};
    if (!image.empty()) rest.insert(rest.begin(), {"--input", image});
    if (std::find(modes.begin(), modes.end(), "--image") == modes.end()) modes.push_back("--output " + output);
  } else if (!output.empty() && modes.empty()) {
    command = {"export"};
    modes.push_back("--output");
  }
  if (modes.size() > 1) {
    t.error = joinNames(modes, " and ") + " ask for different commands: give one";
    return t;
  }
  if (command.empty()) command = {"view"};  // options for the default command: the new form too
  t.args = {prog};
  t.args.insert(t.args.end(), command.begin(), command.end());
  t.args.insert(t.args.end(), rest.begin(), rest.end());
  if (!modes.empty())
    t.note = "note: `convlive " + modes.front() + " ...` is the old form of `convlive " + joinNames(command, " ") +
             " ...`; the old forms work until the next release";
  return t;
}

int runCommandLine(const std::vector<std::string>& given, std::ostream& out, std::ostream& err) {
  const LegacyTranslation t = translateLegacy(given);
  if (!t.error.empty()) {
    err << "convlive: " << t.error << "\n";
    return kBadInput;
  }
  if (!t.note.empty()) err << t.note << "\n";
  const std::vector<std::string>& args = t.args;

  Values v;
  CLI::App app{"convlive: real-time video filtering with CUDA convolution kernels", "convlive"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", versionText, "print the version, the CUDA runtime and the GPU, then exit");
  const std::string footer(
      "Commands (convlive COMMAND --help for each one's options):\n"
      "  convlive                                              the viewer on the moving test pattern\n"
      "  convlive view --input clip.webm --mask sobel --split  a video file in the viewer\n"
      "  convlive view --offscreen --frames 60 --screenshot v.png   no window: draw offscreen (EGL)\n"
      "  convlive run --frames 300 --mask gaussian --radius 4  headless: a summary of every stage\n"
      "  convlive export --input clip.mp4 --output out.webm --radius 8   filter a video into a file\n"
      "  convlive image in.png out.png --mask sharpen          one picture\n"
      "  convlive list variants | patterns | cameras | devices what there is\n"
      "  convlive list variants --details --radius 4          each variant's launch, work per pixel and time\n"
      "  convlive bench --sizes 3840x2160                      the kernel benchmark (convlive-bench)\n"
      "  convlive tune                                         measure which variant auto picks here\n"
      "  convlive run --device 1 --input clip.mp4              any command that uses the GPU, on GPU 1\n"
      "  convlive demo DIR                                     a test picture and filtered versions of it");

  CLI::App* view = app.add_subcommand("view", "the viewer: a window, or offscreen through EGL (the default)");
  addSourceOptions(view, v);
  addFilterOptions(view, v);
  addLimits(view, v, true);
  {
    const char* g = "Viewer";
    view->add_flag("--offscreen", v.viewer.offscreen, "draw offscreen (EGL) instead of in a window")->group(g);
    view->add_option("--screenshot", v.viewer.screenshot, "write a PNG of the window at the end")->group(g);
    view->add_flag("!--no-vsync", v.viewer.vsync, "draw as fast as possible instead of at the display's rate")
        ->group(g);
    view->add_option("--window-size", v.viewer.windowSize, "window size WxH")->capture_default_str()->group(g);
    view->add_flag("--split", v.viewer.split, "start in split view (original | filtered)")->group(g);
    view->add_flag("--overlay", v.viewer.overlay,
                   "start with the block-grid overlay on (key o): the running variant's thread blocks, the apron "
                   "and idle threads of the tile under the cursor")
        ->group(g);
    view->add_option("--view", v.viewer.view, "fit, fill or 1:1")
        ->check(CLI::IsMember({"fit", "fill", "1:1"}))
        ->capture_default_str()
        ->group(g);
    view->add_flag("--loop", v.video.loop, "start again at the end of the source")->group(g);
    addInputFormat(view, v, g);
    addDeviceOption(view, v, g);
  }

  CLI::App* run = app.add_subcommand("run", "headless: the pipeline with no display, then a summary of each stage");
  addSourceOptions(run, v);
  addFilterOptions(run, v);
  addLimits(run, v, true);
  {
    const char* g = "Run";
    run->add_option("--slots", v.video.slots, "pinned slots in the ring: frames in flight (1..16)")
        ->capture_default_str()
        ->group(g);
    run->add_flag("--pageable", v.video.pageable, "upload from pageable memory instead of pinned slots")->group(g);
    run->add_flag("--copy-to-pinned", v.video.copyToPinned,
                  "copy each frame into a pinned slot instead of page-locking GStreamer's buffers")
        ->group(g);
    run->add_option("--sink", v.video.sink, "null drops filtered frames on the GPU; download brings them back")
        ->check(CLI::IsMember({"null", "download"}))
        ->capture_default_str()
        ->group(g);
    run->add_flag("--no-overlap", v.video.noOverlap, "finish each frame before starting the next")->group(g);
    run->add_flag("--realtime", v.video.realtime, "pace frames to the source's clock")->group(g);
    run->add_flag("--loop", v.video.loop, "start again at the end of the source")->group(g);
    run->add_flag("--decode-only", v.video.decodeOnly, "only take frames from the source (its own rate)")->group(g);
    addInputFormat(run, v, g);
    addDeviceOption(run, v, g);
  }

  CLI::App* exp = app.add_subcommand("export", "filter a video into a file (.webm VP8, .mkv, .mp4 H.264, .avi MJPEG)");
  addSourceOptions(exp, v);
  addFilterOptions(exp, v);
  addLimits(exp, v, false);
  exp->add_option("-o,--output", v.video.output, "the video file to write (written to a temporary, then renamed)")
      ->group("Export");
  exp->add_flag("--loop", v.video.loop, "start again at the end of the source (with --frames or --seconds)")
      ->group("Export");
  addEncoderOptions(exp, v);
  addInputFormat(exp, v, "Export");
  addDeviceOption(exp, v, "Export");

  CLI::App* image = app.add_subcommand(
      "image", "filter one picture in its own type (PNG, JPEG, TIFF or .npy in; PNG, JPEG, TIFF or .npy out)");
  image->add_option("--input,input", v.input,
                    "the picture to filter: PNG (grey, RGB, RGBA; 8 or 16 bits, kept), JPEG (grey or colour), TIFF "
                    "(8- and 16-bit, float16 and float32; grey, RGB, RGBA; kept) or .npy (uint8, uint16, float16, "
                    "float32; (H, W) or (H, W, C), C 1, 3 or 4)");
  image->add_option("--output,output", v.output,
                    "the picture to write: .png, .jpg/.jpeg, .tif/.tiff or .npy (the format follows the extension; "
                    "the type and channels are the input's; written to a temporary, then renamed)");
  image->add_option("--quality", v.quality, "JPEG quality 1..100 (JPEG output only)")->capture_default_str();
  image->add_flag("--float", v.floatOutput,
                  "write an 8-bit picture's result as f32 values (.npy or .tif): the filtered sums on its 0..255 "
                  "scale, neither rounded nor clamped");
  image
      ->add_option("--max-pixels", v.maxPixels,
                   "the most pixels (width x height) the input may have; a larger one is refused before it is decoded")
      ->capture_default_str()
      ->check(
          [](const std::string& text) -> std::string {
            std::uint64_t n = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            if (ec == std::errc() && end == text.data() + text.size() && n > 0) return {};
            return "'" + text + "' is not a pixel count: give a whole number from 1 (the default is " +
                   std::to_string(kDefaultMaxPixels) + ")";
          },
          "PIXELS");
  addDeviceOption(image, v, "Options");
  addFilterOptions(image, v);

  CLI::App* list = app.add_subcommand(
      "list", "print the variants (with limits and tiles), the test patterns, the cameras or the CUDA devices");
  list->add_option("what", v.listWhat, "variants, patterns, cameras or devices")
      ->check(CLI::IsMember({"variants", "patterns", "cameras", "devices"}))
      ->capture_default_str();
  addDeviceOption(list, v, "Options");
  {
    const char* g = "Details (list variants --details)";
    list->add_flag("--details", v.listDetails,
                   "per variant: launch geometry, occupancy (with a GPU), work per output pixel and a measured time")
        ->group(g);
    list->add_option("--size", v.details.size, "the frame size WxH the figures are for")
        ->capture_default_str()
        ->group(g);
    list->add_option("--frames", v.details.frames,
                     "their pixel type and channels: u8x4 (RGBA8), or u8, u16, f16, f32 x 1, 3, 4 (u16x1: 16-bit "
                     "grey); the kernels for those frames (timed on u8x4 only)")
        ->capture_default_str()
        ->group(g);
    list->add_option("--report", v.details.report, "write the figures to this JSON file")->group(g);
    addFilterOptions(list, v);
  }

  CLI::App* bench = app.add_subcommand("bench", "the kernel benchmark: its options follow (convlive bench --help)");
  bench->prefix_command();
  bench->set_help_flag();
  CLI::App* tune =
      app.add_subcommand("tune", "time the fast variants on this GPU for common sizes and masks, fill auto's cache");
  addDeviceOption(tune, v, "Options");
  CLI::App* demo = app.add_subcommand("demo", "write a test picture and filtered versions of it into a folder");
  demo->add_option("dir", v.demoDir, "the folder (made when missing)")->required();
  addDeviceOption(demo, v, "Options");

  app.footer(footer);                                                 // after the commands: they would inherit it
  std::vector<std::string> reversed(args.rbegin(), args.rend() - 1);  // CLI11 takes them last first
  const std::string command = args.size() > 1 ? args[1] : "view";
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, out, err);
    if (!isCommand(command)) {
      err << "convlive: '" << command << "' is not a command: use one of " << joinNames(commandNames()) << "\n";
      return kBadInput;
    }
    err << "convlive: " << explainParseError(app, command, args, e) << "\n";
    return kBadInput;
  }
  if (command == "bench") v.benchArgs = bench->remaining();
  return dispatch(app, command, v, out, err);
}

}  // namespace convlive
