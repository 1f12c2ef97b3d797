// Colour conversion, host side: names, layouts, checks, and the CPU reference (doubles, explicit
// rounding) that the GPU kernels are tested against. The model is described in convlive/colour.hpp.
#include "convlive/colour.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace convlive {

std::string_view yuvFormatName(YuvFormat f) { return f == YuvFormat::NV12 ? "NV12" : "I420"; }

std::string_view colourMatrixName(ColourMatrix m) {
  switch (m) {
    case ColourMatrix::Bt601:
      return "bt601";
    case ColourMatrix::Bt709:
      return "bt709";
    case ColourMatrix::Bt2020:
      return "bt2020";
  }
  return "?";
}

std::string_view colourRangeName(ColourRange r) { return r == ColourRange::Full ? "full" : "limited"; }

std::optional<YuvFormat> parseYuvFormat(std::string_view name) {
  if (name == "NV12") return YuvFormat::NV12;
  if (name == "I420") return YuvFormat::I420;
  return std::nullopt;
}

std::string describe(const ColourSpec& spec) {
  return std::string(colourMatrixName(spec.matrix)) + " " + std::string(colourRangeName(spec.range));
}

ColourCoefficients colourCoefficients(ColourSpec spec) {
  ColourCoefficients c;
  switch (spec.matrix) {
    case ColourMatrix::Bt601:
      c.kr = 0.299, c.kb = 0.114;
      break;
    case ColourMatrix::Bt709:
      c.kr = 0.2126, c.kb = 0.0722;
      break;
    case ColourMatrix::Bt2020:
      c.kr = 0.2627, c.kb = 0.0593;
      break;
  }
  c.kg = 1.0 - c.kr - c.kb;
  const bool full = spec.range == ColourRange::Full;
  c.yOffset = full ? 0.0 : 16.0;
  c.yScale = full ? 255.0 : 219.0;
  c.cScale = full ? 255.0 : 224.0;
  return c;
}

std::size_t yuvRowBytes(YuvFormat format, int width, int plane) {
  if (plane == 0) return static_cast<std::size_t>(width);
  if (format == YuvFormat::NV12) return plane == 1 ? 2 * static_cast<std::size_t>(chromaWidth(width)) : 0;
  return static_cast<std::size_t>(chromaWidth(width));
}

int yuvPlaneRows(int height, int plane) { return plane == 0 ? height : chromaHeight(height); }

int yuvPlaneCount(YuvFormat format) { return format == YuvFormat::NV12 ? 2 : 3; }

YuvLayout packedYuvLayout(YuvFormat format, int width, int height, std::size_t lumaPitch) {
  YuvLayout l;
  l.format = format, l.width = width, l.height = height;
  l.pitches[0] = std::max(lumaPitch, yuvRowBytes(format, width, 0));
  if (format == YuvFormat::NV12)
    l.pitches[1] = std::max(l.pitches[0], yuvRowBytes(format, width, 1));
  else
    l.pitches[1] = l.pitches[2] = (l.pitches[0] + 1) / 2;
  std::size_t at = 0;
  for (int p = 0; p < yuvPlaneCount(format); ++p) {
    l.offsets[p] = at;
    at += l.pitches[p] * static_cast<std::size_t>(yuvPlaneRows(height, p));
  }
  l.bytes = at;
  return l;
}

namespace {

template <class View, class Byte>
View viewAt(const YuvLayout& layout, Byte* base) {
  View v;
  v.format = layout.format, v.width = layout.width, v.height = layout.height;
  for (int p = 0; p < yuvPlaneCount(layout.format); ++p) {
    v.planes[p] = base + layout.offsets[p];
    v.pitches[p] = layout.pitches[p];
  }
  return v;
}

}  // namespace

YuvView yuvViewAt(const YuvLayout& layout, std::uint8_t* base) { return viewAt<YuvView>(layout, base); }
ConstYuvView yuvViewAt(const YuvLayout& layout, const std::uint8_t* base) { return viewAt<ConstYuvView>(layout, base); }

std::string whyNotConvert(const ConstYuvView& yuv, const ConstImageView& rgba) {
  if (yuv.width < 1 || yuv.height < 1) return "the YUV frame is empty";
  if (yuv.width != rgba.width || yuv.height != rgba.height)
    return "the YUV frame is " + std::to_string(yuv.width) + "x" + std::to_string(yuv.height) +
           " but the RGBA frame is " + std::to_string(rgba.width) + "x" + std::to_string(rgba.height);
  if (!rgba.data) return "the RGBA frame has no memory";
  if (rgba.pitch < 4 * static_cast<std::size_t>(rgba.width)) return "the RGBA frame's pitch is shorter than a row";
  for (int p = 0; p < yuvPlaneCount(yuv.format); ++p) {
    if (!yuv.planes[p]) return "YUV plane " + std::to_string(p) + " has no memory";
    if (yuv.pitches[p] < yuvRowBytes(yuv.format, yuv.width, p))
      return "YUV plane " + std::to_string(p) + "'s pitch is shorter than its row";
  }
  return {};
}

void checkConvertible(const ConstYuvView& yuv, const ConstImageView& rgba, const char* what) {
  if (std::string why = whyNotConvert(yuv, rgba); !why.empty())
    throw std::invalid_argument(std::string(what) + ": " + why);
}

std::string whyNotExpandGrey(const ImageDesc& grey, const ConstImageView& rgba) {
  if (grey.channels != 1 || (grey.type != PixelType::U8 && grey.type != PixelType::U16))
    return "the frame is " + grey.str() + ", not grey (u8x1 or u16x1)";
  if (grey.batch != 1) return "the grey frame is a batch of " + std::to_string(grey.batch) + ": expand one frame";
  if (grey.width < 1 || grey.height < 1) return "the grey frame is empty";
  if (grey.rowPitch() < grey.rowBytes()) return "the grey frame's pitch is shorter than a row";
  if (grey.width != rgba.width || grey.height != rgba.height)
    return "the grey frame is " + std::to_string(grey.width) + "x" + std::to_string(grey.height) +
           " but the RGBA frame is " + std::to_string(rgba.width) + "x" + std::to_string(rgba.height);
  if (!rgba.data) return "the RGBA frame has no memory";
  if (rgba.pitch < 4 * static_cast<std::size_t>(rgba.width)) return "the RGBA frame's pitch is shorter than a row";
  return {};
}

DeviceYuvFrame::DeviceYuvFrame(const YuvLayout& layout) : layout_(layout), buf_(layout.bytes) {}

// ---- The CPU reference ----------------------------------------------------------------------------

namespace {

// To nearest, halves up, saturated to a byte.
std::uint8_t roundToByte(double v) { return static_cast<std::uint8_t>(std::clamp(std::floor(v + 0.5), 0.0, 255.0)); }

struct ChromaPlanes {
  const ConstYuvView& v;
  int cw, ch;
  double at(int cx, int cy, int which) const {
    if (v.format == YuvFormat::NV12) return v.planes[1][cy * v.pitches[1] + 2 * static_cast<std::size_t>(cx) + which];
    return v.planes[1 + which][cy * v.pitches[1 + which] + static_cast<std::size_t>(cx)];
  }
};

// Chroma `which` (0: U, 1: V) at luma pixel (x, y), bilinear on the MPEG-2 grid.
double upsampledChroma(const ChromaPlanes& c, int x, int y, int which) {
  const int cx = x / 2, cy = y / 2;
  const int nextX = std::min(cx + 1, c.cw - 1);
  const int otherY = y % 2 == 0 ? std::max(cy - 1, 0) : std::min(cy + 1, c.ch - 1);
  auto across = [&](int row) {
    return x % 2 == 0 ? c.at(cx, row, which) : (c.at(cx, row, which) + c.at(nextX, row, which)) / 2.0;
  };
  return 0.75 * across(cy) + 0.25 * across(otherY);
}

struct Rgb {
  double r = 0, g = 0, b = 0;
};

Rgb yuvToRgb(const ColourCoefficients& k, double y, double cb, double cr) {
  const double luma = (y - k.yOffset) / k.yScale;
  const double pb = (cb - 128.0) / k.cScale, pr = (cr - 128.0) / k.cScale;
  Rgb c;
  c.r = luma + 2.0 * (1.0 - k.kr) * pr;
  c.b = luma + 2.0 * (1.0 - k.kb) * pb;
  c.g = (luma - k.kr * c.r - k.kb * c.b) / k.kg;
  return c;
}

Rgb pixelAt(ConstImageView in, int x, int y) {
  const std::uint8_t* p = in.row(y) + 4 * static_cast<std::size_t>(x);
  return {p[0] / 255.0, p[1] / 255.0, p[2] / 255.0};
}

double lumaOf(const ColourCoefficients& k, const Rgb& c) { return k.kr * c.r + k.kg * c.g + k.kb * c.b; }

// R'G'B' filtered for chroma sample (cx, cy): [1 2 1] / 4 across, the mean of the two rows.
Rgb chromaSiteAverage(ConstImageView in, int cx, int cy) {
  const int rows[2] = {2 * cy, std::min(2 * cy + 1, in.height - 1)};
  const int cols[3] = {std::max(2 * cx - 1, 0), 2 * cx, std::min(2 * cx + 1, in.width - 1)};
  const double weights[3] = {0.25, 0.5, 0.25};
  Rgb sum;
  for (int y : rows)
    for (int i = 0; i < 3; ++i) {
      const Rgb p = pixelAt(in, cols[i], y);
      sum.r += 0.5 * weights[i] * p.r, sum.g += 0.5 * weights[i] * p.g, sum.b += 0.5 * weights[i] * p.b;
    }
  return sum;
}

}  // namespace

void referenceYuvToRgba(const ConstYuvView& in, ImageView out, ColourSpec spec) {
  checkConvertible(in, out, "referenceYuvToRgba");
  const ColourCoefficients k = colourCoefficients(spec);
  const ChromaPlanes chroma{in, chromaWidth(in.width), chromaHeight(in.height)};
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x) {
      const double luma = in.planes[0][y * in.pitches[0] + static_cast<std::size_t>(x)];
      const Rgb c = yuvToRgb(k, luma, upsampledChroma(chroma, x, y, 0), upsampledChroma(chroma, x, y, 1));
      std::uint8_t* o = out.row(y) + 4 * static_cast<std::size_t>(x);
      o[0] = roundToByte(255.0 * c.r), o[1] = roundToByte(255.0 * c.g), o[2] = roundToByte(255.0 * c.b);
      o[3] = 255;
    }
}

void referenceRgbaToYuv(ConstImageView in, const YuvView& out, ColourSpec spec) {
  checkConvertible(out, in, "referenceRgbaToYuv");
  const ColourCoefficients k = colourCoefficients(spec);
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x)
      out.planes[0][y * out.pitches[0] + static_cast<std::size_t>(x)] =
          roundToByte(k.yOffset + k.yScale * lumaOf(k, pixelAt(in, x, y)));
  for (int cy = 0; cy < chromaHeight(in.height); ++cy)
    for (int cx = 0; cx < chromaWidth(in.width); ++cx) {
      const Rgb c = chromaSiteAverage(in, cx, cy);
      const double luma = lumaOf(k, c);
      const std::uint8_t u = roundToByte(128.0 + k.cScale * (c.b - luma) / (2.0 * (1.0 - k.kb)));
      const std::uint8_t v = roundToByte(128.0 + k.cScale * (c.r - luma) / (2.0 * (1.0 - k.kr)));
      if (out.format == YuvFormat::NV12) {
        std::uint8_t* uv = out.planes[1] + cy * out.pitches[1] + 2 * static_cast<std::size_t>(cx);
        uv[0] = u, uv[1] = v;
      } else {
        out.planes[1][cy * out.pitches[1] + static_cast<std::size_t>(cx)] = u;
        out.planes[2][cy * out.pitches[2] + static_cast<std::size_t>(cx)] = v;
      }
    }
}

void referenceGreyToRgba(const void* in, const ImageDesc& grey, ImageView out) {
  if (std::string why = whyNotExpandGrey(grey, out); !why.empty())
    throw std::invalid_argument("referenceGreyToRgba: " + why);
  if (!in) throw std::invalid_argument("referenceGreyToRgba: the grey frame has no memory");
  // Integer arithmetic, exact: (v * 255 + 32767) / 65535 is round(v / 257) (no u16 value lies on a
  // half), so the pipeline's CPU path runs this too.
  const auto* base = static_cast<const std::uint8_t*>(in);
  const bool words = grey.type == PixelType::U16;
  for (int y = 0; y < grey.height; ++y) {
    const std::uint8_t* row = base + std::size_t(y) * grey.rowPitch();
    std::uint8_t* o = out.row(y);
    for (int x = 0; x < grey.width; ++x, o += 4) {
      std::uint32_t v = row[x];
      if (words) {
        std::uint16_t w;
        std::memcpy(&w, row + 2 * std::size_t(x), 2);
        v = (std::uint32_t(w) * 255u + 32767u) / 65535u;
      }
      o[0] = o[1] = o[2] = std::uint8_t(v);
      o[3] = 255;
    }
  }
}

}  // namespace convlive
