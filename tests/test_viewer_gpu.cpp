// The interop path on a GPU: headless EGL on the GPU's own EGL device, every GPU variant's frame
// written into the display texture through CUDA-GL interop, read back, and compared with the
// reference filter of the frame shown. Label gpu: skips, saying why, without a CUDA device.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace convlive
