// Shared by the viewer tests: contexts of each kind, a viewer on a small odd-sized test pattern,
// and checks of what was drawn against the reference filter.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "convlive/reference.hpp"
#include "gl/context.hpp"
#include "image_compare.hpp"
#include "image_io.hpp"
#include "viewer/overlay_painter.hpp"
#include "viewer/viewer.hpp"

namespace convlive::testing {

enum class ContextKind { Window, Egl };

inline const char* kindName(ContextKind k) { return k == ContextKind::Window ? "Window" : "Egl"; }
inline void PrintTo(ContextKind k, std::ostream* os) { *os << kindName(k); }

// The context, or "" in `skip` with the reason it cannot exist here. A window needs a display
// (./run.sh test starts Xvfb when there is none); EGL must work everywhere the tests run (Mesa's
// software device, or the GPU's), so its failure is a failure, not a skip.
inline std::unique_ptr<GlContext> makeContext(ContextKind kind, std::string& skip, int w = 960, int h = 640) {
  ContextOptions o;
  o.width = w;
  o.height = h;
  o.vsync = false;
  if (kind == ContextKind::Window) {
    if (!displayAvailable()) {
      skip = "no display (DISPLAY is not set): the window tests need one; ./run.sh test runs them under xvfb-run";
      return nullptr;
    }
    // Xvfb under a parallel ctest now and then refuses a connection for a moment ("Failed to open
    // display"): try again a few times before calling it a failure.
    for (int attempt = 1;; ++attempt) {
      try {
        return makeWindowContext(o);
      } catch (const GlError&) {
        if (attempt == 4) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(250 * attempt));
      }
    }
  }
  return makeHeadlessContext(o);
}

// A viewer on an odd-sized moving pattern, 1:1, keeping each shown frame's source (RGBA8 from
// GStreamer unless `format` says otherwise).
inline std::unique_ptr<Viewer> makeViewer(GlContext& ctx, const FilterSpec& filter, int w = 301, int h = 203,
                                          InputFormat format = InputFormat::Rgba) {
  PipelineConfig c;
  c.source = SourceSpec::testPattern("moving", w, h, 30);
  c.sync = false;
  c.inputFormat = format;
  ViewerOptions o;
  o.keepSourceFrames = true;
  auto v = std::make_unique<Viewer>(ctx, c, filter, o);
  v->view().setMode(FitMode::OneToOne);
  return v;
}

// A 211x97 moving zone plate in a grey `format` (GRAY8, GRAY16_LE), taken as it comes (input format
// auto), for a viewer that keeps each shown frame's source.
inline PipelineConfig greySourceConfig(const std::string& format) {
  PipelineConfig c;
  c.source = SourceSpec::launch("videotestsrc pattern=zone-plate kx2=20 ky2=20 kt=3 ! video/x-raw,format=" + format +
                                ",width=211,height=97,framerate=30/1 ! videoconvert ! appsink");
  c.inputFormat = InputFormat::Auto;
  return c;
}

// Draws passes until `n` more frames have been shown (bounded).
inline void showFrames(Viewer& v, int n) {
  const auto target = v.framesShown() + std::uint64_t(n);
  for (int i = 0; i < 400 && v.framesShown() < target; ++i) v.frame();
  ASSERT_GE(v.framesShown(), target) << "the viewer showed no new frame in 400 passes";
}

// Draws passes until the pipeline reports a source error, for up to 20 s: the error comes from
// GStreamer's threads, which a loaded machine may run late (a bound of 200 passes was not enough
// with the test suite on both cores).
inline void frameUntilSourceError(Viewer& v) {
  const auto t0 = std::chrono::steady_clock::now();
  while (v.pipeline().lastError().empty() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20))
    v.frame();
  ASSERT_FALSE(v.pipeline().lastError().empty()) << "no source error in 20 s";
}

// Shows frames until the shown frame went through `variant` with the controller's filter.
inline void showApplied(Viewer& v, const std::string& variant = "") {
  for (int i = 0; i < 50; ++i) {
    showFrames(v, 1);
    const FilterParams want = v.filter().applied().params();
    const FilterParams& got = v.shownParams();
    if (got.filter.name == want.filter.name && got.filter.mask.weights() == want.filter.mask.weights() &&
        got.border == want.border && (variant.empty() || v.shownVariant() == variant))
      return;
  }
  FAIL() << "the change never reached a shown frame";
}

inline HostImage reference(const FilterParams& p, const HostImage& source) {
  HostImage want(source.width(), source.height());
  referenceFilter(p.filter, p.border, p.filterAlpha, source.view(), want.view());
  return want;
}

// With the split view on: draws a frame and checks that left of the divider is the shown frame's
// source (within sourceBound levels), right of it its reference filter (within filteredBound), with
// the divider line between.
inline void expectSplitView(Viewer& view, int sourceBound = 0, int filteredBound = 1) {
  Viewer* v = &view;
  v->captureNextFrame();
  v->frame();
  const HostImage& shot = v->capture();
  const Rect r = v->frameRect();
  const double divider = v->view().dividerX(v->videoArea());
  ASSERT_GT(divider, r.x + 20);
  ASSERT_LT(divider, r.x + r.w - 20);
  const HostImage& src = v->shownSource();
  const HostImage want = reference(v->shownParams(), src);
  int leftErr = 0, rightErr = 0, line = 0;
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x) {
      const double sx = r.x + x + 0.5;
      const std::uint8_t* got = shot.view().row(int(r.y) + y) + (int(r.x) + x) * 4;
      const HostImage& expect = sx < divider - 1 ? src : want;
      if (std::abs(sx - divider) < 1) {
        line += got[0] > 200 && got[2] < 100;  // the divider's amber
        continue;
      }
      int& err = sx < divider ? leftErr : rightErr;
      for (int c = 0; c < 3; ++c) err = std::max(err, std::abs(int(got[c]) - int(expect.view().row(y)[x * 4 + c])));
    }
  EXPECT_LE(leftErr, sourceBound) << "left of the divider is not the original frame";
  EXPECT_LE(rightErr, filteredBound) << "right of the divider is not the filtered frame";
  EXPECT_GT(line, src.height() / 2) << "no divider line";
}

// Largest RGB difference between `frame` and the block of `shot` at (x, y); -1 when it does not fit.
inline int maxRgbError(const HostImage& frame, const HostImage& shot, int x, int y) {
  if (x < 0 || y < 0 || x + frame.width() > shot.width() || y + frame.height() > shot.height()) return -1;
  const ConstImageView block{shot.view().row(y) + 4 * x, frame.width(), frame.height(), shot.pitch()};
  return testcases::maxDifference(frame.view(), block, 3);
}

// Writes `shot` as NAME.png into $CONVLIVE_OVERLAY_SHOTS when it is set (screenshots to look at).
inline void keepShot(const HostImage& shot, const std::string& name) {
  const char* dir = std::getenv("CONVLIVE_OVERLAY_SHOTS");
  if (!dir || !*dir) return;
  std::filesystem::create_directories(dir);
  writePng(std::string(dir) + "/" + name + ".png", shot);
}

// The overlay's pixels. `px`: pixel (x, y) of an image; `sameRgb`: equal colours.
inline const std::uint8_t* px(const HostImage& img, int x, int y) { return img.view().row(y) + 4 * x; }
inline bool sameRgb(const std::uint8_t* a, const std::uint8_t* b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}
// True when `got` is `ink` blended over `under` as GL blends ImGui's vertices (source alpha).
inline bool inkOver(const std::uint8_t* got, const std::uint8_t* under, OverlayInk ink) {
  const OverlayColour c = overlayColour(ink);
  const double a = c.a / 255.0;
  const double want[] = {a * c.r + (1 - a) * under[0], a * c.g + (1 - a) * under[1], a * c.b + (1 - a) * under[2]};
  for (int i = 0; i < 3; ++i)
    if (std::abs(got[i] - want[i]) > 2.5) return false;
  return true;
}

}  // namespace convlive::testing
