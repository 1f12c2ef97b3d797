// Border modes and output combine rules shared by the CPU reference and every GPU kernel.
// Light on purpose: included by .cu files, so only <cstdint> and <cmath>.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define CL_HD __host__ __device__ __forceinline__
#else
#define CL_HD inline
#endif

namespace convlive {

// How pixels outside the frame are read.
enum class Border : int {
  Zero,    // outside reads 0 (all four channels)
  Clamp,   // replicate the edge pixel: aaa|abcd|ddd
  Mirror,  // reflect-101, the edge pixel not repeated: cb|abcd|cb
  Wrap,    // periodic: cd|abcd|ab
};

// How a filter's accumulated sums become the output value (before rounding and saturation).
enum class Combine : int {
  Identity,   // the sum itself (blur, sharpen, emboss, custom)
  Abs,        // |sum| (laplacian, pitch inspection)
  Magnitude,  // sqrt(gx^2 + gy^2): gx with the mask, gy with its transpose (sobel, scharr)
};

// Index of the pixel read for coordinate i of an axis of length n >= 1, or -1 when the border
// mode reads zero there. Valid for any i, also far outside (radius larger than the frame).
CL_HD int borderIndex(int i, int n, Border b) {
  if (i >= 0 && i < n) return i;
  switch (b) {
    case Border::Zero:
      return -1;
    case Border::Clamp:
      return i < 0 ? 0 : n - 1;
    case Border::Mirror: {
      if (n == 1) return 0;
      const int period = 2 * n - 2;
      int m = i % period;
      if (m < 0) m += period;
      return m < n ? m : period - m;
    }
    case Border::Wrap:
    default: {
      int m = i % n;
      return m < 0 ? m + n : m;
    }
  }
}

// Round to nearest (ties to even, as rintf) and saturate to 0..255.
CL_HD std::uint8_t saturateToByte(float v) {
  const float r = rintf(v);
  return static_cast<std::uint8_t>(r < 0.f ? 0.f : (r > 255.f ? 255.f : r));
}

CL_HD float combineValue(float a, float b, Combine c) {
  switch (c) {
    case Combine::Abs:
      return fabsf(a);
    case Combine::Magnitude:
      return sqrtf(a * a + b * b);
    case Combine::Identity:
    default:
      return a;
  }
}

}  // namespace convlive
