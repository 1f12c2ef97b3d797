#include "viewer.hpp"

#include <GL/glew.h>
// GLEW before GLFW and ImGui's backends.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include "convlive/resources.hpp"
#include "gl/frame_texture.hpp"
#include "gl/resources.hpp"
#include "image_io.hpp"
#include "panel.hpp"
#include "renderer.hpp"
#include "run_report.hpp"
#include "still.hpp"

namespace convlive {
namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// ImGui's context and its GLFW (windows only) and OpenGL 3 backends, shut down in reverse order.
class ImGuiSession {
 public:
  explicit ImGuiSession(GLFWwindow* window) : window_(window) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is fixed: no imgui.ini beside the user's files
    ImGui::StyleColorsDark();
    ImGui::GetStyle().WindowRounding = 0;
    if (window_ && !ImGui_ImplGlfw_InitForOpenGL(window_, true)) {
      ImGui::DestroyContext();
      throw GlError("ImGui's GLFW backend did not start");
    }
    if (!ImGui_ImplOpenGL3_Init("#version 330")) {
      if (window_) ImGui_ImplGlfw_Shutdown();
      ImGui::DestroyContext();
      throw GlError("ImGui's OpenGL 3 backend did not start (it needs OpenGL 3.3 core)");
    }
  }
  ~ImGuiSession() {
    ImGui_ImplOpenGL3_Shutdown();
    if (window_) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;

 private:
  GLFWwindow* window_;
};

constexpr int kQueries = 4;

// Framebuffer pixels per ImGui unit (1 before the backend has said).
float framebufferScale(float s) { return s > 0 ? s : 1; }

}  // namespace

struct Viewer::Gl {
  explicit Gl(GLFWwindow* window) : imgui(window) {
    for (auto& q : queries) q = makeQuery();
  }
  ImGuiSession imgui;
  Renderer renderer;
  FrameTexture filtered, original;
  Panel panel;
  GlQuery queries[kQueries];
  bool pending[kQueries] = {};
  std::uint64_t passes = 0;
  bool newFrame = false;
};

const char* viewerStageName(ViewerStage s) {
  switch (s) {
    case ViewerStage::Present:
      return "present (cpu)";
    case ViewerStage::Panel:
      return "panel (cpu)";
    case ViewerStage::Draw:
      return "draw (cpu)";
    case ViewerStage::DrawGpu:
      return "draw (gpu)";
    case ViewerStage::Interval:
      return "frame interval";
    case ViewerStage::Count:
      break;
  }
  return "?";
}

Viewer::Viewer(GlContext& context, const PipelineConfig& config, const FilterSpec& filter,
               const ViewerOptions& options)
    : context_(context), config_(config), options_(options) {
  for (int i = 0; i < int(ViewerStage::Count); ++i) stats_[i] = StageStats(viewerStageName(ViewerStage(i)));
  gl_ = std::make_unique<Gl>(context_.window());
  config_.params = filter.params();
  config_.variant = filter.variant;
  pipeline_ = std::make_unique<Pipeline>(config_, static_cast<FrameSink&>(*this));
  filter_ = std::make_unique<FilterController>(*pipeline_, filter);
  if (deviceInfo().available) copyGBs_ = measureCopyBandwidthGBs();
  started_ = lastSwap_ = Clock::now();
}

Viewer::~Viewer() {
  try {
    if (pipeline_) pipeline_->drain();  // copies into the textures finish before they go
  } catch (...) {
  }
  filter_.reset();
  pipeline_.reset();
}

std::string Viewer::presentPath() const {
  const FrameTexture& t = gl_->filtered;
  if (t.empty()) return "no frame yet";
  if (t.interop()) return "CUDA-GL interop (map, copy on the frame's stream, unmap)";
  if (!t.interopNote().empty()) return t.interopNote();
  return "host frames (cpu variant) uploaded with glTexSubImage2D";
}

void Viewer::present(const OutputFrame& f) {
  const auto t0 = Clock::now();
  if (f.onDevice) {
    gl_->filtered.writeFromDevice(f.filtered, f.stream);
    if (view_.split()) gl_->original.writeFromDevice(f.source, f.stream);
  } else {
    gl_->filtered.writeFromHost(f.filtered);
    if (view_.split()) gl_->original.writeFromHost(f.source);
  }
  stats_[int(ViewerStage::Present)].add(msSince(t0));
  gl_->newFrame = true;
  if (options_.keepSourceFrames) {
    const ConstImageView s = f.sourceHost;
    shownSource_ = HostImage(s.width, s.height);
    for (int y = 0; y < s.height; ++y)
      std::copy_n(s.row(y), std::size_t(s.width) * 4, shownSource_.pixels().data() + shownSource_.pitch() * y);
    shownParams_ = pipeline_->filterParams();
    shownVariant_ = pipeline_->variantName();
  }
}

HostImage Viewer::readFilteredTexture() const { return gl_->filtered.read(); }

void Viewer::apply(Action a) {
  switch (a) {
    case Action::TogglePause:
      pipeline_->setPaused(!pipeline_->paused());
      break;
    case Action::SeekBack:
    case Action::SeekForward: {
      if (!pipeline_->sourceInfo().seekable) {
        status_ = "this source cannot seek (a live source or a test pattern)";
        break;
      }
      double to = std::max(0.0, pipeline_->positionSeconds() + (a == Action::SeekBack ? -5 : 5));
      const double duration = pipeline_->sourceInfo().durationSeconds;
      if (duration > 0) to = std::min(to, std::max(0.0, duration - 0.1));
      pipeline_->seek(to);
      break;
    }
    case Action::RadiusUp:
      status_ = filter_->changeRadius(1);
      break;
    case Action::RadiusDown:
      status_ = filter_->changeRadius(-1);
      break;
    case Action::NextVariant:
      status_ = filter_->cycleVariant(1);
      break;
    case Action::PreviousVariant:
      status_ = filter_->cycleVariant(-1);
      break;
    case Action::NextMask:
      status_ = filter_->cycleMask(1);
      break;
    case Action::PreviousMask:
      status_ = filter_->cycleMask(-1);
      break;
    case Action::NextTile:
      status_ = filter_->cycleTile(1);
      break;
    case Action::ToggleSplit:
      view_.setSplit(!view_.split());
      break;
    case Action::CycleFit:
      view_.setMode(view_.mode() == FitMode::Fit    ? FitMode::Fill
                    : view_.mode() == FitMode::Fill ? FitMode::OneToOne
                                                    : FitMode::Fit);
      break;
    case Action::ToggleFullscreen:
      if (!context_.setFullscreen(!context_.fullscreen())) status_ = "fullscreen needs a window (this one is headless)";
      break;
    case Action::TogglePanel:
      showPanel_ = !showPanel_;
      break;
    case Action::ToggleHelp:
      showHelp_ = !showHelp_;
      break;
    case Action::Screenshot:
      screenshotKey_ = true;
      captureRequested_ = true;
      break;
    case Action::Quit:
      quit_ = true;
      break;
  }
}

void Viewer::handleInput() {
  ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureKeyboard) {
    struct Binding {
      int key;
      Action action, shifted;
    };
    static constexpr Binding bindings[] = {
        {GLFW_KEY_SPACE, Action::TogglePause, Action::TogglePause},
        {GLFW_KEY_LEFT, Action::SeekBack, Action::SeekBack},
        {GLFW_KEY_RIGHT, Action::SeekForward, Action::SeekForward},
        {GLFW_KEY_UP, Action::RadiusUp, Action::RadiusUp},
        {GLFW_KEY_DOWN, Action::RadiusDown, Action::RadiusDown},
        {GLFW_KEY_V, Action::NextVariant, Action::PreviousVariant},
        {GLFW_KEY_M, Action::NextMask, Action::PreviousMask},
        {GLFW_KEY_T, Action::NextTile, Action::NextTile},
        {GLFW_KEY_C, Action::ToggleSplit, Action::ToggleSplit},
        {GLFW_KEY_Z, Action::CycleFit, Action::CycleFit},
        {GLFW_KEY_S, Action::Screenshot, Action::Screenshot},
        {GLFW_KEY_F, Action::ToggleFullscreen, Action::ToggleFullscreen},
        {GLFW_KEY_TAB, Action::TogglePanel, Action::TogglePanel},
        {GLFW_KEY_H, Action::ToggleHelp, Action::ToggleHelp},
        {GLFW_KEY_Q, Action::Quit, Action::Quit},
        {GLFW_KEY_ESCAPE, Action::Quit, Action::Quit},
    };
    for (const Binding& b : bindings) {
      const bool repeat = b.key == GLFW_KEY_UP || b.key == GLFW_KEY_DOWN;
      if (ImGui::IsKeyPressed(b.key, repeat)) apply(io.KeyShift ? b.shifted : b.action);
    }
  }
  // Mouse, in framebuffer pixels (they differ from ImGui's units on high-DPI screens).
  const float sx = framebufferScale(io.DisplayFramebufferScale.x), sy = framebufferScale(io.DisplayFramebufferScale.y);
  const double mx = io.MousePos.x * sx, my = io.MousePos.y * sy;
  if (!io.MouseDown[0]) draggingDivider_ = false;
  if (io.WantCaptureMouse || !ImGui::IsMousePosValid()) return;
  const FrameTexture& t = gl_->filtered;
  if (io.MouseWheel != 0 && area_.contains(mx, my) && !t.empty())
    view_.zoomAt(area_, t.width(), t.height(), mx, my, std::pow(1.15, io.MouseWheel));
  if (ImGui::IsMouseDoubleClicked(0) && area_.contains(mx, my)) view_.reset();
  if (ImGui::IsMouseClicked(0) && view_.nearDivider(area_, mx, my)) draggingDivider_ = true;
  if (draggingDivider_) {
    if (area_.w > 0) view_.setDivider((mx - area_.x) / area_.w);
  } else if (io.MouseDown[0] && area_.contains(mx, my)) {
    view_.panBy(io.MouseDelta.x * sx, io.MouseDelta.y * sy);
  }
}

void Viewer::layout(int fbW, int fbH) {
  const float sx = framebufferScale(ImGui::GetIO().DisplayFramebufferScale.x);
  const double panelPx = showPanel_ ? std::min<double>(options_.panelWidth * sx, fbW * 0.6) : 0;
  area_ = Rect{0, 0, std::max(1.0, fbW - panelPx), double(fbH)};
  const FrameTexture& t = gl_->filtered;
  frameRect_ = t.empty() ? Rect{} : view_.frameRect(area_, t.width(), t.height());
}

bool Viewer::frame() {
  context_.pollEvents();
  if (context_.shouldClose()) quit_ = true;
  // The newest frames: take what has arrived (each is written into the texture as it is filtered).
  gl_->newFrame = false;
  try {
    // Frames queued behind the newest are filtered and written too (the GPU path costs little a
    // frame), so the newest is the one drawn; a slow filter (the cpu variant) takes one a pass.
    const auto firstWait = std::chrono::milliseconds(context_.headless() ? 20 : 2);
    const auto stepsStart = Clock::now();
    for (int i = 0; i < 8 && (i == 0 || msSince(stepsStart) < 8); ++i) {
      const StepResult r = pipeline_->step(i == 0 ? firstWait : std::chrono::milliseconds(0));
      if (r == StepResult::EndOfStream) ended_ = true;
      if (r == StepResult::Frame) ended_ = false;
      if (r != StepResult::Frame) break;
    }
  } catch (const std::exception& e) {
    status_ = e.what();
  }
  if (gl_->newFrame) ++framesShown_;
  const double elapsed = std::chrono::duration<double>(Clock::now() - started_).count();
  const bool last = quit_ || (options_.frames > 0 && framesShown_ >= std::uint64_t(options_.frames)) ||
                    (options_.seconds > 0 && elapsed >= options_.seconds) || (ended_ && options_.quitAtEnd);
  if (last && !options_.screenshot.empty()) captureRequested_ = true;

  int fbW = 0, fbH = 0;
  context_.framebufferSize(fbW, fbH);
  const auto panelStart = Clock::now();
  ImGui_ImplOpenGL3_NewFrame();
  if (context_.window()) {
    ImGui_ImplGlfw_NewFrame();
  } else {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(float(fbW), float(fbH));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = std::max(1e-4f, float(std::chrono::duration<double>(Clock::now() - lastSwap_).count()));
  }
  ImGui::NewFrame();
  handleInput();
  layout(fbW, fbH);
  if (showPanel_ || showHelp_) gl_->panel.draw(*this, float(options_.panelWidth));
  ImGui::Render();
  stats_[int(ViewerStage::Panel)].add(msSince(panelStart));

  // Draw, timed on the GPU with a query read a few passes later.
  const auto drawStart = Clock::now();
  const int q = int(gl_->passes++ % kQueries);
  if (gl_->pending[q]) {
    GLint available = 0;
    glGetQueryObjectiv(gl_->queries[q].get(), GL_QUERY_RESULT_AVAILABLE, &available);
    if (available) {
      GLuint64 ns = 0;
      glGetQueryObjectui64v(gl_->queries[q].get(), GL_QUERY_RESULT, &ns);
      // Mesa's llvmpipe answers its first elapsed-time query with a timestamp (seen: 4e12 ns): a
      // draw never takes a second, so such a result is dropped rather than plotted.
      if (ns < 1'000'000'000ull) stats_[int(ViewerStage::DrawGpu)].add(double(ns) / 1e6);
    }
  }
  glBeginQuery(GL_TIME_ELAPSED, gl_->queries[q].get());
  glDisable(GL_SCISSOR_TEST);
  glViewport(0, 0, fbW, fbH);
  glClearColor(0.06f, 0.06f, 0.07f, 1.f);
  glClear(GL_COLOR_BUFFER_BIT);
  const FrameTexture& t = gl_->filtered;
  const bool split = view_.split() && !gl_->original.empty() && gl_->original.width() == t.width() &&
                     gl_->original.height() == t.height();
  try {
    gl_->renderer.draw(fbW, fbH, area_, frameRect_, t, split ? &gl_->original : nullptr,
                       split ? view_.dividerX(area_) : -1);
  } catch (const std::exception& e) {
    status_ = e.what();
  }
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  glEndQuery(GL_TIME_ELAPSED);
  gl_->pending[q] = true;
  stats_[int(ViewerStage::Draw)].add(msSince(drawStart));

  if (captureRequested_) {
    captureRequested_ = false;
    HostImage shot(fbW, fbH);
    std::vector<std::uint8_t> rows(std::size_t(fbW) * fbH * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, fbW, fbH, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
    for (int y = 0; y < fbH; ++y)  // GL's rows start at the bottom
      std::copy_n(rows.data() + std::size_t(fbH - 1 - y) * fbW * 4, std::size_t(fbW) * 4,
                  shot.pixels().data() + shot.pitch() * y);
    for (std::size_t i = 3; i < shot.pixels().size(); i += 4) shot.pixels()[i] = 255;
    captured_ = std::move(shot);
    if (screenshotKey_) {
      screenshotKey_ = false;
      char stamp[32];
      const std::time_t now = std::time(nullptr);
      std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
      status_ = writeScreenshot(
          options_.screenshotDir + "/convlive-" + stamp + "-" + std::to_string(++screenshots_) + ".png", captured_);
    }
  }
  context_.swapBuffers();
  const auto now = Clock::now();
  stats_[int(ViewerStage::Interval)].add(std::chrono::duration<double, std::milli>(now - lastSwap_).count());
  lastSwap_ = now;
  if (last) quit_ = true;
  return !quit_;
}

std::string Viewer::writeScreenshot(const std::string& path, const HostImage& image) {
  try {
    writePng(path, image);
    return "screenshot written to " + path;
  } catch (const std::exception& e) {
    return std::string("screenshot not written: ") + e.what();
  }
}

std::string Viewer::viewerJson() const {
  using nlohmann::json;
  return json{{"context", context_.description()}, {"present_path", presentPath()}, {"frames_shown", framesShown_},
              {"copy_bandwidth_gbs", copyGBs_},    {"split", view_.split()},        {"stages", stagesJson(stats_)}}
      .dump();
}

int Viewer::run(std::ostream& log, std::ostream& err) {
  InterruptGuard interrupt;
  started_ = lastSwap_ = Clock::now();
  log << "viewer: " << context_.description() << "\n";
  while (frame()) {
    if (interrupt.interrupted()) {
      err << "convlive: interrupted\n";
      break;
    }
  }
  pipeline_->drain();
  const double wall = std::chrono::duration<double>(Clock::now() - started_).count();
  log << "frames shown: " << framesShown_ << " in " << std::fixed << std::setprecision(2) << wall << " s; "
      << presentPath() << "\n";
  printSummary(log, *pipeline_, config_, wall);
  printStageRows(log, stats_);
  int code = kOk;
  if (!options_.screenshot.empty()) {
    if (hasCapture()) {
      const std::string m = writeScreenshot(options_.screenshot, captured_);
      (m.rfind("screenshot written", 0) == 0 ? log : err) << m << "\n";
      if (m.rfind("screenshot written", 0) != 0) code = kFailed;
    } else {
      err << "convlive: no screenshot: the viewer closed before drawing a frame\n";
      code = kFailed;
    }
  }
  if (!options_.report.empty()) {
    writeReport(options_.report, *pipeline_, config_, wall, ended_ ? "end of stream" : "closed", "viewer", "viewer",
                viewerJson());
    log << "report: " << options_.report << "\n";
  }
  return code;
}

}  // namespace convlive
