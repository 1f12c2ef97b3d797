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

// Past the checks every variant makes: cuFFT can be loaded, the padded frame fits one plan, and
// the float transforms' error with these weights stays within 1 LSB.
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

// The planes' shapes for a width x height frame, without memory (what the inspector's figures read).
kernels::FftPlanes planesFor(const FilterParams& p, int w, int h) {
  const FftGeometry g = fftGeometry(w, h, radiusOf(p), p.filterAlpha, p.filter.combine);
  return {nullptr, nullptr, nullptr, nullptr, nullptr, g.padW, g.padH, radiusOf(p), g.channels, g.magnitude};
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
