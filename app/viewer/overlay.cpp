#include "overlay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

namespace convlive {
namespace {

bool coversArea(const PassLaunch& p) { return p.outputTile.x > 0 && p.outputTile.y > 0; }

Rect intersect(const Rect& a, const Rect& b) {
  const double x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
  const double x1 = std::min(a.x + a.w, b.x + b.w), y1 = std::min(a.y + a.h, b.y + b.h);
  return x1 > x0 && y1 > y0 ? Rect{x0, y0, x1 - x0, y1 - y0} : Rect{};
}
bool empty(const Rect& r) { return r.w <= 0 || r.h <= 0; }

// Frame pixels to screen pixels.
struct FrameToScreen {
  Rect frame;
  double sx, sy;
  Rect operator()(const Rect& r) const { return {frame.x + r.x * sx, frame.y + r.y * sy, r.w * sx, r.h * sy}; }
};

// The idle threads of a hovered tile: input and output in frame pixels, cut to the frame.
std::vector<Rect> idlePieces(IdleRegion region, const Rect& in, const Rect& out) {
  switch (region) {
    case IdleRegion::Apron:
      return ringPieces(in, out);
    case IdleRegion::Columns:
      return ringPieces(in, Rect{out.x, in.y, out.w, in.h});
    case IdleRegion::Rows:
      return ringPieces(in, Rect{in.x, out.y, in.w, out.h});
    case IdleRegion::None:
    case IdleRegion::Elsewhere:
      break;
  }
  return {};
}

std::optional<HoveredTile> hoveredTile(const PassLaunch& p, IdleRegion idle, const OverlayView& v,
                                       const FrameToScreen& toScreen) {
  if (!v.cursor) return std::nullopt;
  const double fx = (v.cursor->x - v.frame.x) / toScreen.sx, fy = (v.cursor->y - v.frame.y) / toScreen.sy;
  if (fx < 0 || fy < 0 || fx >= v.frameWidth || fy >= v.frameHeight) return std::nullopt;
  HoveredTile t;
  t.column = int(fx) / p.outputTile.x;
  t.row = int(fy) / p.outputTile.y;
  const Rect frame{0, 0, double(v.frameWidth), double(v.frameHeight)};
  const double ox = double(t.column) * p.outputTile.x, oy = double(t.row) * p.outputTile.y;
  const Rect out = intersect(frame, Rect{ox, oy, double(p.outputTile.x), double(p.outputTile.y)});
  const Rect in =
      intersect(frame, Rect{ox + p.inputOffsetX, oy + p.inputOffsetY, double(p.inputTile.x), double(p.inputTile.y)});
  t.frameOutput = out;
  t.output = toScreen(out);
  t.input = toScreen(in);
  for (const Rect& r : ringPieces(in, out)) t.apron.push_back(toScreen(r));
  for (const Rect& r : idlePieces(idle, in, out)) t.idle.push_back(toScreen(r));
  return t;
}

std::string dims2(const Dims& d) { return std::to_string(d.x) + "x" + std::to_string(d.y); }

// "apron 2 px each side", "apron 32 px left and right, 0 px above and below", "apron 4 px left, 12 px right, 8 px
// above and below".
std::string apronText(const PassLaunch& p) {
  const int left = -p.inputOffsetX, right = p.inputTile.x - p.outputTile.x - left;
  const int top = -p.inputOffsetY, bottom = p.inputTile.y - p.outputTile.y - top;
  if (left == right && top == bottom && left == top) return "apron " + std::to_string(left) + " px each side";
  auto sides = [](int a, int b, const char* first, const char* second) {
    if (a == b) return std::to_string(a) + " px " + first + " and " + second;
    return std::to_string(a) + " px " + first + ", " + std::to_string(b) + " px " + second;
  };
  return "apron " + sides(left, right, "left", "right") + ", " + sides(top, bottom, "above", "below");
}

// "32x8 threads", "256 threads".
std::string threadsText(const Dims& block) {
  return (block.y == 1 && block.z == 1 ? std::to_string(block.x) : block.str()) + " threads";
}

std::string ordinal(int n) {
  const int tens = n % 100;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : n % 10 == 1              ? "st"
                       : n % 10 == 2              ? "nd"
                       : n % 10 == 3              ? "rd"
                                                  : "th";
  return std::to_string(n) + suffix;
}

std::string fixed1(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string percent(double share) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100 * share);
  return b;
}

// "every 4th tile edge", "every 8th column edge, each row edge".
std::string thinningText(const PassGrid& pg) {
  auto part = [](int every, const std::string& edge) {
    return every == 1 ? "each " + edge + " edge" : "every " + ordinal(every) + " " + edge + " edge";
  };
  if (pg.vertical.every == pg.horizontal.every) return part(pg.vertical.every, "tile");
  return part(pg.vertical.every, "column") + ", " + part(pg.horizontal.every, "row");
}

std::string passLabel(const PassLaunch& p) { return p.pass.empty() ? "" : p.pass + ": "; }

}  // namespace

IdleRegion idleRegion(const PassLaunch& p, double idleShare) {
  if (idleShare <= 0 || !coversArea(p)) return IdleRegion::None;
  const double in = double(p.inputTile.x) * p.inputTile.y, out = double(p.outputTile.x) * p.outputTile.y;
  const auto near = [&](double share) { return std::abs(idleShare - share) < 1e-9; };
  if (in > out && near(1 - out / in)) return IdleRegion::Apron;
  if (p.inputTile.x > p.outputTile.x && near(1 - double(p.outputTile.x) / p.inputTile.x)) return IdleRegion::Columns;
  if (p.inputTile.y > p.outputTile.y && near(1 - double(p.outputTile.y) / p.inputTile.y)) return IdleRegion::Rows;
  return IdleRegion::Elsewhere;
}

GridLines gridLines(int tile, int frameSize, double origin, double scale, double clipMin, double clipMax) {
  GridLines g;
  if (tile <= 0 || frameSize <= 0 || scale <= 0) return g;
  const double step = tile * scale;
  while (step * g.every < kMinGridSpacing && g.every < (1 << 24)) g.every *= 2;
  const long tiles = (long(frameSize) + tile - 1) / tile;
  long k = std::max(0L, long(std::ceil((clipMin - origin) / step)));
  k = (k + g.every - 1) / g.every * g.every;
  for (; k < tiles; k += g.every) {
    const double at = origin + double(k) * step;
    if (at >= clipMax) break;
    if (at >= clipMin) g.at.push_back(at);
  }
  return g;
}

std::vector<Rect> ringPieces(const Rect& outer, const Rect& innerUncut) {
  std::vector<Rect> pieces;
  if (empty(outer)) return pieces;
  const Rect inner = intersect(outer, innerUncut);
  if (empty(inner)) return {outer};
  const double ox1 = outer.x + outer.w, oy1 = outer.y + outer.h, ix1 = inner.x + inner.w, iy1 = inner.y + inner.h;
  const Rect candidates[] = {
      {outer.x, outer.y, outer.w, inner.y - outer.y},  // above
      {outer.x, iy1, outer.w, oy1 - iy1},              // below
      {outer.x, inner.y, inner.x - outer.x, inner.h},  // left
      {ix1, inner.y, ox1 - ix1, inner.h},              // right
  };
  for (const Rect& r : candidates)
    if (!empty(r)) pieces.push_back(r);
  return pieces;
}

OverlayGeometry overlayGeometry(const LaunchDescription& launch, double idleShare, const OverlayView& v,
                                int passShown) {
  OverlayGeometry g;
  g.clip = intersect(v.frame, v.area);
  if (v.frameWidth <= 0 || v.frameHeight <= 0 || empty(g.clip)) return g;
  const FrameToScreen toScreen{v.frame, v.frame.w / v.frameWidth, v.frame.h / v.frameHeight};
  const auto areaPasses = std::count_if(launch.passes.begin(), launch.passes.end(), coversArea);
  for (std::size_t i = 0; i < launch.passes.size(); ++i) {
    const PassLaunch& p = launch.passes[i];
    if (!coversArea(p) || (passShown >= 0 && std::size_t(passShown) != i)) continue;
    PassGrid pg;
    pg.pass = i;
    pg.columns = (v.frameWidth + p.outputTile.x - 1) / p.outputTile.x;
    pg.rows = (v.frameHeight + p.outputTile.y - 1) / p.outputTile.y;
    pg.tileW = p.outputTile.x * toScreen.sx;
    pg.tileH = p.outputTile.y * toScreen.sy;
    pg.vertical = gridLines(p.outputTile.x, v.frameWidth, v.frame.x, toScreen.sx, g.clip.x, g.clip.x + g.clip.w);
    pg.horizontal = gridLines(p.outputTile.y, v.frameHeight, v.frame.y, toScreen.sy, g.clip.y, g.clip.y + g.clip.h);
    pg.idle = areaPasses == 1 ? idleRegion(p, idleShare) : IdleRegion::None;
    if (v.cursor && g.clip.contains(v.cursor->x, v.cursor->y)) pg.hovered = hoveredTile(p, pg.idle, v, toScreen);
    g.passes.push_back(std::move(pg));
  }
  return g;
}

OverlayInk passInk(std::size_t pass) {
  return pass == 0 ? OverlayInk::Pass0 : pass == 1 ? OverlayInk::Pass1 : OverlayInk::Pass2;
}

std::string BlockGridOverlay::nextPass() {
  const int n = int(launch_.passes.size());
  if (n < 2) {
    passShown_ = -1;
    return "the overlay: " + (variant_.empty() ? std::string("this variant") : variant_) +
           (n == 0 ? " launches no kernel: no pass to choose" : " launches one pass");
  }
  passShown_ = passShown_ + 1 >= n ? -1 : passShown_ + 1;
  if (passShown_ < 0) return "the overlay shows every pass";
  const PassLaunch& p = launch_.passes[std::size_t(passShown_)];
  return "the overlay shows the " + (p.pass.empty() ? p.kernel : p.pass) + " only";
}

void BlockGridOverlay::follow(const Variant* v, const FilterParams& p, const ImageDesc& image) {
  const bool same = followed_ && v == source_ && image.width == image_.width && image.height == image_.height &&
                    image.type == image_.type && image.channels == image_.channels && image.alpha == image_.alpha &&
                    p.filter.name == params_.filter.name && p.filter.combine == params_.filter.combine &&
                    p.filter.mask.radius() == params_.filter.mask.radius() &&
                    p.filter.mask.weights() == params_.filter.mask.weights() && p.border == params_.border &&
                    p.filterAlpha == params_.filterAlpha && p.tile == params_.tile;
  if (same) return;
  followed_ = true;
  source_ = v;
  params_ = p;
  image_ = image;
  image_.batch = 1;  // the frame shown
  ++computed_;
  launch_ = {};
  idleShare_ = 0;
  error_.clear();
  variant_ = v ? v->name : "";
  tileMeaning_ = v ? v->tileMeaning : "";
  tile_ = v ? v->tileFor(p) : Tile{};
  radius_ = p.filter.mask.radius();
  if (!v || image_.width <= 0 || image_.height <= 0) return;
  try {
    launch_ = v->describeLaunch(p, image_);
    if (v->workModelImpl) idleShare_ = v->workModel(p, image_).idleThreads;
  } catch (const std::exception& e) {
    launch_ = {};
    error_ = e.what();
  }
  if (passShown_ >= int(launch_.passes.size())) passShown_ = -1;
}

std::string BlockGridOverlay::noGrid() const {
  if (!followed_ || !source_ || image_.width <= 0) return "no frame shown yet";
  if (!error_.empty()) return error_;
  if (launch_.passes.empty()) return launch_.none.empty() ? "it launches no kernel" : launch_.none;
  if (std::none_of(launch_.passes.begin(), launch_.passes.end(), coversArea))
    return "none of its passes covers frame area";
  return "";
}

OverlayGeometry BlockGridOverlay::geometry(const OverlayView& view) const {
  return overlayGeometry(launch_, idleShare_, view, passShown_);
}

std::vector<CaptionLine> BlockGridOverlay::caption(const OverlayGeometry& g) const {
  std::vector<CaptionLine> lines;
  if (const std::string why = noGrid(); !why.empty()) {
    lines.push_back({variant_.empty() ? "block grid: " + why : variant_ + ": no block grid to draw (" + why + ")"});
    return lines;
  }
  std::string head = variant_ + " at radius " + std::to_string(radius_) + " on " + std::to_string(image_.width) + "x" +
                     std::to_string(image_.height);
  if (!image_.isRgba8()) head += " " + image_.typeName();
  if (!(tile_ == Tile{})) head += "; tile " + tile_.str() + (tileMeaning_.empty() ? "" : ": " + tileMeaning_);
  lines.push_back({head});

  bool apron = false;
  for (const PassGrid& pg : g.passes) {
    const PassLaunch& p = launch_.passes[pg.pass];
    apron = apron || p.inputTile.x > p.outputTile.x || p.inputTile.y > p.outputTile.y;
    lines.push_back({passLabel(p) + p.kernel + ", grid " + p.grid.str() + " of " + threadsText(p.block) +
                         ": output tile " + dims2(p.outputTile) + " px, input tile " + dims2(p.inputTile) + " px, " +
                         apronText(p),
                     passInk(pg.pass), true});
    if (pg.thinned())
      lines.push_back({"  thinned: lines on " + thinningText(pg) + " (tiles are " + fixed1(pg.tileW) + "x" +
                           fixed1(pg.tileH) + " px on screen; zoom in for all)",
                       OverlayInk::Note});
    if (!p.note.empty()) lines.push_back({"  " + p.note, OverlayInk::Note});
  }
  for (const PassLaunch& p : launch_.passes)
    if (!coversArea(p)) lines.push_back({passLabel(p) + p.kernel + ": covers no frame area", OverlayInk::Note});
  if (g.passes.empty()) lines.push_back({"no pass shown (shift+o: next)", OverlayInk::Note});

  if (apron) lines.push_back({"apron of the tile under the cursor: read, not written", OverlayInk::Apron, true});
  for (const PassGrid& pg : g.passes) {
    switch (pg.idle) {
      case IdleRegion::Apron:
        lines.push_back(
            {"idle threads: the block is the input tile; its threads over the apron load, then make no "
             "output (" +
                 percent(idleShare_) + " of its thread slots)",
             OverlayInk::Idle, true});
        break;
      case IdleRegion::Columns:
      case IdleRegion::Rows:
        lines.push_back({std::string("idle threads: those over the apron's ") +
                             (pg.idle == IdleRegion::Columns ? "columns" : "rows") + " make no output (" +
                             percent(idleShare_) + " of the threads)",
                         OverlayInk::Idle, true});
        break;
      case IdleRegion::Elsewhere:
        lines.push_back({"idle threads: " + percent(idleShare_) +
                             " of thread slots, at some step of the block's work (not over one part of the tile)",
                         OverlayInk::Note});
        break;
      case IdleRegion::None:
        break;
    }
  }
  bool hovered = false;
  for (const PassGrid& pg : g.passes) {
    if (!pg.hovered) continue;
    hovered = true;
    const PassLaunch& p = launch_.passes[pg.pass];
    const HoveredTile& t = *pg.hovered;
    const bool blocks = p.grid.x == pg.columns && p.grid.y == pg.rows;
    const Rect& o = t.frameOutput;
    lines.push_back({"under the cursor: " + passLabel(p) + (blocks ? "block (" : "tile (") + std::to_string(t.column) +
                         ", " + std::to_string(t.row) + "), pixels x " + std::to_string(long(o.x)) + ".." +
                         std::to_string(long(o.x + o.w) - 1) + ", y " + std::to_string(long(o.y)) + ".." +
                         std::to_string(long(o.y + o.h) - 1),
                     passInk(pg.pass)});
  }
  if (!hovered) lines.push_back({"point at the video: the tile under the cursor shows its apron", OverlayInk::Note});
  if (launch_.passes.size() > 1) lines.push_back({"shift+o: one pass at a time", OverlayInk::Note});
  return lines;
}

}  // namespace convlive
