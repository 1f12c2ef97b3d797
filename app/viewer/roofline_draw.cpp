#include "roofline_draw.hpp"

#include <imgui.h>

#include <cmath>
#include <cstdio>

namespace convlive {
namespace {

const ImU32 kBackground = IM_COL32(22, 24, 30, 255);
const ImU32 kGrid = IM_COL32(60, 64, 74, 255);
const ImU32 kAxisText = IM_COL32(150, 155, 165, 255);
const ImU32 kFp32 = IM_COL32(255, 170, 60, 255);     // the slope and the FP32 roof, FP32 points
const ImU32 kMatrix = IM_COL32(200, 120, 255, 255);  // the matrix roof, tensor-core points
const ImU32 kCpu = IM_COL32(110, 190, 255, 255);     // CPU variants' points (no GPU roofs)
const ImU32 kRing = IM_COL32(255, 255, 255, 255);

ImU32 colourOf(RoofKind k) { return k == RoofKind::Matrix ? kMatrix : kFp32; }
ImU32 colourOf(const RooflinePoint& p) { return p.onCpu ? kCpu : colourOf(p.roof); }

std::string scaled(double v, const char* const units[], int count) {
  int i = 0;
  while (i + 1 < count && std::fabs(v) >= 1000) {
    v /= 1000;
    ++i;
  }
  char b[48];
  std::snprintf(b, sizeof b, std::fabs(v) >= 100 ? "%.0f %s" : std::fabs(v) >= 10 ? "%.1f %s" : "%.2f %s", v, units[i]);
  return b;
}

}  // namespace

std::string rateText(double gflops) {
  static const char* const units[] = {"GFLOP/s", "TFLOP/s", "PFLOP/s"};
  return scaled(gflops, units, 3);
}

std::string bandwidthText(double gbs) {
  static const char* const units[] = {"GB/s", "TB/s"};
  return scaled(gbs, units, 2);
}

std::string axisNumber(double value) {
  static const char* const suffix[] = {"", "k", "M", "G", "T"};
  if (value < 1) {
    char b[16];
    std::snprintf(b, sizeof b, "%g", value);
    return b;
  }
  int i = 0;
  while (i < 4 && value >= 1000) {
    value /= 1000;
    ++i;
  }
  char b[16];
  std::snprintf(b, sizeof b, "%.0f%s", value, suffix[i]);
  return b;
}

RooflineDrawn drawRoofline(const RooflineChart& chart, float height, const std::string& noRoofs) {
  RooflineDrawn drawn;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(120.f, ImGui::GetContentRegionAvail().x);
  ImGui::InvisibleButton("##roofline", ImVec2(width, height));
  const bool hoveredChart = ImGui::IsItemHovered();
  const float line = ImGui::GetTextLineHeight();
  const ChartRect r{origin.x + 3.2f * line, origin.y + 0.4f * line, width - 3.6f * line, height - 1.9f * line};
  drawn.plot = r;
  dl->AddRectFilled(ImVec2(r.x, r.y), ImVec2(r.x + r.w, r.y + r.h), kBackground);

  // Decades: grid lines and their numbers.
  const Decades xd = chart.xDecades(), yd = chart.yDecades();
  for (int k = xd.lo; k <= xd.hi; ++k) {
    const ChartXY p = chart.toPixels(std::pow(10.0, k), std::pow(10.0, yd.lo), r);
    dl->AddLine(ImVec2(p.x, r.y), ImVec2(p.x, r.y + r.h), kGrid);
    const std::string t = axisNumber(std::pow(10.0, k));
    const float tw = ImGui::CalcTextSize(t.c_str()).x;
    dl->AddText(ImVec2(std::min(p.x - tw / 2, r.x + r.w - tw), r.y + r.h + 0.15f * line), kAxisText, t.c_str());
  }
  for (int k = yd.lo; k <= yd.hi; ++k) {
    const ChartXY p = chart.toPixels(std::pow(10.0, xd.lo), std::pow(10.0, k), r);
    dl->AddLine(ImVec2(r.x, p.y), ImVec2(r.x + r.w, p.y), kGrid);
    const std::string t = axisNumber(std::pow(10.0, k));
    const float tw = ImGui::CalcTextSize(t.c_str()).x;
    dl->AddText(ImVec2(r.x - tw - 0.3f * line, std::max(r.y, p.y - line / 2)), kAxisText, t.c_str());
  }
  dl->AddText(ImVec2(r.x + 0.3f * line, r.y + 0.1f * line), kAxisText, "GFLOP/s");
  const char* xTitle = "FLOP/byte";
  dl->AddText(ImVec2(r.x + r.w - ImGui::CalcTextSize(xTitle).x - 0.3f * line, r.y + r.h - 1.1f * line), kAxisText,
              xTitle);

  // The roofs, each named at its right end (above the flat part).
  const Roofs& roofs = chart.roofs();
  for (const RoofKind k : {RoofKind::Matrix, RoofKind::Fp32}) {  // FP32's slope on top
    if (chart.peak(k) <= 0 && (k == RoofKind::Matrix || roofs.bandwidthGBs <= 0)) continue;
    const std::vector<ChartXY> pts = chart.roofPolyline(k, r);
    if (pts.size() < 2) continue;
    std::vector<ImVec2> v;
    for (const ChartXY& p : pts) v.emplace_back(p.x, p.y);
    dl->AddPolyline(v.data(), int(v.size()), colourOf(k), ImDrawFlags_None, 2.f);
    if (chart.peak(k) > 0) {
      const std::string t = (k == RoofKind::Fp32 ? "FP32 " : "mma.sync ") + rateText(chart.peak(k));
      const ImVec2 size = ImGui::CalcTextSize(t.c_str());
      dl->AddText(ImVec2(r.x + r.w - size.x - 0.3f * line, std::max(r.y, v.back().y - size.y - 0.1f * line)),
                  colourOf(k), t.c_str());
    }
  }
  if (roofs.bandwidthGBs > 0) {
    const std::vector<ChartXY> slope = chart.roofPolyline(RoofKind::Fp32, r);
    if (slope.size() >= 2) {
      const std::string t = "copy " + bandwidthText(roofs.bandwidthGBs);
      const float mx = (slope[0].x + slope[1].x) / 2, my = (slope[0].y + slope[1].y) / 2;
      dl->AddText(ImVec2(mx + 0.3f * line, my + 0.1f * line), kFp32, t.c_str());
    }
  }
  if (roofs.bandwidthGBs <= 0 && roofs.fp32GFlops <= 0 && !noRoofs.empty()) {
    ImGui::PushClipRect(ImVec2(r.x, r.y), ImVec2(r.x + r.w, r.y + r.h), true);
    dl->AddText(nullptr, 0.f, ImVec2(r.x + 0.5f * line, r.y + 1.6f * line), kAxisText, noRoofs.c_str(), nullptr,
                r.w - line);
    ImGui::PopClipRect();
  }

  // The points: the running one last (on top), larger and named.
  const auto& points = chart.points();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  float nearest = 0.6f * line * 0.6f * line;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < points.size(); ++i) {
      const RooflinePoint& p = points[i];
      if (!RooflineChart::plottable(p) || p.highlighted != (pass == 1)) continue;
      const ChartXY c = chart.toPixels(p.intensity, p.gflops, r);
      const float radius = p.highlighted ? 0.4f * line : 0.28f * line;
      dl->AddCircleFilled(ImVec2(c.x, c.y), radius, colourOf(p));
      if (p.highlighted) {
        dl->AddCircle(ImVec2(c.x, c.y), radius + 2.f, kRing, 0, 1.5f);
        const ImVec2 size = ImGui::CalcTextSize(p.label.c_str());
        const float tx = c.x + radius + 4 + size.x < r.x + r.w ? c.x + radius + 4 : c.x - radius - 4 - size.x;
        dl->AddText(ImVec2(tx, c.y - size.y / 2), kRing, p.label.c_str());
      }
      ++drawn.pointsDrawn;
      const float dx = mouse.x - c.x, dy = mouse.y - c.y;
      if (hoveredChart && dx * dx + dy * dy < nearest) {
        nearest = dx * dx + dy * dy;
        drawn.hovered = int(i);
      }
    }
  }
  if (drawn.hovered >= 0) {
    const RooflinePoint& p = points[std::size_t(drawn.hovered)];
    ImGui::BeginTooltip();
    ImGui::Text("%s%s", p.label.c_str(), p.highlighted ? " (running)" : "");
    ImGui::Text("%.2f FLOP/byte, %s", p.intensity, rateText(p.gflops).c_str());
    if (const Bound b = chart.bound(p); b != Bound::Unknown)
      ImGui::Text("%s: %.0f%% of the %s roof above it", boundName(b), 100 * chart.shareOfRoof(p),
                  b == Bound::Memory           ? "bandwidth"
                  : p.roof == RoofKind::Matrix ? "mma.sync"
                                               : "FP32");
    ImGui::EndTooltip();
  } else if (hoveredChart) {
    ImGui::SetTooltip("%.2f FLOP/byte, %s", chart.intensityAt(mouse.x, r),
                      rateText(chart.gflopsAt(mouse.y, r)).c_str());
  }
  return drawn;
}

}  // namespace convlive
