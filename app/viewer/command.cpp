#include "command.hpp"

#include <filesystem>
#include <ostream>

#include "convlive/resources.hpp"
#include "guarded.hpp"
#include "run_report.hpp"
#include "viewer.hpp"

namespace convlive {

int runViewer(const VideoOptions& v, const FilterSpec& filter, const ViewerCommandOptions& o, std::ostream& log,
              std::ostream& err) {
  return guarded(err, [&]() -> int {
    PipelineConfig c = configFrom(v, filter);
    c.sync = true;             // a player: frames at the source's rate,
    c.newestFrameOnly = true;  // and the newest one when the filter falls behind
    const auto size = Tile::parse(o.windowSize);
    if (!size || size->w < 320 || size->h < 240 || size->w > 16384 || size->h > 16384)
      throw std::invalid_argument("--window-size '" + o.windowSize + "' must be WxH, at least 320x240");
    ContextOptions co;
    co.width = size->w;
    co.height = size->h;
    co.vsync = o.vsync;
    ViewerOptions vo;
    vo.frames = v.frames;
    vo.seconds = v.seconds;
    vo.report = v.report;
    vo.screenshot = o.screenshot;
    vo.overlay = o.overlay;
    const bool offscreen = o.offscreen || !displayAvailable();
    if (offscreen && !o.offscreen) {
      if (vo.seconds < 0 && vo.frames < 0) vo.seconds = 5;
      if (vo.screenshot.empty()) vo.screenshot = "convlive-screenshot.png";
      if (vo.report.empty()) vo.report = "convlive-report.json";
      log << "no display (DISPLAY and WAYLAND_DISPLAY are not set): running the viewer offscreen (EGL) for "
          << (vo.frames > 0 ? std::to_string(vo.frames) + " frames" : std::to_string(vo.seconds) + " s")
          << "; it writes a screenshot to " << vo.screenshot << " and a timing report to " << vo.report << "\n";
    } else if (offscreen && vo.seconds < 0 && vo.frames < 0) {
      vo.seconds = 5;
      log << "offscreen: no window to close, so the run stops after 5 s (set --frames or --seconds)\n";
    }
    if (!vo.screenshot.empty()) {
      const std::filesystem::path folder = std::filesystem::path(vo.screenshot).parent_path();
      if (!folder.empty() && !std::filesystem::is_directory(folder))
        throw std::invalid_argument("--screenshot '" + vo.screenshot + "': the folder " + folder.string() +
                                    " does not exist: create it or name another");
    }
    checkReportPath(vo.report);
    vo.quitAtEnd = offscreen;
    std::unique_ptr<GlContext> context;
    try {
      context = offscreen ? makeHeadlessContext(co) : makeWindowContext(co);
    } catch (const GlError& e) {
      err << "convlive: " << e.what() << "\n"
          << "convlive: to filter without a display, use --offscreen (EGL) or --headless (no drawing at all)\n";
      return kFailed;
    }
    if (!deviceInfo().available)
      log << "note: " << deviceInfo().reason
          << ": a CPU variant runs (auto: cpu-simd) and frames go in with glTexSubImage2D\n";
    Viewer viewer(*context, c, filter, vo);
    viewer.view().setSplit(o.split);
    viewer.view().setMode(o.view == "fill" ? FitMode::Fill : o.view == "1:1" ? FitMode::OneToOne : FitMode::Fit);
    return viewer.run(log, err);
  });
}

}  // namespace convlive
