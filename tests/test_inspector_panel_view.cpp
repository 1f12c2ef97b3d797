// The panel's Inspector, Roofline and Compare sections in the composed view (label gl), on a GLFW
// window (under a display) and on headless EGL: the sections open (CONVLIVE_PANEL_OPEN), their
// figures are drawn (the panel's record of its rows, and pixels where it says they are), and on
// EGL, where the test owns the mouse, the compare button times the variants. The screenshots go
// to /tmp/inspector-shots/.
#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "convlive/resources.hpp"
#include "image_io.hpp"
#include "viewer/inspector_compare.hpp"
#include "viewer/panel.hpp"
#include "viewer_fixture.hpp"

namespace convlive {
namespace {

using namespace convlive::testing;
namespace fs = std::filesystem;

constexpr int kWidth = 1280, kHeight = 1500;

class InspectorOn : public ::testing::TestWithParam<ContextKind> {
 protected:
  void SetUp() override {
    ::setenv("CONVLIVE_PANEL_OPEN", "Kernel,Inspector,Roofline,Compare", 1);
    std::string skip;
    context = makeContext(GetParam(), skip, kWidth, kHeight);
    if (!context) GTEST_SKIP() << skip;
  }
  void TearDown() override { ::unsetenv("CONVLIVE_PANEL_OPEN"); }
  std::unique_ptr<GlContext> context;
};

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
bool anyContains(const std::vector<std::string>& v, const std::string& s) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& x) { return x.find(s) != std::string::npos; });
}

// Distinct colours and bright (text) pixels of `shot` within `r` (ImGui's text is grey on grey:
// few colours, many bright pixels).
struct Ink {
  std::size_t colours = 0;
  int bright = 0;
};
Ink inkIn(const HostImage& shot, const PanelRect& r) {
  std::set<std::uint32_t> colours;
  Ink ink;
  for (int y = std::max(0, int(r.y)); y < std::min(shot.height(), int(r.y + r.h)); ++y)
    for (int x = std::max(0, int(r.x)); x < std::min(shot.width(), int(r.x + r.w)); ++x) {
      const std::uint8_t* p = shot.view().row(y) + x * 4;
      colours.insert(p[0] | p[1] << 8 | p[2] << 16);
      ink.bright += p[0] > 200 && p[1] > 200 && p[2] > 200;
    }
  ink.colours = colours.size();
  return ink;
}

// Pixels of `shot` within `r` close to the colour (r, g, b).
int pixelsOf(const HostImage& shot, const PanelRect& rect, int r, int g, int b) {
  int n = 0;
  for (int y = std::max(0, int(rect.y)); y < std::min(shot.height(), int(rect.y + rect.h)); ++y)
    for (int x = std::max(0, int(rect.x)); x < std::min(shot.width(), int(rect.x + rect.w)); ++x) {
      const std::uint8_t* p = shot.view().row(y) + x * 4;
      n += std::abs(p[0] - r) < 12 && std::abs(p[1] - g) < 12 && std::abs(p[2] - b) < 12;
    }
  return n;
}

// Variants that can run `spec` on a width x height frame here (what the compare table times).
int runnable(const FilterSpec& spec, int width, int height) {
  const FilterParams p = spec.params();
  int n = 0;
  for (const Variant& v : variants()) {
    FilterParams q = p;
    q.tile = tileUsed(v, p);
    n += !v.whyNot(q, width, height);
  }
  return n;
}

// A click of the left button at (x, y) in ImGui units, over three passes (move, press, release).
// EGL only: a window's backend takes the mouse from the window system each pass.
void click(Viewer& v, float x, float y) {
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2(x, y);
  v.frame();
  io.MouseDown[0] = true;
  v.frame();
  io.MouseDown[0] = false;
  v.frame();
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // away: no tooltip in the screenshot
}

TEST_P(InspectorOn, TheSectionsDrawTheirFigures) {
  FilterSpec spec;
  spec.mask = "gaussian";
  spec.radius = 3;
  PipelineConfig c;
  c.source = SourceSpec::testPattern("moving", 640, 360, 30);
  c.sync = false;
  ViewerOptions o;
  o.panelWidth = 600;
  Viewer v(*context, c, spec, o);
  showFrames(v, 40);  // enough frames after the settings for the live median
  const Variant* running = v.filter().running();
  ASSERT_NE(running, nullptr);

  if (GetParam() == ContextKind::Egl) {
    const PanelRect b = lastPanelRecord().compareButton;
    ASSERT_GT(b.w, 0) << "no compare button drawn";
    click(v, b.x + b.w / 2, b.y + b.h / 2);
    const int want = runnable(spec, 640, 360);
    for (int i = 0; i < 3000 && lastPanelRecord().compareLines < want; ++i) v.frame();
    EXPECT_EQ(lastPanelRecord().compareLines, want) << "the compare run did not finish";
    for (int i = 0; i < 300 && v.pipeline().paused(); ++i) v.frame();
    EXPECT_FALSE(v.pipeline().paused()) << "the video was not played again after the compare run";
    showFrames(v, 2);
  }

  v.captureNextFrame();
  v.frame();
  ASSERT_TRUE(v.hasCapture());
  const HostImage& shot = v.capture();
  const PanelRecord& rec = lastPanelRecord();
  fs::create_directories("/tmp/inspector-shots");
  const std::string path = std::string("/tmp/inspector-shots/inspector-") + kindName(GetParam()) + ".png";
  writePng(path, shot);
  RecordProperty("screenshot", path);
  // The panel alone, down to the end of the compare section (the README's picture).
  const int left = int(v.videoArea().w), bottom = std::min(shot.height(), int(rec.compare.y + rec.compare.h) + 8);
  if (left < shot.width() && bottom > 0) {
    HostImage panel(shot.width() - left, bottom);
    for (int y = 0; y < bottom; ++y) std::copy_n(shot.view().row(y) + 4 * left, 4 * panel.width(), panel.view().row(y));
    writePng(std::string("/tmp/inspector-shots/inspector-panel-") + kindName(GetParam()) + ".png", panel);
  }

  for (const char* s : {"Inspector", "Roofline", "Compare"}) EXPECT_TRUE(has(rec.sectionsOpen, s)) << s;
  EXPECT_FALSE(has(rec.sectionsOpen, "Source")) << "CONVLIVE_PANEL_OPEN leaves the sections it does not name closed";
  // The work model and the achieved rates, for every variant.
  for (const char* row : {"global loads", "shared bytes", "apron", "idle threads", "FP32 FLOPs", "FLOP/byte", "MPix/s",
                          "GB/s", "GFLOP/s"})
    EXPECT_TRUE(has(rec.inspectorRows, row)) << row << " not drawn";
  if (running->onGpu) {
    for (const char* row : {"grid", "block", "threads/block", "px/thread", "blocks/SM", "occupancy", "registers",
                            "static smem", "dynamic smem", "limited by"})
      EXPECT_TRUE(has(rec.inspectorRows, row)) << row << " not drawn";
    EXPECT_GE(rec.rooflinePoints, 1) << "the running variant is not on the roofline";
  } else {
    EXPECT_TRUE(anyContains(rec.notes, "launches no kernel")) << "a CPU variant does not say it launches no kernel";
  }
  if (!deviceInfo().available) {
    EXPECT_GE(rec.rooflinePoints, 1) << "without roofs, the CPU variants are plotted";
  }
  if (!deviceInfo().available) {
    EXPECT_TRUE(anyContains(rec.notes, "no CUDA device: no measured roofs")) << "no word about the missing roofs";
  }

  // Where the record says the parts are, the screenshot has them.
  ASSERT_GT(rec.inspector.h, 100);
  ASSERT_LE(rec.inspector.y + rec.inspector.h, shot.height()) << "the inspector is below the window";
  const Ink ink = inkIn(shot, rec.inspector);
  EXPECT_GT(ink.colours, 4u) << "the inspector's area looks empty";
  EXPECT_GT(ink.bright, 800) << "no text in the inspector's area";
  ASSERT_GT(rec.roofline.w, 100);
  ASSERT_GT(rec.roofline.h, 100);
  const int area = int(rec.roofline.w * rec.roofline.h);
  EXPECT_GT(pixelsOf(shot, rec.roofline, 22, 24, 30), area / 3) << "no chart background where the chart is";
  EXPECT_GT(pixelsOf(shot, rec.roofline, 60, 64, 74), int(rec.roofline.h)) << "no grid lines in the chart";
  if (deviceInfo().available) {
    EXPECT_GT(pixelsOf(shot, rec.roofline, 255, 170, 60), int(rec.roofline.w / 4)) << "no roof drawn";
  }
  if (GetParam() == ContextKind::Egl) {
    EXPECT_GT(rec.compare.h, 60);
    EXPECT_GT(inkIn(shot, rec.compare).bright, 200) << "no compare table drawn";
  }
}

INSTANTIATE_TEST_SUITE_P(Contexts, InspectorOn, ::testing::Values(ContextKind::Window, ContextKind::Egl),
                         [](const auto& info) { return std::string(kindName(info.param)); });

}  // namespace
}  // namespace convlive
