// tensorstream: separable masks up to r = 32 on the tensor cores, with no shared memory at all.
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
//     first two are complete and are stored, the other two carry on (in general 2 + 2 B0 blocks,
//     B0 = ceil(r / 8), of which 2 B0 carry on).
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

// Four pixels of row y (already through the border mode: -1 reads zero) from x on; aligned: the
// frame's rows start on 16 bytes (the same for every lane).
__device__ __forceinline__ uint4 loadFour(const Launch& l, const uchar4* row, int x, bool aligned) {
  if (row == nullptr) return make_uint4(0, 0, 0, 0);
  if (x >= 0 && x + 4 <= l.width) {
    if (aligned) return __ldg(reinterpret_cast<const uint4*>(row + x));
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

// How a channel sum becomes its byte: saturated, |sum| saturated, or (kFree) as it is, for masks
// whose sums cannot leave [-0.5, 255.5) (non-negative factors: the host checks the bound).
enum Output : int { kClamp, kAbs, kFree };
// Rounds a channel sum to its byte, in the low byte of the result.
template <int Out>
__device__ __forceinline__ unsigned roundedByte(float v) {
  if constexpr (Out == kAbs) v = fminf(fabsf(v), 255.f);
  if constexpr (Out == kClamp) v = fminf(fmaxf(v, 0.f), 255.f);
  return __float_as_uint(v + 12582912.f);
}
// Element e of a block's C fragments, one per channel, as an RGBA8 pixel (alpha given unless filtered).
template <int NCH, int Out>
__device__ __forceinline__ unsigned packPixel(const float (&block)[NCH][4], int e, unsigned alpha) {
  const unsigned c0 = roundedByte<Out>(block[0][e]), c1 = roundedByte<Out>(block[1][e]);
  const unsigned c2 = roundedByte<Out>(block[2][e]);
  unsigned c3 = alpha;
  if constexpr (NCH == 4) c3 = roundedByte<Out>(block[3][e]);
  return __byte_perm(__byte_perm(c0, c1, 0x0040), __byte_perm(c2, c3, 0x0040), 0x5410);
}

// B0 = ceil(r / 8): r <= 8 takes two K chunks and four live output blocks, r <= 16 three and
// six, r <= 24 four and eight (215 registers a thread with three channels, no spills), r <= 32
// five and ten (255 registers; with four channels or a split intermediate ptxas spills 136-324
// bytes a thread to the stack: it measured 0.160 ms at 4K r=32, see docs/perf/NOTES.md).
template <int B0, int NCH, int Out, bool SplitH>
__global__ void __launch_bounds__(256)
    tensorStreamKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m, int segmentRows) {
#if __CUDA_ARCH__ >= 800
  constexpr int KC = B0 + 1, NB = 2 + 2 * B0;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int warps = blockDim.x >> 5;
  const int x0 = (blockIdx.x * warps + warp) * 16;
  if (x0 >= l.width) return;
  const int y0 = blockIdx.y * segmentRows;
  const int rows = min(segmentRows, l.height - y0);
  const int steps = (rows + 15) / 16;
  const int r = m.radius, apron = (r + 3) & ~3;  // r rounded up to 4: every load 16-byte aligned

  // The row factor's Toeplitz fragments for the K chunks: R[m][k] = row[x(k) - m + r], x(k) the
  // pixel of slot k relative to the first output pixel.
  unsigned ra[KC][4];
#pragma unroll
  for (int c = 0; c < KC; ++c) {
    auto w = [&](int mm, int k) {
      const int j = 16 * c + pixelOfSlot(k) - apron - mm + r;
      return j >= 0 && j <= 2 * r ? m.row[j] : 0.f;
    };
    ra[c][0] = halfPair(w(g, 2 * t), w(g, 2 * t + 1));
    ra[c][1] = halfPair(w(g + 8, 2 * t), w(g + 8, 2 * t + 1));
    ra[c][2] = halfPair(w(g, 2 * t + 8), w(g, 2 * t + 9));
    ra[c][3] = halfPair(w(g + 8, 2 * t + 8), w(g + 8, 2 * t + 9));
  }
  // The column factor's slices for the NB output blocks a chunk touches: block b starts
  // 8 (b - B0) rows below the chunk's first; C_b[k][n] = col[k - n - 8 (b - B0) + r].
  unsigned cb[NB][2];
#pragma unroll
  for (int b = 0; b < NB; ++b) {
    auto w = [&](int k, int n) {
      const int j = k - n - 8 * (b - B0) + r;
      return j >= 0 && j <= 2 * r ? m.col[j] : 0.f;
    };
    cb[b][0] = halfPair(w(2 * t, g), w(2 * t + 1, g));
    cb[b][1] = halfPair(w(2 * t + 8, g), w(2 * t + 9, g));
  }

  // acc[b]: the output block starting 8 (b - B0) rows below the current chunk's first row.
  float acc[NB][NCH][4];
#pragma unroll
  for (int b = 0; b < NB - 2; ++b)
#pragma unroll
    for (int ch = 0; ch < NCH; ++ch) acc[b][ch][0] = acc[b][ch][1] = acc[b][ch][2] = acc[b][ch][3] = 0.f;

  // Input rows of a step: chunk rows 8 nb + g; pixels x0 - apron + 16 c + 4 t .. + 3.
  const int xl = x0 - apron + 4 * t;
  const bool aligned = (reinterpret_cast<std::size_t>(l.in) | l.inPitch) % 16 == 0;
  auto load = [&](uint4(&v)[2][KC], int s) {
#pragma unroll
    for (int nb = 0; nb < 2; ++nb) {
      const uchar4* row = borderRow(l, s + 8 * nb + g);
#pragma unroll
      for (int c = 0; c < KC; ++c) v[nb][c] = loadFour(l, row, xl + 16 * c, aligned);
    }
  };
  // Step q reads rows s = y0 - 8 B0 + 16 q .. s + 15 and, from q = B0 on, stores rows
  // s - 8 B0 .. s - 8 B0 + 15 (blocks 0 and 1), so the first B0 steps only fill the window.
  const int lastStep = steps + B0 - 1;
  uint4 next[2][KC];
  load(next, y0 - 8 * B0);
  const bool fullWidth = x0 + 16 <= l.width;

#pragma unroll 1
  for (int q = 0; q <= lastStep; ++q) {
    const int s = y0 - 8 * B0 + 16 * q;  // the chunk's first input row
    const int out0 = s - 8 * B0;         // the first row this step stores
    uint4 in[2][KC];
#pragma unroll
    for (int nb = 0; nb < 2; ++nb)
#pragma unroll
      for (int c = 0; c < KC; ++c) in[nb][c] = next[nb][c];
    if (q < lastStep) load(next, s + 16);

    // This step stores blocks 0 and 1, rows out0 .. out0 + 15: lane (g, t) pixels x0 + g and
    // x0 + g + 8 of rows out0 + 8 b + 2 t + h, h = 0, 1 (C fragment element e = 2 (x >= x0 + 8) + h). The
    // input's alpha of those pixels is asked for now, so that its latency hides behind the
    // products; the kernel never writes its input, so these read-only loads need not wait for the
    // stores before them.
    const bool full = fullWidth && out0 + 16 <= y0 + rows;
    unsigned alpha[2][4] = {};
    if (NCH == 3 && q >= B0) {
#pragma unroll
      for (int b = 0; b < 2; ++b)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int y = out0 + 8 * b + 2 * t + h;
          const unsigned* row = reinterpret_cast<const unsigned*>(rowPtr(l.in, l.inPitch, y)) + x0 + g;
          if (full) {
            alpha[b][h] = __ldg(row) >> 24;
            alpha[b][2 + h] = __ldg(row + 8) >> 24;
          } else if (y < y0 + rows) {
            if (x0 + g < l.width) alpha[b][h] = __ldg(row) >> 24;
            if (x0 + g + 8 < l.width) alpha[b][2 + h] = __ldg(row + 8) >> 24;
          }
        }
    }

#pragma unroll
    for (int ch = 0; ch < NCH; ++ch) {
      // Row pass: H^T for rows s..s+7 (nb 0) and s+8..s+15 (nb 1) of this channel.
      float hs[2][4];
#pragma unroll
      for (int nb = 0; nb < 2; ++nb) {
        mma16816Zero(hs[nb], ra[0], bytesToHalf2(in[nb][0].x, in[nb][0].y, ch),
                     bytesToHalf2(in[nb][0].z, in[nb][0].w, ch));
#pragma unroll
        for (int c = 1; c < KC; ++c)
          mma16816(hs[nb], ra[c], bytesToHalf2(in[nb][c].x, in[nb][c].y, ch),
                   bytesToHalf2(in[nb][c].z, in[nb][c].w, ch));
      }
      // The C fragments as the column pass's A fragment: fp16, and where the error plan needs
      // it, a low fp16 part too.
      unsigned hi[4], lo[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float a = hs[i >> 1][2 * (i & 1)], b = hs[i >> 1][2 * (i & 1) + 1];
        hi[i] = halfPair(a, b);
        if constexpr (SplitH) {
          const float2 back = __half22float2(*reinterpret_cast<const __half2*>(&hi[i]));
          lo[i] = halfPair(a - back.x, b - back.y);
        }
      }
#pragma unroll
      for (int b = 0; b < NB; ++b) {
        if (b < NB - 2)
          mma16816(acc[b][ch], hi, cb[b][0], cb[b][1]);
        else
          mma16816Zero(acc[b][ch], hi, cb[b][0], cb[b][1]);  // the last two blocks start here
        if constexpr (SplitH) mma16816(acc[b][ch], lo, cb[b][0], cb[b][1]);
      }
    }

    if (q >= B0) {
#pragma unroll
      for (int b = 0; b < 2; ++b)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int y = out0 + 8 * b + 2 * t + h;
          unsigned* row = reinterpret_cast<unsigned*>(rowPtr(l.out, l.outPitch, y)) + x0 + g;
          const unsigned p0 = packPixel<NCH, Out>(acc[b], h, alpha[b][h]);
          const unsigned p1 = packPixel<NCH, Out>(acc[b], 2 + h, alpha[b][2 + h]);
          if (full) {
            row[0] = p0;
            row[8] = p1;
          } else if (y < y0 + rows) {
            if (x0 + g < l.width) row[0] = p0;
            if (x0 + g + 8 < l.width) row[8] = p1;
          }
        }
    }
#pragma unroll
    for (int ch = 0; ch < NCH; ++ch)
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int b = 0; b < NB - 2; ++b) acc[b][ch][i] = acc[b + 2][ch][i];
  }
#endif
}

dim3 tensorStreamGrid(const Launch& l) { return dim3(ceilDiv(l.width, l.tileW), ceilDiv(l.height, l.tileH)); }
int tensorStreamThreads(const Launch& l) { return 32 * (l.tileW / 16); }  // a warp per 16-pixel strip

template <int B0, int NCH, int Out, bool SplitH>
void launchTensorStream(const Launch& l, const MaskSep& m) {
  tensorStreamKernel<B0, NCH, Out, SplitH><<<tensorStreamGrid(l), tensorStreamThreads(l), 0, l.stream>>>(l, m, l.tileH);
  CL_CUDA_LAUNCHED("tensorStreamKernel<<<>>>");
}

// The compiled instance for a launch, handed to `f`: B0 from the radius, NCH from the alpha mode,
// Out from the combine rule and the byte-range bound, SplitH from the error plan.
template <int B0_, int NCH_, int Out_, bool SplitH_>
struct TensorStreamInstance {
  static constexpr int B0 = B0_, NCH = NCH_, Out = Out_;
  static constexpr bool splitH = SplitH_;
};
template <int NCH, int Out, bool SplitH, class F>
decltype(auto) tensorStreamB0(int radius, F&& f) {
  if (radius <= 8) return f(TensorStreamInstance<1, NCH, Out, SplitH>{});
  if (radius <= 16) return f(TensorStreamInstance<2, NCH, Out, SplitH>{});
  if (radius <= 24) return f(TensorStreamInstance<3, NCH, Out, SplitH>{});
  return f(TensorStreamInstance<4, NCH, Out, SplitH>{});
}
template <int NCH, int Out, class F>
decltype(auto) tensorStreamSplit(int radius, bool splitH, F&& f) {
  if (splitH) return tensorStreamB0<NCH, Out, true>(radius, f);
  return tensorStreamB0<NCH, Out, false>(radius, f);
}
template <int NCH, class F>
decltype(auto) tensorStreamOut(const Launch& l, int radius, bool splitH, bool sumsInRange, F&& f) {
  if (l.combine == Combine::Abs) return tensorStreamSplit<NCH, kAbs>(radius, splitH, f);
  if (sumsInRange) return tensorStreamSplit<NCH, kFree>(radius, splitH, f);
  return tensorStreamSplit<NCH, kClamp>(radius, splitH, f);
}
template <class F>
decltype(auto) tensorStreamInstance(const Launch& l, int radius, bool splitH, bool sumsInRange, F&& f) {
  if (l.tileW % 16 || l.tileW < 16 || l.tileW > 128 || l.tileH % 16 || l.tileH < 16) badTile("tensorstream", l);
  if (l.filterAlpha) return tensorStreamOut<4>(l, radius, splitH, sumsInRange, f);
  return tensorStreamOut<3>(l, radius, splitH, sumsInRange, f);
}

const char* outName(int out) { return out == kAbs ? "abs" : out == kFree ? "free" : "clamp"; }

}  // namespace

void tensorStream(const Launch& l, const MaskSep& m, bool splitIntermediate, bool sumsInByteRange) {
  tensorStreamInstance(l, m.radius, splitIntermediate, sumsInByteRange, [&](auto k) {
    using K = decltype(k);
    launchTensorStream<K::B0, K::NCH, K::Out, K::splitH>(l, m);
  });
}

LaunchDescription describeTensorStream(const Launch& l, int radius, bool splitIntermediate, bool sumsInByteRange) {
  return tensorStreamInstance(l, radius, splitIntermediate, sumsInByteRange, [&](auto k) {
    using K = decltype(k);
    const dim3 grid = tensorStreamGrid(l);
    PassLaunch p;
    p.kernel = "tensorStreamKernel<" + std::to_string(K::B0) + ", " + std::to_string(K::NCH) + ", " + outName(K::Out) +
               ", " + (K::splitH ? "fp16 high + low" : "fp16") + ">";
    p.grid = dimsOf(grid.x, grid.y);
    p.block = dimsOf(tensorStreamThreads(l));
    p.threadsPerBlock = tensorStreamThreads(l);
    p.outputsPerThread = double(l.tileW) * l.tileH / p.threadsPerBlock;
    // Each warp reads (B0 + 1) 16-pixel chunks from r rounded up to 4 left of its strip, and 8 B0
    // rows above and below its segment.
    const int apron = (radius + 3) & ~3;
    setFootprint(p, l.tileW, l.tileH, l.tileW - 16 + 16 * (K::B0 + 1), l.tileH + 16 * K::B0, -apron, -8 * K::B0);
    p.kernelFunction = reinterpret_cast<const void*>(&tensorStreamKernel<K::B0, K::NCH, K::Out, K::splitH>);
    return LaunchDescription{{p}, ""};
  });
}

// A warp walks down its 16-pixel strip of the tile's rows, 16 rows a step, B0 extra steps to fill
// the column window. A step loads 16 rows x 16 (B0 + 1) pixels (16-byte loads), and per channel
// makes 2 (B0 + 1) row products and 2 + 2 B0 column products (twice that when the intermediate is
// split), no shared memory.
WorkModel modelTensorStream(const Launch& l, int radius, bool splitIntermediate) {
  return tensorStreamInstance(l, radius, splitIntermediate, false, [&](auto k) {
    using K = decltype(k);
    constexpr int KC = K::B0 + 1, NB = 2 + 2 * K::B0, parts = K::splitH ? 2 : 1;
    const double steps = l.tileH / 16, perOutput = (steps + K::B0) / steps;  // steps made per step stored
    const double taps = 2 * radius + 1;
    WorkModel m;
    m.apron = KC * perOutput;
    m.globalReads = m.apron + (K::NCH == 3 ? 1 : 0);  // and the input's alpha, unless filtered
    m.globalBytes = 4 * m.globalReads;
    m.matrixFlops = perOutput * K::NCH * (2 * KC + NB * parts) * 2.0 * 16 * 8 * 16 / 256;
    m.matrixUseful = perOutput * 2 * K::NCH * taps + 2 * K::NCH * taps * parts;
    m.dramBytes = 8;
    m.notes.push_back("row and column products with Toeplitz bands " + std::to_string(16 * KC) + " deep, " +
                      std::to_string(int(taps)) + " weighted; " + std::to_string(K::NCH) + " channels");
    if (K::splitH) m.notes.push_back("the intermediate as fp16 high + low parts: two column products each");
    return m;
  });
}

}  // namespace convlive::kernels
