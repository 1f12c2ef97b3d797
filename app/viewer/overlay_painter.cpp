#include "overlay_painter.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace convlive {
namespace {

ImU32 colourOf(OverlayInk ink) {
  const OverlayColour c = overlayColour(ink);
  return IM_COL32(c.r, c.g, c.b, c.a);
}
ImU32 opaque(OverlayInk ink) {
  const OverlayColour c = overlayColour(ink);
  return IM_COL32(c.r, c.g, c.b, 255);
}

// Framebuffer pixels to ImGui units.
struct ToUnits {
  double sx, sy;
  ImVec2 operator()(double x, double y) const { return ImVec2(float(x / sx), float(y / sy)); }
};
constexpr ToUnits kUnits{1, 1};  // for what is laid out in ImGui units already (the caption)

void fill(ImDrawList& list, const ToUnits& u, const Rect& r, ImU32 colour) {
  list.AddRectFilled(u(r.x, r.y), u(r.x + r.w, r.y + r.h), colour);
}

// A border `px` framebuffer pixels wide just inside r, as filled rectangles (crisp at any scale).
void outline(ImDrawList& list, const ToUnits& u, const Rect& r, double px, ImU32 colour) {
  const double x0 = std::floor(r.x), y0 = std::floor(r.y), x1 = std::ceil(r.x + r.w), y1 = std::ceil(r.y + r.h);
  px = std::min({px, (x1 - x0) / 2, (y1 - y0) / 2});
  fill(list, u, {x0, y0, x1 - x0, px}, colour);
  fill(list, u, {x0, y1 - px, x1 - x0, px}, colour);
  fill(list, u, {x0, y0 + px, px, y1 - y0 - 2 * px}, colour);
  fill(list, u, {x1 - px, y0 + px, px, y1 - y0 - 2 * px}, colour);
}

// Diagonal hatching over r (the idle threads), cut to r.
void hatch(ImDrawList& list, const ToUnits& u, const Rect& r, ImU32 colour) {
  constexpr double kSpacing = 6;
  list.PushClipRect(u(r.x, r.y), u(r.x + r.w, r.y + r.h), true);
  for (double d = -r.h; d < r.w; d += kSpacing) list.AddLine(u(r.x + d, r.y + r.h), u(r.x + d + r.h, r.y), colour, 2.f);
  list.PopClipRect();
}

void paintGrid(ImDrawList& list, const ToUnits& u, const OverlayGeometry& g) {
  const Rect& c = g.clip;
  for (const PassGrid& pg : g.passes) {
    const ImU32 colour = colourOf(passInk(pg.pass));
    for (double x : pg.vertical.at) fill(list, u, {std::floor(x), c.y, 1, c.h}, colour);
    for (double y : pg.horizontal.at) fill(list, u, {c.x, std::floor(y), c.w, 1}, colour);
  }
  for (const PassGrid& pg : g.passes) {
    if (!pg.hovered) continue;
    const HoveredTile& t = *pg.hovered;
    fill(list, u, t.output, IM_COL32(255, 255, 255, 40));
    for (const Rect& r : t.apron) fill(list, u, r, colourOf(OverlayInk::Apron));
    for (const Rect& r : t.idle) hatch(list, u, r, colourOf(OverlayInk::Idle));
    outline(list, u, t.input, 1, opaque(OverlayInk::Apron));
    outline(list, u, t.output, 2, opaque(passInk(pg.pass)));
  }
}

Rect paintCaption(ImDrawList& list, const ToUnits& u, const std::vector<CaptionLine>& caption, const Rect& area) {
  if (caption.empty()) return {};
  ImFont* font = ImGui::GetFont();
  const bool swatches = std::any_of(caption.begin(), caption.end(), [](const CaptionLine& l) { return l.swatch; });
  const float size = ImGui::GetFontSize(), pad = 6, swatch = swatches ? size * 0.7f : 0, gap = swatches ? 5 : 0;
  const ImVec2 a0 = u(area.x, area.y), a1 = u(area.x + area.w, area.y + area.h);
  const float left = a0.x + 8, top = a0.y + 8;
  const float wrap = std::max(120.f, std::min(a1.x - left - 2 * pad - 8, 640.f)) - swatch - gap;
  float width = 0, height = 0;
  std::vector<float> heights;
  for (const CaptionLine& l : caption) {
    const ImVec2 s = font->CalcTextSizeA(size, FLT_MAX, wrap, l.text.c_str());
    width = std::max(width, s.x);
    heights.push_back(s.y);
    height += s.y;
  }
  const ImVec2 box0(left, top), box1(left + width + swatch + gap + 2 * pad, top + height + 2 * pad);
  list.PushClipRect(a0, a1, true);
  list.AddRectFilled(box0, box1, IM_COL32(0, 0, 0, 175));
  float y = top + pad;
  for (std::size_t i = 0; i < caption.size(); ++i) {
    const CaptionLine& l = caption[i];
    const float x = left + pad;
    if (l.swatch) {
      const float sy = y + (size - swatch) / 2;
      // As the ink looks on the video: over grey.
      const Rect box{x, sy, swatch, swatch};
      fill(list, kUnits, box, IM_COL32(128, 128, 128, 255));
      if (l.ink == OverlayInk::Idle)
        hatch(list, kUnits, box, colourOf(l.ink));
      else
        fill(list, kUnits, box, colourOf(l.ink));
    }
    const bool legend = l.ink == OverlayInk::Apron || l.ink == OverlayInk::Idle;
    const ImU32 text = legend ? opaque(OverlayInk::Text) : opaque(l.ink);
    list.AddText(font, size, ImVec2(x + swatch + gap, y), text, l.text.c_str(), nullptr, wrap);
    y += heights[i];
  }
  list.PopClipRect();
  return Rect{box0.x * u.sx, box0.y * u.sy, (box1.x - box0.x) * u.sx, (box1.y - box0.y) * u.sy};
}

}  // namespace

OverlayColour overlayColour(OverlayInk ink) {
  switch (ink) {
    case OverlayInk::Text:
      return {235, 235, 235, 255};
    case OverlayInk::Note:
      return {175, 175, 175, 255};
    case OverlayInk::Pass0:
      return {255, 214, 10, 200};
    case OverlayInk::Pass1:
      return {40, 220, 255, 200};
    case OverlayInk::Pass2:
      return {255, 90, 230, 200};
    case OverlayInk::Apron:
      return {60, 140, 255, 110};
    case OverlayInk::Idle:
      return {255, 60, 40, 230};
  }
  return {255, 255, 255, 255};
}

Rect paintOverlay(ImDrawList& list, const OverlayGeometry& g, const std::vector<CaptionLine>& caption, const Rect& area,
                  double scaleX, double scaleY) {
  const ToUnits u{scaleX > 0 ? scaleX : 1, scaleY > 0 ? scaleY : 1};
  if (g.clip.w > 0 && g.clip.h > 0) {
    const Rect& c = g.clip;
    list.PushClipRect(u(c.x, c.y), u(c.x + c.w, c.y + c.h), true);
    paintGrid(list, u, g);
    list.PopClipRect();
  }
  return paintCaption(list, u, caption, area);
}

}  // namespace convlive
