// fft: any mask as a product of spectra, whose cost does not grow with the radius. The frame is
// extended by the border mode into float planes, transformed by cuFFT, multiplied by the mask's
// spectrum and transformed back. FftConvolver (fft.hpp, fft.cpp) runs cuFFT between its own
// kernels in kernels/fft.cu.
#include "fft.hpp"

#include <cstdio>

#include "kernels/fft.hpp"
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

using Code = Problem::Code;
using kernels::kMax2DRadius;

kernels::FftLaunch launchOf(const FilterParams& p, const ImageDesc& image) {
  kernels::FftLaunch l{};
  l.image = image;
  l.border = p.border;
  l.combine = p.filter.combine;
  l.filterAlpha = p.filterAlpha;
  return l;
}

// One group's planes, without memory (what the inspector's figures read).
kernels::FftPlanes planesFor(const FilterParams& p, const FftGeometry& g) {
  return {nullptr, nullptr, nullptr, nullptr,     nullptr,    nullptr,  nullptr,
          0,       g.padW,  g.padH,  radiusOf(p), g.channels, g.frames, g.magnitude};
}
FftGeometry geometryOf(const FilterParams& p, const ImageDesc& image) {
  return fftGeometry(image, radiusOf(p), p.filterAlpha, p.filter.combine);
}

// The pad kernel's grid has a row of blocks for every few rows of the planes (the frame and r rows
// of border each side, padded to fftGoodSize): at most kMaxGridRows of them. The pack kernel's,
// over the frame alone, has fewer.
Problem gridWhyNot(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  const FftGeometry g = geometryOf(p, image);
  const PassLaunch pad = kernels::describeFft(launchOf(p, image), planesFor(p, g), g.groups).passes.front();
  if (pad.grid.y <= kMaxGridRows) return {};
  // The tallest planes the grid covers are the largest size fftGoodSize makes within its rows.
  const long rows = kMaxGridRows * pad.outputTile.y;
  int lo = 1, hi = int(rows);
  while (lo < hi)
    if (const int mid = lo + (hi - lo + 1) / 2; fftGoodSize(mid) <= rows)
      lo = mid;
    else
      hi = mid - 1;
  const int r = radiusOf(p);
  return tallFrameProblem(v, p, image.width, image.height, long(lo) - 2 * r,
                          "at radius " + std::to_string(r) + " (its planes, the frame and " + std::to_string(2 * r) +
                              " rows of border padded to a size cuFFT transforms fast, are up to " +
                              std::to_string(lo) + " rows: " + std::to_string(kMaxGridRows) + " blocks of " +
                              std::to_string(pad.outputTile.y) + ")");
}

// Past the checks every variant makes: not f16 frames, cuFFT can be loaded, a padded frame fits one
// plan and its kernels' grids, and for integer frames the float transforms' error with these weights
// stays within 1 LSB (f32 frames: within the contract's bound for any plane cuFFT takes). The
// transforms' error is a fraction of the frame's largest value, not of each output: f16's contract,
// 1 ulp of each value, does not hold for values far below the largest (2-4 ulps were measured on
// small ones), where f32's, relative to the largest, does.
Problem whyNotImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  if (auto why = commonWhyNot(v, p, image.width, image.height); why) return why;
  const int r = p.filter.mask.radius();
  const bool rgba8 = image.isRgba8();
  const char* instead = r <= kMax2DRadius ? (rgba8 ? "tensor2d" : "sweep") : "cpu-simd";
  if (const std::string& missing = cufftMissing(); !missing.empty())
    return problem(Code::CannotRun, "variant", missing, "variant", instead);
  if (image.type == PixelType::F16)
    return problem(Code::CannotRun, "variant",
                   "fft: its float transforms err by a fraction of the frame's largest value, not of each output, so "
                   "f16's contract (1 ulp of every value) does not hold for values far below the largest; sweep "
                   "takes f16 frames, and fft takes them converted to f32 (within f32's contract)",
                   "variant", "sweep");
  const FftGeometry g = geometryOf(p, image);
  if (const std::string why = fftSizeProblem(image, g); !why.empty())
    return problem(Code::CannotRun, "variant", why, "variant", instead);
  if (Problem why = gridWhyNot(v, p, image)) return why;
  if (image.type == PixelType::U8 || image.type == PixelType::U16) {
    if (const double e = fftErrorEstimate(p.filter.mask, g, image.type); e > kFftErrorBudget) {
      char text[240];
      std::snprintf(text, sizeof text,
                    "fft: the float transforms' error with these weights (sum of |w| %.3g) on %s values is estimated "
                    "at %.2f levels, over the %.2f budget for 1 LSB",
                    absoluteSum(p.filter.mask.weights()), pixelTypeName(image.type), e, kFftErrorBudget);
      return problem(Code::CannotRun, "variant", text, "variant",
                     r <= kMax2DRadius ? (rgba8 ? "tiled-coop" : "sweep") : "cpu-simd");
    }
  }
  return {};
}

Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  return whyNotImage(v, p, ImageDesc::rgba8(w, h));
}

// The convolver (its plans, planes and the mask's spectra) lives in the workspace, made on first use.
void launch(const FilterParams& p, const kernels::FftLaunch& l, Workspace& ws) {
  auto& fft = ws.impl().fft;
  if (!fft) fft = std::make_unique<FftConvolver>();
  fft->run(l, p.filter.mask);
}

void runFrames(const Variant& v, const FilterParams& p, const ImageDesc& image, const void* in, void* out,
               Workspace& ws, cudaStream_t s) {
  prepared(v, p, image, ws);
  kernels::FftLaunch l = launchOf(p, image);
  l.in = in;
  l.out = out;
  l.stream = s;
  launch(p, l, ws);
}

void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  prepared(v, p, in, out, ws);
  kernels::FftLaunch l = launchOf(p, ImageDesc::rgba8(in.width, in.height, in.pitch));
  l.in = in.data;
  l.out = out.data;
  l.outPitch = out.pitch;
  l.stream = s;
  launch(p, l, ws);
}

LaunchDescription describeImage(const Variant&, const FilterParams& p, const ImageDesc& image) {
  const FftGeometry g = geometryOf(p, image);
  return kernels::describeFft(launchOf(p, image), planesFor(p, g), g.groups);
}
WorkModel workModelImage(const Variant&, const FilterParams& p, const ImageDesc& image) {
  return kernels::modelFft(launchOf(p, image), planesFor(p, geometryOf(p, image)));
}
LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return describeImage(v, p, ImageDesc::rgba8(w, h));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return workModelImage(v, p, ImageDesc::rgba8(w, h));
}

}  // namespace

Variant fftVariant() {
  return {
      .name = "fft",
      .description =
          "any mask as a product of spectra (cuFFT, float): the frame extended by the border mode into float planes, "
          "each channel's spectrum times the mask's (made once per mask), transformed back; the cost does not grow "
          "with the radius (2D masks to r = 64); u8, u16 and f32 values (not f16: its error is relative to the "
          "frame's largest value), 1/3/4 channels, a batch's frames in batched transforms; an f32 frame holding Inf, "
          "NaN or a value past 1e30 is filtered directly instead",
      .maxRadius = Mask::kMaxRadius,
      .images = "u8,u16,f32",
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
      .whyNotImageImpl = whyNotImage,
      .runFramesImpl = runFrames,
      .describeImageImpl = describeImage,
      .workModelImageImpl = workModelImage,
  };
}

}  // namespace convlive::detail
