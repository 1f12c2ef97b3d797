// Where the frame lands on screen: fit, fill, 1:1, zoom about the cursor, pan, the divider.
#include <gtest/gtest.h>

#include <cmath>

#include "viewer/view.hpp"

namespace convlive {
namespace {

const Rect kArea{0, 0, 1000, 500};

TEST(View, FitLetterboxesAndCentres) {
  ViewState v;
  const Rect r = v.frameRect(kArea, 1920, 1080);
  EXPECT_NEAR(r.h, 500, 1e-9);
  EXPECT_NEAR(r.w, 1920.0 * 500 / 1080, 1e-9);
  EXPECT_NEAR(r.x + r.w / 2, 500, 1e-9);
  EXPECT_NEAR(r.y, 0, 1e-9);
}

TEST(View, FillCoversTheArea) {
  ViewState v;
  v.setMode(FitMode::Fill);
  const Rect r = v.frameRect(kArea, 400, 400);
  EXPECT_NEAR(r.w, 1000, 1e-9);
  EXPECT_NEAR(r.h, 1000, 1e-9);
  EXPECT_NEAR(r.y, -250, 1e-9);
}

TEST(View, OneToOneLandsOnWholePixels) {
  ViewState v;
  v.setMode(FitMode::OneToOne);
  const Rect r = v.frameRect(kArea, 301, 203);
  EXPECT_EQ(r.w, 301);
  EXPECT_EQ(r.h, 203);
  EXPECT_EQ(r.x, std::floor(r.x));
  EXPECT_EQ(r.y, std::floor(r.y));
  EXPECT_NEAR(r.x, (1000 - 301) / 2, 1);
}

TEST(View, ZoomKeepsThePointUnderTheCursor) {
  ViewState v;
  const Rect before = v.frameRect(kArea, 640, 480);
  const double px = 600, py = 120;
  const double u = (px - before.x) / before.w, t = (py - before.y) / before.h;
  v.zoomAt(kArea, 640, 480, px, py, 2.5);
  const Rect after = v.frameRect(kArea, 640, 480);
  EXPECT_NEAR(after.w, before.w * 2.5, 1e-6);
  EXPECT_NEAR(after.x + u * after.w, px, 1e-6);
  EXPECT_NEAR(after.y + t * after.h, py, 1e-6);
  v.zoomAt(kArea, 640, 480, px, py, 1e9);
  EXPECT_EQ(v.zoom(), ViewState::kMaxZoom);
  v.reset();
  EXPECT_EQ(v.zoom(), 1);
}

TEST(View, PanMovesAndModeChangeResets) {
  ViewState v;
  const Rect a = v.frameRect(kArea, 640, 480);
  v.panBy(30, -10);
  const Rect b = v.frameRect(kArea, 640, 480);
  EXPECT_NEAR(b.x - a.x, 30, 1e-9);
  EXPECT_NEAR(b.y - a.y, -10, 1e-9);
  v.setMode(FitMode::Fit);
  const Rect c = v.frameRect(kArea, 640, 480);
  EXPECT_NEAR(c.x, a.x, 1e-9);
}

TEST(View, DividerIsClampedAndGrabbedNearby) {
  ViewState v;
  v.setDivider(1.7);
  EXPECT_EQ(v.divider(), 1.0);
  v.setDivider(0.25);
  EXPECT_FALSE(v.nearDivider(kArea, 250, 100)) << "not grabbable with the split view off";
  v.setSplit(true);
  EXPECT_TRUE(v.nearDivider(kArea, 254, 100));
  EXPECT_FALSE(v.nearDivider(kArea, 270, 100));
}

}  // namespace
}  // namespace convlive
