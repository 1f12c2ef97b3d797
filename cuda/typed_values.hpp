// Values of the frames' element types on the host (internal): a binary16 value's bits as a type of
// its own, one element read from memory, and a sum stored as the reference stores it. Shared by the
// reference (reference.cpp) and cpu-simd's frames of any type (cpu_simd_frames.cpp), so that both
// round the same way.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "convlive/border.hpp"
#include "convlive/half.hpp"

namespace convlive::typed {

struct Half {  // a binary16 value's bits, read and written through convlive/half.hpp
  std::uint16_t bits;
};

// The element of type X at p (any alignment).
template <class X>
double load(const unsigned char* p) {
  X v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::is_same_v<X, Half>)
    return halfToFloat(v.bits);
  else
    return double(v);
}

// The output value of sums a (the mask) and b (its transpose, for a gradient magnitude): u8 through
// float (saturateToByte), u16 rounded to nearest (ties to even) and saturated, f16 rounded once,
// f32 rounded to float.
template <class X>
void store(unsigned char* p, double a, double b, Combine c) {
  X v;
  if constexpr (std::is_same_v<X, std::uint8_t>) {
    v = saturateToByte(combineValue(static_cast<float>(a), static_cast<float>(b), c));
  } else {
    const double s = c == Combine::Abs ? std::fabs(a) : c == Combine::Magnitude ? std::sqrt(a * a + b * b) : a;
    if constexpr (std::is_same_v<X, std::uint16_t>)
      v = static_cast<std::uint16_t>(std::nearbyint(std::clamp(s, 0.0, 65535.0)));
    else if constexpr (std::is_same_v<X, Half>)
      v.bits = halfFromDouble(s);
    else
      v = static_cast<float>(s);
  }
  std::memcpy(p, &v, sizeof v);
}

}  // namespace convlive::typed
