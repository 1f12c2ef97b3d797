// fft: any mask as a product of spectra, whose cost does not grow with the radius. The frame is
// extended by the border mode into float planes, transformed by cuFFT, multiplied by the mask's
// spectrum and transformed back. FftConvolver (fft.hpp, fft.cpp) runs cuFFT between its own
// kernels in kernels/fft.cu.
#include "fft.hpp"

#include <cstdio>

#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

using Code = Problem::Code;
using kernels::kMax2DRadius;

// The planes' shapes for a width x height frame, without memory (what the inspector's figures read).
kernels::FftPlanes planesFor(const FilterParams& p, int w, int h) {
  const FftGeometry g = fftGeometry(w, h, radiusOf(p), p.filterAlpha, p.filter.combine);
  return {nullptr, nullptr, nullptr, nullptr, nullptr, g.padW, g.padH, radiusOf(p), g.channels, g.magnitude};
}

// The pad kernel's grid has a row of blocks for every few rows of the planes (the frame and r rows
// of border each side, padded to fftGoodSize): at most kMaxGridRows of them. The pack kernel's,
// over the frame alone, has fewer.
Problem gridWhyNot(const Variant& v, const FilterParams& p, int w, int h) {
  const PassLaunch pad = kernels::describeFft(launchFor(v, p, w, h), planesFor(p, w, h)).passes.front();
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
  return tallFrameProblem(v, p, w, h, long(lo) - 2 * r,
                          "at radius " + std::to_string(r) + " (its planes, the frame and " + std::to_string(2 * r) +
                              " rows of border padded to a size cuFFT transforms fast, are up to " +
                              std::to_string(lo) + " rows: " + std::to_string(kMaxGridRows) + " blocks of " +
                              std::to_string(pad.outputTile.y) + ")");
}

// Past the checks every variant makes: cuFFT can be loaded, the padded frame fits one plan and its
// kernels' grids, and the float transforms' error with these weights stays within 1 LSB.
Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const int r = p.filter.mask.radius();
  const char* instead = r <= kMax2DRadius ? "tensor2d" : "cpu-simd";
  if (const std::string& missing = cufftMissing(); !missing.empty())
    return problem(Code::CannotRun, "variant", missing, "variant", instead);
  const FftGeometry g = fftGeometry(w, h, r, p.filterAlpha, p.filter.combine);
  if (double(g.padW) * g.padH * g.channels > 2147483647.0)
    return problem(Code::CannotRun, "variant",
                   "fft: a " + std::to_string(w) + "x" + std::to_string(h) + " frame padded to " +
                       std::to_string(g.padW) + "x" + std::to_string(g.padH) +
                       " is past what one cuFFT plan takes here (2^31 values)",
                   "variant", instead);
  if (Problem why = gridWhyNot(v, p, w, h)) return why;
  if (const double e = fftErrorEstimate(p.filter.mask, g); e > kFftErrorBudget) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "fft: the float transforms' error with these weights (sum of |w| %.3g) is estimated at %.2f "
                  "levels, over the %.2f budget for 1 LSB",
                  absoluteSum(p.filter.mask.weights()), e, kFftErrorBudget);
    return problem(Code::CannotRun, "variant", text, "variant", r <= kMax2DRadius ? "tiled-coop" : "cpu-simd");
  }
  return {};
}

// The convolver (its plans, planes and the mask's spectra) lives in the workspace, made on first use.
void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  prepared(v, p, in, out, ws);
  const auto l = launchOf(v, p, in, out, s);
  auto& fft = ws.impl().fft;
  if (!fft) fft = std::make_unique<FftConvolver>();
  fft->run(l, p.filter.mask);
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeFft(launchFor(v, p, w, h), planesFor(p, w, h));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelFft(launchFor(v, p, w, h), planesFor(p, w, h));
}

}  // namespace

Variant fftVariant() {
  return {
      .name = "fft",
      .description =
          "any mask as a product of spectra (cuFFT, float): the frame extended by the border mode into float planes, "
          "each channel's spectrum times the mask's (made once per mask), transformed back; the cost does not grow "
          "with the radius (2D masks to r = 64)",
      .maxRadius = Mask::kMaxRadius,
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
