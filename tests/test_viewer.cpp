// The viewer on each kind of context (a GLFW window under a display, headless EGL): what it draws
// is the reference filter of the frame it shows, beside the panel; switches made through the same
// path as the panel and the keys reach the screen; errors keep it up. Label gl.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "image_io.hpp"
#include "run_program.hpp"
#include "viewer_fixture.hpp"

namespace convlive {
namespace {

using namespace convlive::testing;
namespace fs = std::filesystem;

class ViewerOn : public ::testing::TestWithParam<ContextKind> {
 protected:
  void SetUp() override {
    std::string skip;
    context = makeContext(GetParam(), skip);
    if (!context) GTEST_SKIP() << skip;
  }
  // Draws one pass with a capture and checks the frame region against the reference of the
  // frame shown; returns the capture.
  HostImage drawAndCheck(Viewer& v) {
    v.captureNextFrame();
    v.frame();
    EXPECT_TRUE(v.hasCapture());
    const HostImage& shot = v.capture();
    const Rect r = v.frameRect();
    const HostImage want = reference(v.shownParams(), v.shownSource());
    EXPECT_EQ(r.w, want.width());
    EXPECT_EQ(r.h, want.height());
    const int err = maxRgbError(want, shot, int(r.x), int(r.y));
    EXPECT_GE(err, 0) << "the frame does not lie inside the screenshot";
    EXPECT_LE(err, v.shownVariant() == "cpu" ? 0 : 1)
        << "the video region differs from the reference filter of the frame shown (variant " << v.shownVariant() << ", "
        << v.shownParams().filter.name << ")";
    return shot;
  }
  std::unique_ptr<GlContext> context;
};

FilterSpec gaussian(int radius, Border border) {
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = radius;
  s.border = border;
  return s;
}

TEST_P(ViewerOn, DrawsTheFilteredFrameBesideThePanel) {
  auto v = makeViewer(*context, gaussian(2, Border::Mirror));
  showFrames(*v, 3);
  const HostImage shot = drawAndCheck(*v);
  int fbW = 0, fbH = 0;
  context->framebufferSize(fbW, fbH);
  ASSERT_EQ(shot.width(), fbW);
  ASSERT_EQ(shot.height(), fbH);
  // The panel: the part right of the video area holds text (many colours, some bright).
  const Rect area = v->videoArea();
  ASSERT_LT(area.w, fbW - 100) << "no room was left for the panel";
  std::set<std::uint32_t> colours;
  int bright = 0;
  for (int y = 0; y < fbH; ++y)
    for (int x = int(area.w); x < fbW; ++x) {
      const std::uint8_t* p = shot.view().row(y) + x * 4;
      colours.insert(p[0] | p[1] << 8 | p[2] << 16);
      bright += p[0] > 200 && p[1] > 200 && p[2] > 200;
    }
  EXPECT_GT(colours.size(), 20u) << "the panel area looks empty";
  EXPECT_GT(bright, 500) << "no text in the panel area";
  // Around the frame: the background, not stale pixels.
  const Rect r = v->frameRect();
  ASSERT_GT(r.y, 2);
  const std::uint8_t* above = shot.view().row(int(r.y) - 2) + int(r.x + 5) * 4;
  EXPECT_LT(above[0], 40);
}

TEST_P(ViewerOn, SwitchesThroughTheSamePathAsThePanel) {
  auto v = makeViewer(*context, gaussian(1, Border::Clamp));
  showApplied(*v);
  drawAndCheck(*v);

  v->apply(Action::NextMask);
  EXPECT_EQ(v->status(), "");
  EXPECT_NE(v->filter().applied().mask, "gaussian");
  showApplied(*v);
  drawAndCheck(*v);

  v->apply(Action::RadiusUp);
  EXPECT_EQ(v->filter().applied().radius, 2) << v->status();
  showApplied(*v);
  drawAndCheck(*v);

  v->apply(Action::NextVariant);
  EXPECT_EQ(v->status(), "");
  const std::string chosen = v->filter().applied().variant;
  EXPECT_NE(chosen, "auto") << "the next variant after auto is a named one";
  showApplied(*v, chosen);
  EXPECT_EQ(v->pipeline().variantName(), chosen);
  drawAndCheck(*v);

  const Variant* running = v->filter().running();
  ASSERT_NE(running, nullptr);
  const Tile tileBefore = v->filter().runningTile();
  v->apply(Action::NextTile);
  if (running->tiles.size() > 1) {
    EXPECT_NE(v->filter().runningTile(), tileBefore) << v->status();
    showApplied(*v, running->name);
    drawAndCheck(*v);
  } else {
    EXPECT_NE(v->status().find("no tile choice"), std::string::npos) << v->status();
  }
}

TEST_P(ViewerOn, SplitViewShowsTheOriginalLeftOfTheDivider) {
  auto v = makeViewer(*context, gaussian(3, Border::Zero));
  v->apply(Action::ToggleSplit);
  showFrames(*v, 2);
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
  EXPECT_EQ(leftErr, 0) << "left of the divider is not the original frame";
  EXPECT_LE(rightErr, 1) << "right of the divider is not the filtered frame";
  EXPECT_GT(line, src.height() / 2) << "no divider line";
}

TEST_P(ViewerOn, ABadSourceIsReportedAndTheViewerStaysUp) {
  auto v = makeViewer(*context, gaussian(1, Border::Clamp));
  showFrames(*v, 1);
  v->pipeline().switchSource(SourceSpec::file("/nonexistent/clip.webm"));
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(v->frame());
  EXPECT_NE(v->pipeline().lastError().find("/nonexistent/clip.webm"), std::string::npos) << v->pipeline().lastError();
  showFrames(*v, 2);  // the old source plays on
  drawAndCheck(*v);
}

TEST_P(ViewerOn, ViewAndPanelActions) {
  auto v = makeViewer(*context, gaussian(1, Border::Clamp));
  showFrames(*v, 1);
  v->apply(Action::CycleFit);
  EXPECT_EQ(v->view().mode(), FitMode::Fit);
  v->apply(Action::ToggleHelp);
  EXPECT_TRUE(v->helpShown());
  v->apply(Action::TogglePanel);
  v->frame();
  int fbW = 0, fbH = 0;
  context->framebufferSize(fbW, fbH);
  EXPECT_EQ(v->videoArea().w, fbW) << "with the panel hidden the video takes the whole width";
  v->apply(Action::TogglePanel);
  v->apply(Action::TogglePause);
  v->frame();
  EXPECT_TRUE(v->pipeline().paused());
  const auto shown = v->framesShown();
  for (int i = 0; i < 3; ++i) v->frame();
  EXPECT_EQ(v->framesShown(), shown) << "frames arrived while paused";
  v->apply(Action::TogglePause);
  showFrames(*v, 1);
  v->apply(Action::SeekForward);  // a source that cannot seek says so in the panel; none throws
  if (!v->pipeline().sourceInfo().seekable) {
    EXPECT_NE(v->status().find("cannot seek"), std::string::npos);
  }
  EXPECT_TRUE(v->frame());
  v->apply(Action::Quit);
  EXPECT_FALSE(v->frame());
}

INSTANTIATE_TEST_SUITE_P(Contexts, ViewerOn, ::testing::Values(ContextKind::Window, ContextKind::Egl),
                         [](const auto& info) { return std::string(kindName(info.param)); });

// The command line: offscreen run with a screenshot and a report; bad viewer options.
TEST(ViewerCommand, OffscreenWritesTheScreenshotAndTheReport) {
  const fs::path dir = fs::temp_directory_path() / ("convlive-viewer-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path shot = dir / "view.png", report = dir / "report.json";
  const auto r =
      runConvliveWith("--offscreen --frames 6 --window-size 800x600 --size 333x222 --mask sobel --screenshot " +
                          shot.string() + " --report " + report.string(),
                      "timeout 120");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("headless EGL"), std::string::npos) << r.output;
  const HostImage img = readPng(shot.string());
  EXPECT_EQ(img.width(), 800);
  EXPECT_EQ(img.height(), 600);
  std::ifstream in(report);
  const auto j = nlohmann::json::parse(in);
  EXPECT_GE(j["viewer"]["frames_shown"].get<int>(), 6);
  EXPECT_EQ(j["viewer"]["stages"].size(), std::size_t(ViewerStage::Count));
  EXPECT_EQ(j["filter"]["name"], "sobel");
  fs::remove_all(dir);
}

TEST(ViewerCommand, BadViewerOptionsSayWhatIsWrong) {
  auto r = runConvliveWith("--offscreen --frames 2 --window-size 10x10", "timeout 60");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--window-size"), std::string::npos) << r.output;
  r = runConvliveWith("--offscreen --frames 2 --screenshot /nonexistent/folder/x.png", "timeout 60");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/folder"), std::string::npos) << r.output;
  r = runConvliveWith("--headless --frames 2 --screenshot x.png", "timeout 60");
  EXPECT_EQ(r.code, 2) << r.output;
}

}  // namespace
}  // namespace convlive
