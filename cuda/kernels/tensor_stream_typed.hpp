// tensorstream on 8-bit frames of 1 and 3 channels (grey, RGB and BGR), a batch in one launch:
// host-side entry points, light like launch.hpp; the kernel is in tensor_stream_typed.cuh.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "convlive/border.hpp"
#include "convlive/image.hpp"
#include "launch.hpp"

namespace convlive::kernels {

struct TypedTensorStreamLaunch {
  const void* in;
  void* out;
  ImageDesc image;  // u8x1, u8x3, u16x1,4, f16x1,4, f32x1: size, pitch, batch (rows and frames at its strides)
  std::size_t outPitch, outFrameStride;  // the output's strides where they differ (0: the image's)
  Border border;
  bool absolute;            // Combine::Abs: |sum|
  bool copyFourth = false;  // u16x4, f16x4: the 4th channel copied from the input (ImageDesc::copiesFourth)
  int warps;                // warps a block (the tile's width / 16)
  int tileRows;             // rows a warp walks, a multiple of 16 (the tile's height)
  cudaStream_t stream;
};

// Whether the typed kernel takes frames of this type and channel count (u8x1, u8x3; u16 and f16 of 1
// and 4 channels and f32 grey for separable masks: tensorStreamTypedU16, tensorStreamTypedF16,
// tensorStreamTypedF32).
constexpr bool tensorStreamTypedTakes(PixelType type, int channels) {
  return (type == PixelType::U8 && (channels == 1 || channels == 3)) ||
         ((type == PixelType::U16 || type == PixelType::F16) && (channels == 1 || channels == 4)) ||
         (type == PixelType::F32 && channels == 1);
}
// The frames whose factors come as fp16 high + low parts (separable masks only, r <= 16).
constexpr bool tensorStreamTypedSplitsFactors(PixelType type) {
  return type == PixelType::U16 || type == PixelType::F16 || type == PixelType::F32;
}
// The largest radius the u16 and f16 grey instances take (B0 = 1, 2): past it the tensor cores'
// truncating sums alone pass the 1 LSB budget (convlive/precision.hpp planU16Separable), or f16's
// (planF16Separable).
inline constexpr int kTensorStreamU16MaxRadius = 16;
// 16-pixel strips a warp walks on u16 and f16 grey frames (4 channels: one, four planes).
inline constexpr int kTensorStreamU16Strips = 4;
constexpr int tensorStreamSixteenStrips(int channels) { return channels == 1 ? kTensorStreamU16Strips : 1; }
// 16-pixel strips a warp walks on f32 grey frames: two (four would hold 48 words of a step's window).
inline constexpr int kTensorStreamF32Strips = 2;
// Whether f32 grey frames take the instance held to 80 registers with a two-stage ring (3 blocks of
// 8 warps an SM, 24 warps, where ptxas's own with three stages keeps 4 blocks of 4 warps by its 46
// KB of shared memory): blocks of 8 warps (tiles 128 wide) at r <= 8. auto's timing of the tiles
// chooses between them.
constexpr bool tensorStreamF32Held(int warps, int radius) { return warps == 8 && radius <= 8; }
// Pixels one warp's strip is wide: 64 for one channel (four 16-pixel strips side by side), 16 for three.
constexpr int tensorStreamTypedStripPixels(int channels) { return channels == 1 ? 64 : 16; }
// 16-pixel strips a warp walks for a gradient magnitude: two on grey (four planes' two sets of
// blocks would pass 255 registers at B0 = 2), one on RGB.
constexpr int tensorStreamTypedMagnitudeStrips(int channels) { return channels == 1 ? 2 : 1; }
// Dynamic shared memory a block takes: the weight fragments (each term's; u16 grey: the factors'
// high and low parts, two) and each warp's ring.
std::size_t tensorStreamTypedSharedBytes(const ImageDesc& image, int warps, int radius, int terms = 1);
// Separable, radius 0..kTensorStreamMaxRadius, the factors as for tensorStream (fp16 within the error
// plan planHalfSeparable; splitIntermediate: the intermediate as fp16 high + low parts;
// sumsInByteRange: every sum lies in [-0.5, 255.5), so none is clamped). u16x1 frames go to
// tensorStreamTypedU16 (neither flag read).
void tensorStreamTyped(const TypedTensorStreamLaunch& l, const MaskSep& m, bool splitIntermediate,
                       bool sumsInByteRange);
// A mask of low rank (1..kTensorStreamMaxTerms terms, radius 0..kTensorStreamMaxRadius; Identity or
// Abs), every term in the same pass, as tensorStreamTerms (no term folded), within planHalfTerms.
void tensorStreamTypedTerms(const TypedTensorStreamLaunch& l, const MaskTerms& m, bool splitIntermediate);
// The gradient magnitude of a separable mask (sobel, scharr; radius 1..kTensorStreamMaxMagnitudeRadius),
// its two terms in one pass as tensorStreamMagnitude, within planHalfMagnitude.
void tensorStreamTypedMagnitude(const TypedTensorStreamLaunch& l, const MaskSep& m, bool splitIntermediate);

// u16 grey frames: a separable mask, radius 0..kTensorStreamU16MaxRadius, its factors as fp16 high
// + low parts (the values' high and low bytes as two sets of subnormal inputs, the intermediate as
// fp16 high + low parts), within planU16Separable's bound (the variant checks it).
void tensorStreamTypedU16(const TypedTensorStreamLaunch& l, const MaskSep& m);

// f16 grey frames: a separable mask, radius 0..kTensorStreamU16MaxRadius, its factors as fp16 high +
// low parts (the row factor's scaled by 2^A, the column's by 2^-A: f16IntermediateScale), the values
// the row products' inputs as they are, the intermediate as fp16 high + low parts, within
// planF16Separable's bound (the variant checks it). A warp that stores an Inf or NaN (an Inf or NaN
// input, or a sum past fp16's range) makes its outputs of that segment again on the CUDA cores,
// each from its own window.
void tensorStreamTypedF16(const TypedTensorStreamLaunch& l, const MaskSep& m);

// f32 grey frames (and channels-first planes): a separable mask, radius 0..kTensorStreamU16MaxRadius,
// the factors as for f16, each 16-row step's values multiplied by the power of two that brings the
// warp's largest |value| of the step into [2^14, 2^15) and split into fp16 high + low parts, the
// intermediate as fp16 high + low parts, the sums unscaled and stored as f32, within
// planF32Separable's bound (the variant checks it). Inf and NaN as for f16.
void tensorStreamTypedF32(const TypedTensorStreamLaunch& l, const MaskSep& m);

// f32 grey frames: the step scale 2^P at or below which a warp makes its outputs of a segment again
// on the CUDA cores (TypedTensorArgs::f32RerunScale), from `parts` (the factors' high and low parts
// as the kernel takes them). A step's values are scaled below 2^15, so a stored sum lies below
// 2^(15 - P) S, S the product of the factors' absolute sums (both parts): from P = floor(log2 S) - 111
// up it lies below 2^127, within f32's range. An Inf or NaN input takes the least P (kF32LeastScale),
// always at or below it.
inline constexpr int kF32LeastScale = -114;
inline int f32RerunScale(const MaskTerms& parts) {
  double row = 0., col = 0.;
  for (int t = 0; t < parts.terms; ++t)
    for (int i = 0; i < 2 * parts.radius + 1; ++i) {
      row += std::fabs(double(parts.row[t][i]));
      col += std::fabs(double(parts.col[t][i]));
    }
  const double s = row * col;
  const int e = s > 0. ? static_cast<int>(std::floor(std::log2(s))) : -1000;
  return std::max(kF32LeastScale, e - 112);
}

// What the calls above launch for l (pointers and stream not read): a separable mask
// (tensorStreamTyped, with its splitIntermediate and sumsInByteRange), a mask of `terms` factor pairs
// (asTerms: tensorStreamTypedTerms) or a gradient magnitude (tensorStreamTypedMagnitude).
LaunchDescription describeTensorStreamTyped(const TypedTensorStreamLaunch& l, int radius, int terms, bool asTerms,
                                            bool magnitude, bool splitIntermediate, bool sumsInByteRange);

// Their work per pixel of l's values, counted as the RGBA8 kernel's (modelTensorStream): a warp's
// steps of 16 rows down its strips, B0 more to fill the column window.
WorkModel modelTensorStreamTyped(const TypedTensorStreamLaunch& l, int radius, int terms, bool magnitude,
                                 bool splitIntermediate);

// Internal: each channel count's file (tensor_stream_u8x<C>.cu) defines its launches, m scaled for the
// subnormal inputs (the magnitude's: unscaled, made into its two terms there), and describes them.
namespace typedtensor {
void launchU8x1(const TypedTensorStreamLaunch& l, const MaskSep& scaled, bool splitIntermediate, bool sumsInByteRange);
void launchU8x3(const TypedTensorStreamLaunch& l, const MaskSep& scaled, bool splitIntermediate, bool sumsInByteRange);
void launchU8x1(const TypedTensorStreamLaunch& l, const MaskTerms& scaled, bool splitIntermediate);
void launchU8x3(const TypedTensorStreamLaunch& l, const MaskTerms& scaled, bool splitIntermediate);
void launchU8x1Magnitude(const TypedTensorStreamLaunch& l, const MaskSep& m, bool splitIntermediate);
void launchU8x3Magnitude(const TypedTensorStreamLaunch& l, const MaskSep& m, bool splitIntermediate);
LaunchDescription describeU8x1(const TypedTensorStreamLaunch& l, int radius, int terms, bool asTerms, bool magnitude,
                               bool splitIntermediate, bool sumsInByteRange);
LaunchDescription describeU8x3(const TypedTensorStreamLaunch& l, int radius, int terms, bool asTerms, bool magnitude,
                               bool splitIntermediate, bool sumsInByteRange);
// u16 grey: `parts` the factors' scaled fp16 high parts (term 0) and low parts (term 1).
void launchU16x1(const TypedTensorStreamLaunch& l, const MaskTerms& parts);
LaunchDescription describeU16x1(const TypedTensorStreamLaunch& l, int radius);
// f16 grey: likewise, the parts scaled by 2^A (row) and 2^-A (column).
void launchF16x1(const TypedTensorStreamLaunch& l, const MaskTerms& parts);
LaunchDescription describeF16x1(const TypedTensorStreamLaunch& l, int radius);
// u16 and f16 frames of 4 channels: a warp on one 16-pixel strip, four planes.
void launchU16x4(const TypedTensorStreamLaunch& l, const MaskTerms& parts);
LaunchDescription describeU16x4(const TypedTensorStreamLaunch& l, int radius);
void launchF16x4(const TypedTensorStreamLaunch& l, const MaskTerms& parts);
LaunchDescription describeF16x4(const TypedTensorStreamLaunch& l, int radius);
// f32 grey: a warp on two 16-pixel strips, the parts scaled as f16's.
void launchF32x1(const TypedTensorStreamLaunch& l, const MaskTerms& parts);
LaunchDescription describeF32x1(const TypedTensorStreamLaunch& l, int radius);
}  // namespace typedtensor

}  // namespace convlive::kernels
