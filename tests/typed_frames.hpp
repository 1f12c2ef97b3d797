// Frames of every pixel type in the tests: random batches laid out as an ImageDesc says, poisoned
// outputs (0xa5 bytes for integers, NaN for floats), and the accuracy contract's comparison
// against the double-precision reference (convlive/reference.hpp): integers within 1 LSB, f32
// within f32Bound, f16 within 1 ulp of the correctly rounded result (or the f32 bound, where the
// mask's cancellation leaves a result smaller than its sums' error).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "convlive/half.hpp"
#include "convlive/image.hpp"
#include "convlive/mask.hpp"
#include "convlive/reference.hpp"

namespace convlive::testcases {

inline const PixelType kPixelTypes[] = {PixelType::U8, PixelType::U16, PixelType::F16, PixelType::F32};

// The value of element i of `bytes` (the type's elements one after the other).
inline double elementAt(PixelType t, const unsigned char* p) {
  switch (t) {
    case PixelType::U8:
      return *p;
    case PixelType::U16: {
      std::uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case PixelType::F16: {
      std::uint16_t v;
      std::memcpy(&v, p, 2);
      return halfToFloat(v);
    }
    case PixelType::F32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
  }
  return 0;
}

// d.span() bytes: every element a random value of its type (floats in [-1, 2), so that the
// integer-free types see negative values and values past 1), gaps random bytes too.
inline std::vector<unsigned char> randomFrames(const ImageDesc& d, std::mt19937& rng) {
  std::vector<unsigned char> b(d.span());
  for (auto& x : b) x = static_cast<unsigned char>(rng() >> 24);
  if (d.type == PixelType::U8 || d.type == PixelType::U16) return b;
  std::uniform_real_distribution<double> u(-1.0, 2.0);
  for (std::size_t i = 0; i + pixelTypeBytes(d.type) <= b.size(); i += pixelTypeBytes(d.type)) {
    if (d.type == PixelType::F16) {
      const std::uint16_t h = halfFromDouble(u(rng));
      std::memcpy(&b[i], &h, 2);
    } else {
      const float f = float(u(rng));
      std::memcpy(&b[i], &f, 4);
    }
  }
  return b;
}

// The largest magnitude randomFrames gives a type: the integers' range, floats' [-1, 2).
inline double typeRange(PixelType t) { return t == PixelType::U8 ? 255 : t == PixelType::U16 ? 65535 : 2; }

// The byte an output is poisoned with, so that an unwritten value shows: 0xa5 for integers, 0xff for
// floats (0xffff / 0xffffffff: quiet NaNs).
inline unsigned char poisonByte(PixelType t) { return t == PixelType::U8 || t == PixelType::U16 ? 0xa5 : 0xff; }

// An output buffer of d.span() bytes, poisoned.
inline std::vector<unsigned char> poisoned(const ImageDesc& d) {
  return std::vector<unsigned char>(d.span(), poisonByte(d.type));
}

struct TypedDifference {
  long over = 0;
  std::string first;  // where the first value over the contract is, and its values
  double worst = 0;   // the largest difference (in LSB for integers, absolute for floats)
};

// Compares the frames' pixels (not the pitch's or the batch's gaps) of `got` and `want` (both laid
// out as d) under the accuracy contract for `mask` on inputs of magnitude up to maxAbs.
inline TypedDifference compareTyped(const ImageDesc& d, const std::vector<unsigned char>& got,
                                    const std::vector<unsigned char>& want, const Mask& mask, double maxAbs) {
  TypedDifference r;
  const std::size_t e = pixelTypeBytes(d.type);
  const double f32 = f32Bound(mask, maxAbs) * 2;  // a gradient magnitude counts both sums
  for (int f = 0; f < d.batch; ++f)
    for (int y = 0; y < d.height; ++y)
      for (int x = 0; x < d.width; ++x)
        for (int c = 0; c < d.channels; ++c) {
          const std::size_t at =
              d.frameStride() * std::size_t(f) + d.rowPitch() * std::size_t(y) + (std::size_t(x) * d.channels + c) * e;
          const double g = elementAt(d.type, &got[at]), w = elementAt(d.type, &want[at]);
          double diff = std::fabs(g - w);
          bool ok;
          if (std::isnan(w) || std::isinf(w)) {
            ok = std::isnan(w) ? std::isnan(g) : g == w;
            diff = ok ? 0 : INFINITY;
          } else if (std::isnan(g)) {
            ok = false;
            diff = INFINITY;
          } else if (d.type == PixelType::U8 || d.type == PixelType::U16) {
            ok = diff <= 1;
          } else if (d.type == PixelType::F32) {
            // The bound, or one ulp of the output where that is more (f32's subnormals): the larger
            // gap to its neighbours (a power of two's differ).
            const float wf = float(w);
            const double ulp =
                std::max(double(std::nextafter(wf, INFINITY)) - wf, wf - double(std::nextafter(wf, -INFINITY)));
            ok = diff <= std::max(f32, ulp);
          } else {
            std::uint16_t gb, wb;
            std::memcpy(&gb, &got[at], 2);
            std::memcpy(&wb, &want[at], 2);
            // 1 ulp: the neighbouring half value (bit patterns of one sign differ by 1).
            const double ulp = std::fabs(double(halfToFloat(std::uint16_t(wb ^ 1u))) - w);
            ok = diff <= std::max(ulp * 1.0000001, f32);
          }
          r.worst = std::max(r.worst, diff);
          if (ok) continue;
          if (r.over++ == 0) {
            std::ostringstream o;
            o << "frame " << f << " (" << x << ", " << y << ") channel " << c << ": got " << g << ", want " << w;
            r.first = o.str();
          }
        }
  return r;
}

// Whether the bytes of the pitch's padding and the gaps between frames are still `poison`.
inline bool gapsUntouched(const ImageDesc& d, const std::vector<unsigned char>& out, unsigned char poison) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t inFrame = i % d.frameStride(), frame = i / d.frameStride();
    const bool pixel = frame < std::size_t(d.batch) && inFrame < d.rowPitch() * std::size_t(d.height) &&
                       inFrame % d.rowPitch() < d.rowBytes();
    if (!pixel && out[i] != poison) return false;
  }
  return true;
}

}  // namespace convlive::testcases
