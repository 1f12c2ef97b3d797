// tensorstream: separable masks up to r = 8 on the tensor cores, with no shared memory at all.
//
// Each warp walks down a segment of a 16-pixel-wide column strip, 16 input rows a step. Both
// passes are Toeplitz products on mma.sync m16n8k16 (fp16 operands, fp32 sums), arranged so that
// the first one's result is already the second one's operand, in the same registers:
//   row pass, per channel and per 8 input rows:  H^T[16 x 8] = R[16 x 16] * In^T[16 x 8], two K
//     chunks (the 16 outputs' window of 16 + 2r <= 32 input pixels). R[m][k] is the row factor's
//     weight from input pixel k to output pixel m, held in registers for the whole launch. In^T's
//     fragments come straight from global memory: a lane loads 4 adjacent pixels (16 bytes) of
//     one row, all four channels; K is contracted, so the order of the pixels within a chunk is
//     free, and R's columns follow the order the loads give (perm below).
//   column pass: the row pass's C fragments of 16 rows (two n-blocks) are exactly an A fragment
//     of the next product (M = 16 pixels, K = 16 rows), split into fp16 high + low parts (the
//     intermediate kept to about 2^-22 relative, as in tensorsep):
//     Out^T[16 x 8] += H^T[16 x 16] * C_d[16 x 8], C_d the column factor's Toeplitz slice for an
//     8-row output block d rows below the chunk's first row. For r <= 8 a chunk touches exactly
//     the four output blocks starting 8 above, at, 8 and 16 below its first row; after a chunk the
//     first two are complete and are stored, the other two carry on.
// Numerics equal tensorsep's (fp16 factors, fp32 sums, fp16 high + low intermediate), so the same
// error plan (convlive/precision.hpp planHalfSeparable) decides which masks it takes.
#include <cuda_fp16.h>

#pragma nv_diag_suppress 177  // the sm_75 pass compiles no tensor-core code, so its helpers go unused

#include "common.cuh"
#include "mma.cuh"

namespace convlive::kernels {
namespace {

// Where pixel slot k (0..15) of a K chunk lies in the chunk: lane t's 16-byte load holds pixels
// 4t..4t+3, which the B fragment calls k = 2t, 2t+1 (first register) and 2t+8, 2t+9 (second).
__device__ __forceinline__ int pixelOfSlot(int k) { return 4 * ((k & 7) >> 1) + 2 * (k >> 3) + (k & 1); }

// Four pixels of row y (already through the border mode: -1 reads zero) from x on.
template <bool Aligned>
__device__ __forceinline__ uint4 loadFour(const Launch& l, const uchar4* row, int x) {
  if (row == nullptr) return make_uint4(0, 0, 0, 0);
  if (x >= 0 && x + 4 <= l.width) {
    if constexpr (Aligned) return __ldg(reinterpret_cast<const uint4*>(row + x));
    const unsigned* p = reinterpret_cast<const unsigned*>(row + x);
    return make_uint4(__ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3));
  }
  unsigned v[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int sx = borderIndex(x + j, l.width, l.border);
    v[j] = sx < 0 ? 0u : __ldg(reinterpret_cast<const unsigned*>(row + sx));
  }
  return make_uint4(v[0], v[1], v[2], v[3]);
}

__device__ __forceinline__ const uchar4* borderRow(const Launch& l, int y) {
  const int sy = borderIndex(y, l.height, l.border);
  return sy < 0 ? nullptr : rowPtr(l.in, l.inPitch, sy);
}

// Rounds a channel sum to its byte (saturated), in the low byte of the result.
__device__ __forceinline__ unsigned roundedByte(float v, bool absolute) {
  if (absolute) v = fabsf(v);
  return __float_as_uint(fminf(fmaxf(v, 0.f), 255.f) + 12582912.f);
}

template <int NCH, bool Aligned>
__global__ void __launch_bounds__(256)
    tensorStreamKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m, int segmentRows) {
#if __CUDA_ARCH__ >= 800
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int warps = blockDim.x >> 5;
  const int x0 = (blockIdx.x * warps + warp) * 16;
  if (x0 >= l.width) return;
  const int y0 = blockIdx.y * segmentRows;
  const int rows = min(segmentRows, l.height - y0);
  const int steps = (rows + 15) / 16;
  const int r = m.radius, apron = (r + 3) & ~3;  // r rounded up to 4: every load 16-byte aligned
  const bool absolute = l.combine == Combine::Abs;

  // The row factor's Toeplitz fragments for the two K chunks: R[m][k] = row[x(k) - m + r], x(k) the
  // pixel of slot k relative to the first output pixel.
  unsigned ra[2][4];
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    auto w = [&](int mm, int k) {
      const int j = 16 * c + pixelOfSlot(k) - apron - mm + r;
      return j >= 0 && j <= 2 * r ? m.row[j] : 0.f;
    };
    ra[c][0] = halfPair(w(g, 2 * t), w(g, 2 * t + 1));
    ra[c][1] = halfPair(w(g + 8, 2 * t), w(g + 8, 2 * t + 1));
    ra[c][2] = halfPair(w(g, 2 * t + 8), w(g, 2 * t + 9));
    ra[c][3] = halfPair(w(g + 8, 2 * t + 8), w(g + 8, 2 * t + 9));
  }
  // The column factor's slices for the four output blocks a chunk touches: block b starts
  // 8 (b - 1) rows below the chunk's first; C_b[k][n] = col[k - n - 8 (b - 1) + r].
  unsigned cb[4][2];
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    auto w = [&](int k, int n) {
      const int j = k - n - 8 * (b - 1) + r;
      return j >= 0 && j <= 2 * r ? m.col[j] : 0.f;
    };
    cb[b][0] = halfPair(w(2 * t, g), w(2 * t + 1, g));
    cb[b][1] = halfPair(w(2 * t + 8, g), w(2 * t + 9, g));
  }

  float acc[4][NCH][4];
#pragma unroll
  for (int b = 0; b < 4; ++b)
#pragma unroll
    for (int ch = 0; ch < NCH; ++ch) acc[b][ch][0] = acc[b][ch][1] = acc[b][ch][2] = acc[b][ch][3] = 0.f;

  // Input rows of a step: chunk rows 8 nb + g; pixels x0 - apron + 16 c + 4 t .. + 3.
  const int xl = x0 - apron + 4 * t;
  auto load = [&](uint4(&v)[2][2], int s) {
#pragma unroll
    for (int nb = 0; nb < 2; ++nb) {
      const uchar4* row = borderRow(l, s + 8 * nb + g);
#pragma unroll
      for (int c = 0; c < 2; ++c) v[nb][c] = loadFour<Aligned>(l, row, xl + 16 * c);
    }
  };
  uint4 next[2][2];
  load(next, y0 - 8);

  // Two steps per iteration: the blocks that carry on swap registers instead of moving.
#pragma unroll 1
  for (int q = 0; q <= steps; ++q) {
    const int s = y0 - 8 + 16 * q;  // the chunk's first input row
    uint4 in[2][2];
#pragma unroll
    for (int nb = 0; nb < 2; ++nb)
#pragma unroll
      for (int c = 0; c < 2; ++c) in[nb][c] = next[nb][c];
    if (q < steps) load(next, s + 16);
    // The input's alpha of the pixels this step stores (blocks 0 and 1, see below), asked for now
    // so that its latency hides behind the products; the kernel never writes its input, so these
    // read-only loads need not wait for the stores before them.
    unsigned alpha[2][4] = {};
    if (NCH == 3 && q > 0) {
#pragma unroll
      for (int b = 0; b < 2; ++b) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int x = x0 + g + 8 * (e >> 1), y = s - 8 + 8 * b + 2 * t + (e & 1);
          if (x < l.width && y < y0 + rows)
            alpha[b][e] = __ldg(reinterpret_cast<const unsigned*>(rowPtr(l.in, l.inPitch, y)) + x) >> 24;
        }
      }
    }

#pragma unroll
    for (int ch = 0; ch < NCH; ++ch) {
      // Row pass: H^T for rows s..s+7 (nb 0) and s+8..s+15 (nb 1) of this channel.
      float h[2][4];
#pragma unroll
      for (int nb = 0; nb < 2; ++nb) {
        h[nb][0] = h[nb][1] = h[nb][2] = h[nb][3] = 0.f;
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const uint4 p = in[nb][c];
          mma16816(h[nb], ra[c], bytesToHalf2(p.x, p.y, ch), bytesToHalf2(p.z, p.w, ch));
        }
      }
      // The C fragments as the column pass's A fragment, high and low fp16 parts.
      unsigned hi[4], lo[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float a = h[i >> 1][2 * (i & 1)], b = h[i >> 1][2 * (i & 1) + 1];
        hi[i] = halfPair(a, b);
        const float2 back = __half22float2(*reinterpret_cast<const __half2*>(&hi[i]));
        lo[i] = halfPair(a - back.x, b - back.y);
      }
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        mma16816(acc[b][ch], hi, cb[b][0], cb[b][1]);
        mma16816(acc[b][ch], lo, cb[b][0], cb[b][1]);
      }
    }

    // Blocks 0 and 1 (rows s - 8 .. s + 7) are complete. Lane (g, t) holds, per channel, pixels
    // x0 + g and x0 + g + 8 of the block's rows 2t and 2t + 1.
    if (q > 0) {
#pragma unroll
      for (int b = 0; b < 2; ++b)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int x = x0 + g + 8 * (e >> 1), y = s - 8 + 8 * b + 2 * t + (e & 1);
          if (x >= l.width || y >= y0 + rows) continue;
          const unsigned c0 = roundedByte(acc[b][0][e], absolute), c1 = roundedByte(acc[b][1][e], absolute);
          const unsigned c2 = roundedByte(acc[b][2][e], absolute);
          unsigned c3 = alpha[b][e];
          if constexpr (NCH == 4) c3 = roundedByte(acc[b][3][e], absolute);
          const unsigned px = __byte_perm(__byte_perm(c0, c1, 0x0040), __byte_perm(c2, c3, 0x0040), 0x5410);
          reinterpret_cast<unsigned*>(rowPtr(l.out, l.outPitch, y))[x] = px;
        }
    }
#pragma unroll
    for (int ch = 0; ch < NCH; ++ch)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        acc[0][ch][i] = acc[2][ch][i];
        acc[1][ch][i] = acc[3][ch][i];
        acc[2][ch][i] = acc[3][ch][i] = 0.f;
      }
  }
#endif
}

template <int NCH, bool Aligned>
void launchTensorStream(const Launch& l, const MaskSep& m) {
  const int warps = l.tileW / 16;
  const dim3 grid(ceilDiv(l.width, l.tileW), ceilDiv(l.height, l.tileH));
  tensorStreamKernel<NCH, Aligned><<<grid, 32 * warps, 0, l.stream>>>(l, m, l.tileH);
  CL_CUDA_LAUNCHED("tensorStreamKernel<<<>>>");
}

}  // namespace

void tensorStream(const Launch& l, const MaskSep& m) {
  if (l.tileW % 16 || l.tileW < 16 || l.tileW > 128 || l.tileH % 16 || l.tileH < 16) badTile("tensorstream", l);
  const bool aligned = (reinterpret_cast<std::size_t>(l.in) | l.inPitch) % 16 == 0;
  if (l.filterAlpha) return aligned ? launchTensorStream<4, true>(l, m) : launchTensorStream<4, false>(l, m);
  return aligned ? launchTensorStream<3, true>(l, m) : launchTensorStream<3, false>(l, m);
}

}  // namespace convlive::kernels
