// Device helpers shared by the kernels: pixel conversion, accumulation per combine rule, output.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "convlive/border.hpp"
#include "convlive/check.hpp"
#include "launch.hpp"

namespace convlive::kernels {

__device__ __forceinline__ float4 toFloat4(uchar4 p) { return make_float4(p.x, p.y, p.z, p.w); }

__device__ __forceinline__ void fma4(float4& acc, float w, float4 v) {
  acc.x = fmaf(w, v.x, acc.x);
  acc.y = fmaf(w, v.y, acc.y);
  acc.z = fmaf(w, v.z, acc.z);
  acc.w = fmaf(w, v.w, acc.w);
}

__device__ __forceinline__ uchar4 finishPixel(float4 a, float4 b, Combine c, bool filterAlpha, unsigned char alpha) {
  uchar4 o;
  o.x = saturateToByte(combineValue(a.x, b.x, c));
  o.y = saturateToByte(combineValue(a.y, b.y, c));
  o.z = saturateToByte(combineValue(a.z, b.z, c));
  o.w = filterAlpha ? saturateToByte(combineValue(a.w, b.w, c)) : alpha;
  return o;
}

__device__ __forceinline__ const uchar4* rowPtr(const uchar4* base, std::size_t pitch, int y) {
  return reinterpret_cast<const uchar4*>(reinterpret_cast<const char*>(base) + static_cast<std::size_t>(y) * pitch);
}
__device__ __forceinline__ uchar4* rowPtr(uchar4* base, std::size_t pitch, int y) {
  return reinterpret_cast<uchar4*>(reinterpret_cast<char*>(base) + static_cast<std::size_t>(y) * pitch);
}

// The input pixel at (x, y), any coordinates, read through the border mode.
__device__ __forceinline__ uchar4 loadBordered(const Launch& l, int x, int y) {
  const int sx = borderIndex(x, l.width, l.border), sy = borderIndex(y, l.height, l.border);
  if (sx < 0 || sy < 0) return make_uchar4(0, 0, 0, 0);
  return rowPtr(l.in, l.inPitch, sy)[sx];
}

__device__ __forceinline__ void storeOut(const Launch& l, int x, int y, uchar4 v) { rowPtr(l.out, l.outPitch, y)[x] = v; }

inline unsigned ceilDiv(int a, int b) { return static_cast<unsigned>((a + b - 1) / b); }

// Lets a kernel use up to `bytes` of dynamic shared memory (above the 48 KiB default).
template <class Kernel>
void allowSharedBytes(Kernel k, std::size_t bytes) {
  if (bytes > 48 * 1024)
    CL_CUDA(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

}  // namespace convlive::kernels
