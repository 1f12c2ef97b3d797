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

// A byte placed in the mantissa of 2^23 (0x4B000000), minus 2^23, is its exact value: PRMT + FADD
// instead of I2F. `fused` uses it on 16-byte chunks. Tried in toFloat4 for the per-tap loads of the
// 2D variants, it made them slower on the H200 (tiled-coop r=4 at 4K: 0.55 -> 0.74 ms), so those keep
// the plain conversion.
__device__ __forceinline__ float byteAt(unsigned word, unsigned selector) {
  return __int_as_float(static_cast<int>(__byte_perm(word, 0x4B000000u, selector))) - 8388608.f;
}
// One RGBA8 pixel held in a 32-bit word (R in the low byte) as float4.
__device__ __forceinline__ float4 unpackPixel(unsigned w) {
  return make_float4(byteAt(w, 0x7440), byteAt(w, 0x7441), byteAt(w, 0x7442), byteAt(w, 0x7443));
}
__device__ __forceinline__ unsigned packPixel(uchar4 p) {
  return unsigned(p.x) | unsigned(p.y) << 8 | unsigned(p.z) << 16 | unsigned(p.w) << 24;
}
__device__ __forceinline__ float4 toFloat4(uchar4 p) { return make_float4(p.x, p.y, p.z, p.w); }

__device__ __forceinline__ void fma4(float4& acc, float w, float4 v) {
  acc.x = fmaf(w, v.x, acc.x);
  acc.y = fmaf(w, v.y, acc.y);
  acc.z = fmaf(w, v.z, acc.z);
  acc.w = fmaf(w, v.w, acc.w);
}

// saturateToByte with full-rate instructions: clamp to 0..255, then adding 1.5 * 2^23 leaves the
// value rounded to the nearest integer (ties to even, as rintf) in the low mantissa bits.
__device__ __forceinline__ unsigned char toByte(float v) {
  v = fminf(fmaxf(v, 0.f), 255.f);
  return static_cast<unsigned char>(__float_as_uint(v + 12582912.f) & 0xFFu);
}

__device__ __forceinline__ uchar4 finishPixel(float4 a, float4 b, Combine c, bool filterAlpha, unsigned char alpha) {
  uchar4 o;
  o.x = toByte(combineValue(a.x, b.x, c));
  o.y = toByte(combineValue(a.y, b.y, c));
  o.z = toByte(combineValue(a.z, b.z, c));
  o.w = filterAlpha ? toByte(combineValue(a.w, b.w, c)) : alpha;
  return o;
}

__device__ __forceinline__ const uchar4* rowPtr(const uchar4* base, std::size_t pitch, int y) {
  return reinterpret_cast<const uchar4*>(reinterpret_cast<const char*>(base) + static_cast<std::size_t>(y) * pitch);
}
__device__ __forceinline__ uchar4* rowPtr(uchar4* base, std::size_t pitch, int y) {
  return reinterpret_cast<uchar4*>(reinterpret_cast<char*>(base) + static_cast<std::size_t>(y) * pitch);
}

// Frame f of l's batch (Launch::frames): its input and output. A block's is frame blockIdx.z; the
// host starts each launch of a batch past 65535 frames at its first.
__host__ __device__ __forceinline__ const uchar4* frameIn(const Launch& l, std::size_t f) {
  return reinterpret_cast<const uchar4*>(reinterpret_cast<const unsigned char*>(l.in) + l.inFrameStride * f);
}
__host__ __device__ __forceinline__ uchar4* frameOut(const Launch& l, std::size_t f) {
  return reinterpret_cast<uchar4*>(reinterpret_cast<unsigned char*>(l.out) + l.outFrameStride * f);
}
// The frames of a batch of `frames` that one launch takes (its grid's z).
inline int gridFrames(int frames) { return std::min(std::max(1, frames), kMaxGridZ); }
// l's batch as launches of at most kMaxGridZ frames, a frame a grid z: launch(part) for each part,
// its pointers at its first frame, its frames counted.
template <class Launcher>
void forEachGridOfFrames(const Launch& l, Launcher launch) {
  const int frames = std::max(1, l.frames);
  for (int f0 = 0; f0 < frames; f0 += kMaxGridZ) {
    Launch part = l;
    part.frames = std::min(kMaxGridZ, frames - f0);
    part.in = frameIn(l, std::size_t(f0));
    part.out = frameOut(l, std::size_t(f0));
    launch(part);
  }
}
// A batch's frames (a launch's grid z) share the GPU's slots (blocks or warps it holds at once): a
// frame's share, at least one (0: unknown, no device).
inline int frameSlots(int slots, int frames) { return slots > 0 ? std::max(1, slots / gridFrames(frames)) : slots; }

// The input pixel at (x, y), any coordinates, read through the border mode.
__device__ __forceinline__ uchar4 loadBordered(const Launch& l, int x, int y) {
  const int sx = borderIndex(x, l.width, l.border), sy = borderIndex(y, l.height, l.border);
  if (sx < 0 || sy < 0) return make_uchar4(0, 0, 0, 0);
  return rowPtr(l.in, l.inPitch, sy)[sx];
}

// A block's frame of l's batch: grid z's where Batch, else l's own, its pointers read where they
// are used (so a kernel for single frames is the one it was before batches).
template <bool Batch>
struct BlockFrame {
  const Launch& l;
  __device__ __forceinline__ const uchar4* in() const { return Batch ? frameIn(l, blockIdx.z) : l.in; }
  __device__ __forceinline__ uchar4* out() const { return Batch ? frameOut(l, blockIdx.z) : l.out; }
};
// loadBordered from frame f (a BlockFrame). Written out again: the one above through
// BlockFrame<false> changed the tiled kernels' machine code.
template <class Frame>
__device__ __forceinline__ uchar4 loadBordered(const Launch& l, const Frame& f, int x, int y) {
  const int sx = borderIndex(x, l.width, l.border), sy = borderIndex(y, l.height, l.border);
  if (sx < 0 || sy < 0) return make_uchar4(0, 0, 0, 0);
  return rowPtr(f.in(), l.inPitch, sy)[sx];
}

__device__ __forceinline__ void storeOut(const Launch& l, int x, int y, uchar4 v) {
  rowPtr(l.out, l.outPitch, y)[x] = v;
}

inline unsigned ceilDiv(int a, int b) { return static_cast<unsigned>((a + b - 1) / b); }

// For a tile no instance was compiled for (the variant table's whyNot rules it out before this).
[[noreturn]] inline void badTile(const char* variant, const Launch& l) {
  throw std::invalid_argument(std::string(variant) + ": no compiled tile " + std::to_string(l.tileW) + "x" +
                              std::to_string(l.tileH));
}

// Lets a kernel use `bytes` of dynamic shared memory: past the 48 KiB default, its limit is raised
// once (allowLargeShared), not at every launch.
template <class Kernel>
void allowSharedBytes(Kernel k, std::size_t bytes) {
  allowLargeShared(reinterpret_cast<const void*>(k), bytes);
}

}  // namespace convlive::kernels
