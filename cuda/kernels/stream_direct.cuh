// stream's direct kernel for f32 frames of 4 channels at r = 1 (included by stream_typed.cuh; its
// one instance is made in stream_typed_f32.cu). A thread makes one pixel of kStreamDirectRows rows:
// for each of the rows + 2 input rows, its pixel and the two beside it as 16-byte loads (the
// neighbours' through L1, where the next threads' loads brought them), the row factor's 3 taps,
// then the column's over the last three row sums in registers. No ring, no shuffles, no apron
// lanes: every thread writes. The streaming kernel's warps write 30 of 32 lanes at 16 bytes a lane
// and hold 8 blocks an SM (64 registers), 1.25x the copy of the bytes at 4K; this one measured
// 1.07x (H200) at 4 rows a thread (8 rows 1.16x, 16 1.17x; neighbours by shuffles 1.17-1.34x).
#pragma once

#include <cstddef>

#include "common.cuh"
#include "stream_typed.hpp"

namespace convlive::kernels::typed {

inline constexpr int kStreamDirectThreads = 128;

struct DirectArgs {
  const char* in;
  char* out;
  std::size_t pitch, frameStride, outPitch, outFrameStride;
  int width, height, batch;
  Border border;
  bool copyFourth;
};

__device__ __forceinline__ float4 directFma(float w, float4 v, float4 acc) {
  return make_float4(fmaf(w, v.x, acc.x), fmaf(w, v.y, acc.y), fmaf(w, v.z, acc.z), fmaf(w, v.w, acc.w));
}

// The row factor's sum at frame row y (any y: the border's row, or zeros); centre: the input pixel.
__device__ __forceinline__ float4 directRowSum(const char* frame, std::size_t pitch, int height, Border border, int x,
                                               int xl, int xr, int y, float w0, float w1, float w2, float4& centre) {
  const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
  const int sy = borderIndex(y, height, border);
  if (sy < 0) {
    centre = zero;
    return zero;
  }
  const float4* in = reinterpret_cast<const float4*>(frame + std::size_t(sy) * pitch);
  const float4 l = xl < 0 ? zero : __ldg(in + xl), r = xr < 0 ? zero : __ldg(in + xr);
  centre = __ldg(in + x);
  return directFma(w2, r, directFma(w1, centre, make_float4(w0 * l.x, w0 * l.y, w0 * l.z, w0 * l.w)));
}

// T: float (a template so that only the file that launches it compiles it). Pixels, pitches and
// frame strides 16-byte aligned, the sum as it is (typedStreamDirect). Grid: x the frame's pixels, a thread each; y
// its groups of kStreamDirectRows rows (looped past the grid's); z its frames (likewise).
template <class T>
__global__ void __launch_bounds__(kStreamDirectThreads) streamDirectKernel(const DirectArgs a, const MaskSep m) {
  static_assert(sizeof(T) == 4, "f32 pixels of 4 channels: 16 bytes");
  constexpr int RB = kStreamDirectRows;
  const int x = blockIdx.x * kStreamDirectThreads + threadIdx.x;
  if (x >= a.width) return;
  const int xl = borderIndex(x - 1, a.width, a.border), xr = borderIndex(x + 1, a.width, a.border);
  const int groups = (a.height + RB - 1) / RB;
  const float w0 = m.row[0], w1 = m.row[1], w2 = m.row[2], c0 = m.col[0], c1 = m.col[1], c2 = m.col[2];
  for (int f = blockIdx.z; f < a.batch; f += gridDim.z) {
    const char* frame = a.in + a.frameStride * std::size_t(f);
    char* outFrame = a.out + a.outFrameStride * std::size_t(f);
    for (int g = blockIdx.y; g < groups; g += gridDim.y) {
      const int y0 = g * RB;
      float4 cAbove, cHere, cBelow;
      float4 above = directRowSum(frame, a.pitch, a.height, a.border, x, xl, xr, y0 - 1, w0, w1, w2, cAbove);
      float4 here = directRowSum(frame, a.pitch, a.height, a.border, x, xl, xr, y0, w0, w1, w2, cHere);
#pragma unroll
      for (int i = 0; i < RB; ++i) {
        const int y = y0 + i;
        const float4 below = directRowSum(frame, a.pitch, a.height, a.border, x, xl, xr, y + 1, w0, w1, w2, cBelow);
        float4 o = directFma(c2, below,
                             directFma(c1, here, make_float4(c0 * above.x, c0 * above.y, c0 * above.z, c0 * above.w)));
        if (a.copyFourth) o.w = cHere.w;
        if (y < a.height)
          *reinterpret_cast<float4*>(outFrame + std::size_t(y) * a.outPitch + std::size_t(x) * sizeof(float4)) = o;
        above = here;
        here = below;
        cHere = cBelow;
      }
    }
  }
}

// The launch: a block of kStreamDirectThreads threads a row's 128 pixels and a group's rows.
inline dim3 streamDirectGrid(const ImageDesc& d) {
  const unsigned groups = ceilDiv(d.height, kStreamDirectRows);
  return dim3(ceilDiv(d.width, kStreamDirectThreads), groups < 65535u ? groups : 65535u,
              d.batch < 65535 ? unsigned(d.batch) : 65535u);
}

template <class T>
void launchDirect(const TypedStreamLaunch& l, const MaskSep& m) {
  DirectArgs a;
  setFrameArgs(a, l);
  a.copyFourth = l.copyFourth;
  streamDirectKernel<T><<<streamDirectGrid(l.image), kStreamDirectThreads, 0, l.stream>>>(a, m);
  CL_CUDA_LAUNCHED("streamDirectKernel<<<>>>");
}

template <class T>
LaunchDescription describeDirect(const TypedStreamLaunch& l) {
  const ImageDesc& d = l.image;
  const dim3 g = streamDirectGrid(d);
  PassLaunch p;
  p.kernel = "streamDirectKernel<f32, 4, 1>";
  p.grid = dimsOf(g.x, g.y, g.z);
  p.block = dimsOf(kStreamDirectThreads);
  p.threadsPerBlock = kStreamDirectThreads;
  p.outputsPerThread = double(d.width) * d.height * d.batch / (double(g.x) * g.y * g.z * kStreamDirectThreads);
  // A block: 128 pixels of 4 rows made from 130 x 6 read, from a pixel left and a row up.
  setFootprint(p, kStreamDirectThreads, kStreamDirectRows, kStreamDirectThreads + 2, kStreamDirectRows + 2, -1, -1);
  p.staticShared = 0;
  p.kernelFunction = reinterpret_cast<const void*>(&streamDirectKernel<T>);
  p.note = "direct: a thread a pixel of " + std::to_string(kStreamDirectRows) +
           " rows, its neighbours through L1 (f32 frames of 4 channels at r = 1, aligned); the tile's rows unused";
  return LaunchDescription{{p}, ""};
}

}  // namespace convlive::kernels::typed
