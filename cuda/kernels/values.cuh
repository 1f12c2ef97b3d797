// Values of each pixel type (u8, u16, f16, f32) held in 32-bit words: conversion to float, and back
// with rounding and saturation. The typed stream kernel and sweep read and write values this way.
#pragma once

#include <cuda_fp16.h>

#include <cstring>

#include "common.cuh"

namespace convlive::kernels {

// Values of type T in 32-bit words: conversion to float, and back with rounding and saturation.
template <class T>
struct Values;
template <>
struct Values<unsigned char> {
  static constexpr int kPerWord = 4;
  // Byte k under the exponent of 2^23, minus 2^23: PRMT + FADD (see byteAt).
  static __device__ __forceinline__ float get(unsigned w, int k) { return byteAt(w, 0x7440 + k); }
  // Clamped to 0..255, rounded to nearest (ties to even) into the low byte by adding 1.5 * 2^23.
  static __device__ __forceinline__ unsigned bits(float v) {
    return __float_as_uint(fminf(fmaxf(v, 0.f), 255.f) + 12582912.f);
  }
  static __device__ __forceinline__ unsigned pack(const float* v) {
    return __byte_perm(__byte_perm(bits(v[0]), bits(v[1]), 0x0040), __byte_perm(bits(v[2]), bits(v[3]), 0x0040),
                       0x5410);
  }
  // The word with value k (k = 3: its top byte) taken from `from`.
  static __device__ __forceinline__ unsigned keepTop(unsigned w, unsigned from) { return __byte_perm(w, from, 0x7210); }
};
template <>
struct Values<unsigned short> {
  static constexpr int kPerWord = 2;
  static __device__ __forceinline__ float get(unsigned w, int k) {
    return __uint_as_float(__byte_perm(w, 0x4B000000u, k ? 0x7432 : 0x7410)) - 8388608.f;
  }
  static __device__ __forceinline__ unsigned bits(float v) {
    return __float_as_uint(fminf(fmaxf(v, 0.f), 65535.f) + 12582912.f);
  }
  static __device__ __forceinline__ unsigned pack(const float* v) {
    return __byte_perm(bits(v[0]), bits(v[1]), 0x5410);
  }
  static __device__ __forceinline__ unsigned keepTop(unsigned w, unsigned from) { return __byte_perm(w, from, 0x7610); }
};
template <>
struct Values<__half> {
  static constexpr int kPerWord = 2;
  static __device__ __forceinline__ float get(unsigned w, int k) {
    __half2 h;
    std::memcpy(&h, &w, sizeof h);
    return k ? __high2float(h) : __low2float(h);
  }
  static __device__ __forceinline__ unsigned pack(const float* v) {
    const __half2 h = __floats2half2_rn(v[0], v[1]);
    unsigned u;
    std::memcpy(&u, &h, sizeof u);
    return u;
  }
  static __device__ __forceinline__ unsigned keepTop(unsigned w, unsigned from) { return __byte_perm(w, from, 0x7610); }
};
template <>
struct Values<float> {
  static constexpr int kPerWord = 1;
  static __device__ __forceinline__ float get(unsigned w, int) { return __uint_as_float(w); }
  static __device__ __forceinline__ unsigned pack(const float* v) { return __float_as_uint(v[0]); }
  static __device__ __forceinline__ unsigned keepTop(unsigned, unsigned from) { return from; }
};

// N values of a row of rowValues values (C a pixel, width pixels) from value x on, packed into
// words as Values<T> holds them: values past either end are the border's (0 where a Zero border
// leaves none), read one at a time. The slow path of the kernels' whole-word copies.
template <class T, int C, int N>
__device__ __forceinline__ void packBordered(const char* row, int x, int rowValues, int width, Border border,
                                             unsigned (&w)[(N + Values<T>::kPerWord - 1) / Values<T>::kPerWord]) {
  constexpr int VPW = Values<T>::kPerWord;
#pragma unroll
  for (int j = 0; j < (N + VPW - 1) / VPW; ++j) w[j] = 0;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const int xv = x + j;
    int at = xv;
    if (xv < 0 || xv >= rowValues) {
      const int px = xv >= 0 ? xv / C : -((-xv + C - 1) / C), ch = xv - px * C;
      const int sx = borderIndex(px, width, border);
      at = sx < 0 ? -1 : sx * C + ch;
    }
    if (at < 0) continue;
    T v;
    std::memcpy(&v, row + std::size_t(at) * sizeof(T), sizeof(T));
    unsigned bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    w[j / VPW] |= bits << (8 * sizeof(T) * (j % VPW));
  }
}

}  // namespace convlive::kernels
