// tensorstream on u8x1 and u8x3 frames: the entry points (the kernel: tensor_stream_typed.cuh, its
// instances in tensor_stream_u8x1.cu and tensor_stream_u8x3.cu).
#include "tensor_stream_typed.cuh"

namespace convlive::kernels {
namespace {
// The frames the typed instances take (the variant's whyNot refuses the others before a launch).
void checkTypedFrames(const ImageDesc& d) {
  if (!tensorStreamTypedTakes(d.type, d.channels))
    throw std::invalid_argument("tensorstream: no typed instance for " + std::string(pixelTypeName(d.type)) + "x" +
                                std::to_string(d.channels) + " frames (it takes u8x1 and u8x3)");
}
}  // namespace

std::size_t tensorStreamTypedSharedBytes(int channels, int warps, int radius, int terms) {
  auto bytes = [&](auto c) {
    constexpr int C = decltype(c)::value, SS = tensorStreamTypedStripPixels(C) / 16;
    if (radius <= 8) return typedSharedBytes<C, SS, 1>(warps, kTypedAhead, terms);
    if (radius <= 16) return typedSharedBytes<C, SS, 2>(warps, kTypedAhead, terms);
    if (radius <= 24) return typedSharedBytes<C, SS, 3>(warps, kTypedAhead, terms);
    return typedSharedBytes<C, SS, 4>(warps, kTypedAhead, terms);
  };
  return channels == 1 ? bytes(std::integral_constant<int, 1>{}) : bytes(std::integral_constant<int, 3>{});
}

void tensorStreamTyped(const TypedTensorStreamLaunch& l, const MaskSep& m, bool splitIntermediate,
                       bool sumsInByteRange) {
  if (m.radius < 0 || m.radius > kTensorStreamMaxRadius)
    throw std::invalid_argument("tensorstream: radius " + std::to_string(m.radius) + " has no typed instance (0.." +
                                std::to_string(kTensorStreamMaxRadius) + ")");
  const ImageDesc& d = l.image;
  checkTypedFrames(d);
  if (d.width < 1 || d.height < 1 || d.batch < 1) return;
  const MaskSep scaled = scaledForTensorInputs(m);
  if (d.channels == 1)
    typedtensor::launchU8x1(l, scaled, splitIntermediate, sumsInByteRange);
  else
    typedtensor::launchU8x3(l, scaled, splitIntermediate, sumsInByteRange);
}

void tensorStreamTypedTerms(const TypedTensorStreamLaunch& l, const MaskTerms& m, bool splitIntermediate) {
  const ImageDesc& d = l.image;
  checkTypedFrames(d);
  const MaskTerms scaled = scaledTerms(m);  // checks the terms and the radius
  if (d.width < 1 || d.height < 1 || d.batch < 1) return;
  if (d.channels == 1)
    typedtensor::launchU8x1(l, scaled, splitIntermediate);
  else
    typedtensor::launchU8x3(l, scaled, splitIntermediate);
}

void tensorStreamTypedMagnitude(const TypedTensorStreamLaunch& l, const MaskSep& m, bool splitIntermediate) {
  const ImageDesc& d = l.image;
  checkTypedFrames(d);
  if (m.radius < 1 || m.radius > kTensorStreamMaxMagnitudeRadius)
    throw std::invalid_argument("tensorstream: a gradient magnitude at r = " + std::to_string(m.radius) +
                                " (it takes r = 1.." + std::to_string(kTensorStreamMaxMagnitudeRadius) + ")");
  if (d.width < 1 || d.height < 1 || d.batch < 1) return;
  if (d.channels == 1)
    typedtensor::launchU8x1Magnitude(l, m, splitIntermediate);
  else
    typedtensor::launchU8x3Magnitude(l, m, splitIntermediate);
}

LaunchDescription describeTensorStreamTyped(const TypedTensorStreamLaunch& l, int radius, int terms, bool asTerms,
                                            bool magnitude, bool splitIntermediate, bool sumsInByteRange) {
  checkTypedFrames(l.image);
  return (l.image.channels == 1 ? typedtensor::describeU8x1 : typedtensor::describeU8x3)(
      l, radius, terms, asTerms, magnitude, splitIntermediate, sumsInByteRange);
}

WorkModel modelTensorStreamTyped(const TypedTensorStreamLaunch& l, int radius, int terms, bool magnitude,
                                 bool splitIntermediate) {
  checkTypedFrames(l.image);
  const int c = l.image.channels;
  // The instance's shape, as the launches pick it.
  auto b0Of = [](auto b0, auto, auto) { return int(decltype(b0)::value); };
  const int b0 =
      magnitude ? withTypedMagnitude(radius, false, b0Of) : withTypedInstance<false>(radius, false, false, false, b0Of);
  const int ss = magnitude ? tensorStreamTypedMagnitudeStrips(c) : tensorStreamTypedStripPixels(c) / 16;
  const double steps = std::max(1, l.tileRows / 16), perOutput = (steps + b0) / steps;  // steps made per step stored
  WorkModel m;
  // A step stages 16 rows of (SS + B0) 16-pixel units for SS units made.
  m.apron = double(ss + b0) / ss * perOutput;
  m.globalReads = m.apron;
  m.globalBytes = c * m.globalReads;
  m.dramBytes = 2.0 * c;
  m.notes.push_back("row and column products with Toeplitz bands " + std::to_string(16 * (b0 + 1)) + " deep, " +
                    std::to_string(2 * radius + 1) + " weighted; " + std::to_string(ss) + " 16-pixel strips a warp; " +
                    "figures per pixel of " + std::to_string(c) + " u8 values");
  // Per warp step (16 SS pixels x 16 rows): the staged bytes once, and each plane's (a strip's
  // channel's) weight fragments per term.
  m.sharedBytes = c * m.apron + modelProducts(m, b0, c, radius, terms, perOutput, magnitude, splitIntermediate);
  return m;
}

}  // namespace convlive::kernels
