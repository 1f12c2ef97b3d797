// The viewer: the pipeline's frames shown through CUDA-GL interop, with the ImGui panel on top.
//
// Threads: the render thread (the one that made the GL context) constructs the viewer and runs
// frame() / run() and every other call here: poll input, take the newest finished frame from the
// mailbox and write it into the display texture, draw the frame and the panel, swap. The filter
// runs on a worker thread (PipelineWorker), so a slow filter never holds up a pass: the panel says
// it is behind and shows the newest frame it finished. Runs the same on a GLFW window and on
// headless EGL.
//
// The parts, each with one job: PipelineWorker + FrameMailbox (frames off the render thread),
// PresentStream (device frames into the texture in order), GpuTimer (the draw's GPU time),
// FrameCapture + ScreenshotWriter (composed-view captures), key_bindings (key -> Action),
// StatusLine (messages that fade), Panel (reads the viewer through PanelModel only),
// BlockGridOverlay + paintOverlay (the running variant's block grid over the video).
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "controller.hpp"
#include "convlive/image.hpp"
#include "convlive/pipeline.hpp"
#include "convlive/timing.hpp"
#include "frame_capture.hpp"
#include "frame_mailbox.hpp"
#include "gl/context.hpp"
#include "injected_input.hpp"
#include "key_bindings.hpp"
#include "overlay.hpp"
#include "panel_model.hpp"
#include "pipeline_worker.hpp"
#include "status_line.hpp"
#include "view.hpp"

namespace convlive {

struct ViewerOptions {
  long frames = -1;                 // quit after showing this many frames (-1: no limit)
  double seconds = -1;              // quit after this long (-1: no limit)
  std::string screenshot;           // write a PNG of the last frame drawn here when the run ends
  std::string screenshotDir = ".";  // where `s` writes its PNGs
  std::string report;               // JSON report of the run ("" : none)
  bool keepSourceFrames = false;    // keep a host copy of each shown frame's source (tests)
  bool quitAtEnd = false;           // quit at the end of the stream (else stay on the last frame)
  int panelWidth = 420;             // in ImGui (window) units
  bool overlay = false;             // start with the block-grid overlay on (key o)
};

// The viewer's own stages, next to the pipeline's.
enum class ViewerStage { Present, PresentGpu, Panel, Draw, DrawGpu, Interval, Count };
const char* viewerStageName(ViewerStage s);

class Viewer : private PanelModel {
 public:
  // Opens the pipeline on `config` (on this thread: a bad source throws here), applies `filter`,
  // sets up ImGui on `context` (which must outlive the viewer) and starts the worker.
  // Throws SourceError / std::invalid_argument for bad settings, GlError for GL failures.
  Viewer(GlContext& context, const PipelineConfig& config, const FilterSpec& filter, const ViewerOptions& options);
  // Stops the worker (waits for the frame it is filtering), then lets the GL side go.
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  // Runs until the window closes, q/Esc, or a limit in the options; then writes the screenshot,
  // the summary and the report. Returns the exit code.
  int run(std::ostream& log, std::ostream& err);
  // One pass of the loop (tests drive the viewer with it): never waits for the filter, at most
  // 20 ms (EGL; 2 ms in a window) for a finished frame. False once the viewer should quit.
  bool frame();
  // Runs what a key or a panel button does.
  void apply(Action a) override;
  // Keys and text as if typed (fed to ImGui one event a pass; tests).
  InjectedInput& input() { return input_; }
  // The mouse at (x, y) in framebuffer pixels from the next pass on, as if moved there and kept
  // still (tests and screenshots: EGL has no mouse); nullopt gives the mouse back.
  void pointAt(std::optional<Point> p) { pointer_ = p; }

  // The block-grid overlay (key o): its state and the launch of the frame shown.
  const BlockGridOverlay& overlay() const { return overlay_; }
  // Where its caption was drawn in the last pass, in framebuffer pixels (empty when it is off).
  Rect overlayCaptionRect() const { return overlayCaption_; }

  // Controls and reads: see Pipeline's contract (any thread). Do not call step() or drain().
  Pipeline& pipeline() { return worker_->pipeline(); }
  FilterController& filter() override { return *filter_; }
  ViewState& view() { return view_; }
  GlContext& context() { return context_; }

  // The composed view (video and panel) of the next frame drawn: call, then frame(), then take it.
  void captureNextFrame() { capture_.request(); }
  bool hasCapture() const { return capture_.has(); }
  const HostImage& capture() const { return capture_.image(); }
  // The display texture read back (what interop or glTexSubImage2D wrote).
  HostImage readFilteredTexture() const;
  // The source of the frame in the display texture, when keepSourceFrames is on, and the filter
  // and variant it went through.
  const HostImage& shownSource() const { return shownSource_; }
  const FilterParams& shownParams() const { return shownParams_; }
  const std::string& shownVariant() const { return shownVariant_; }
  // The stream time the panel shows: within [0, duration], and the duration at the end.
  double positionSeconds() const;

  // Layout of the last frame drawn, in framebuffer pixels (origin top-left).
  Rect videoArea() const { return area_; }
  Rect frameRect() const { return frameRect_; }
  // Where the panel's timing plot was drawn in the last pass (empty when it was not).
  Rect timingPlotRect() const;
  std::uint64_t framesShown() const { return framesShown_; }
  // How frames reach the texture: "CUDA-GL interop", or why not.
  std::string presentPath() const;
  const StageStats& stage(ViewerStage s) const { return stats_[int(s)]; }
  // The panel's status line (errors from the panel's actions, screenshots written) while it
  // shows: it fades out a few seconds after it was set.
  std::string status() const { return status_.text(); }
  void setStatus(std::string s) { status_.set(std::move(s)); }
  // Whether the filter keeps up with the source (the panel says so when it does not).
  FilterPace filterPace() const { return worker_->pace(); }
  bool helpShown() const { return showHelp_; }
  void setHelpShown(bool on) override { showHelp_ = on; }
  bool panelShown() const { return showPanel_; }
  const ViewerOptions& options() const { return options_; }
  const PipelineConfig& config() const { return config_; }
  // Device-to-device copy bandwidth in GB/s, measured once per GPU and cached (0: no device, or
  // unknown).
  double copyBandwidthGBs() const { return copyGBs_; }
  bool ended() const { return ended_; }
  // The exit summary: source, settings, the pipeline's and the viewer's stages in one table, then
  // the notes.
  void writeSummary(std::ostream& log, double wallSeconds) const;

 private:
  // PanelModel.
  const PanelFacts& facts() const override { return facts_; }
  void openSource(const SourceSpec& spec) override { pipeline().switchSource(spec); }
  void seek(double seconds) override { pipeline().seek(seconds); }
  void setLoop(bool on) override { pipeline().setLoop(on); }
  void setView(FitMode mode, bool split) override;
  void say(const std::string& message) override { status_.set(message); }

  bool takeFrames();
  void presentHost(HostFrame& f);
  void presentDevice(const DeviceFrame& f);
  void keepFacts(FrameFacts& facts);
  void gatherFacts();
  void handleMouse();
  void layout(int fbW, int fbH);
  void followShownFrame();  // the overlay follows the frame in the display texture
  void drawOverlay();
  std::string viewerJson() const;

  GlContext& context_;
  PipelineConfig config_;
  ViewerOptions options_;
  KeyQueue keys_;  // before gl_: the window's key callback (installed with ImGui) feeds it
  struct Gl;
  std::unique_ptr<Gl> gl_;  // ImGui context, renderer, textures, present stream, GPU timer, panel
  FrameMailbox mailbox_;    // declared before the worker, which posts into it
  std::unique_ptr<PipelineWorker> worker_;
  std::unique_ptr<FilterController> filter_;
  ViewState view_;
  FrameCapture capture_;
  ScreenshotWriter screenshots_;
  StatusLine status_;
  InjectedInput input_;
  std::optional<Point> pointer_, cursor_;  // pointAt's mouse; the mouse over the video (the overlay's)
  BlockGridOverlay overlay_;
  Rect overlayCaption_;
  PanelFacts facts_;
  Rect area_, frameRect_;
  std::uint64_t framesShown_ = 0;
  StageStats stats_[int(ViewerStage::Count)];
  std::chrono::steady_clock::time_point lastSwap_{}, started_{};
  bool screenshotKey_ = false, focusPath_ = false;
  HostImage shownSource_;
  FilterParams shownParams_;
  std::string shownVariant_;
  ImageDesc shownImage_{};  // the frame shown as it was filtered: RGBA8, or a grey frame's type
  bool showHelp_ = false, showPanel_ = true, ended_ = false, quit_ = false, draggingDivider_ = false;
  double copyGBs_ = 0;
};

}  // namespace convlive
