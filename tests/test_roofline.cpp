// The roofline chart's arithmetic (label cpu): log axes, the roofs and their knees, where points
// lie and how far they are from their roof, and what it does without roofs (no device).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "viewer/roofline.hpp"
#include "viewer/roofline_draw.hpp"

namespace convlive {
namespace {

// An H200-like device: 4000 GB/s, 60 TFLOP/s FP32, 600 TFLOP/s mma.sync.
const Roofs kRoofs{4000, 60000, 600000};
const ChartRect kRect{100, 50, 400, 300};

RooflinePoint point(const char* label, double intensity, double gflops, RoofKind k = RoofKind::Fp32) {
  RooflinePoint p;
  p.label = label;
  p.intensity = intensity;
  p.gflops = gflops;
  p.roof = k;
  return p;
}

TEST(Roofline, KneesLieWhereTheSlopeMeetsEachRoof) {
  const RooflineChart c(kRoofs, {});
  EXPECT_DOUBLE_EQ(c.knee(RoofKind::Fp32), 15.0);
  EXPECT_DOUBLE_EQ(c.knee(RoofKind::Matrix), 150.0);
  EXPECT_DOUBLE_EQ(c.attainable(1.0, RoofKind::Fp32), 4000.0);  // on the slope
  EXPECT_DOUBLE_EQ(c.attainable(15.0, RoofKind::Fp32), 60000.0);
  EXPECT_DOUBLE_EQ(c.attainable(100.0, RoofKind::Fp32), 60000.0);  // flat past the knee
  EXPECT_DOUBLE_EQ(c.attainable(100.0, RoofKind::Matrix), 400000.0);
  EXPECT_DOUBLE_EQ(c.attainable(1000.0, RoofKind::Matrix), 600000.0);
}

TEST(Roofline, AxesAreLogarithmicAndSpanKneesAndPeaks) {
  const RooflineChart c(kRoofs, {point("a", 0.5, 900)});
  const Decades x = c.xDecades(), y = c.yDecades();
  EXPECT_LE(x.lo, -1);  // the point at 0.5 FLOP/B
  EXPECT_GE(x.hi, 4);   // a decade right of the matrix knee (150)
  EXPECT_GE(y.hi, 6);   // above the matrix peak
  EXPECT_LE(y.lo, 2);   // the point at 900 GFLOP/s
  // Decades map to equal lengths; the edges to the rectangle's edges; y grows downwards.
  const ChartXY lo = c.toPixels(std::pow(10.0, x.lo), std::pow(10.0, y.lo), kRect);
  const ChartXY hi = c.toPixels(std::pow(10.0, x.hi), std::pow(10.0, y.hi), kRect);
  EXPECT_FLOAT_EQ(lo.x, kRect.x);
  EXPECT_FLOAT_EQ(lo.y, kRect.y + kRect.h);
  EXPECT_FLOAT_EQ(hi.x, kRect.x + kRect.w);
  EXPECT_FLOAT_EQ(hi.y, kRect.y);
  const float decade = kRect.w / float(x.hi - x.lo);
  EXPECT_NEAR(c.toPixels(10, 1000, kRect).x - c.toPixels(1, 1000, kRect).x, decade, 1e-3);
  EXPECT_NEAR(c.toPixels(std::sqrt(10.0), 1000, kRect).x - c.toPixels(1, 1000, kRect).x, decade / 2, 1e-3);
  // And back.
  const ChartXY p = c.toPixels(3.7, 12345, kRect);
  EXPECT_NEAR(c.intensityAt(p.x, kRect), 3.7, 1e-3);
  EXPECT_NEAR(c.gflopsAt(p.y, kRect), 12345, 1);
  // Outside the axes: clamped to the edge, never drawn outside the chart.
  EXPECT_FLOAT_EQ(c.toPixels(1e-9, 1e-9, kRect).x, kRect.x);
  EXPECT_FLOAT_EQ(c.toPixels(1e-9, 1e-9, kRect).y, kRect.y + kRect.h);
}

TEST(Roofline, TheRoofPolylineBendsAtTheKnee) {
  const RooflineChart c(kRoofs, {point("a", 0.5, 900)});
  const std::vector<ChartXY> roof = c.roofPolyline(RoofKind::Fp32, kRect);
  ASSERT_EQ(roof.size(), 3u);
  const ChartXY knee = c.toPixels(15, 60000, kRect);
  EXPECT_NEAR(roof[1].x, knee.x, 1e-3);
  EXPECT_NEAR(roof[1].y, knee.y, 1e-3);
  EXPECT_NEAR(roof[2].x, kRect.x + kRect.w, 1e-3);
  EXPECT_NEAR(roof[2].y, knee.y, 1e-3);  // flat
  // The slope rises one decade of rate per decade of intensity.
  const float perDecadeX = kRect.w / float(c.xDecades().hi - c.xDecades().lo);
  const float perDecadeY = kRect.h / float(c.yDecades().hi - c.yDecades().lo);
  EXPECT_NEAR((roof[0].y - roof[1].y) / (roof[1].x - roof[0].x), perDecadeY / perDecadeX, 1e-3);
  EXPECT_GE(roof[0].x, kRect.x);
  EXPECT_LE(roof[0].y, kRect.y + kRect.h + 1e-3);
  // The matrix roof's knee is further right and higher.
  const std::vector<ChartXY> matrix = c.roofPolyline(RoofKind::Matrix, kRect);
  ASSERT_EQ(matrix.size(), 3u);
  EXPECT_GT(matrix[1].x, roof[1].x);
  EXPECT_LT(matrix[1].y, roof[1].y);
}

TEST(Roofline, PointsBelowTheirRoofAndHowFarFromIt) {
  const RooflineChart c(
      kRoofs, {point("mem", 1.0, 2000), point("comp", 100, 30000), point("mma", 200, 150000, RoofKind::Matrix)});
  const auto& p = c.points();
  EXPECT_EQ(c.bound(p[0]), Bound::Memory);
  EXPECT_DOUBLE_EQ(c.shareOfRoof(p[0]), 0.5);  // 2000 of the slope's 4000 at 1 FLOP/B
  EXPECT_EQ(c.bound(p[1]), Bound::Compute);
  EXPECT_DOUBLE_EQ(c.shareOfRoof(p[1]), 0.5);  // 30000 of 60000
  EXPECT_EQ(c.bound(p[2]), Bound::Compute);    // past the matrix knee (150)
  EXPECT_DOUBLE_EQ(c.shareOfRoof(p[2]), 0.25);
  EXPECT_STREQ(boundName(Bound::Memory), "memory-bound");
  // Each point is drawn below (greater y than) its roof at its own x.
  for (const RooflinePoint& q : p) {
    const ChartXY at = c.toPixels(q.intensity, q.gflops, kRect);
    const ChartXY roof = c.toPixels(q.intensity, c.attainable(q.intensity, q.roof), kRect);
    EXPECT_NEAR(at.x, roof.x, 1e-3);
    EXPECT_GT(at.y, roof.y) << q.label;
  }
  // A point on its roof: share 1.
  EXPECT_NEAR(c.shareOfRoof(point("on", 15, 60000)), 1.0, 1e-12);
}

TEST(Roofline, WithoutRoofsThePointsStillGetAxes) {
  const RooflineChart none(Roofs{}, {point("a", 2, 500), point("b", 20, 5000)});
  EXPECT_EQ(none.knee(RoofKind::Fp32), 0);
  EXPECT_EQ(none.attainable(2, RoofKind::Fp32), 0);
  EXPECT_EQ(none.bound(none.points()[0]), Bound::Unknown);
  EXPECT_EQ(none.shareOfRoof(none.points()[0]), 0);
  EXPECT_TRUE(none.roofPolyline(RoofKind::Fp32, kRect).empty());
  EXPECT_TRUE(none.roofPolyline(RoofKind::Matrix, kRect).empty());
  EXPECT_LE(none.xDecades().lo, 0);
  EXPECT_GE(none.xDecades().hi, 2);
  EXPECT_LE(none.yDecades().lo, 2);
  EXPECT_GE(none.yDecades().hi, 4);

  // Nothing at all: a default span, no roofs.
  const RooflineChart empty(Roofs{}, {});
  EXPECT_LT(empty.xDecades().lo, empty.xDecades().hi);
  EXPECT_LT(empty.yDecades().lo, empty.yDecades().hi);

  // Points that cannot sit on log axes are kept but not plottable, and do not move the axes.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const RooflineChart odd(kRoofs, {point("zero", 0, 100), point("nan", nan, 100), point("neg", 3, -1)});
  for (const RooflinePoint& q : odd.points()) EXPECT_FALSE(RooflineChart::plottable(q)) << q.label;
  const RooflineChart plain(kRoofs, {});
  EXPECT_EQ(odd.xDecades().lo, plain.xDecades().lo);
  EXPECT_EQ(odd.yDecades().lo, plain.yDecades().lo);
  EXPECT_EQ(odd.shareOfRoof(odd.points()[2]), 0);

  // Bad roofs count as unknown.
  const RooflineChart bad(Roofs{nan, -5, 0}, {});
  EXPECT_EQ(bad.roofs().bandwidthGBs, 0);
  EXPECT_EQ(bad.roofs().fp32GFlops, 0);
}

TEST(Roofline, OneRoofKnownDrawsThatPartAlone) {
  const RooflineChart slopeOnly(Roofs{4000, 0, 0}, {point("a", 1, 1000)});
  const std::vector<ChartXY> slope = slopeOnly.roofPolyline(RoofKind::Fp32, kRect);
  ASSERT_EQ(slope.size(), 2u);
  EXPECT_LT(slope[1].y, slope[0].y);  // rising
  EXPECT_EQ(slopeOnly.bound(slopeOnly.points()[0]), Bound::Unknown);
  EXPECT_DOUBLE_EQ(slopeOnly.shareOfRoof(slopeOnly.points()[0]), 0.25);  // 1000 of 4000 on the slope

  const RooflineChart flatOnly(Roofs{0, 60000, 0}, {point("a", 1, 1000)});
  const std::vector<ChartXY> flat = flatOnly.roofPolyline(RoofKind::Fp32, kRect);
  ASSERT_EQ(flat.size(), 2u);
  EXPECT_FLOAT_EQ(flat[0].y, flat[1].y);
  EXPECT_FLOAT_EQ(flat[0].x, kRect.x);
  EXPECT_FLOAT_EQ(flat[1].x, kRect.x + kRect.w);
}

TEST(Roofline, NumbersForAxesAndLabels) {
  EXPECT_EQ(axisNumber(0.1), "0.1");
  EXPECT_EQ(axisNumber(1), "1");
  EXPECT_EQ(axisNumber(100), "100");
  EXPECT_EQ(axisNumber(1000), "1k");
  EXPECT_EQ(axisNumber(1e6), "1M");
  EXPECT_EQ(rateText(66908), "66.9 TFLOP/s");
  EXPECT_EQ(rateText(512), "512 GFLOP/s");
  EXPECT_EQ(bandwidthText(4300), "4.30 TB/s");
}

}  // namespace
}  // namespace convlive
