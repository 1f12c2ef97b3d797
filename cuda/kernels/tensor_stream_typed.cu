// tensorstream on u8x1, u8x3, u16 and f16 frames of 1 and 4 channels and f32 grey frames: the entry
// points (the kernel: tensor_stream_typed.cuh, its instances in tensor_stream_u8x1.cu,
// tensor_stream_u8x3.cu, tensor_stream_u16x1.cu, tensor_stream_f16x1.cu, tensor_stream_u16x4.cu,
// tensor_stream_f16x4.cu and tensor_stream_f32x1.cu).
#include "convlive/half.hpp"
#include "tensor_stream_typed.cuh"

namespace convlive::kernels {
namespace {
// The frames the typed instances take (the variant's whyNot refuses the others before a launch).
void checkTypedFrames(const ImageDesc& d) {
  if (!tensorStreamTypedTakes(d.type, d.channels))
    throw std::invalid_argument("tensorstream: no typed instance for " + std::string(pixelTypeName(d.type)) + "x" +
                                std::to_string(d.channels) +
                                " frames (it takes u8x1, u8x3, u16x1, u16x4, f16x1, f16x4 and f32x1)");
}
// u8 frames only: masks of low rank and gradient magnitudes.
void checkByteFrames(const ImageDesc& d, const char* what) {
  if (d.type != PixelType::U8)
    throw std::invalid_argument(std::string("tensorstream: ") + what + " on " + pixelTypeName(d.type) +
                                " frames (it takes them on u8x1 and u8x3)");
}
// A factor scaled by 2^scale as fp16 high parts (exact as floats) and what each leaves (the kernel
// rounds it to fp16 as the low part).
void splitScaled(const float* w, int taps, int scale, float* hi, float* lo) {
  for (int t = 0; t < taps; ++t) {
    const float v = std::ldexp(w[t], scale);
    hi[t] = halfToFloat(halfFromDouble(v));
    lo[t] = v - hi[t];  // exact: within 2^-11 of v
  }
}
}  // namespace

std::size_t tensorStreamTypedSharedBytes(const ImageDesc& image, int warps, int radius, int terms) {
  auto bytes = [&](auto c) {
    constexpr int C = decltype(c)::value;
    constexpr int SS = C == 2   ? kTensorStreamU16Strips
                       : C == 8 ? 1
                       : C == 4 ? kTensorStreamF32Strips
                                : tensorStreamTypedStripPixels(C) / 16;
    if (radius <= 8)
      return typedSharedBytes<C, SS, 1>(
          warps, C == 4 && tensorStreamF32Held(warps, radius) ? typedAheadOf<kF32Values, true>() : kTypedAhead, terms);
    if (radius <= 16) return typedSharedBytes<C, SS, 2>(warps, kTypedAhead, terms);
    if (radius <= 24) return typedSharedBytes<C, SS, 3>(warps, kTypedAhead, terms);
    return typedSharedBytes<C, SS, 4>(warps, kTypedAhead, terms);
  };
  if (tensorStreamTypedSplitsFactors(image.type)) {  // the factors' high and low parts: two terms'
    terms = 2;
    if (image.type == PixelType::F32) return bytes(std::integral_constant<int, 4>{});
    return image.channels == 1 ? bytes(std::integral_constant<int, 2>{}) : bytes(std::integral_constant<int, 8>{});
  }
  return image.channels == 1 ? bytes(std::integral_constant<int, 1>{}) : bytes(std::integral_constant<int, 3>{});
}

namespace {
// A split-factor instance's frames (type; 1 or 4 channels, f32: 1) and radius, or the reason; false:
// nothing to filter.
bool takesSplitFactors(const TypedTensorStreamLaunch& l, const MaskSep& m, PixelType type, const char* entry) {
  const char* name = pixelTypeName(type);
  if (m.radius < 0 || m.radius > kTensorStreamU16MaxRadius)
    throw std::invalid_argument("tensorstream: radius " + std::to_string(m.radius) + " has no " + name +
                                " instance (0.." + std::to_string(kTensorStreamU16MaxRadius) + ")");
  const ImageDesc& d = l.image;
  if (d.type != type || !tensorStreamTypedTakes(d.type, d.channels))
    throw std::invalid_argument(std::string("tensorstream: ") + entry + " on " + d.str() + " (it takes " + name +
                                (type == PixelType::F32 ? "x1)" : "x1 and " + std::string(name) + "x4)"));
  return d.width >= 1 && d.height >= 1 && d.batch >= 1;
}
// m's factors scaled by 2^rowScale and 2^colScale as the 16-bit instances take them: two terms, the
// fp16 high parts and what they leave.
MaskTerms scaledParts(const MaskSep& m, int rowScale, int colScale) {
  const int taps = 2 * m.radius + 1;
  MaskTerms parts{};
  parts.radius = m.radius;
  parts.terms = 2;
  splitScaled(m.row, taps, rowScale, parts.row[0], parts.row[1]);
  splitScaled(m.col, taps, colScale, parts.col[0], parts.col[1]);
  return parts;
}
}  // namespace

void tensorStreamTypedU16(const TypedTensorStreamLaunch& l, const MaskSep& m) {
  if (!takesSplitFactors(l, m, PixelType::U16, "tensorStreamTypedU16")) return;
  const int taps = 2 * m.radius + 1;
  const int scale = tensorInputScale(largestWeight(m.row, taps), largestWeight(m.col, taps));
  if (scale < 0)
    throw std::invalid_argument(
        "tensorstream: no input scale keeps both factors' largest weights within fp16's range (the variant's whyNot "
        "refuses such masks before a launch)");
  (l.image.channels == 1 ? typedtensor::launchU16x1 : typedtensor::launchU16x4)(l, scaledParts(m, scale, 24 - scale));
}

namespace {
// f16 and f32: the factors' parts scaled so that the row sums stay within fp16's range
// (f16IntermediateScale), or the reason.
MaskTerms halfRangeParts(const MaskSep& m, const char* frames) {
  const int taps = 2 * m.radius + 1;
  double rowAbs = 0;
  for (int t = 0; t < taps; ++t) rowAbs += std::fabs(double(m.row[t]));
  const int scale = f16IntermediateScale(rowAbs);
  if (largestWeight(m.row, taps) * std::ldexp(1.0, scale) >= 65504.0 ||
      largestWeight(m.col, taps) * std::ldexp(1.0, -scale) >= 65504.0)
    throw std::invalid_argument(std::string("tensorstream: the factors' largest weights, scaled for ") + frames +
                                " frames, pass fp16's range (the variant's whyNot refuses such masks before a launch)");
  return scaledParts(m, scale, -scale);
}
}  // namespace

void tensorStreamTypedF32(const TypedTensorStreamLaunch& l, const MaskSep& m) {
  if (!takesSplitFactors(l, m, PixelType::F32, "tensorStreamTypedF32")) return;
  typedtensor::launchF32x1(l, halfRangeParts(m, "f32"));
}

void tensorStreamTypedF16(const TypedTensorStreamLaunch& l, const MaskSep& m) {
  if (!takesSplitFactors(l, m, PixelType::F16, "tensorStreamTypedF16")) return;
  (l.image.channels == 1 ? typedtensor::launchF16x1 : typedtensor::launchF16x4)(l, halfRangeParts(m, "f16"));
}

void tensorStreamTyped(const TypedTensorStreamLaunch& l, const MaskSep& m, bool splitIntermediate,
                       bool sumsInByteRange) {
  if (m.radius < 0 || m.radius > kTensorStreamMaxRadius)
    throw std::invalid_argument("tensorstream: radius " + std::to_string(m.radius) + " has no typed instance (0.." +
                                std::to_string(kTensorStreamMaxRadius) + ")");
  const ImageDesc& d = l.image;
  checkTypedFrames(d);
  if (d.type == PixelType::U16) return tensorStreamTypedU16(l, m);
  if (d.type == PixelType::F16) return tensorStreamTypedF16(l, m);
  if (d.type == PixelType::F32) return tensorStreamTypedF32(l, m);
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
  checkByteFrames(d, "masks of low rank");
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
  checkByteFrames(d, "gradient magnitudes");
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
  if (l.image.type == PixelType::U16) {
    if (asTerms || magnitude) checkByteFrames(l.image, asTerms ? "masks of low rank" : "gradient magnitudes");
    return (l.image.channels == 1 ? typedtensor::describeU16x1 : typedtensor::describeU16x4)(l, radius);
  }
  if (l.image.type == PixelType::F16) {
    if (asTerms || magnitude) checkByteFrames(l.image, asTerms ? "masks of low rank" : "gradient magnitudes");
    return (l.image.channels == 1 ? typedtensor::describeF16x1 : typedtensor::describeF16x4)(l, radius);
  }
  if (l.image.type == PixelType::F32) {
    if (asTerms || magnitude) checkByteFrames(l.image, asTerms ? "masks of low rank" : "gradient magnitudes");
    return typedtensor::describeF32x1(l, radius);
  }
  return (l.image.channels == 1 ? typedtensor::describeU8x1 : typedtensor::describeU8x3)(
      l, radius, terms, asTerms, magnitude, splitIntermediate, sumsInByteRange);
}

namespace {
// u16 grey: per 16-pixel strip and step, 4 row products a K chunk and 16-row block (the high and
// low bytes, each times the factor's high and low parts) and 3 column products an output block and
// half (the intermediate's high and low parts times the column's high part, its high part times
// the column's low part).
// f16 grey: the same walk and column pass; the row pass 2 products a K chunk and 16-row block (the
// values times the factor's high and low parts). 4 channels: one strip a warp, four planes; the
// figures per pixel (4 values). f32 grey: two strips a warp, 3 row products (the values' high and
// low parts).
WorkModel modelU16(const TypedTensorStreamLaunch& l, int radius) {
  const PixelType type = l.image.type;
  const bool f16 = type == PixelType::F16, f32 = type == PixelType::F32;
  const int rowProducts = f16 ? 2 : f32 ? 3 : 4, ch = l.image.channels, bytes = f32 ? 4 : 2;
  const int b0 = radius <= 8 ? 1 : 2, kc = b0 + 1, nb = 2 * (b0 + 1);
  const int ss = f32 ? kTensorStreamF32Strips : tensorStreamSixteenStrips(ch);
  const double steps = std::max(1, l.tileRows / 16), perOutput = (steps + b0) / steps, taps = 2 * radius + 1;
  WorkModel m;
  m.apron = double(ss + b0) / ss * perOutput;
  m.globalReads = m.apron;
  m.globalBytes = double(bytes) * ch * m.globalReads;
  m.dramBytes = 2.0 * bytes * ch;
  m.matrixFlops = ch * perOutput * (rowProducts * 2 * kc + 3 * nb) * 2.0 * 16 * 8 * 16 / 256;
  m.matrixUseful = ch * (perOutput * rowProducts * 2 * taps + 3 * 2 * taps);
  m.notes.push_back("row and column products with Toeplitz bands " + std::to_string(16 * kc) + " deep, " +
                    std::to_string(2 * radius + 1) + " weighted; " + std::to_string(ss) +
                    " 16-pixel strips a warp; figures per " +
                    (ch == 1 ? std::string(pixelTypeName(type)) + " value"
                             : "pixel of " + std::to_string(ch) + " " + pixelTypeName(type) + " values"));
  if (f32)
    m.notes.push_back(
        "the factors as fp16 high + low parts, each step's values scaled by a power of two as fp16 high + low parts: "
        "3 row products a chunk (low x low dropped); the intermediate as fp16 high + low parts: 3 column products a "
        "block");
  else if (f16)
    m.notes.push_back(
        "the factors as fp16 high + low parts, the values as they are: 2 row products a chunk; the intermediate as "
        "fp16 high + low parts: 3 column products a block");
  else
    m.notes.push_back(
        "the factors as fp16 high + low parts and each value's high and low bytes as inputs of their own: 4 row "
        "products a chunk, joined in fp32 (256 high + low); the intermediate as fp16 high + low parts: 3 column "
        "products a block");
  // The staged bytes once; the row fragments (two parts) a chunk, the column ones (two) a block.
  m.sharedBytes = ch * (bytes * m.apron + perOutput * (2 * 512.0 * kc + 2 * 256.0 * nb) / 256);
  return m;
}
}  // namespace

WorkModel modelTensorStreamTyped(const TypedTensorStreamLaunch& l, int radius, int terms, bool magnitude,
                                 bool splitIntermediate) {
  checkTypedFrames(l.image);
  if (tensorStreamTypedSplitsFactors(l.image.type)) return modelU16(l, radius);
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
