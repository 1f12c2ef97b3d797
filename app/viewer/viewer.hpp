// The viewer: the pipeline's frames shown through CUDA-GL interop, with the ImGui panel on top.
// One loop on one thread (the one that made the GL context): poll input, take the newest frames
// from the pipeline (each is written into the display texture on its slot's stream), draw the
// frame and the panel, swap. Runs the same on a GLFW window and on headless EGL.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

#include "controller.hpp"
#include "convlive/image.hpp"
#include "convlive/pipeline.hpp"
#include "convlive/timing.hpp"
#include "gl/context.hpp"
#include "view.hpp"

namespace convlive {

class FrameTexture;

// What keys and panel buttons do. Viewer::apply runs them; tests call it too.
enum class Action {
  TogglePause,
  SeekBack,     // 5 s
  SeekForward,  // 5 s
  RadiusUp,
  RadiusDown,
  NextVariant,
  PreviousVariant,
  NextMask,
  PreviousMask,
  NextTile,
  ToggleSplit,
  CycleFit,  // fit, fill, 1:1
  ToggleFullscreen,
  TogglePanel,
  ToggleHelp,
  Screenshot,  // a PNG of the composed view into the screenshot folder
  Quit,
};

struct ViewerOptions {
  long frames = -1;                 // quit after showing this many frames (-1: no limit)
  double seconds = -1;              // quit after this long (-1: no limit)
  std::string screenshot;           // write a PNG of the last frame drawn here when the run ends
  std::string screenshotDir = ".";  // where `s` writes its PNGs
  std::string report;               // JSON report of the run ("" : none)
  bool keepSourceFrames = false;    // keep a host copy of each shown frame's source (tests)
  bool quitAtEnd = false;           // quit at the end of the stream (else stay on the last frame)
  int panelWidth = 420;             // in ImGui (window) units
};

// The viewer's own stages, next to the pipeline's.
enum class ViewerStage { Present, Panel, Draw, DrawGpu, Interval, Count };
const char* viewerStageName(ViewerStage s);

class Viewer : private FrameSink {
 public:
  // Opens the pipeline on `config` and sets up ImGui on `context` (which must outlive the viewer).
  // Throws SourceError / std::invalid_argument for bad settings, GlError for GL failures.
  Viewer(GlContext& context, const PipelineConfig& config, const FilterSpec& filter, const ViewerOptions& options);
  ~Viewer() override;
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  // Runs until the window closes, q/Esc, or a limit in the options; then writes the screenshot and
  // the report. Returns the exit code.
  int run(std::ostream& log, std::ostream& err);
  // One pass of the loop (tests drive the viewer with it). False once the viewer should quit.
  bool frame();
  // Runs what a key or a panel button does.
  void apply(Action a);

  Pipeline& pipeline() { return *pipeline_; }
  FilterController& filter() { return *filter_; }
  ViewState& view() { return view_; }
  GlContext& context() { return context_; }

  // The composed view (video and panel) of the next frame drawn: call, then frame(), then take it.
  void captureNextFrame() { captureRequested_ = true; }
  bool hasCapture() const { return !captured_.pixels().empty(); }
  const HostImage& capture() const { return captured_; }
  // The display texture read back (what interop or glTexSubImage2D wrote).
  HostImage readFilteredTexture() const;
  // The source of the frame in the display texture, when keepSourceFrames is on, and the filter
  // and variant it went through.
  const HostImage& shownSource() const { return shownSource_; }
  const FilterParams& shownParams() const { return shownParams_; }
  const std::string& shownVariant() const { return shownVariant_; }

  // Layout of the last frame drawn, in framebuffer pixels (origin top-left).
  Rect videoArea() const { return area_; }
  Rect frameRect() const { return frameRect_; }
  std::uint64_t framesShown() const { return framesShown_; }
  // How frames reach the texture: "CUDA-GL interop", or why not.
  std::string presentPath() const;
  const StageStats& stage(ViewerStage s) const { return stats_[int(s)]; }
  // A message for the panel's status line (errors from the panel's actions, screenshots written).
  const std::string& status() const { return status_; }
  void setStatus(std::string s) { status_ = std::move(s); }
  bool helpShown() const { return showHelp_; }
  void setHelpShown(bool on) { showHelp_ = on; }
  bool panelShown() const { return showPanel_; }
  const ViewerOptions& options() const { return options_; }
  const PipelineConfig& config() const { return config_; }
  // Device-to-device copy bandwidth in GB/s, measured once at start (0 without a device).
  double copyBandwidthGBs() const { return copyGBs_; }
  bool ended() const { return ended_; }
  // Writes the PNG of a composed view; returns the message for the panel.
  std::string writeScreenshot(const std::string& path, const HostImage& image);

 private:
  bool wantsHostFrames() const override { return false; }
  void present(const OutputFrame& f) override;
  void handleInput();
  void layout(int fbW, int fbH);
  std::string viewerJson() const;

  GlContext& context_;
  PipelineConfig config_;
  ViewerOptions options_;
  struct Gl;
  std::unique_ptr<Gl> gl_;  // ImGui session, renderer, textures, timer queries
  std::unique_ptr<Pipeline> pipeline_;
  std::unique_ptr<FilterController> filter_;
  ViewState view_;
  Rect area_, frameRect_;
  std::uint64_t framesShown_ = 0;
  StageStats stats_[int(ViewerStage::Count)];
  std::chrono::steady_clock::time_point lastSwap_{}, started_{};
  bool captureRequested_ = false, screenshotKey_ = false;
  HostImage captured_;
  HostImage shownSource_;
  FilterParams shownParams_;
  std::string shownVariant_;
  std::string status_;
  bool showHelp_ = false, showPanel_ = true, ended_ = false, quit_ = false, draggingDivider_ = false;
  double copyGBs_ = 0;
  int screenshots_ = 0;
};

}  // namespace convlive
