// IEEE binary16 ("half", f16) on the host: the conversions the CPU reference, the image files and
// the tests use. Plain C++17, no CUDA headers (a .cu file's kernels use cuda_fp16.h instead).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace convlive {

// The value of the binary16 bit pattern `h` (exact: every half is a float).
inline float halfToFloat(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const int exponent = (h >> 10) & 0x1f;
  const std::uint32_t mantissa = h & 0x3ffu;
  float v;
  if (exponent == 0)
    v = std::ldexp(float(mantissa), -24);  // zero and subnormals
  else if (exponent == 31)
    v = mantissa ? NAN : INFINITY;
  else
    v = std::ldexp(float(mantissa | 0x400u), exponent - 25);
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits |= sign;
  std::memcpy(&v, &bits, 4);
  return v;
}

// `d` rounded once to the nearest binary16 (ties to even), as the accuracy contract's "correctly
// rounded result" means: no double rounding through float. Past 65504 (half's largest finite
// value) by half an ulp or more: infinity.
inline std::uint16_t halfFromDouble(double d) {
  const std::uint16_t sign = std::signbit(d) ? 0x8000u : 0u;
  const double a = std::fabs(d);
  if (std::isnan(d)) return std::uint16_t(sign | 0x7e00u);
  if (a >= 65520.0) return std::uint16_t(sign | 0x7c00u);
  if (a < 0x1p-14) return std::uint16_t(sign | std::uint16_t(std::nearbyint(a * 0x1p24)));  // 1024: the smallest normal
  int e2 = 0;
  std::frexp(a, &e2);  // a = f * 2^e2, f in [0.5, 1): a in [2^(e2-1), 2^e2)
  int e = e2 - 1;
  double m = std::nearbyint(std::ldexp(a, 10 - e));  // 1024..2048
  if (m >= 2048.0) {
    m = 1024.0;
    ++e;
  }
  return std::uint16_t(sign | std::uint16_t((e + 15) << 10) | std::uint16_t(m - 1024.0));
}

}  // namespace convlive
