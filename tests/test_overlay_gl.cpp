// The block-grid overlay on the screen (label gl; a GLFW window under a display, and headless EGL):
// drawn by itself over a frame for GPU variants' launches (computed arithmetically: no device
// needed), read back, and checked pixel by pixel against the launch's tiles (lines on the tile
// edges and nowhere else, the hovered tile's apron and idle threads, both passes of separable,
// thinning); and in the viewer, where the running variant here is a CPU one: the key toggles it,
// and it says, in its caption and nowhere else on the video, that there is no grid.
//
// CONVLIVE_OVERLAY_SHOTS=folder writes the screenshots there (to look at them).
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <cmath>

#include "filter_cases.hpp"
#include "viewer/frame_capture.hpp"
#include "viewer/overlay.hpp"
#include "viewer/overlay_painter.hpp"
#include "viewer/renderer.hpp"
#include "viewer_fixture.hpp"

namespace convlive {
namespace {

using namespace convlive::testing;
using testcases::paramsFor;

// A frame drawn by the viewer's renderer into `area`, the overlay painted over it by ImGui (its own
// context and OpenGL 3 backend, as the viewer's), and the composed view read back.
class Canvas {
 public:
  explicit Canvas(GlContext& context) : context_(context) {
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::StyleColorsDark();
    if (!ImGui_ImplOpenGL3_Init("#version 330")) throw GlError("ImGui's OpenGL 3 backend did not start");
  }
  ~Canvas() {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui::DestroyContext();
  }
  Canvas(const Canvas&) = delete;
  Canvas& operator=(const Canvas&) = delete;

  // `frame` at `frameRect` in `area`; with `geometry`, the overlay and `caption` over it.
  HostImage draw(const HostImage& frame, const Rect& area, const Rect& frameRect, const OverlayGeometry* geometry,
                 const std::vector<CaptionLine>& caption = {}) {
    int w = 0, h = 0;
    context_.framebufferSize(w, h);
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(float(w), float(h));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = 1.f / 60;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    captionRect = {};
    if (geometry) captionRect = paintOverlay(*ImGui::GetBackgroundDrawList(), *geometry, caption, area);
    ImGui::Render();
    glViewport(0, 0, w, h);
    glClearColor(0.06f, 0.06f, 0.07f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    texture_.writeFromHost(frame.view());
    renderer_.draw(w, h, area, frameRect, texture_, nullptr, -1);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    capture_.request();
    capture_.captureIfRequested(w, h);
    context_.swapBuffers();
    return capture_.image();
  }
  Rect captionRect;

 private:
  GlContext& context_;
  Renderer renderer_;
  FrameTexture texture_;
  FrameCapture capture_;
};

// A smooth frame: every pixel different enough from the grid's inks to see them over it.
HostImage gradientFrame(int w, int h) {
  HostImage f(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = f.view().row(y) + 4 * x;
      p[0] = std::uint8_t(60 + 60 * x / w);
      p[1] = std::uint8_t(70 + 50 * y / h);
      p[2] = std::uint8_t(90 + 40 * (x + y) / (w + h));
      p[3] = 255;
    }
  return f;
}

class OverlayDrawn : public ::testing::TestWithParam<ContextKind> {
 protected:
  void SetUp() override {
    std::string skip;
    context = makeContext(GetParam(), skip, 640, 400);
    if (!context) GTEST_SKIP() << skip;
    canvas = std::make_unique<Canvas>(*context);
  }
  void TearDown() override { canvas.reset(); }
  std::string shotName(const std::string& what) const { return what + "-" + kindName(GetParam()); }

  std::unique_ptr<GlContext> context;
  std::unique_ptr<Canvas> canvas;
  const Rect area{0, 0, 640, 400};
};

// tiled, 16x16 blocks at r = 2, on a 301x203 frame at 1:1: 12x12 output tiles, lines on the first
// pixel column and row of each; the pixels between them untouched.
TEST_P(OverlayDrawn, TiledsGridLinesLandOnItsTileEdges) {
  const FilterParams p = paramsFor("gaussian", 2, {16, 16});
  const LaunchDescription launch = findVariant("tiled")->describeLaunch(p, 301, 203);
  ASSERT_EQ(launch.passes.at(0).outputTile, (Dims{12, 12, 1}));
  const HostImage frame = gradientFrame(301, 203);
  const Rect at{50, 40, 301, 203};
  const HostImage base = canvas->draw(frame, area, at, nullptr);
  const OverlayGeometry g = overlayGeometry(launch, 0, {301, 203, at, area, std::nullopt});
  const HostImage shot = canvas->draw(frame, area, at, &g);  // no caption: every pixel of the frame is checked
  keepShot(shot, shotName("tiled-grid-1to1"));
  auto onVertical = [](int x) { return x >= 50 && (x - 50) % 12 == 0; };
  auto onHorizontal = [](int y) { return y >= 40 && (y - 40) % 12 == 0; };
  int lineOk = 0, lineBad = 0, offBad = 0;
  for (int y = 0; y < shot.height(); ++y)
    for (int x = 0; x < shot.width(); ++x) {
      const bool inFrame = at.contains(x, y);
      const bool v = inFrame && onVertical(x), h = inFrame && onHorizontal(y);
      if (v != h) {  // on one line (crossings blend twice)
        (inkOver(px(shot, x, y), px(base, x, y), OverlayInk::Pass0) ? lineOk : lineBad)++;
      } else if (!v) {
        offBad += !sameRgb(px(shot, x, y), px(base, x, y));
      }
    }
  EXPECT_EQ(lineBad, 0) << "grid pixels not in the grid's colour";
  EXPECT_EQ(lineOk, 26 * 203 + 17 * 301 - 2 * 26 * 17) << "lines missing: 26 columns and 17 rows of tiles";
  EXPECT_EQ(offBad, 0) << "pixels off the tile edges changed";
}

// Zoomed 3x and panned: the lines follow (only the visible ones, on the screen pixel holding each edge).
TEST_P(OverlayDrawn, TheGridFollowsZoomAndPan) {
  const FilterParams p = paramsFor("gaussian", 2, {16, 16});
  const LaunchDescription launch = findVariant("tiled")->describeLaunch(p, 301, 203);
  const HostImage frame = gradientFrame(301, 203);
  const Rect at{-37.5, -25.25, 903, 609};
  const HostImage base = canvas->draw(frame, area, at, nullptr);
  const OverlayGeometry g = overlayGeometry(launch, 0, {301, 203, at, area, std::nullopt});
  const HostImage shot = canvas->draw(frame, area, at, &g);
  keepShot(shot, shotName("tiled-grid-zoom3"));
  ASSERT_EQ(g.passes.at(0).vertical.at.front(), -37.5 + 2 * 36);  // the first edge on screen
  ASSERT_EQ(g.passes.at(0).horizontal.at.front(), -25.25 + 36);
  int checked = 0;
  for (int k = 2; - 37.5 + 36 * k < 640; ++k) {
    const int x = int(std::floor(-37.5 + 36 * k));
    for (int y : {20, 200, 390}) {  // rows between the horizontal lines (10, 46, ..., 190, ..., 370)
      EXPECT_TRUE(inkOver(px(shot, x, y), px(base, x, y), OverlayInk::Pass0)) << "no line at x " << x;
      EXPECT_TRUE(sameRgb(px(shot, x + 18, y), px(base, x + 18, y))) << "a line between the edges at x " << x + 18;
      ++checked;
    }
  }
  EXPECT_GT(checked, 40);
  for (int k = 1; - 25.25 + 36 * k < 400; ++k) {
    const int y = int(std::floor(-25.25 + 36 * k));
    EXPECT_TRUE(inkOver(px(shot, 20, y), px(base, 20, y), OverlayInk::Pass0)) << "no line at y " << y;
    EXPECT_TRUE(sameRgb(px(shot, 20, y + 18), px(base, 20, y + 18)));
  }
}

// The tile under the cursor: its apron shaded, its idle threads (tiled: the apron's) hatched, the
// output tile outlined; nothing else changes but the grid lines.
TEST_P(OverlayDrawn, TheHoveredTileShowsItsApronAndIdleThreads) {
  const FilterParams p = paramsFor("gaussian", 4, {32, 32});  // 24x24 output tiles, 4 px apron
  const Variant& tiled = *findVariant("tiled");
  const LaunchDescription launch = tiled.describeLaunch(p, 150, 100);
  const double idle = tiled.workModel(p, 150, 100).idleThreads;
  const HostImage frame = gradientFrame(150, 100);
  const Rect at{20, 0, 600, 400};               // 4x: tiles 96 px, apron 16 px
  const Point cursor{20 + 4 * 30.5, 4 * 40.5};  // frame (30, 40): tile (1, 1), x 24..47, y 24..47
  const HostImage base = canvas->draw(frame, area, at, nullptr);
  const OverlayGeometry g = overlayGeometry(launch, idle, {150, 100, at, area, cursor});
  const HostImage shot = canvas->draw(frame, area, at, &g);
  keepShot(shot, shotName("tiled-hovered-apron"));
  const HoveredTile& t = g.passes.at(0).hovered.value();
  EXPECT_EQ(t.column, 1);
  EXPECT_EQ(t.row, 1);
  // Input tile on screen: frame 20..51 -> x 100..227, y 80..207; output 24..47 -> x 116..211, y 96..191.
  const Rect in{100, 80, 128, 128}, out{116, 96, 96, 96};
  int hatched = 0, apronPixels = 0, outputLighter = 0, outputPixels = 0;
  for (int y = 0; y < 400; ++y)
    for (int x = 0; x < 640; ++x) {
      const bool gridLine = at.contains(x, y) && ((x - 20) % 96 == 0 || y % 96 == 0);
      const std::uint8_t *s = px(shot, x, y), *b = px(base, x, y);
      if (gridLine) continue;
      if (in.contains(x, y) && !out.contains(x, y)) {
        if (x == 100 || x == 227 || y == 80 || y == 207) continue;  // the input tile's outline
        ++apronPixels;
        EXPECT_FALSE(sameRgb(s, b)) << "apron pixel (" << x << ", " << y << ") not shaded";
        hatched += s[0] > s[2] + 40;  // the idle threads' red hatching over the blue shade
      } else if (out.contains(x, y)) {
        if (x < 118 || x >= 210 || y < 98 || y >= 190) continue;  // the outline, 2 px
        ++outputPixels;
        outputLighter += s[0] > b[0] && s[1] > b[1] && s[2] > b[2];
      } else {
        ASSERT_TRUE(sameRgb(s, b)) << "pixel (" << x << ", " << y << ") outside the hovered tile changed";
      }
    }
  EXPECT_EQ(outputLighter, outputPixels) << "the hovered output tile is not lit";
  EXPECT_GT(hatched, apronPixels / 6) << "no idle-thread hatching in tiled's apron";
  EXPECT_LT(hatched, apronPixels * 3 / 4) << "hatching, not a fill: the apron's shade shows between";
  // Outline: the pass's colour, opaque, on the output tile's border.
  const OverlayColour c = overlayColour(OverlayInk::Pass0);
  const std::uint8_t* edge = px(shot, 150, 97);
  EXPECT_EQ(int(edge[0]), c.r);
  EXPECT_EQ(int(edge[1]), c.g);
  EXPECT_EQ(int(edge[2]), c.b);
}

// separable: the row pass's tiles (128x8 at 32x8 blocks) in one colour, the column pass's (32x32)
// in another, each pass's aprons along its own axis.
TEST_P(OverlayDrawn, SeparableDrawsBothPassesInTheirColours) {
  const FilterParams p = paramsFor("gaussian", 3, {32, 8});
  const LaunchDescription launch = findVariant("separable")->describeLaunch(p, 600, 380);
  ASSERT_EQ(launch.passes.size(), 2u);
  ASSERT_EQ(launch.passes[0].outputTile, (Dims{128, 8, 1}));
  ASSERT_EQ(launch.passes[1].outputTile, (Dims{32, 32, 1}));
  const HostImage frame = gradientFrame(600, 380);
  const Rect at{20, 10, 600, 380};
  const HostImage base = canvas->draw(frame, area, at, nullptr);
  const OverlayGeometry g = overlayGeometry(launch, 0, {600, 380, at, area, Point{20 + 300.5, 10 + 100.5}});
  const HostImage shot = canvas->draw(frame, area, at, &g);
  keepShot(shot, shotName("separable-passes"));
  // A column-pass edge that is not a row-pass edge (x = 32), away from the row pass's lines (y = 8k).
  EXPECT_TRUE(inkOver(px(shot, 20 + 32, 10 + 305), px(base, 20 + 32, 10 + 305), OverlayInk::Pass1));
  // A row-pass row edge that is not a column-pass one (y = 8), between column edges.
  EXPECT_TRUE(inkOver(px(shot, 20 + 500 + 16, 10 + 8), px(base, 20 + 516, 10 + 8), OverlayInk::Pass0));
  // Between all edges: untouched.
  EXPECT_TRUE(sameRgb(px(shot, 20 + 516, 10 + 305), px(base, 20 + 516, 10 + 305)));
  // The hovered tiles: row pass x 256..383, y 96..103; its apron left and right, not above.
  ASSERT_TRUE(g.passes[0].hovered && g.passes[1].hovered);
  EXPECT_EQ(g.passes[0].hovered->apron.size(), 2u);
  EXPECT_FALSE(sameRgb(px(shot, 20 + 250, 10 + 100), px(base, 20 + 250, 10 + 100))) << "no row-pass apron left of it";
}

// 4-pixel-high tiles at half size: the horizontal lines keep 8 px apart (every 4th edge).
TEST_P(OverlayDrawn, SmallTilesAreThinnedNotFilled) {
  const FilterParams p = paramsFor("gaussian", 2, {32, 8});  // 28x4 output tiles
  const LaunchDescription launch = findVariant("tiled")->describeLaunch(p, 1280, 720);
  ASSERT_EQ(launch.passes.at(0).outputTile, (Dims{28, 4, 1}));
  const HostImage frame = gradientFrame(1280, 720);
  const Rect at{0, 20, 640, 360};
  const HostImage base = canvas->draw(frame, area, at, nullptr);
  const OverlayGeometry g = overlayGeometry(launch, 0, {1280, 720, at, area, std::nullopt});
  EXPECT_EQ(g.passes.at(0).horizontal.every, 4);
  EXPECT_EQ(g.passes.at(0).vertical.every, 1);  // 14 px apart: all of them
  const HostImage shot = canvas->draw(frame, area, at, &g);
  keepShot(shot, shotName("tiled-thinned"));
  const int x = 7;  // between vertical lines (0, 14, ...)
  int lines = 0;
  for (int y = 20; y < 380; ++y) {
    const bool want = (y - 20) % 8 == 0;
    const bool changed = !sameRgb(px(shot, x, y), px(base, x, y));
    EXPECT_EQ(changed, want) << "y " << y;
    lines += changed;
  }
  EXPECT_EQ(lines, 45);
}

INSTANTIATE_TEST_SUITE_P(Contexts, OverlayDrawn, ::testing::Values(ContextKind::Window, ContextKind::Egl),
                         [](const auto& info) { return std::string(kindName(info.param)); });

// The overlay in the viewer. Its running variant here is a CPU one (no CUDA device), which has no
// grid: the overlay says so in its caption and draws nothing else.
class ViewerOverlay : public ::testing::TestWithParam<ContextKind> {
 protected:
  void SetUp() override {
    std::string skip;
    context = makeContext(GetParam(), skip);
    if (!context) GTEST_SKIP() << skip;
  }
  // Pauses the viewer and draws until the frame shown no longer changes.
  static void pause(Viewer& v) {
    v.pipeline().setPaused(true);
    for (int i = 0; i < 100 && !v.pipeline().paused(); ++i) v.frame();
    ASSERT_TRUE(v.pipeline().paused());
    for (int i = 0; i < 5; ++i) v.frame();
  }
  static HostImage capture(Viewer& v) {
    v.captureNextFrame();
    v.frame();
    EXPECT_TRUE(v.hasCapture());
    return v.capture();
  }
  std::unique_ptr<GlContext> context;
};

FilterSpec gaussian(int radius) {
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = radius;
  return s;
}

TEST_P(ViewerOverlay, KeyOTogglesItAndACpuVariantSaysItHasNoGrid) {
  FilterSpec s = gaussian(2);
  s.variant = "cpu-simd";
  auto v = makeViewer(*context, s);
  showFrames(*v, 2);
  pause(*v);
  const HostImage before = capture(*v);
  EXPECT_FALSE(v->overlay().on());
  v->pointAt(Point{v->frameRect().x + 40, v->frameRect().y + 40});
  v->input().pressKey(GLFW_KEY_O);
  v->frame();
  ASSERT_TRUE(v->overlay().on()) << "the o key did not turn the overlay on";
  const HostImage on = capture(*v);
  keepShot(on, std::string("viewer-cpu-no-grid-") + kindName(GetParam()));
  EXPECT_EQ(v->overlay().variantName(), "cpu-simd");
  EXPECT_NE(v->overlay().noGrid().find("CPU"), std::string::npos) << v->overlay().noGrid();
  const Rect caption = v->overlayCaptionRect();
  ASSERT_GT(caption.w, 100) << "no caption";
  ASSERT_GT(caption.h, 8);
  // Over the video: only the caption changed (its dark box and its text).
  const Rect area = v->videoArea();
  int inCaption = 0, bright = 0, elsewhere = 0;
  for (int y = 0; y < int(area.h); ++y)
    for (int x = 0; x < int(area.w); ++x) {
      const bool changed = !sameRgb(px(on, x, y), px(before, x, y));
      if (caption.contains(x, y)) {
        inCaption += changed;
        bright += px(on, x, y)[0] > 200 && px(on, x, y)[1] > 200;
      } else {
        elsewhere += changed;
      }
    }
  EXPECT_GT(inCaption, caption.w * caption.h / 4) << "the caption's box is not drawn";
  EXPECT_GT(bright, 40) << "no text in the caption";
  EXPECT_EQ(elsewhere, 0) << "a CPU variant has no grid, yet pixels outside the caption changed";
  // Off again: the video as before.
  v->input().pressKey(GLFW_KEY_O);
  v->frame();
  EXPECT_FALSE(v->overlay().on());
  const HostImage off = capture(*v);
  int differ = 0;
  for (int y = 0; y < int(area.h); ++y)
    for (int x = 0; x < int(area.w); ++x) differ += !sameRgb(px(off, x, y), px(before, x, y));
  EXPECT_EQ(differ, 0);
}

// shift+o: the pass shown, of what is on screen (one pass, or none for a CPU variant); it turns the
// overlay on.
TEST_P(ViewerOverlay, ShiftOStepsThePassShown) {
  FilterSpec s = gaussian(2);
  s.variant = "cpu-simd";
  auto v = makeViewer(*context, s);
  showFrames(*v, 1);
  v->input().pressKey(GLFW_KEY_O, true);
  v->frame();
  EXPECT_TRUE(v->overlay().on());
  EXPECT_EQ(v->overlay().passShown(), -1);
  EXPECT_NE(v->status().find("cpu-simd launches no kernel"), std::string::npos) << v->status();
}

// The launch follows the frame shown: computed once, again when the radius changes (and reaches the
// screen), not on every pass.
TEST_P(ViewerOverlay, RecomputesTheLaunchOnlyWhenTheFilterChanges) {
  PipelineConfig c;
  c.source = SourceSpec::testPattern("moving", 160, 120, 30);
  c.sync = false;
  ViewerOptions o;
  o.overlay = true;  // --overlay
  Viewer v(*context, c, gaussian(1), o);
  EXPECT_TRUE(v.overlay().on());
  showFrames(v, 5);
  const auto computed = v.overlay().launchesComputed();
  EXPECT_GE(computed, 1u);
  showFrames(v, 5);
  EXPECT_EQ(v.overlay().launchesComputed(), computed) << "the launch was recomputed without a change";
  v.apply(Action::RadiusUp);
  showApplied(v);
  for (int i = 0; i < 3; ++i) v.frame();
  EXPECT_EQ(v.overlay().launchesComputed(), computed + 1);
}

INSTANTIATE_TEST_SUITE_P(Contexts, ViewerOverlay, ::testing::Values(ContextKind::Window, ContextKind::Egl),
                         [](const auto& info) { return std::string(kindName(info.param)); });

// Each kind of grid with its caption over a 1280x720 pattern at 2x, a tile hovered (saved to look
// at): the first pass's first visible tile edge below the caption is in its colour, the caption is drawn.
TEST(OverlayFigure, EachKindOfGridWithItsCaption) {
  std::string skip;
  auto context = makeContext(ContextKind::Egl, skip, 1280, 720);
  const HostImage frame = gradientFrame(1280, 720);
  Canvas canvas(*context);
  const Rect area{0, 0, 1280, 720}, at{-320, -180, 2560, 1440};
  const HostImage base = canvas.draw(frame, area, at, nullptr);
  for (const char* name : {"tiled-coop", "separable", "fused", "stream", "tensor2d", "tensorstream", "naive"}) {
    SCOPED_TRACE(name);
    const FilterParams p = paramsFor("gaussian", 3);
    BlockGridOverlay overlay;
    overlay.follow(findVariant(name), p, 1280, 720);
    ASSERT_EQ(overlay.noGrid(), "");
    const OverlayGeometry g = overlay.geometry({1280, 720, at, area, Point{700.5, 420.5}});
    const HostImage shot = canvas.draw(frame, area, at, &g, overlay.caption(g));
    keepShot(shot, std::string("kinds-") + name);
    EXPECT_GT(canvas.captionRect.w, 200);
    const PassGrid& first = g.passes.at(0);
    ASSERT_FALSE(first.vertical.at.empty());
    const int x = int(std::floor(first.vertical.at.front())), y = 700;  // below the caption
    bool onRow = false;
    for (const PassGrid& pg : g.passes)
      for (double h : pg.horizontal.at) onRow = onRow || int(std::floor(h)) == y;
    if (!onRow) {
      EXPECT_TRUE(inkOver(px(shot, x, y), px(base, x, y), OverlayInk::Pass0)) << "x " << x;
    }
    ASSERT_TRUE(first.hovered);
  }
}

// The README's figure: the moving test pattern at 1280x720 (gaussian r = 4, as the viewer shows it),
// tiled's 32x32 blocks over it at 3x zoom, a tile hovered. EGL only (one figure).
TEST(OverlayFigure, TiledAt1280x720WithAHoveredTile) {
  std::string skip;
  auto context = makeContext(ContextKind::Egl, skip, 1280, 720);
  HostImage frame;
  {
    PipelineConfig c;
    c.source = SourceSpec::testPattern("moving", 1280, 720, 30);
    c.sync = false;
    Viewer v(*context, c, gaussian(4), ViewerOptions{});
    showFrames(v, 3);
    frame = v.readFilteredTexture();
  }
  ASSERT_EQ(frame.width(), 1280);
  const FilterParams p = paramsFor("gaussian", 4, {32, 32});
  const Variant& tiled = *findVariant("tiled");
  BlockGridOverlay overlay;
  overlay.follow(&tiled, p, 1280, 720);
  // 3x, tile (27, 15) (frame x 648..671, y 360..383) hovered near the middle of the screen: 72-px
  // tiles, a 12-px apron.
  const Rect area{0, 0, 1280, 720}, at{640 - 3 * 660, 360 - 3 * 372, 3840, 2160};
  const OverlayView view{1280, 720, at, area, Point{640.5, 360.5}};
  const OverlayGeometry g = overlay.geometry(view);
  Canvas canvas(*context);
  const HostImage shot = canvas.draw(frame, area, at, &g, overlay.caption(g));
  keepShot(shot, "overlay-readme");
  ASSERT_TRUE(g.passes.at(0).hovered);
  EXPECT_EQ(g.passes[0].hovered->column, 27);
  EXPECT_EQ(g.passes[0].hovered->row, 15);
  EXPECT_GT(canvas.captionRect.w, 200);
}

}  // namespace
}  // namespace convlive
