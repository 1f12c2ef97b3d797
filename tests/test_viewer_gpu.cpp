// The interop path on a GPU: headless EGL on the GPU's own EGL device, every GPU variant's frame
// written into the display texture through CUDA-GL interop, read back, and compared with the
// reference filter of the frame shown; grey frames through one-channel textures; the block-grid overlay over tiled's
// frames, its lines on the launch's tile edges. Label gpu: skips, saying why, without a CUDA device.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "convlive/resources.hpp"
#include "image_compare.hpp"
#include "viewer_fixture.hpp"

namespace convlive {
namespace {

using namespace convlive::testing;

class InteropOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
    std::string skip;
    context = makeContext(ContextKind::Egl, skip);
  }
  std::unique_ptr<GlContext> context;
};

int maxError(const HostImage& a, const HostImage& b) { return testcases::maxDifference(a.view(), b.view()); }

TEST_F(InteropOnGpu, EveryGpuVariantsTextureEqualsTheReference) {
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = 3;
  s.border = Border::Mirror;
  auto v = makeViewer(*context, s, 333, 211);
  showFrames(*v, 2);
  int checked = 0;
  for (const Variant& var : variants()) {
    if (!var.onGpu) continue;
    SCOPED_TRACE(var.name);
    FilterSpec next = v->filter().applied();
    next.variant = var.name;
    next.tile = {};
    ASSERT_EQ(v->filter().apply(next), "");
    showApplied(*v, var.name);
    EXPECT_NE(v->presentPath().find("interop"), std::string::npos) << v->presentPath();
    const HostImage got = v->readFilteredTexture();
    const HostImage want = reference(v->shownParams(), v->shownSource());
    EXPECT_LE(maxError(want, got), 1) << var.name << " through interop differs from the reference";
    // The composed screenshot shows the same pixels.
    v->captureNextFrame();
    v->frame();
    const Rect r = v->frameRect();
    EXPECT_LE(maxRgbError(reference(v->shownParams(), v->shownSource()), v->capture(), int(r.x), int(r.y)), 1);
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

// What `convlive view` does by default where there is a device: the source's I420 frames cross
// at 1.5 bytes a pixel and are converted to RGBA8 on the GPU; the texture is the reference filter
// of the converted frame (which the viewer keeps, brought back from the GPU, for this check), in
// the split view too.
TEST_F(InteropOnGpu, YuvSourceIsConvertedOnTheGpuAndShown) {
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = 2;
  s.border = Border::Clamp;
  auto v = makeViewer(*context, s, 333, 211, InputFormat::Auto);
  showFrames(*v, 2);
  const std::string format = v->pipeline().sourceInfo().frameFormat;
  EXPECT_TRUE(format == "I420" || format == "NV12") << "the pattern's frames arrived as " << format;
  std::vector<std::string> gpuVariants = {"tiled"};
  if (deviceInfo().major >= 8) gpuVariants.push_back("tensorstream");  // mma.sync m16n8k16
  for (const std::string& variant : gpuVariants) {
    SCOPED_TRACE(variant);
    FilterSpec next = v->filter().applied();
    next.variant = variant;
    next.tile = {};
    ASSERT_EQ(v->filter().apply(next), "");
    showApplied(*v, variant);
    ASSERT_EQ(v->shownSource().width(), 333);
    EXPECT_LE(maxError(reference(v->shownParams(), v->shownSource()), v->readFilteredTexture()), 1);
  }
  v->apply(Action::ToggleSplit);
  showFrames(*v, 2);
  expectSplitView(*v);
}

// A mono camera's frames on the GPU: GRAY8 and GRAY16_LE are filtered as one channel and shown
// as they are, through an R8 or R16 texture swizzled to grey, with no RGBA8 expansion. The texture
// read back, the composed screenshot and the split view show the reference filter of the frame
// within 1 level (16 bits within 2: filtered at 16 bits, where the reference filters the 8-bit
// source the viewer keeps, 1 level; shown through the driver's 16-to-8-bit rounding, which is 1
// level off the nearest for some values on NVIDIA's).
// A variant that takes RGBA8 only gets expanded frames, and the texture goes back to RGBA8.
TEST_F(InteropOnGpu, GreyFramesAreShownThroughOneChannelTextures) {
  for (const std::string format : {"GRAY8", "GRAY16_LE"}) {
    SCOPED_TRACE(format);
    PipelineConfig c = greySourceConfig(format);
    c.sync = false;
    ViewerOptions o;
    o.keepSourceFrames = true;
    FilterSpec s;
    s.mask = "gaussian";
    s.radius = 2;
    s.border = Border::Mirror;
    s.variant = "stream";  // takes grey frames of 8 and 16 bits
    Viewer v(*context, c, s, o);
    v.view().setMode(FitMode::OneToOne);
    showApplied(v, "stream");
    const std::string texels = format == "GRAY8" ? "R8" : "R16";
    EXPECT_NE(v.presentPath().find("interop"), std::string::npos) << v.presentPath();
    EXPECT_NE(v.presentPath().find(texels + " textures shown grey"), std::string::npos) << v.presentPath();
    EXPECT_EQ(v.pipeline().greyExpandedWhy(), "");
    // The interop copies are timed on the GPU (the panel's present (gpu)), read a pass or more later.
    for (int i = 0; i < 50 && v.stage(ViewerStage::PresentGpu).count() == 0; ++i) showFrames(v, 1);
    EXPECT_GT(v.stage(ViewerStage::PresentGpu).count(), 0u);
    EXPECT_GT(v.stage(ViewerStage::PresentGpu).average(), 0);
    const int bound = format == "GRAY8" ? 1 : 2;
    const HostImage got = v.readFilteredTexture();
    ASSERT_EQ(got.width(), 211);
    EXPECT_LE(maxError(reference(v.shownParams(), v.shownSource()), got), bound);
    const std::uint8_t* p = got.view().row(40) + 4 * 100;
    EXPECT_TRUE(p[0] == p[1] && p[1] == p[2] && p[3] == 255) << "the texture does not read back grey";
    v.captureNextFrame();
    v.frame();
    const Rect r = v.frameRect();
    EXPECT_LE(maxRgbError(reference(v.shownParams(), v.shownSource()), v.capture(), int(r.x), int(r.y)), bound);
    v.apply(Action::ToggleSplit);
    showFrames(v, 2);
    // The source's R16 texture goes through the driver's rounding too.
    expectSplitView(v, bound - 1, bound);
    v.apply(Action::ToggleSplit);

    // tiled takes RGBA8 only: the pipeline expands the frames, the texture is RGBA8 again.
    FilterSpec next = v.filter().applied();
    next.variant = "tiled";
    next.tile = {};
    ASSERT_EQ(v.filter().apply(next), "");
    showApplied(v, "tiled");
    EXPECT_NE(v.presentPath().find("RGBA8 textures"), std::string::npos) << v.presentPath();
    EXPECT_LE(maxError(reference(v.shownParams(), v.shownSource()), v.readFilteredTexture()), 1);
  }
}

TEST_F(InteropOnGpu, EdgeFilterAndResolutionChangeReallocateTheTexture) {
  FilterSpec s;
  s.mask = "sobel";
  s.radius = 1;
  s.border = Border::Clamp;
  auto v = makeViewer(*context, s, 257, 129);
  showFrames(*v, 2);
  EXPECT_LE(maxError(reference(v->shownParams(), v->shownSource()), v->readFilteredTexture()), 1);
  v->pipeline().switchSource(SourceSpec::testPattern("moving", 513, 301, 30));
  for (int i = 0; i < 100 && v->shownSource().width() != 513; ++i) showFrames(*v, 1);
  ASSERT_EQ(v->shownSource().width(), 513);
  const HostImage got = v->readFilteredTexture();
  EXPECT_EQ(got.width(), 513);
  EXPECT_LE(maxError(reference(v->shownParams(), v->shownSource()), got), 1);
}

// The viewer runs tiled (16x16 blocks, r = 2: 12x12 output tiles) at 1:1; with the overlay on, its
// lines lie on the first pixel column and row of each output tile, the hovered tile's apron is
// shaded, and nothing else over the video changes.
TEST_F(InteropOnGpu, OverlayLinesLandOnTheRunningTiledsTiles) {
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = 2;
  s.variant = "tiled";
  s.tile = {16, 16};
  auto v = makeViewer(*context, s, 301, 203);
  showApplied(*v, "tiled");
  v->pipeline().setPaused(true);
  for (int i = 0; i < 100 && !v->pipeline().paused(); ++i) v->frame();
  ASSERT_TRUE(v->pipeline().paused());
  for (int i = 0; i < 5; ++i) v->frame();
  ASSERT_EQ(v->shownVariant(), "tiled");
  v->captureNextFrame();
  v->frame();
  const HostImage base = v->capture();

  const Rect f = v->frameRect();
  ASSERT_EQ(f.w, 301);
  const int tile = 12;       // tiled's 16x16 block at r = 2 makes 12x12 outputs
  const int hx = 5, hy = 3;  // hover tile (5, 3): output x 60..71, y 36..47, input x 58..73, y 34..49
  v->pointAt(Point{f.x + hx * tile + 6.5, f.y + hy * tile + 6.5});
  v->apply(Action::ToggleOverlay);
  v->frame();
  v->captureNextFrame();
  v->frame();
  const HostImage shot = v->capture();
  keepShot(shot, "gpu-viewer-tiled");
  ASSERT_EQ(v->overlay().variantName(), "tiled") << v->overlay().noGrid();
  ASSERT_EQ(v->overlay().launch().passes.at(0).outputTile, (Dims{tile, tile, 1}));

  const Rect caption = v->overlayCaptionRect(), area = v->videoArea();
  const Rect hovered{f.x + hx * tile - 2, f.y + hy * tile - 2, tile + 4, tile + 4};
  const Rect output{f.x + hx * tile, f.y + hy * tile, tile, tile};
  auto onV = [&](int x) { return x >= f.x && x < f.x + f.w && (x - int(f.x)) % tile == 0; };
  auto onH = [&](int y) { return y >= f.y && y < f.y + f.h && (y - int(f.y)) % tile == 0; };
  int lineOk = 0, lineBad = 0, offChanged = 0, apron = 0;
  for (int y = 0; y < int(area.h); ++y)
    for (int x = 0; x < int(area.w); ++x) {
      if (caption.contains(x, y)) continue;
      const std::uint8_t *got = px(shot, x, y), *under = px(base, x, y);
      if (hovered.contains(x, y)) {  // the input tile: its apron ring shaded (the output tile is lit, and outlined)
        if (!output.contains(x, y)) apron += !sameRgb(got, under);
        continue;
      }
      const bool inFrame = f.contains(x, y), v1 = inFrame && onV(x), h1 = inFrame && onH(y);
      if (v1 != h1)
        (inkOver(got, under, OverlayInk::Pass0) ? lineOk : lineBad)++;
      else if (!v1)
        offChanged += !sameRgb(got, under);
    }
  EXPECT_EQ(lineBad, 0) << "grid pixels off the expected colour";
  EXPECT_GT(lineOk, 20 * 203) << "too few grid pixels: the lines are not on tiled's tile edges";
  EXPECT_EQ(offChanged, 0) << "pixels between the tile edges changed";
  EXPECT_EQ(apron, 16 * 16 - 12 * 12) << "the hovered tile's apron is not all shaded";
}

}  // namespace
}  // namespace convlive
