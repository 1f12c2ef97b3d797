// fp16 sums of bytes (convlive/precision.hpp, planHalfSums): each value centred (byte - 128, so that
// the sums stay small and their rounding fine) and two values an HFMA2; the weights are fp16 pairs
// (the column's over 255), and the last tap adds back the centring's offset (128 * sum row * sum
// col, both in fp16) and saturates to [0, 1]. planHalfSums bounds the error of exactly these steps,
// whichever two values share an instruction. Used by stream's RGBA8 kernel (stream.cu) and its
// typed kernel on u8 frames (stream_typed.cuh).
#pragma once

#include <cuda_fp16.h>

#include <cstring>

#include "launch.hpp"

namespace convlive::kernels {

__device__ __forceinline__ __half2 asHalf2(unsigned bits) {
  __half2 h;
  std::memcpy(&h, &bits, sizeof h);
  return h;
}
__device__ __forceinline__ unsigned bitsOf(__half2 h) {
  unsigned u;
  std::memcpy(&u, &h, sizeof u);
  return u;
}
// Bytes under 0x64 are the fp16 1024 + v (exact); minus 1152 they are v - 128, exact too.
__device__ __forceinline__ __half2 centred(unsigned bytesUnder64) {
  return __hadd2(asHalf2(bytesUnder64), asHalf2(0xE480E480u));
}
// The two fp16 sums s in [0, 1] as 255 s + 1024, which lands on an integer (spacing 1 from 1024 to
// 2048), rounded to nearest (ties to even, as rintf): the value's byte is the half's low byte.
__device__ __forceinline__ unsigned byteHalves(__half2 s) {
  return bitsOf(__hfma2(s, asHalf2(0x5BF85BF8u), asHalf2(0x64006400u)));  // 255, 1024
}

// A weight as the fp16 pair the fp16 kernels read, its bits in a float of the mask's arrays.
float halfPairBits(float w);
// A separable mask as the fp16 kernels take it: each weight an fp16 pair's bits in its float slot,
// the column factor's over 255 (some are float denormals: moved, never computed with).
MaskSep halfSumsMask(const MaskSep& m);

}  // namespace convlive::kernels
