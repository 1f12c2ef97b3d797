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
#include <iomanip>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "copy_bandwidth.hpp"
#include "gl/frame_texture.hpp"
#include "gl/present_stream.hpp"
#include "gpu_timer.hpp"
#include "overlay_painter.hpp"
#include "panel.hpp"
#include "renderer.hpp"
#include "run_report.hpp"
#include "still.hpp"

namespace convlive {
namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// ImGui's context and its GLFW (windows only) and OpenGL 3 backends, shut down in reverse order.
// The window's key presses into the viewer's KeyQueue (a press and a repeat, with shift).
void onKey(GLFWwindow* window, int key, int /*scancode*/, int action, int mods) {
  auto* keys = static_cast<KeyQueue*>(glfwGetWindowUserPointer(window));
  if (keys && (action == GLFW_PRESS || action == GLFW_REPEAT))
    keys->press(key, (mods & GLFW_MOD_SHIFT) != 0, action == GLFW_REPEAT);
}

class ImGuiContextOwner {
 public:
  // `keys`: where the window's key presses go (installed before ImGui's backend, which calls it
  // from its own key callback).
  ImGuiContextOwner(GLFWwindow* window, KeyQueue& keys) : window_(window) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is fixed: no imgui.ini beside the user's files
    ImGui::StyleColorsDark();
    ImGui::GetStyle().WindowRounding = 0;
    if (window_) {
      glfwSetWindowUserPointer(window_, &keys);
      glfwSetKeyCallback(window_, onKey);
    }
    if (window_ && !ImGui_ImplGlfw_InitForOpenGL(window_, true)) {
      ImGui::DestroyContext();
      throw GlError("ImGui's GLFW backend did not start");
    }
    if (!window_) mapKeysLikeGlfw(io);
    if (!ImGui_ImplOpenGL3_Init("#version 330")) {
      if (window_) ImGui_ImplGlfw_Shutdown();
      ImGui::DestroyContext();
      throw GlError("ImGui's OpenGL 3 backend did not start (it needs OpenGL 3.3 core)");
    }
  }
  ~ImGuiContextOwner() {
    ImGui_ImplOpenGL3_Shutdown();
    if (window_) {
      ImGui_ImplGlfw_Shutdown();  // puts onKey back
      glfwSetKeyCallback(window_, nullptr);
      glfwSetWindowUserPointer(window_, nullptr);
    }
    ImGui::DestroyContext();
  }
  ImGuiContextOwner(const ImGuiContextOwner&) = delete;
  ImGuiContextOwner& operator=(const ImGuiContextOwner&) = delete;

 private:
  // Without a window (EGL) keys come only from InjectedInput, in GLFW's codes, as in a window:
  // ImGui's own keys (Enter in a text box, Tab, arrows) are mapped as the GLFW backend maps them.
  static void mapKeysLikeGlfw(ImGuiIO& io) {
    const std::pair<ImGuiKey, int> keys[] = {
        {ImGuiKey_Tab, GLFW_KEY_TAB},
        {ImGuiKey_LeftArrow, GLFW_KEY_LEFT},
        {ImGuiKey_RightArrow, GLFW_KEY_RIGHT},
        {ImGuiKey_UpArrow, GLFW_KEY_UP},
        {ImGuiKey_DownArrow, GLFW_KEY_DOWN},
        {ImGuiKey_Home, GLFW_KEY_HOME},
        {ImGuiKey_End, GLFW_KEY_END},
        {ImGuiKey_Delete, GLFW_KEY_DELETE},
        {ImGuiKey_Backspace, GLFW_KEY_BACKSPACE},
        {ImGuiKey_Space, GLFW_KEY_SPACE},
        {ImGuiKey_Enter, GLFW_KEY_ENTER},
        {ImGuiKey_Escape, GLFW_KEY_ESCAPE},
        {ImGuiKey_KeyPadEnter, GLFW_KEY_KP_ENTER},
    };
    for (const auto& [imgui, glfw] : keys) io.KeyMap[imgui] = glfw;
  }
  GLFWwindow* window_;
};

// Framebuffer pixels per ImGui unit (1 before the backend has said).
float framebufferScale(float s) { return s > 0 ? s : 1; }

}  // namespace

struct Viewer::Gl {
  Gl(GLFWwindow* window, KeyQueue& keys) : imgui(window, keys) {}
  ~Gl() { present.synchronize(); }  // copies into the textures finish before they go
  ImGuiContextOwner imgui;
  Renderer renderer;
  FrameTexture filtered, original;
  PresentStream present;  // after the textures: destroyed (and synchronized) first
  GpuTimer drawTimer;
  Panel panel;
};

const char* viewerStageName(ViewerStage s) {
  switch (s) {
    case ViewerStage::Present:
      return "present (cpu)";
    case ViewerStage::PresentGpu:  // the interop copies into the display textures, on the GPU
      return "present (gpu)";
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

Viewer::Viewer(GlContext& context, const PipelineConfig& config, const FilterSpec& filter, const ViewerOptions& options)
    : context_(context), config_(config), options_(options), screenshots_(options.screenshotDir) {
  for (int i = 0; i < int(ViewerStage::Count); ++i) stats_[i] = StageStats(viewerStageName(ViewerStage(i)));
  gl_ = std::make_unique<Gl>(context_.window(), keys_);
  config_.params = filter.params();
  config_.variant = filter.variant;
  worker_ = std::make_unique<PipelineWorker>(config_, mailbox_, options_.keepSourceFrames);
  filter_ = std::make_unique<FilterController>(worker_->pipeline(), filter);
  overlay_.setOn(options_.overlay);
  copyGBs_ = deviceCopyBandwidthGBs();
  started_ = lastSwap_ = Clock::now();
  worker_->start();
}

Viewer::~Viewer() {
  // The worker first: it may be waiting for this thread to present a device frame (stop() closes
  // the mailbox, which lets it go) and its pipeline's frames may still be copying.
  if (worker_) worker_->stop();
  gl_.reset();
  filter_.reset();
  worker_.reset();
}

std::string Viewer::presentPath() const {
  const FrameTexture& t = gl_->filtered;
  if (t.empty()) return "no frame yet";
  const std::string into =
      std::string(" into ") + texelsName(t.texels()) + " textures" + (t.texels() == Texels::Rgba8 ? "" : " shown grey");
  if (t.interop()) return "CUDA-GL interop (map, copy on the present stream in frame order, unmap)" + into;
  if (!t.interopNote().empty()) return t.interopNote() + "; frames go" + into;
  return "host frames (CPU variant) uploaded with glTexSubImage2D" + into;
}

void Viewer::keepFacts(FrameFacts& facts) {
  if (options_.keepSourceFrames) shownSource_ = std::move(facts.sourceHost);
  shownParams_ = std::move(facts.params);
  shownVariant_ = std::move(facts.variant);
}

namespace {
// A grey frame as a display texture takes it: one channel of 8 or 16 bits.
TextureFrame greyTexels(const void* data, const ImageDesc& d) {
  return {data, d.width, d.height, d.rowPitch(), d.type == PixelType::U16 ? Texels::Grey16 : Texels::Grey8};
}
}  // namespace

void Viewer::presentHost(HostFrame& f) {
  if (!f.filteredGrey.bytes.empty()) {  // grey frames as they are (filtered on the CPU, not expanded)
    shownImage_ = f.filteredGrey.desc;
    gl_->filtered.writeFromHost(greyTexels(f.filteredGrey.bytes.data(), f.filteredGrey.desc));
    if (view_.split() && !f.sourceGrey.bytes.empty())
      gl_->original.writeFromHost(greyTexels(f.sourceGrey.bytes.data(), f.sourceGrey.desc));
  } else {
    shownImage_ = ImageDesc::rgba8(f.filtered.width(), f.filtered.height());
    gl_->filtered.writeFromHost(f.filtered.view());
    if (view_.split() && !f.source.pixels().empty()) gl_->original.writeFromHost(f.source.view());
  }
  keepFacts(f.facts);
}

void Viewer::presentDevice(const DeviceFrame& d) {
  const OutputFrame& f = *d.frame;
  PresentStream::Write writes[] = {{&gl_->filtered, f.filtered}, {&gl_->original, f.source}};
  shownImage_ = f.filteredGrey != nullptr ? f.greyDesc : ImageDesc::rgba8(f.filtered.width, f.filtered.height);
  if (f.filteredGrey != nullptr) {  // grey frames as they are (the pipeline did not expand them)
    writes[0].frame = greyTexels(f.filteredGrey, f.greyDesc);
    writes[1].frame = greyTexels(f.sourceGrey, f.greyDesc);
  }
  gl_->present.present(std::span(writes, view_.split() ? 2 : 1), f.stream);
  FrameFacts facts = d.facts;
  keepFacts(facts);
}

// The finished frames: a device frame the worker is waiting on, and the newest host frame.
bool Viewer::takeFrames() {
  mailbox_.waitForFrame(std::chrono::milliseconds(context_.headless() ? 20 : 2));
  const auto t0 = Clock::now();
  bool shown = false;
  try {
    shown = mailbox_.serveDevice([&](const DeviceFrame& d) { presentDevice(d); });
    if (std::optional<HostFrame> h = mailbox_.takeHost()) {
      presentHost(*h);
      shown = true;
    }
  } catch (const std::exception& e) {
    status_.set(e.what());
  }
  if (shown) stats_[int(ViewerStage::Present)].add(msSince(t0));
  if (const auto ms = gl_->present.takeCopyMs()) stats_[int(ViewerStage::PresentGpu)].add(*ms);
  return shown;
}

HostImage Viewer::readFilteredTexture() const {
  gl_->present.synchronize();
  return gl_->filtered.read();
}

Rect Viewer::timingPlotRect() const {
  const PanelRect r = gl_->panel.plotRect();
  const ImGuiIO& io = ImGui::GetIO();
  const double sx = framebufferScale(io.DisplayFramebufferScale.x), sy = framebufferScale(io.DisplayFramebufferScale.y);
  return Rect{r.x * sx, r.y * sy, r.w * sx, r.h * sy};
}

double Viewer::positionSeconds() const {
  const double duration = facts_.source.durationSeconds;
  const double pos = std::max(0.0, facts_.positionSeconds);
  return duration > 0 ? std::min(pos, duration) : pos;
}

void Viewer::setView(FitMode mode, bool split) {
  if (mode != view_.mode()) view_.setMode(mode);
  view_.setSplit(split);
}

void Viewer::apply(Action a) {
  Pipeline& p = pipeline();
  switch (a) {
    case Action::TogglePause:
      p.setPaused(!p.paused());
      break;
    case Action::SeekBack:
    case Action::SeekForward: {
      if (!p.sourceInfo().seekable) {
        status_.set("this source cannot seek (a live source or a test pattern)");
        break;
      }
      double to = std::max(0.0, p.positionSeconds() + (a == Action::SeekBack ? -5 : 5));
      const double duration = p.sourceInfo().durationSeconds;
      if (duration > 0) to = std::min(to, std::max(0.0, duration - 0.1));
      p.seek(to);
      break;
    }
    case Action::RadiusUp:
      status_.set(filter_->changeRadius(1));
      break;
    case Action::RadiusDown:
      status_.set(filter_->changeRadius(-1));
      break;
    case Action::NextVariant:
      status_.set(filter_->cycleVariant(1));
      break;
    case Action::PreviousVariant:
      status_.set(filter_->cycleVariant(-1));
      break;
    case Action::NextMask:
      status_.set(filter_->cycleMask(1));
      break;
    case Action::PreviousMask:
      status_.set(filter_->cycleMask(-1));
      break;
    case Action::NextTile:
      status_.set(filter_->cycleTile(1));
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
      if (!context_.setFullscreen(!context_.fullscreen()))
        status_.set("fullscreen needs a window (this one is headless)");
      break;
    case Action::TogglePanel:
      showPanel_ = !showPanel_;
      break;
    case Action::ToggleHelp:
      showHelp_ = !showHelp_;
      break;
    case Action::Screenshot:
      screenshotKey_ = true;
      capture_.request();
      break;
    case Action::OpenPath:
      showPanel_ = true;
      focusPath_ = true;
      break;
    case Action::ToggleOverlay:
      overlay_.setOn(!overlay_.on());
      break;
    case Action::NextOverlayPass:
      overlay_.setOn(true);
      followShownFrame();  // the passes of what is on screen now, also when the overlay was off
      status_.set(overlay_.nextPass());
      break;
    case Action::Quit:
      quit_ = true;
      break;
  }
}

void Viewer::handleMouse() {
  ImGuiIO& io = ImGui::GetIO();
  // Mouse, in framebuffer pixels (they differ from ImGui's units on high-DPI screens).
  const float sx = framebufferScale(io.DisplayFramebufferScale.x), sy = framebufferScale(io.DisplayFramebufferScale.y);
  const double mx = io.MousePos.x * sx, my = io.MousePos.y * sy;
  if (!io.MouseDown[0]) draggingDivider_ = false;
  cursor_.reset();
  if (io.WantCaptureMouse || !ImGui::IsMousePosValid()) return;
  if (area_.contains(mx, my)) cursor_ = Point{mx, my};
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

void Viewer::followShownFrame() {
  const FrameTexture& t = gl_->filtered;
  // The kernel's grid for the frames as they were filtered (a grey frame's typed kernel).
  overlay_.follow(t.empty() ? nullptr : findVariant(shownVariant_), shownParams_, shownImage_);
}

// The block grid of the frame shown, over the video and under the panel.
void Viewer::drawOverlay() {
  overlayCaption_ = {};
  if (!overlay_.on()) return;
  followShownFrame();
  const FrameTexture& t = gl_->filtered;
  const OverlayView view{t.width(), t.height(), frameRect_, area_, cursor_};
  const OverlayGeometry g = overlay_.geometry(view);
  const ImGuiIO& io = ImGui::GetIO();
  overlayCaption_ =
      paintOverlay(*ImGui::GetBackgroundDrawList(), g, overlay_.caption(g), area_,
                   framebufferScale(io.DisplayFramebufferScale.x), framebufferScale(io.DisplayFramebufferScale.y));
}

void Viewer::gatherFacts() {
  Pipeline& p = pipeline();
  PanelFacts& f = facts_;
  f.source = p.sourceInfo();
  f.timings = p.timings();
  f.frames = shownImage_;
  f.viewerStages.assign(std::begin(stats_), std::end(stats_));
  f.paused = p.paused();
  f.ended = ended_;
  f.loop = config_.loop;
  // The stream time: never past the duration, and the duration itself once the stream has ended
  // (the last frame's time is one frame short of it).
  f.positionSeconds = p.positionSeconds();
  if (ended_ && f.source.durationSeconds > 0) f.positionSeconds = f.source.durationSeconds;
  f.positionSeconds = std::max(0.0, f.positionSeconds);
  if (f.source.durationSeconds > 0) f.positionSeconds = std::min(f.positionSeconds, f.source.durationSeconds);
  f.sourceError = p.lastError();
  f.opening = p.pendingSource();
  const auto now = Clock::now();
  f.status = status_.text(now);
  f.statusOpacity = status_.opacity(now);
  f.presentPath = presentPath();
  f.memoryMode = p.memoryMode();
  f.copyGBs = copyGBs_;
  f.pace = worker_->pace();
  f.fitMode = view_.mode();
  f.split = view_.split();
  f.panelShown = showPanel_;
  f.helpShown = showHelp_;
  f.focusPath = std::exchange(focusPath_, false);
}

bool Viewer::frame() {
  context_.pollEvents();
  if (context_.shouldClose()) quit_ = true;
  worker_->setWantSource(view_.split());
  if (takeFrames()) ++framesShown_;
  if (const std::string e = worker_->takeError(); !e.empty()) status_.set(e);
  ended_ = worker_->ended();
  const double elapsed = std::chrono::duration<double>(Clock::now() - started_).count();
  const bool last = quit_ || (options_.frames > 0 && framesShown_ >= std::uint64_t(options_.frames)) ||
                    (options_.seconds > 0 && elapsed >= options_.seconds) || (ended_ && options_.quitAtEnd);
  if (last && !options_.screenshot.empty()) capture_.request();

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
  input_.feed(keys_);
  if (pointer_) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2(float(pointer_->x / framebufferScale(io.DisplayFramebufferScale.x)),
                         float(pointer_->y / framebufferScale(io.DisplayFramebufferScale.y)));
  }
  ImGui::NewFrame();
  dispatchKeys(keys_, [this](Action a) { apply(a); });
  handleMouse();
  layout(fbW, fbH);
  drawOverlay();
  gatherFacts();
  if (showPanel_ || showHelp_) gl_->panel.draw(*this, float(options_.panelWidth));
  ImGui::Render();
  stats_[int(ViewerStage::Panel)].add(msSince(panelStart));

  // Draw, timed on the GPU with a query read a few passes later.
  const auto drawStart = Clock::now();
  gl_->drawTimer.begin();
  if (const auto ms = gl_->drawTimer.result()) stats_[int(ViewerStage::DrawGpu)].add(*ms);
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
    status_.set(e.what());
  }
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  gl_->drawTimer.end();
  stats_[int(ViewerStage::Draw)].add(msSince(drawStart));

  if (capture_.captureIfRequested(fbW, fbH) && screenshotKey_) {
    screenshotKey_ = false;
    status_.set(screenshots_.writeNext(capture_.image()));
  }
  context_.swapBuffers();
  const auto now = Clock::now();
  stats_[int(ViewerStage::Interval)].add(std::chrono::duration<double, std::milli>(now - lastSwap_).count());
  lastSwap_ = now;
  if (last) quit_ = true;
  return !quit_;
}

std::string Viewer::viewerJson() const {
  using nlohmann::json;
  json overlay{{"on", overlay_.on()}};
  if (overlay_.on()) {  // what it showed last
    overlay["variant"] = overlay_.variantName();
    if (const std::string why = overlay_.noGrid(); !why.empty()) overlay["no_grid"] = why;
    json passes = json::array();
    for (const PassLaunch& p : overlay_.launch().passes)
      passes.push_back({{"pass", p.pass},
                        {"kernel", p.kernel},
                        {"output_tile", p.outputTile.str()},
                        {"input_tile", p.inputTile.str()}});
    overlay["passes"] = passes;
  }
  return json{{"context", context_.description()}, {"present_path", presentPath()}, {"frames_shown", framesShown_},
              {"copy_bandwidth_gbs", copyGBs_},    {"split", view_.split()},        {"overlay", overlay},
              {"stages", stagesJson(stats_)}}
      .dump();
}

void Viewer::writeSummary(std::ostream& log, double wall) const {
  printSummary(log, worker_->pipeline(), config_, wall, stats_);  // the viewer's rows in the same table
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
  worker_->stop();  // drains the pipeline: its figures are final
  const double wall = std::chrono::duration<double>(Clock::now() - started_).count();
  log << "frames shown: " << framesShown_ << " in " << std::fixed << std::setprecision(2) << wall << " s; "
      << presentPath() << "\n";
  writeSummary(log, wall);
  int code = interrupt.interrupted() ? interrupt.exitCode() : kOk;
  if (!options_.screenshot.empty()) {
    if (hasCapture()) {
      const std::string m = ScreenshotWriter::write(options_.screenshot, capture_.image());
      (ScreenshotWriter::written(m) ? log : err) << m << "\n";
      if (!ScreenshotWriter::written(m)) code = kFailed;
    } else {
      err << "convlive: no screenshot: the viewer closed before drawing a frame\n";
      code = kFailed;
    }
  }
  if (!options_.report.empty()) {
    writeReport(options_.report, worker_->pipeline(), config_, filter_->applied(), wall,
                ended_ ? "end of stream" : "closed", "viewer", "viewer", viewerJson());
    log << "report: " << options_.report << "\n";
  }
  return code;
}

}  // namespace convlive
