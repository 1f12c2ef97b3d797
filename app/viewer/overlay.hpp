// The block-grid overlay (key o): where the running variant's thread blocks lie on the frame, drawn
// over the video. The output tiles as lines over the whole frame, the tile under the cursor with
// the input tile it reads (its apron shaded) and, where the variant's threads over the apron make
// no output, those idle threads; each pass of a two-pass launch in its own colour.
//
// This file is the geometry and the caption: plain math on plain data (framebuffer pixels, origin
// top-left, as in view.hpp), tested without GL. overlay_painter.hpp draws them with ImGui. The
// launch comes from the variant's own description (Variant::describeLaunch: arithmetic, no device
// needed), recomputed only when the variant, its settings or the frame size change. Render thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "convlive/variants.hpp"
#include "convlive/work_model.hpp"
#include "view.hpp"

namespace convlive {

struct Point {
  double x = 0, y = 0;
};

// Grid lines closer than this on screen (pixels) are thinned out: every 2nd, 4th, ... tile edge.
constexpr double kMinGridSpacing = 6;

// Where a pass's idle threads are. Decided from the variant's own count of them
// (WorkModel::idleThreads, the share of thread slots that make no output) and the pass's footprint:
// the count says how many, the footprint where they can be.
enum class IdleRegion {
  None,      // every thread makes output (or the count is zero)
  Apron,     // the block is the input tile: the threads over its apron load, then idle (tiled)
  Columns,   // the threads over the apron's columns, left and right (a warp whose lanes span them)
  Rows,      // the threads over the apron's rows, above and below
  Elsewhere  // idle at some step of the block's work, not over one part of the tile: said, not drawn
};
// One pass of a launch whose variant counts `idleShare` (0..1) of its thread slots idle.
IdleRegion idleRegion(const PassLaunch& pass, double idleShare);

// The lines of one axis of a grid: tile edges at origin + k * tile * scale, k = 0, every, 2 every,
// ... while k * tile < frameSize, kept where they fall in [clipMin, clipMax).
struct GridLines {
  std::vector<double> at;  // screen coordinates (x of the vertical lines, y of the horizontal ones)
  int every = 1;           // one line every `every` tile edges (1: each; more when tiles are small)
};
GridLines gridLines(int tile, int frameSize, double origin, double scale, double clipMin, double clipMax);

// `outer` minus `inner` (inner is first cut to outer): up to four rectangles, the empty ones left out.
std::vector<Rect> ringPieces(const Rect& outer, const Rect& inner);

// The tile under the cursor in one pass.
struct HoveredTile {
  int column = 0, row = 0;  // its index: blockIdx when the grid has a block per tile
  Rect frameOutput;         // its output pixels, in frame pixels, cut to the frame
  Rect output, input;       // on screen: the output tile and the input tile it reads, cut to the frame
  std::vector<Rect> apron;  // on screen: the input tile less the output tile (read, not written)
  std::vector<Rect> idle;   // on screen: where its idle threads are (see IdleRegion)
};

// One pass's grid on screen.
struct PassGrid {
  std::size_t pass = 0;         // its index in LaunchDescription::passes
  int columns = 0, rows = 0;    // output tiles across and down the frame
  double tileW = 0, tileH = 0;  // an output tile's size on screen
  GridLines vertical, horizontal;
  IdleRegion idle = IdleRegion::None;
  std::optional<HoveredTile> hovered;
  bool thinned() const { return vertical.every > 1 || horizontal.every > 1; }
};

// Where the frame is on screen and where the cursor is.
struct OverlayView {
  int frameWidth = 0, frameHeight = 0;
  Rect frame;                   // the frame's rectangle on screen (Viewer::frameRect)
  Rect area;                    // the video area (Viewer::videoArea): nothing is drawn outside it
  std::optional<Point> cursor;  // none: no tile is hovered
};

struct OverlayGeometry {
  Rect clip;                     // the part of the frame inside the video area: everything lies in it
  std::vector<PassGrid> passes;  // the passes shown that cover frame area, in launch order
};
// The grids of `launch` (every pass that covers frame area, or only pass `passShown` when it is
// >= 0). `idleShare` is the variant's WorkModel::idleThreads: it places idle threads only in a
// launch of one pass (the count is the variant's, not a pass's).
OverlayGeometry overlayGeometry(const LaunchDescription& launch, double idleShare, const OverlayView& view,
                                int passShown = -1);

// The caption's inks: the painter gives each its colour; `Pass0`.. are the passes' grid colours.
enum class OverlayInk { Text, Note, Pass0, Pass1, Pass2, Apron, Idle };
OverlayInk passInk(std::size_t pass);
struct CaptionLine {
  std::string text;
  OverlayInk ink = OverlayInk::Text;
  bool swatch = false;  // a square of the ink before the text (a legend entry)
};

// The overlay's state (on, the pass shown) and the launch of the frame shown.
class BlockGridOverlay {
 public:
  bool on() const { return on_; }
  void setOn(bool on) { on_ = on; }
  // -1: every pass; else the one pass shown.
  int passShown() const { return passShown_; }
  // Steps through "every pass", then each pass of a two-pass launch. Returns what it shows now,
  // for the status line.
  std::string nextPass();

  // The frame on screen (`image`: its size, pixel type and channels) went through `variant`
  // (nullptr: not known yet) with `params`: the launch is the kernel's for those frames (a grey
  // frame's typed kernel, not the RGBA8 one). Recomputes it only when one of them changed.
  void follow(const Variant* variant, const FilterParams& params, const ImageDesc& image);
  // An RGBA8 frame of width x height.
  void follow(const Variant* variant, const FilterParams& params, int width, int height) {
    follow(variant, params, ImageDesc::rgba8(width, height));
  }
  // Times the launch was computed (each follow() with a change).
  std::uint64_t launchesComputed() const { return computed_; }
  const LaunchDescription& launch() const { return launch_; }
  const std::string& variantName() const { return variant_; }
  const ImageDesc& followedImage() const { return image_; }  // the frames the launch is for
  // Why there is no grid to draw ("" when there is one).
  std::string noGrid() const;

  OverlayGeometry geometry(const OverlayView& view) const;
  // The legend: the variant and its tile, each pass shown (kernel, grid, tile sizes, apron), the
  // thinning, the apron and idle threads of the hovered tile and its index; or why there is no grid.
  std::vector<CaptionLine> caption(const OverlayGeometry& g) const;

 private:
  bool on_ = false;
  int passShown_ = -1;
  // What the launch was computed for.
  bool followed_ = false;
  const Variant* source_ = nullptr;
  FilterParams params_;
  ImageDesc image_{};  // the frame shown (its size, type and channels)
  // The launch and what the caption says of it.
  std::string variant_, tileMeaning_, error_;
  Tile tile_{};
  int radius_ = 0;
  LaunchDescription launch_;
  double idleShare_ = 0;
  std::uint64_t computed_ = 0;
};

}  // namespace convlive
