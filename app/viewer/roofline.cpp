#include "roofline.hpp"

#include <algorithm>
#include <cmath>

namespace convlive {
namespace {

constexpr int kMostDecades = 9;

// Whole decades spanning `values` (all above 0), at least one wide, at most kMostDecades (the top
// kept: the roofs and the fastest points matter most).
Decades span(const std::vector<double>& values, Decades fallback) {
  if (values.empty()) return fallback;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  Decades d{int(std::floor(std::log10(*lo))), int(std::ceil(std::log10(*hi)))};
  if (d.hi <= d.lo) d.hi = d.lo + 1;
  if (d.hi - d.lo > kMostDecades) d.lo = d.hi - kMostDecades;
  return d;
}

bool positive(double v) { return std::isfinite(v) && v > 0; }

float along(double value, Decades d, float origin, float length) {
  const double t = (std::log10(value) - d.lo) / (d.hi - d.lo);
  return origin + float(std::clamp(t, 0.0, 1.0)) * length;
}

}  // namespace

const char* boundName(Bound b) {
  switch (b) {
    case Bound::Memory:
      return "memory-bound";
    case Bound::Compute:
      return "compute-bound";
    case Bound::Unknown:
      break;
  }
  return "";
}

bool RooflineChart::plottable(const RooflinePoint& p) { return positive(p.intensity) && positive(p.gflops); }

RooflineChart::RooflineChart(Roofs roofs, std::vector<RooflinePoint> points)
    : roofs_(roofs), points_(std::move(points)) {
  if (!positive(roofs_.bandwidthGBs)) roofs_.bandwidthGBs = 0;
  if (!positive(roofs_.fp32GFlops)) roofs_.fp32GFlops = 0;
  if (!positive(roofs_.matrixGFlops)) roofs_.matrixGFlops = 0;
  std::vector<double> xs, ys;
  for (const RooflinePoint& p : points_) {
    if (!plottable(p)) continue;
    xs.push_back(p.intensity);
    ys.push_back(p.gflops);
    ys.push_back(p.gflops * 1.5);  // room above the point for its name
  }
  for (const RoofKind k : {RoofKind::Fp32, RoofKind::Matrix}) {
    if (const double kn = knee(k); kn > 0) {
      xs.push_back(kn / 10);
      xs.push_back(kn * 10);
    }
    if (peak(k) > 0) ys.push_back(peak(k) * 1.5);  // room above the roof for its label
  }
  x_ = span(xs, Decades{-1, 3});
  // Below: the slope's rate at the left edge, so it enters the chart from its bottom or left side.
  if (roofs_.bandwidthGBs > 0 && !ys.empty()) ys.push_back(roofs_.bandwidthGBs * std::pow(10.0, x_.lo));
  y_ = span(ys, Decades{0, 5});
}

double RooflineChart::knee(RoofKind k) const {
  return roofs_.bandwidthGBs > 0 && peak(k) > 0 ? peak(k) / roofs_.bandwidthGBs : 0;
}

double RooflineChart::attainable(double intensity, RoofKind k) const {
  if (!positive(intensity)) return 0;
  const double slope = roofs_.bandwidthGBs > 0 ? roofs_.bandwidthGBs * intensity : 0;
  const double flat = peak(k);
  if (slope > 0 && flat > 0) return std::min(slope, flat);
  return std::max(slope, flat);
}

Bound RooflineChart::bound(const RooflinePoint& p) const {
  const double kn = knee(p.roof);
  if (kn <= 0 || !positive(p.intensity)) return Bound::Unknown;
  return p.intensity < kn ? Bound::Memory : Bound::Compute;
}

double RooflineChart::shareOfRoof(const RooflinePoint& p) const {
  const double roof = attainable(p.intensity, p.roof);
  return roof > 0 && positive(p.gflops) ? p.gflops / roof : 0;
}

ChartXY RooflineChart::toPixels(double intensity, double gflops, const ChartRect& r) const {
  return {along(intensity, x_, r.x, r.w), r.y + r.h - (along(gflops, y_, r.y, r.h) - r.y)};
}

double RooflineChart::intensityAt(float px, const ChartRect& r) const {
  const double t = r.w > 0 ? (px - r.x) / r.w : 0;
  return std::pow(10.0, x_.lo + t * (x_.hi - x_.lo));
}

double RooflineChart::gflopsAt(float py, const ChartRect& r) const {
  const double t = r.h > 0 ? (r.y + r.h - py) / r.h : 0;
  return std::pow(10.0, y_.lo + t * (y_.hi - y_.lo));
}

std::vector<ChartXY> RooflineChart::roofPolyline(RoofKind k, const ChartRect& r) const {
  const double left = std::pow(10.0, x_.lo), right = std::pow(10.0, x_.hi);
  const double bottom = std::pow(10.0, y_.lo), top = std::pow(10.0, y_.hi);
  const double bw = roofs_.bandwidthGBs, flat = peak(k);
  std::vector<ChartXY> line;
  if (bw <= 0 && flat <= 0) return line;
  if (bw <= 0) return {toPixels(left, flat, r), toPixels(right, flat, r)};
  // The slope enters at the left edge, or at the bottom where it is below the chart there.
  const double enter = std::max(left, bottom / bw);
  const double ceiling = flat > 0 ? std::min(flat, top) : top;
  const double knee = std::min(ceiling / bw, right);
  if (enter >= knee) {  // the slope lies outside the chart: the roof is flat all across
    if (flat > 0) return {toPixels(left, flat, r), toPixels(right, flat, r)};
    return line;
  }
  line.push_back(toPixels(enter, bw * enter, r));
  line.push_back(toPixels(knee, bw * knee, r));
  if (flat > 0 && knee < right) line.push_back(toPixels(right, flat, r));
  return line;
}

}  // namespace convlive
