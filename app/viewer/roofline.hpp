// The roofline chart's arithmetic, apart from its drawing (roofline_draw.hpp): log-log axes of
// arithmetic intensity (FLOP per DRAM byte) against achieved GFLOP/s, the memory slope (the copy
// bandwidth) and the compute roofs (FP32, matrix) measured at start, where each variant's point
// lies and how far it is from the roof above it. Plain values, no GL; any thread.
#pragma once

#include <string>
#include <vector>

namespace convlive {

// The device's measured roofs; 0 where unknown (no device, not measured).
struct Roofs {
  double bandwidthGBs = 0;  // the slope: attainable GFLOP/s = bandwidth x intensity
  double fp32GFlops = 0, matrixGFlops = 0;
};

enum class RoofKind { Fp32, Matrix };
enum class Bound { Unknown, Memory, Compute };

struct RooflinePoint {
  std::string label;  // "tiled-coop 32x8"
  double intensity = 0;
  double gflops = 0;
  RoofKind roof = RoofKind::Fp32;  // the compute roof that applies (Matrix: tensor-core variants)
  bool highlighted = false;        // the running variant
  bool onCpu = false;              // a CPU variant (plotted only where there are no GPU roofs)
};

// A span of the axis in powers of ten: [10^lo, 10^hi].
struct Decades {
  int lo = 0, hi = 1;
};

// Where the chart is drawn, in pixels (y grows downwards), and positions in it.
struct ChartRect {
  float x = 0, y = 0, w = 0, h = 0;
};
struct ChartXY {
  float x = 0, y = 0;
};

class RooflineChart {
 public:
  RooflineChart(Roofs roofs, std::vector<RooflinePoint> points);

  const Roofs& roofs() const { return roofs_; }
  const std::vector<RooflinePoint>& points() const { return points_; }
  // Whether a point can sit on log axes (intensity and rate finite and above 0).
  static bool plottable(const RooflinePoint& p);
  // Whole decades spanning the plottable points, the knees (one decade each side, so the slope
  // shows) and the peaks; a default span when there is nothing to span.
  Decades xDecades() const { return x_; }
  Decades yDecades() const { return y_; }

  double peak(RoofKind k) const { return k == RoofKind::Fp32 ? roofs_.fp32GFlops : roofs_.matrixGFlops; }
  // Where the slope meets the roof: peak / bandwidth FLOP per byte; 0 when either is unknown.
  double knee(RoofKind k) const;
  // The roof above `intensity`: min(bandwidth x intensity, peak) of those known; 0 when none is.
  double attainable(double intensity, RoofKind k) const;
  // Left of the knee memory-bound, right of it compute-bound; Unknown without both roofs.
  Bound bound(const RooflinePoint& p) const;
  // The point's rate as a share of the roof above it (1: on the roof); 0 when unknown.
  double shareOfRoof(const RooflinePoint& p) const;

  // A position on the axes in `r` (clamped to its edges), and back.
  ChartXY toPixels(double intensity, double gflops, const ChartRect& r) const;
  double intensityAt(float px, const ChartRect& r) const;
  double gflopsAt(float py, const ChartRect& r) const;
  // The roof of kind k as a polyline within the chart: the slope from where it enters the chart
  // to the knee, then flat to the right edge. Only the slope when the peak is unknown, only the
  // flat part when the bandwidth is; empty when both are.
  std::vector<ChartXY> roofPolyline(RoofKind k, const ChartRect& r) const;

 private:
  Roofs roofs_;
  std::vector<RooflinePoint> points_;
  Decades x_, y_;
};

// "memory-bound", "compute-bound", "" (unknown).
const char* boundName(Bound b);

}  // namespace convlive
