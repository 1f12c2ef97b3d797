// stream: separable masks of radius 0..4 at close to the memory floor.
//
// Each warp walks down a segment of SH output rows of a strip of the frame (SH: the tile's height
// or more, so that the frame makes one wave of segments), one input row at a time, with no
// block-wide barrier anywhere:
//   - rows arrive through a ring of kRing slots in shared memory (cp.async, several rows in flight
//     per warp; each lane reads back only what it copied itself);
//   - the row factor runs first, on the packed bytes: a lane holds N adjacent pixels, takes the
//     R pixels on either side from its neighbour lanes by warp shuffles (one 32-bit word a pixel),
//     unpacks them once and sums the taps;
//   - the column factor runs in registers: 2R+1 pending output rows, each input row added to
//     every output row whose window covers it, the oldest finished and stored per step.
// A warp covers 32*N input pixels and writes the (32 - 2L)*N in the middle (L apron lanes a side).
// The sums are fp32, or where the mask's error bound allows it (convlive/precision.hpp,
// planHalfSums), fp16 pairs: two channels an instruction, half the registers for the pending rows.
// With alpha kept, the fp16 pairs are a pixel's (R, G) and two pixels' blue, so that nothing sums
// an alpha, and a lane takes its neighbours' pixels already converted (4K r=2 6%, r=4 18% faster).
// 3x3 and 5x5 masks of any rank (streamAnyRank): the row factor becomes the mask's 2R + 1 rows,
// each input row unpacked once and summed with each, every mask row's sums added to the output row
// it is that row of; fp32 sums; a mask mirror-symmetric across both axes sums the window's pixels
// in pairs x[d] + x[-d] first and makes R + 1 row sums, one for mask rows t and 2R - t. The
// gradient magnitude of a separable 3x3 or 5x5 mask whose factors are one antisymmetric and one
// symmetric (sobel, scharr: streamMagnitude): from one row window both row factors, each from the
// pairs of taps its symmetry joins (x[t] - x[-t] or x[t] + x[-t]), the factors over their outer
// weight (so that it needs no product); the last 2R + 1 row sums of each in registers, the column
// factors likewise over pairs of rows; |outer weights| x sqrt(gx^2 + gy^2) at the store; fp32, or
// at 5x5 where the factors' ratios to their outer weights are integers (sobel), integers: each
// channel byte a 16-bit half, two channel values an instruction, exact (MaskGradInt). Masks of any
// rank whose weights are integers over one divisor (emboss; not mirror-symmetric ones) likewise
// (MaskFullInt).
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "async.cuh"
#include "common.cuh"
#include "convlive/resources.hpp"
#include "half_sums.cuh"
#include "schedules.hpp"
#include "stream_any_rank.hpp"

namespace convlive::kernels {
namespace {

constexpr int kStreamWarps = 4;  // warps per block; each has its own segment and ring
constexpr int kRing = 8;         // ring slots (input rows in flight) per warp

template <int R, bool Half, bool Full = false, bool Mag = false>
struct StreamShape {
  // Pixels per lane: 16- or 8-byte loads and stores (fp16 sums hold 4 pixels' pending rows at r=4
  // in the registers fp32 needs for 2). 5x5 masks of any rank and 5x5 magnitudes take 2: 4 held
  // 168-205 registers for the first (3 blocks an SM, or 4 at 128), 7% slower at 4K.
  static constexpr int N = Full || Mag ? (R == 1 ? 4 : 2) : R <= 2 || Half ? 4 : 2;
  static constexpr int L = (R + N - 1) / N;      // apron lanes on each side
  static constexpr int OutW = (32 - 2 * L) * N;  // output pixels per warp row
  static constexpr int T = 2 * R + 1;            // taps
};

// The alpha bytes of N packed pixels, pixel j in byte j.
template <int N>
__device__ __forceinline__ unsigned alphaBytes(const unsigned (&w)[N]) {
  if constexpr (N == 4)
    return __byte_perm(__byte_perm(w[0], w[1], 0x0073), __byte_perm(w[2], w[3], 0x0073), 0x5410);
  else
    return __byte_perm(w[0], w[1], 0x0073);
}

// The low bytes of four rounded channel values (see toByte) as one RGBA8 word.
__device__ __forceinline__ unsigned packBytes(unsigned x, unsigned y, unsigned z, unsigned w) {
  return __byte_perm(__byte_perm(x, y, 0x0040), __byte_perm(z, w, 0x0040), 0x5410);
}
// The last column tap of an output channel, clamped to [0, 1] by the FMA itself (FFMA.SAT): the
// column factor arrives scaled by 1/255 (scaledSeparable), so [0, 1] is the byte range 0..255.
template <bool Absolute>
__device__ __forceinline__ float lastTap(float w, float h, float acc) {
  if constexpr (Absolute) return __saturatef(fabsf(fmaf(w, h, acc)));
  return __saturatef(fmaf(w, h, acc));
}
// A value in [0, 1] times 255, rounded to the nearest integer in the low bits (one FFMA: adding
// 1.5 * 2^23 leaves the rounded value in the low mantissa bits; ties to even, as rintf).
__device__ __forceinline__ unsigned roundedBits(float s) { return __float_as_uint(fmaf(s, 255.f, 12582912.f)); }
__device__ __forceinline__ float4 mul4(float w, float4 v) { return make_float4(w * v.x, w * v.y, w * v.z, w * v.w); }
__device__ __forceinline__ float4 add4(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ __forceinline__ float4 sub4(float4 a, float4 b) {
  return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
}
// Pixel j's four channel sums into fp32 Rows (F32Sums' layout: channel c of pixel j at 4j + c).
template <class Rows>
__device__ __forceinline__ void setPixelSums(Rows& h, int j, float4 s) {
  h.v[4 * j] = s.x, h.v[4 * j + 1] = s.y, h.v[4 * j + 2] = s.z, h.v[4 * j + 3] = s.w;
}

// Pixels -R .. N-1+R around a lane's N (its words w), e[0] being pixel -R: the others from the
// lanes beside it by warp shuffles (one 32-bit word a pixel).
template <int R, int N>
__device__ __forceinline__ void laneWindow(const unsigned (&w)[N], unsigned (&e)[N + 2 * R]) {
#pragma unroll
  for (int j = 0; j < N; ++j) e[R + j] = w[j];
#pragma unroll
  for (int q = 1; q <= R; ++q) {
    const int dl = (q + N - 1) / N, dr = (q - 1) / N + 1;
    e[R - q] = __shfl_up_sync(0xffffffffu, w[N * dl - q], dl);
    e[R + N - 1 + q] = __shfl_down_sync(0xffffffffu, w[(q - 1) % N], dr);
  }
}

// The sums of a lane's N pixels as one number format holds them: K sums of type E (a channel, or
// a pair of channels, each), with the elementwise steps the column factor takes on all of them.
template <class E, int K>
struct LaneSums {
  E v[K];
};

// The sums' arithmetic, one struct per number format and layout, used the same way by the kernel:
// a weight (W, as scaledSeparable put it in the mask's floats), the row factor over a lane's pixels
// (rowSums: unpacked bytes to row sums), the column taps on every sum (mul, fma), the last column
// tap (the sum in [0, 1]) and the lane's RGBA8 words (pack).
template <class Policy, class Rows>
__device__ __forceinline__ void fmaRows(Rows& acc, typename Policy::W w, const Rows& h) {
#pragma unroll
  for (int i = 0; i < int(sizeof h.v / sizeof h.v[0]); ++i) acc.v[i] = Policy::fmaE(w, h.v[i], acc.v[i]);
}
template <class Policy, class Rows>
__device__ __forceinline__ Rows mulRows(typename Policy::W w, const Rows& h) {
  Rows r;
#pragma unroll
  for (int i = 0; i < int(sizeof h.v / sizeof h.v[0]); ++i) r.v[i] = Policy::mulE(w, h.v[i]);
  return r;
}
template <class Policy, bool Absolute, class Rows>
__device__ __forceinline__ Rows lastRows(typename Policy::W w, const Rows& h, const Rows& acc,
                                         typename Policy::W offset) {
  Rows r;
#pragma unroll
  for (int i = 0; i < int(sizeof h.v / sizeof h.v[0]); ++i)
    r.v[i] = Policy::template lastE<Absolute>(w, h.v[i], acc.v[i], offset);
  return r;
}
template <class Rows>
__device__ __forceinline__ Rows zeroRows() {
  Rows r;
#pragma unroll
  for (int i = 0; i < int(sizeof r.v / sizeof r.v[0]); ++i) std::memset(&r.v[i], 0, sizeof r.v[i]);
  return r;
}

// fp32: a channel a sum, pixel j's four at 4j .. 4j + 3 (alpha's is dead code unless filtered); the
// column factor arrives over 255, so the last FMA clamps to [0, 1] itself (FFMA.SAT).
template <int N>
struct F32Sums {
  using E = float;
  using W = float;
  using Rows = LaneSums<float, 4 * N>;
  __device__ static W weight(float w) { return w; }
  __device__ static E mulE(W w, E v) { return w * v; }
  __device__ static E fmaE(W w, E v, E acc) { return fmaf(w, v, acc); }
  template <bool Absolute>
  __device__ static E lastE(W w, E h, E acc, W) {
    return lastTap<Absolute>(w, h, acc);
  }
  // The lane's pixels with R on either side (its words and its neighbours'), unpacked.
  template <int R>
  struct Window {
    float4 px[N + 2 * R];
  };
  template <int R>
  __device__ static Window<R> window(const unsigned (&w)[N]) {
    unsigned e[N + 2 * R];
    laneWindow<R>(w, e);
    Window<R> x;
#pragma unroll
    for (int j = 0; j < N + 2 * R; ++j) x.px[j] = unpackPixel(e[j]);
    return x;
  }
  // Row sums of the lane's pixels with the 2R + 1 weights of `row`.
  template <int R>
  __device__ static Rows sums(const Window<R>& x, const float* row) {
    Rows h;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      float4 s = mul4(row[0], x.px[j]);
#pragma unroll
      for (int t = 1; t <= 2 * R; ++t) fma4(s, row[t], x.px[j + t]);
      setPixelSums(h, j, s);
    }
    return h;
  }
  template <int R>
  __device__ static Rows rowSums(const unsigned (&w)[N], const float* row) {
    return sums<R>(window<R>(w), row);
  }
  // A mirror-symmetric mask's rows (row[R + d] = row[R - d]): the window's pairs x[d] + x[-d] once
  // an input row, each mask row then R + 1 products.
  template <int R>
  struct Pairs {
    float4 c[N], p[N][R > 0 ? R : 1];  // pixel j, and its pixels d + 1 either side summed
  };
  template <int R>
  __device__ static Pairs<R> pairs(const Window<R>& x) {
    Pairs<R> q;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      q.c[j] = x.px[j + R];
#pragma unroll
      for (int d = 1; d <= R; ++d) q.p[j][d - 1] = add4(x.px[j + R + d], x.px[j + R - d]);
    }
    return q;
  }
  template <int R>
  __device__ static Rows symSums(const Pairs<R>& q, const float* row) {
    Rows h;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      float4 s = mul4(row[R], q.c[j]);
#pragma unroll
      for (int d = 1; d <= R; ++d) fma4(s, row[R + d], q.p[j][d - 1]);
      setPixelSums(h, j, s);
    }
    return h;
  }
  // Pixel j's word: alpha from byte j of the input's alpha bytes unless filtered.
  template <bool FilterAlpha>
  __device__ static void pack(const Rows& fin, unsigned alpha, unsigned (&o)[N]) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const unsigned x = roundedBits(fin.v[4 * j]), y = roundedBits(fin.v[4 * j + 1]);
      const unsigned z = roundedBits(fin.v[4 * j + 2]);
      if constexpr (FilterAlpha)
        o[j] = packBytes(x, y, z, roundedBits(fin.v[4 * j + 3]));
      else
        o[j] = __byte_perm(__byte_perm(x, y, 0x0040), __byte_perm(z, alpha, 0x0040 + 0x10 * j), 0x5410);
    }
  }
};

// fp16 pairs (half_sums.cuh): two channels an instruction, the last tap adding back the
// centring's offset and saturating to [0, 1]. planHalfSums bounds the error of exactly these steps,
// whichever two channels share an instruction.
struct F16Steps {
  using E = __half2;
  using W = __half2;
  __device__ static W weight(float bits) { return asHalf2(__float_as_uint(bits)); }
  __device__ static E mulE(W w, E v) { return __hmul2(w, v); }
  __device__ static E fmaE(W w, E v, E acc) { return __hfma2(w, v, acc); }
  template <bool Absolute>
  __device__ static E lastE(W w, E h, E acc, W offset) {
    const __half2 x = __hfma2(w, h, acc);
    if constexpr (Absolute)
      return __hadd2_sat(__habs2(__hadd2(x, offset)), asHalf2(0u));
    else
      return __hadd2_sat(x, offset);
  }
};

// fp16, a pixel's (R, G) and (B, A) at 2j and 2j + 1: the layout for masks that filter alpha.
template <int N>
struct F16Sums : F16Steps {
  using Rows = LaneSums<__half2, 2 * N>;
  template <int R>
  __device__ static Rows rowSums(const unsigned (&w)[N], const float* row) {
    unsigned e[N + 2 * R];
    laneWindow<R>(w, e);
    __half2 rg[N + 2 * R], ba[N + 2 * R];
#pragma unroll
    for (int j = 0; j < N + 2 * R; ++j) {
      rg[j] = centred(__byte_perm(e[j], 0x64646464u, 0x4140));
      ba[j] = centred(__byte_perm(e[j], 0x64646464u, 0x4342));
    }
    Rows h;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      h.v[2 * j] = __hmul2(weight(row[0]), rg[j]);
      h.v[2 * j + 1] = __hmul2(weight(row[0]), ba[j]);
#pragma unroll
      for (int t = 1; t <= 2 * R; ++t) {
        h.v[2 * j] = __hfma2(weight(row[t]), rg[j + t], h.v[2 * j]);
        h.v[2 * j + 1] = __hfma2(weight(row[t]), ba[j + t], h.v[2 * j + 1]);
      }
    }
    return h;
  }
  // Only masks that filter alpha take this layout (F16KeptAlphaSums has the others).
  template <bool FilterAlpha>
  __device__ static void pack(const Rows& fin, unsigned, unsigned (&o)[N]) {
    static_assert(FilterAlpha, "with alpha kept, F16KeptAlphaSums sums no alpha");
#pragma unroll
    for (int j = 0; j < N; ++j) o[j] = __byte_perm(byteHalves(fin.v[2 * j]), byteHalves(fin.v[2 * j + 1]), 0x6420);
  }
};

// fp16 with alpha kept: pixel j's (R, G) at j, and the blue channels of pixels 2q and 2q + 1 as one
// pair at N + q, so that no instruction sums an alpha that is not written (three quarters of the
// per-pixel layout's sums). A lane converts only its own pixels; its neighbours' come converted,
// by shuffles of the (R, G) and blue pairs (the apron's bytes are not unpacked twice). A blue pair
// starting at an odd pixel, which the odd taps need, is the high half of one pair and the low
// half of the next (one PRMT).
template <int N>
struct F16KeptAlphaSums : F16Steps {
  static_assert(N % 2 == 0, "blue pairs need an even number of pixels a lane");
  using Rows = LaneSums<__half2, N + N / 2>;
  template <int R>
  __device__ static Rows rowSums(const unsigned (&w)[N], const float* row) {
    constexpr int A = 2 * ((R + 1) / 2);  // the apron a side in whole pairs
    constexpr int P = N + 2 * A;          // pixels -A .. N-1+A: index p is pixel p - A
    unsigned rg[P], blue[P - 1];          // blue[p]: pixels p - A and p - A + 1
#pragma unroll
    for (int j = 0; j < N; ++j) rg[A + j] = bitsOf(centred(__byte_perm(w[j], 0x64646464u, 0x4140)));
#pragma unroll
    for (int j = 0; j < N; j += 2)
      blue[A + j] = bitsOf(centred((__byte_perm(w[j], w[j + 1], 0x6622) & 0x00FF00FFu) | 0x64006400u));
#pragma unroll
    for (int q = 1; q <= R; ++q) {  // pixel -q from lane - dl's N dl - q, pixel N-1+q from lane + dr's (q-1) % N
      const int dl = (q + N - 1) / N, dr = (q - 1) / N + 1;
      rg[A - q] = __shfl_up_sync(0xffffffffu, rg[A + N * dl - q], dl);
      rg[A + N - 1 + q] = __shfl_down_sync(0xffffffffu, rg[A + (q - 1) % N], dr);
    }
#pragma unroll
    for (int q = 2; q <= A; q += 2) {  // the pairs from pixel -q and from pixel N + q - 2
      const int dl = (q + N - 1) / N, dr = (q - 2) / N + 1;
      blue[A - q] = __shfl_up_sync(0xffffffffu, blue[A + N * dl - q], dl);
      blue[A + N + q - 2] = __shfl_down_sync(0xffffffffu, blue[A + (q - 2) % N], dr);
    }
#pragma unroll
    for (int p = A - R; p <= A + N - 2 + R; ++p)
      if ((p - A) % 2 != 0) blue[p] = __byte_perm(blue[p - 1], blue[p + 1], 0x5432);
    Rows h;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      h.v[j] = __hmul2(weight(row[0]), asHalf2(rg[A - R + j]));
#pragma unroll
      for (int t = 1; t <= 2 * R; ++t) h.v[j] = __hfma2(weight(row[t]), asHalf2(rg[A - R + j + t]), h.v[j]);
    }
#pragma unroll
    for (int q = 0; q < N / 2; ++q) {
      h.v[N + q] = __hmul2(weight(row[0]), asHalf2(blue[A - R + 2 * q]));
#pragma unroll
      for (int t = 1; t <= 2 * R; ++t)
        h.v[N + q] = __hfma2(weight(row[t]), asHalf2(blue[A - R + 2 * q + t]), h.v[N + q]);
    }
    return h;
  }
  template <bool FilterAlpha>
  __device__ static void pack(const Rows& fin, unsigned alpha, unsigned (&o)[N]) {
    static_assert(!FilterAlpha, "this layout sums no alpha");
#pragma unroll
    for (int q = 0; q < N / 2; ++q) {
      // Blue and alpha of pixels 2q and 2q + 1 as bytes B A B A, then each pixel's R G from its own.
      const unsigned ba =
          __byte_perm(byteHalves(fin.v[N + q]), alpha, 0x0200 + (4 + 2 * q) * 0x10 + (5 + 2 * q) * 0x1000);
      o[2 * q] = __byte_perm(byteHalves(fin.v[2 * q]), ba, 0x5420);
      o[2 * q + 1] = __byte_perm(byteHalves(fin.v[2 * q + 1]), ba, 0x7620);
    }
  }
};

// Off the hot path (kept out of line so that the unrolled steps stay small in the instruction
// cache): rows outside the frame, and lanes whose pixels are not all inside it (the edge strips'
// apron lanes) or frames that are not aligned, copy through the border mode, pixel by pixel with
// 4-byte cp.async where needed. Asynchronous like the fast path: a synchronous load here made the
// edge strips' warps wait out the memory latency on every row, and the whole kernel with them.
// This copies input row y (any row; zeros for Zero outside the frame) for one lane's N pixels from x.
template <int N>
__device__ __noinline__ void copyBorderedRow(const uchar4* in, std::size_t pitch, int width, int height, Border border,
                                             bool fast, unsigned* dst, int x, int y) {
  const int sy = borderIndex(y, height, border);
  if (sy < 0) {
#pragma unroll
    for (int j = 0; j < N; ++j) dst[j] = 0;
    return;
  }
  const uchar4* row = rowPtr(in, pitch, sy);
  if (fast) return copyAsync<4 * N>(dst, row + x);
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const int sx = borderIndex(x + j, width, border);
    if (sx < 0)
      dst[j] = 0;
    else
      copyAsync<4>(&dst[j], row + sx);
  }
}

// Persistent warps: work unit u is a strip's segment (neighbouring warps take neighbouring strips,
// which share apron rows in L2); the grid is as large as the GPU holds at once, so no partial last
// wave.
// Alpha: with FilterAlpha false the output takes the input's alpha, and the alpha channel's
// conversions and sums are never computed (dead code once its result is not packed).
// Blocks an SM holds at least (the register cap, chosen with -Xptxas -v so that nothing spills):
// fp32: r=1 80 registers (6 blocks; 96 without a cap) or 96 with alpha; r=2..4 at most 128 (up to
// 142). fp16 (4 pixels a lane at every radius): r <= 1 at most 64 (8 blocks); r=2 with alpha kept
// at most 80 (6 blocks: 82 without a cap; 3% faster at 4K than 5 blocks), with
// alpha filtered at most 96 (5 blocks); r=3 and 4 at most 128, none spilling (ptxas -v, sm_90).
// The 3x3 gradient magnitude (Mag, fp32): uncapped, 128 registers (4 blocks) with alpha kept, 157
// (3) filtered; at 2 pixels a lane (86-96 registers, 5 blocks) it ran 1.12x slower at 4K. The 5x5
// (2 pixels a lane): uncapped, 114 registers (4 blocks) with alpha kept, 128 (3) filtered; capped
// for 5 blocks it ran 1.05x slower at 4K, 1.13x at 1080p. Its integer instances (Int): 88 and 93 (5).
// Masks of any rank (Full, fp32 sums): 3x3 at most 102 registers (5 blocks) with alpha kept, 128 (4)
// filtered; 5x5 (2 pixels a lane) at most 96 (5 blocks; uncapped 114-128, and 6 or 7 blocks at 80 or
// 72 ran 2% and 10% slower at 4K: fewer registers, more instructions).
template <int R, bool FilterAlpha, bool Half, bool Full = false, bool Mag = false>
constexpr int kStreamMinBlocks = Mag      ? 1
                                 : Full   ? (R == 2        ? 5
                                             : FilterAlpha ? 4
                                                           : 5)
                                 : Half   ? (R <= 1   ? 8
                                             : R == 2 ? (FilterAlpha ? 5 : 6)
                                                      : 4)
                                 : R == 1 ? (FilterAlpha ? 5 : 6)
                                 : R >= 2 ? 4
                                          : 1;

// A (2R + 1)^2 mask's weights, row-major, each divided by 255 (scaledFull), by value.
template <int R>
struct MaskFull {
  float w[(2 * R + 1) * (2 * R + 1)];
};
// A mask of any rank whose weights are integers over one divisor n (emboss: (dx + dy) / r and its
// centre 1, over r; custom integer masks: streamAnyRankIntegerWeights), summed in integers: w its
// weights times n, row-major (two's complement in unsigned words); bias B in each 16-bit half (255 x
// their absolute sum), the sums + B in 0 .. 2B < 65536; offset 2^23 + B; scale 1 / (255 n).
template <int R>
struct MaskFullInt {
  unsigned w[(2 * R + 1) * (2 * R + 1)], bias;
  float offset, scale;
};
// A gradient magnitude's factors (streamMagnitudeFactorsFit): d the antisymmetric one, s the symmetric,
// each over its outer weight: d[t] = d(t) / d(R) for t = 1 .. R - 1 (d(0) = 0, d(R) = 1 takes no
// product), s[t] = s(t) / s(R) for t = 0 .. R - 1; scale = |d(R) s(R)| / 255. gx = s (x) d (the
// column factor s, the row factor d) and gy = d (x) s: the magnitude is the same whichever of the
// mask's factors is which.
template <int R>
struct MaskGrad {
  float d[R + 1], s[R + 1], scale;
};
// A gradient magnitude whose factors' ratios to their outer weights are integers (sobel 5x5: 2; 4
// and 6: streamMagnitudeIntegerFactors), summed in integers: d[t] (t = 1 .. R - 1) and s[t] (t = 0
// .. R - 1) those integers (two's complement in unsigned words), the outer pair's 1 (no product), as
// MaskGrad's; bias B in each 16-bit half, |gx|, |gy| <= B (255 x the d's absolute sum x the s's), so
// that gx + B and gy + B lie in 0 .. 2B < 65536; offset 2^23 + B (a half's value from the bits
// 2^23 + h takes it away); scale MaskGrad's.
template <int R>
struct MaskGradInt {
  unsigned d[R + 1], s[R + 1], bias;
  float offset, scale;
};
template <int R, bool Full, bool Mag = false, bool Int = false>
using StreamMask =
    std::conditional_t<Mag, std::conditional_t<Int, MaskGradInt<R>, MaskGrad<R>>,
                       std::conditional_t<Full, std::conditional_t<Int, MaskFullInt<R>, MaskFull<R>>, MaskSep>>;

// Integer sums (Int instances): each channel byte a 16-bit half, two channel values a word. Word e's
// values at offsets -R .. R of a lane's window in ww[e][0 .. 2R]: with alpha kept a pixel's (R, G)
// (e < N) and the blue of pixels 2q and 2q + 1 (e = N + q), so that no half sums an alpha; filtered,
// a pixel's (R, G) and (B, A) (e = 2j, 2j + 1). The products wrap modulo 2^32 like the integers they
// stand for, so each half is exact once its sum lies in 0 .. 65535 (a bias keeps it there), whatever
// the halves held on the way.
template <int N, bool FilterAlpha>
constexpr int kIntWords = FilterAlpha ? 2 * N : N + N / 2;
template <int R, int N, bool FilterAlpha>
__device__ __forceinline__ void intWindow(const unsigned (&w)[N],
                                          unsigned (&ww)[kIntWords<N, FilterAlpha>][2 * R + 1]) {
  unsigned win[N + 2 * R];
  laneWindow<R>(w, win);
#pragma unroll
  for (int o = 0; o <= 2 * R; ++o) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
      if constexpr (FilterAlpha) {
        ww[2 * j][o] = __byte_perm(win[j + o], 0u, 0x4140);
        ww[2 * j + 1][o] = __byte_perm(win[j + o], 0u, 0x4342);
      } else {
        ww[j][o] = __byte_perm(win[j + o], 0u, 0x4140);
      }
    }
    if constexpr (!FilterAlpha)
#pragma unroll
      for (int q = 0; q < N / 2; ++q)
        ww[N + q][o] = __byte_perm(win[2 * q + o], win[2 * q + 1 + o], 0x7632) & 0x00FF00FFu;
  }
}
// Where half h of word e goes among F32Sums' rows (channel c of pixel j at 4j + c).
template <int N, bool FilterAlpha>
__device__ __forceinline__ constexpr int intChannel(int e, int h) {
  return FilterAlpha ? 2 * e + h : e < N ? 4 * e + h : 4 * (2 * (e - N) + h) + 2;
}
// Half h of v as a float: 2^23 + the half from its bits, less offset (2^23 + the sums' bias).
__device__ __forceinline__ float intHalf(unsigned v, int h, float offset) {
  return __uint_as_float(__byte_perm(v, 0x4B000000u, h ? 0x7432u : 0x7410u)) - offset;
}

__device__ __forceinline__ float sqrtApprox(float x) {
  float r;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// A gradient magnitude's two row sums of a lane's N pixels from one window (x.px[j + R] is pixel
// j): hd with the antisymmetric factor d from the differences x[t] - x[-t], hs with the symmetric s
// from the sums x[t] + x[-t] and the centre; the outer pair's weight is 1 (MaskGrad). 4R - 1
// instructions a channel value for both, where their 2 (2R + 1) taps took 4R + 2.
template <int R, int N, class Window, class Rows>
__device__ __forceinline__ void gradRowSums(const Window& x, const MaskGrad<R>& m, Rows& hd, Rows& hs) {
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const float4 lo = x.px[j], hi = x.px[j + 2 * R];
    float4 d = sub4(hi, lo), s = add4(hi, lo);
#pragma unroll
    for (int t = R - 1; t >= 1; --t) {
      fma4(d, m.d[t], sub4(x.px[j + R + t], x.px[j + R - t]));
      fma4(s, m.s[t], add4(x.px[j + R + t], x.px[j + R - t]));
    }
    fma4(s, m.s[0], x.px[j + R]);
    setPixelSums(hd, j, d);
    setPixelSums(hs, j, s);
  }
}

// Batch: the block's frame of the batch is grid z's (its units that frame's); a byte offset from l's
// pointers (written out where they are used: a function of l, or l's pointers held from the kernel's
// start, changed the single-frame instances' code).
#define CL_STREAM_FRAME(P, STRIDE) \
  (Batch ? reinterpret_cast<decltype(P)>(reinterpret_cast<std::uintptr_t>(P) + (STRIDE)*blockIdx.z) : (P))

template <int R, bool Absolute, bool FilterAlpha, bool Half, bool Full = false, bool Mag = false, bool Batch = false,
          bool Sym = false, bool Int = false>
__global__ void __launch_bounds__(32 * kStreamWarps, (kStreamMinBlocks<R, FilterAlpha, Half, Full, Mag>))
    streamKernel(const __grid_constant__ Launch l, const __grid_constant__ StreamMask<R, Full, Mag, Int> m,
                 bool aligned, const __grid_constant__ StreamUnits u, float halfOffset) {
  using S = StreamShape<R, Half, Full, Mag>;
  constexpr int N = S::N, L = S::L, T = S::T;
  static_assert(!Mag || ((R == 1 || R == 2) && !Half && !Full),
                "the gradient magnitude instances: radius 1 or 2, fp32 sums");
  static_assert(!Full || ((R == 1 || R == 2) && !Half), "the full-mask instances: radius 1 or 2, fp32 sums");
  static_assert(!Sym || Full, "mirror-symmetric: a mask of any rank");
  static_assert(!Int || Mag || (Full && !Sym), "integer sums: a gradient magnitude's, or a mask of any rank's");
  using A = std::conditional_t<Half, std::conditional_t<FilterAlpha, F16Sums<N>, F16KeptAlphaSums<N>>, F32Sums<N>>;
  using Rows = typename A::Rows;
  __shared__ __align__(16) unsigned ring[kStreamWarps][kRing][32 * N];
  const float* col = nullptr;  // the column factor divided by 255 (scaledSeparable)
  if constexpr (!Full && !Mag) col = m.col;
  const typename A::W offset = A::weight(halfOffset);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const bool writes = lane >= L && lane < 32 - L;
  const bool alignedOut =
      (reinterpret_cast<std::size_t>(CL_STREAM_FRAME(l.out, l.outFrameStride)) | l.outPitch) % (4 * N) == 0;
  const unsigned inPitch = static_cast<unsigned>(l.inPitch), outPitch = static_cast<unsigned>(l.outPitch);
  unsigned* const laneSlot = &ring[warp][0][N * lane];  // slot s of this lane: laneSlot + s * 32 * N

  for (int unit = blockIdx.x * kStreamWarps + warp; unit < u.units; unit += gridDim.x * kStreamWarps) {
    const UnitPlace place = unitPlace(u, unit);
    const int ys = place.y0, kRows = place.rows + 2 * R;
    const int xs = place.strip * S::OutW, xin = xs - N * L + N * lane;
    const bool fast = aligned && xin >= 0 && xin + N <= l.width;  // this lane's N pixels: one aligned copy
    // Per unit, so that a row step only adds a row offset (one IMAD.WIDE.U32) to these.
    const char* const inLane = reinterpret_cast<const char*>(CL_STREAM_FRAME(l.in, l.inFrameStride)) + 4 * xin;
    char* const outLane = reinterpret_cast<char*>(CL_STREAM_FRAME(l.out, l.outFrameStride)) + 4 * xin;
    const bool storeWhole = writes && alignedOut && xin + N <= l.width, storeSome = writes && xin < l.width;

    // Input row i (0-based from ys - R) into slot i % kRing: one commit group per row, always.
    auto issue = [&](int i) {
      if (i < kRows) {
        unsigned* dst = laneSlot + (unsigned(i) % kRing) * (32 * N);
        const int y = ys - R + i;
        if (fast && unsigned(y) < unsigned(l.height))
          copyAsync<4 * N>(dst, inLane + std::size_t(unsigned(y)) * inPitch);
        else
          copyBorderedRow<N>(CL_STREAM_FRAME(l.in, l.inFrameStride), l.inPitch, l.width, l.height, l.border, fast, dst,
                             xin, y);
      }
      commitAsync();
    };

#pragma unroll 1
    for (int i = 0; i < kRing - 1; ++i) issue(i);

    Rows acc[T];                     // acc[o % T]: the pending sums of output row o
    Rows accY[Mag && !Int ? T : 1];  // a gradient magnitude: gy's row sums (acc: gx's), the last T input rows'
    // In integers (Int): a magnitude's gx and gy row sums of the last T input rows; a mask of any rank's
    // pending output rows in intX, as acc's.
    constexpr int IntW = kIntWords<N, FilterAlpha>;  // words a lane's sums take in integers (intWindow)
    using IntRows = LaneSums<unsigned, IntW>;
    IntRows intX[Int ? T : 1], intY[Int && Mag ? T : 1];
    unsigned alpha[T];  // alpha[i % T]: the alpha bytes of input row i
#pragma unroll
    for (int s = 0; s < T; ++s) acc[s] = zeroRows<Rows>();
    if constexpr (Mag && !Int)
#pragma unroll
      for (int s = 0; s < T; ++s) accY[s] = zeroRows<Rows>();
    if constexpr (Int && Mag)
#pragma unroll
      for (int s = 0; s < T; ++s) intX[s] = intY[s] = zeroRows<IntRows>();
    if constexpr (Int && Full)
#pragma unroll
      for (int s = 0; s < T; ++s) intX[s] = zeroRows<IntRows>();
    for (int base = 0; base < kRows; base += T) {
#pragma unroll
      for (int k = 0; k < T; ++k) {
        const int i = base + k;
        if (i >= kRows) break;
        waitAsync<kRing - 2>();
        unsigned w[N];
        if constexpr (N == 4) {
          const uint4 v = *reinterpret_cast<const uint4*>(laneSlot + (unsigned(i) % kRing) * (32 * N));
          w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
        } else {
          const uint2 v = *reinterpret_cast<const uint2*>(laneSlot + (unsigned(i) % kRing) * (32 * N));
          w[0] = v.x, w[1] = v.y;
        }
        issue(i + kRing - 1);  // into the slot read at the previous step

        // Row factor: the lane's N pixels with R on either side, from the lanes beside it (masks of
        // any rank: below, once a mask row).
        alpha[k] = alphaBytes<N>(w);
        Rows h;
        if constexpr (!Full && !Mag) h = A::template rowSums<R>(w, m.row);

        // Column factor: input row i adds to output rows i - 2R .. i, held in slots (k - t) mod T:
        // it completes row i - 2R (slot (k + 1) mod T, clamped to [0, 1] by its last tap; frame
        // row y), packed at once, and starts row i in slot k mod T (a product: no slot is zeroed).
        // Alpha, unless filtered: byte j of the alpha bytes of input row i - R (the output row's centre).
        const int done = (k + 1) % T, y = ys + i - 2 * R;
        Rows fin;  // in [0, 1]
        if constexpr (Mag && Int) {
          // As below, in integers (intWindow).
          unsigned ww[IntW][T];
          intWindow<R, N, FilterAlpha>(w, ww);
#pragma unroll
          for (int e = 0; e < IntW; ++e) {  // the outer pair's weight 1, as MaskGrad's
            unsigned d = ww[e][2 * R] - ww[e][0], s = ww[e][2 * R] + ww[e][0] + ww[e][R] * m.s[0];
#pragma unroll
            for (int t = 1; t < R; ++t) {
              d += (ww[e][R + t] - ww[e][R - t]) * m.d[t];
              s += (ww[e][R + t] + ww[e][R - t]) * m.s[t];
            }
            intX[k % T].v[e] = d;
            intY[k % T].v[e] = s;
          }
          const auto X = [&](int t, int e) { return intX[(k + 1 + t) % T].v[e]; };  // row i - 2R + t
          const auto Y = [&](int t, int e) { return intY[(k + 1 + t) % T].v[e]; };
#pragma unroll
          for (int e = 0; e < IntW; ++e) {
            unsigned gx = X(2 * R, e) + X(0, e) + X(R, e) * m.s[0] + m.bias, gy = Y(2 * R, e) - Y(0, e) + m.bias;
#pragma unroll
            for (int t = 1; t < R; ++t) {
              gx += (X(R + t, e) + X(R - t, e)) * m.s[t];
              gy += (Y(R + t, e) - Y(R - t, e)) * m.d[t];
            }
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const float fx = intHalf(gx, h, m.offset), fy = intHalf(gy, h, m.offset);
              fin.v[intChannel<N, FilterAlpha>(e, h)] = __saturatef(sqrtApprox(fmaf(fx, fx, fy * fy)) * m.scale);
            }
          }
        } else if constexpr (Mag) {
          // acc and accY hold the row sums of input rows i - 2R .. i (row i - 2R + t in slot
          // (k + 1 + t) mod T): gx's row factor d, gy's s; the column factors over pairs of rows.
          gradRowSums<R, N>(A::template window<R>(w), m, acc[k % T], accY[k % T]);
          const auto X = [&](int t, int e) { return acc[(k + 1 + t) % T].v[e]; };  // row i - 2R + t
          const auto Y = [&](int t, int e) { return accY[(k + 1 + t) % T].v[e]; };
#pragma unroll
          for (int e = 0; e < int(sizeof fin.v / sizeof fin.v[0]); ++e) {
            float gx = X(2 * R, e) + X(0, e), gy = Y(2 * R, e) - Y(0, e);
#pragma unroll
            for (int t = R - 1; t >= 1; --t) {
              gx = fmaf(m.s[t], X(R + t, e) + X(R - t, e), gx);
              gy = fmaf(m.d[t], Y(R + t, e) - Y(R - t, e), gy);
            }
            gx = fmaf(m.s[0], X(R, e), gx);
            fin.v[e] = __saturatef(sqrtApprox(fmaf(gx, gx, gy * gy)) * m.scale);
          }
        } else if constexpr (Full && Int) {
          // As below, in integers (intWindow): mask row t's sums of word e, the bias in each output
          // row's first; the sum times 1 / (255 n) in [0, 1].
          unsigned ww[IntW][T];
          intWindow<R, N, FilterAlpha>(w, ww);
          const auto rowSum = [&](int t, int e) {
            unsigned s = ww[e][0] * m.w[t * T];
#pragma unroll
            for (int o = 1; o < T; ++o) s += ww[e][o] * m.w[t * T + o];
            return s;
          };
#pragma unroll
          for (int e = 0; e < IntW; ++e) {
            const unsigned v = intX[done].v[e] + rowSum(T - 1, e);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const float x = intHalf(v, h, m.offset) * m.scale;
              fin.v[intChannel<N, FilterAlpha>(e, h)] = __saturatef(Absolute ? fabsf(x) : x);
            }
          }
#pragma unroll
          for (int t = 1; t < T - 1; ++t)
#pragma unroll
            for (int e = 0; e < IntW; ++e) intX[(k - t + T) % T].v[e] += rowSum(t, e);
#pragma unroll
          for (int e = 0; e < IntW; ++e) intX[k % T].v[e] = rowSum(0, e) + m.bias;
        } else if constexpr (Full && Sym) {
          // Mask rows t and 2R - t are one (streamMaskMirrorSymmetric): R + 1 row sums, each over
          // the window's pairs; the output row in slot (k - t) mod T takes row t's.
          const auto q = A::template pairs<R>(A::template window<R>(w));
          const typename A::W one = A::weight(1.f);
          Rows rows[R + 1];  // rows[t]: mask row t's sums (and row 2R - t's)
#pragma unroll
          for (int t = 0; t <= R; ++t) rows[t] = A::template symSums<R>(q, m.w + t * T);
          fin = lastRows<A, Absolute>(one, rows[0], acc[done], offset);
#pragma unroll
          for (int t = 1; t < T - 1; ++t) {
            const Rows& h =
                rows[t <= R ? t : 2 * R - t];  // added as it is (no weight: fmaRows by 1 compiles otherwise)
#pragma unroll
            for (int e = 0; e < int(sizeof h.v / sizeof h.v[0]); ++e)
              acc[(k - t + T) % T].v[e] = acc[(k - t + T) % T].v[e] + h.v[e];
          }
          acc[k % T] = rows[0];
        } else if constexpr (Full) {
          // The output row in slot (k - t) mod T takes this row's sums with mask row t.
          const auto x = A::template window<R>(w);
          const typename A::W one = A::weight(1.f);
          fin = lastRows<A, Absolute>(one, A::template sums<R>(x, m.w + (T - 1) * T), acc[done], offset);
#pragma unroll
          for (int t = 1; t < T - 1; ++t) fmaRows<A>(acc[(k - t + T) % T], one, A::template sums<R>(x, m.w + t * T));
          acc[k % T] = A::template sums<R>(x, m.w);
        } else {
          if constexpr (T == 1) {
            fin = lastRows<A, Absolute>(A::weight(col[0]), h, zeroRows<Rows>(), offset);
          } else {
            fin = lastRows<A, Absolute>(A::weight(col[T - 1]), h, acc[done], offset);
#pragma unroll
            for (int t = 1; t < T - 1; ++t) fmaRows<A>(acc[(k - t + T) % T], A::weight(col[t]), h);
            acc[k % T] = mulRows<A>(A::weight(col[0]), h);
          }
        }
        unsigned o[N];
        A::template pack<FilterAlpha>(fin, alpha[(k + T - R) % T], o);

        // Store it.
        if (i >= 2 * R && y < l.height && storeSome) {
          char* dst = outLane + std::size_t(unsigned(y)) * outPitch;
          if (storeWhole) {
            if constexpr (N == 4)
              *reinterpret_cast<uint4*>(dst) = make_uint4(o[0], o[1], o[2], o[3]);
            else
              *reinterpret_cast<uint2*>(dst) = make_uint2(o[0], o[1]);
          } else {
#pragma unroll
            for (int j = 0; j < N; ++j)
              if (xin + j < l.width) reinterpret_cast<unsigned*>(dst)[j] = o[j];
          }
        }
      }
    }
    waitAsync<0>();  // no copy in flight into the ring when the next unit starts
  }
}
#undef CL_STREAM_FRAME

// The work units of a launch: strips of outW output pixels (a lane's n pixels, l apron lanes a
// side), segments of sh rows, the edge strips' of sh / divisor rows, counted so that all of them
// make one wave: an edge strip takes `divisor` warps for every one an interior strip takes.
// residentWarps 0: unknown (no device), one segment of the tile's height per warp, no edge split.
struct StreamGeometry {
  StreamUnits u;
  int blocks;
};
StreamGeometry streamGeometry(const Launch& l, int outW, int n, int apronLanes, int residentWarps,
                              int edgeDivisor = kStreamEdgeDivisor) {
  StreamUnits u{};
  u.strips = static_cast<int>(ceilDiv(l.width, outW));
  const int divisor = residentWarps > 0 ? std::max(1, edgeDivisor) : 1;
  if (divisor > 1) {
    // Strip s reads pixels s outW - n l .. that + 32 n - 1.
    u.edgeLeft = apronLanes > 0 ? 1 : 0;
    while (u.edgeLeft + u.edgeRight < u.strips &&
           (u.strips - 1 - u.edgeRight) * outW - n * apronLanes + 32 * n > l.width)
      ++u.edgeRight;
    if (u.edgeLeft + u.edgeRight >= u.strips) u.edgeLeft = u.edgeRight = 0;  // all edge: nothing to set apart
  }
  const int edges = u.edgeLeft + u.edgeRight;
  const int perStrip = std::max(1, residentWarps / (u.strips - edges + divisor * edges));
  u.sh = residentWarps > 0 ? std::max(l.tileH, static_cast<int>(ceilDiv(l.height, perStrip))) : l.tileH;
  u.edgeSh = edges ? static_cast<int>(ceilDiv(u.sh, divisor)) : u.sh;
  u.edgeUnits = edges * static_cast<int>(ceilDiv(l.height, u.edgeSh));
  u.units = u.edgeUnits + (u.strips - edges) * static_cast<int>(ceilDiv(l.height, u.sh));
  return {u, (u.units + kStreamWarps - 1) / kStreamWarps};
}

// The compiled instance for a radius, combine rule, alpha mode and number format (and masks of any
// rank: full; a gradient magnitude: mag), handed to `f`.
template <int R_, bool Absolute_, bool FilterAlpha_, bool Half_, bool Full_ = false, bool Mag_ = false,
          bool Batch_ = false, bool Sym_ = false, bool Int_ = false>
struct StreamInstance {
  static constexpr int R = R_;
  static constexpr bool absolute = Absolute_, filterAlpha = FilterAlpha_, half = Half_, full = Full_, mag = Mag_,
                        batch = Batch_, sym = Sym_, integer = Int_;
};
// K's instance for a batch of RGBA8 frames, a frame a grid z (masks of any rank and gradient
// magnitudes: separable masks' batches take the typed kernel). A template argument, so that the
// single-frame instances' code stays as it was.
template <class K>
using BatchOf = StreamInstance<K::R, K::absolute, K::filterAlpha, K::half, K::full, K::mag, true, K::sym, K::integer>;
// Masks of any rank (Full) take fp32 sums, or integers (Int: weights that are integers over a divisor);
// `half` says for them whether the mask is mirror-symmetric (streamMaskMirrorSymmetric: the Sym instances).
template <int R, bool Absolute, bool FilterAlpha, bool Full, bool Int, class F>
decltype(auto) streamSumsInstance(bool half, F&& f) {
  static_assert(!Int || Full, "integer instances of the separable kernel: none");
  if constexpr (Int) {
    return f(StreamInstance<R, Absolute, FilterAlpha, false, true, false, false, false, true>{});
  } else if constexpr (Full) {
    if (half) return f(StreamInstance<R, Absolute, FilterAlpha, false, true, false, false, true>{});
    return f(StreamInstance<R, Absolute, FilterAlpha, false, true>{});
  } else {
    if (half) return f(StreamInstance<R, Absolute, FilterAlpha, true>{});
    return f(StreamInstance<R, Absolute, FilterAlpha, false>{});
  }
}
template <int R, bool Absolute, bool Full, bool Int, class F>
decltype(auto) streamAlphaInstance(const Launch& l, bool half, F&& f) {
  if (l.filterAlpha) return streamSumsInstance<R, Absolute, true, Full, Int>(half, f);
  return streamSumsInstance<R, Absolute, false, Full, Int>(half, f);
}
template <int R, bool Full, bool Int = false, class F>
decltype(auto) streamRadiusInstance(const Launch& l, bool half, F&& f) {
  if (l.combine == Combine::Abs) return streamAlphaInstance<R, true, Full, Int>(l, half, f);
  return streamAlphaInstance<R, false, Full, Int>(l, half, f);
}
template <class F>
decltype(auto) streamInstance(const Launch& l, int radius, bool half, F&& f) {
  switch (radius) {
    case 0:
      return streamRadiusInstance<0, false>(l, half, f);
    case 1:
      return streamRadiusInstance<1, false>(l, half, f);
    case 2:
      return streamRadiusInstance<2, false>(l, half, f);
    case 3:
      return streamRadiusInstance<3, false>(l, half, f);
    case 4:
      return streamRadiusInstance<4, false>(l, half, f);
  }
  throw std::invalid_argument("stream: radius " + std::to_string(radius) + " has no instance (0.." +
                              std::to_string(kStreamMaxRadius) + ")");
}
// The instance for a mask of any rank of this radius, its symmetry or integer weights, the launch's
// combine rule and alpha mode (a mirror-symmetric mask takes the Sym instances, integers or not).
template <class F>
decltype(auto) streamFullInstance(const Launch& l, int radius, bool symmetric, bool integer, F&& f) {
  if (integer && !symmetric) {
    if (radius == 1) return streamRadiusInstance<1, true, true>(l, false, f);
    if (radius == 2) return streamRadiusInstance<2, true, true>(l, false, f);
  }
  if (radius == 1) return streamRadiusInstance<1, true>(l, symmetric, f);
  if (radius == 2) return streamRadiusInstance<2, true>(l, symmetric, f);
  throw std::invalid_argument("stream: masks of any rank take radius 1 to " + std::to_string(kStreamAnyRankRadius) +
                              " (asked for " + std::to_string(radius) + ")");
}
// The gradient magnitude's instance for this radius, its sums (integer: streamMagnitudeIntegerFactors)
// and the launch's alpha mode.
template <int R, bool Int, class F>
decltype(auto) streamMagAlphaInstance(const Launch& l, F&& f) {
  if (l.filterAlpha) return f(StreamInstance<R, false, true, false, false, true, false, false, Int>{});
  return f(StreamInstance<R, false, false, false, false, true, false, false, Int>{});
}
template <int R, class F>
decltype(auto) streamMagSumsInstance(const Launch& l, bool integer, F&& f) {
  if constexpr (R == kStreamIntegerMagnitudeRadius)
    if (integer) return streamMagAlphaInstance<R, true>(l, f);
  return streamMagAlphaInstance<R, false>(l, f);
}
template <class F>
decltype(auto) streamMagInstance(const Launch& l, int radius, bool integer, F&& f) {
  static_assert(kStreamMagnitudeRadius == 2, "an instance for each radius");
  if (radius == 1) return streamMagSumsInstance<1>(l, integer, f);
  if (radius == 2) return streamMagSumsInstance<2>(l, integer, f);
  throw std::invalid_argument("stream: gradient magnitudes take radius 1 to " + std::to_string(kStreamMagnitudeRadius) +
                              " (asked for " + std::to_string(radius) + ")");
}

template <class K>
const void* streamKernelOf() {
  return reinterpret_cast<const void*>(
      &streamKernel<K::R, K::absolute, K::filterAlpha, K::half, K::full, K::mag, K::batch, K::sym, K::integer>);
}
// Warps of instance K the current GPU holds at once (residentBlocks keeps each device's answer).
template <class K>
int residentWarpsOf() {
  return residentBlocks(streamKernelOf<K>(), 32 * kStreamWarps, 0) * kStreamWarps;
}
// What a launch of instance K makes, for residentWarps warps at once (0: unknown, see streamGeometry);
// a batch's frame, for its share of them.
template <class K>
StreamGeometry geometryOf(const Launch& l, int residentWarps) {
  if (l.tileW != 32 || l.tileH < 1) badTile("stream", l);
  using S = StreamShape<K::R, K::half, K::full, K::mag>;
  if constexpr (K::batch) residentWarps = frameSlots(residentWarps, l.frames);
  return streamGeometry(l, S::OutW, S::N, S::L, residentWarps);
}
// The same on this device (without one: see streamGeometry).
template <class K>
StreamGeometry streamGeometryOn(const Launch& l) {
  return geometryOf<K>(l, deviceInfo().available ? residentWarpsOf<K>() : 0);
}

// One wave: as many work units as warps the GPU holds at once, so every warp walks one segment
// of about the same height (at least the tile's), and none waits on a partial last wave.
// A batch: that for each frame, a frame a grid z (a launch per kMaxGridZ frames past that).
template <class K>
void launchInstance(const Launch& l, const StreamMask<K::R, K::full, K::mag, K::integer>& m, float halfOffset) {
  using S = StreamShape<K::R, K::half, K::full, K::mag>;
  const StreamGeometry g = geometryOf<K>(l, residentWarpsOf<K>());
  if constexpr (K::batch) {
    const bool aligned = (reinterpret_cast<std::size_t>(l.in) | l.inPitch | l.inFrameStride) % (4 * S::N) == 0;
    forEachGridOfFrames(l, [&](const Launch& part) {
      streamKernel<K::R, K::absolute, K::filterAlpha, K::half, K::full, K::mag, true, K::sym, K::integer>
          <<<dim3(g.blocks, 1, part.frames), 32 * kStreamWarps, 0, l.stream>>>(part, m, aligned, g.u, halfOffset);
      CL_CUDA_LAUNCHED("streamKernel<<<>>>");
    });
  } else {
    const bool aligned = (reinterpret_cast<std::size_t>(l.in) | l.inPitch) % (4 * S::N) == 0;
    streamKernel<K::R, K::absolute, K::filterAlpha, K::half, K::full, K::mag, false, K::sym, K::integer>
        <<<g.blocks, 32 * kStreamWarps, 0, l.stream>>>(l, m, aligned, g.u, halfOffset);
    CL_CUDA_LAUNCHED("streamKernel<<<>>>");
  }
}

// The masks as the kernels take them. Separable: the column factor over 255, so that each output's
// last tap clamps it to [0, 1]; fp16: each weight as the bits of an fp16 pair in its float slot
// (some are float denormals): moved, never computed with.
template <int R, bool Half>
MaskSep scaledSeparable(const MaskSep& m) {
  if constexpr (Half) return halfSumsMask(m);
  MaskSep scaled = m;
  for (int t = 0; t < 2 * R + 1; ++t) scaled.col[t] = m.col[t] / 255.f;
  return scaled;
}
// A mask of any rank: every weight over 255 (each output's last sum clamps).
template <int R>
MaskFull<R> scaledFull(const Mask2D& m) {
  MaskFull<R> scaled;
  for (int t = 0; t < (2 * R + 1) * (2 * R + 1); ++t) scaled.w[t] = m.w[t] / 255.f;
  return scaled;
}
// v as the integer k where it is one (to 1e-6 of itself: the floats' rounding of weights such as 2/3)
// within what a 16-bit half sums; false past it or for a NaN.
bool wholeNumber(double v, long& k) {
  if (!(std::fabs(v) <= 65535.0)) return false;
  k = std::lround(v);
  return std::fabs(v - double(k)) <= 1e-6 * std::max(1.0, std::fabs(v));
}
// A mask of any rank's integer form (MaskFullInt) from its (2R + 1)^2 weights w: the weights times the
// least n <= 64 that makes each an integer, if their absolute sum times 255 fits a 16-bit half twice over.
template <int R>
bool integerFull(const float* w, MaskFullInt<R>* out) {
  constexpr int n2 = (2 * R + 1) * (2 * R + 1);
  for (int n = 1; n <= 64; ++n) {
    long k[n2], sum = 0;
    bool whole = true;
    for (int i = 0; i < n2 && whole; ++i) {
      whole = wholeNumber(n * double(w[i]), k[i]);
      sum += std::labs(k[i]);
    }
    if (!whole) continue;
    const long bias = 255 * sum;                     // |a sum| <= bias
    if (sum == 0 || 2 * bias > 65535) return false;  // a larger n only makes the sum larger
    if (out) {
      for (int i = 0; i < n2; ++i) out->w[i] = static_cast<unsigned>(k[i]);
      out->bias = static_cast<unsigned>(bias) * 0x00010001u;
      out->offset = float(8388608 + bias);
      out->scale = float(1.0 / (255.0 * n));
    }
    return true;
  }
  return false;
}
// Factor f (2R + 1 taps, centre R) is antisymmetric (its centre 0) or symmetric, its outer weight not 0.
bool antisymmetric(const float* f, int r) {
  for (int t = 0; t <= r; ++t)
    if (f[r + t] != -f[r - t]) return false;
  return r > 0 && f[2 * r] != 0.f;
}
bool symmetric(const float* f, int r) {
  for (int t = 1; t <= r; ++t)
    if (f[r + t] != f[r - t]) return false;
  return r > 0 && f[2 * r] != 0.f;
}
// A gradient magnitude's factors as MaskGrad holds them.
template <int R>
MaskGrad<R> scaledGrad(const MaskSep& m) {
  if (!streamMagnitudeFactorsFit(m.row, m.col, R))
    throw std::invalid_argument(
        "stream: a gradient magnitude's factors must be one antisymmetric and one symmetric, their outer weights not 0 "
        "(sobel, scharr)");
  const bool rowD = antisymmetric(m.row, R);    // the row factor is d; else the column
  const float* d = (rowD ? m.row : m.col) + R;  // d[t]: tap t from the centre
  const float* s = (rowD ? m.col : m.row) + R;
  MaskGrad<R> k;
  for (int t = 0; t <= R; ++t) {
    k.d[t] = d[t] / d[R];
    k.s[t] = s[t] / s[R];
  }
  k.scale = float(std::fabs(double(d[R]) * double(s[R])) / 255.0);
  return k;
}
// The magnitude's integer form (MaskGradInt) from its factors (2R + 1 taps each), if the ratios of each
// to its outer weight are integers and their sums fit 16-bit halves.
template <int R>
bool integerGrad(const float* row, const float* col, MaskGradInt<R>* out) {
  if (!streamMagnitudeFactorsFit(row, col, R)) return false;
  const bool rowD = antisymmetric(row, R);
  const float* d = rowD ? row : col;
  const float* s = rowD ? col : row;
  long kd[R + 1] = {}, ks[R + 1] = {}, dSum = 0, sSum = 0;
  for (int t = 0; t <= R; ++t) {
    if ((t && !wholeNumber(double(d[R + t]) / double(d[2 * R]), kd[t])) ||
        !wholeNumber(double(s[R + t]) / double(s[2 * R]), ks[t]))
      return false;
    dSum += std::labs(kd[t]);
    sSum += (t ? 2 : 1) * std::labs(ks[t]);
  }
  const long bias = 255 * dSum * sSum;  // |gx|, |gy| <= bias
  if (2 * bias > 65535) return false;
  if (out) {
    for (int t = 0; t <= R; ++t) {
      out->d[t] = static_cast<unsigned>(kd[t]);
      out->s[t] = static_cast<unsigned>(ks[t]);
    }
    out->bias = static_cast<unsigned>(bias) * 0x00010001u;
    out->offset = float(8388608 + bias);
    out->scale = float(std::fabs(double(d[2 * R]) * double(s[2 * R])) / 255.0);
  }
  return true;
}
// A launch of instance K on l's frames: one, or a batch (Launch::frames > 1, BatchOf).
template <class K, class Mask>
void launchFrames(const Launch& l, const Mask& m) {
  if (l.frames > 1) return launchInstance<BatchOf<K>>(l, m, 0.f);
  launchInstance<K>(l, m, 0.f);
}

template <class K>
LaunchDescription describeInstance(const Launch& l) {
  using S = StreamShape<K::R, K::half, K::full, K::mag>;
  const StreamGeometry g = streamGeometryOn<K>(l);
  const std::string size = std::to_string(S::T) + "x" + std::to_string(S::T);
  PassLaunch p;
  p.kernel = "streamKernel<" + std::to_string(K::R) + ", " + (K::absolute ? "abs" : "identity") + ", " +
             (K::filterAlpha ? "alpha" : "no alpha") + ", " +
             (K::half      ? "fp16"
              : K::integer ? "integer"
                           : "fp32") +
             " sums" +
             (K::full  ? ", " + size + (K::sym ? " mirror-symmetric" : "") + " mask"
              : K::mag ? ", " + size + " gradient magnitude"
                       : std::string()) +
             ">";
  p.grid = dimsOf(g.blocks);
  if constexpr (K::batch) p.grid.z = gridFrames(l.frames);
  p.block = dimsOf(32 * kStreamWarps);
  p.threadsPerBlock = 32 * kStreamWarps;
  p.outputsPerThread = double(l.width) * l.height / (double(g.blocks) * p.threadsPerBlock);
  setFootprint(p, S::OutW, g.u.sh, 32 * S::N, g.u.sh + 2 * K::R, -S::N * S::L, -K::R);
  p.staticShared = sizeof(unsigned) * kStreamWarps * kRing * 32 * S::N;
  p.kernelFunction = streamKernelOf<K>();
  const int edges = g.u.edgeLeft + g.u.edgeRight;
  p.note =
      "persistent: " + std::to_string(g.u.units) + " units (" + std::to_string(g.u.strips) + " strip" +
      (g.u.strips == 1 ? "" : "s") + " of " + std::to_string(S::OutW) + " pixels x " + std::to_string(g.u.sh) +
      " rows" +
      (edges ? ", the " + std::to_string(edges) + " edge strips' x " + std::to_string(g.u.edgeSh) : std::string()) +
      "), one a warp" +
      (deviceInfo().available ? ", as many warps as the device holds at once"
                              : "; on a device, as many as it holds at once, walking taller segments");
  if constexpr (K::batch)
    p.note += "; a frame of the batch a grid z, its units sized for its share of the warps" +
              (l.frames > kMaxGridZ ? ", a launch per " + std::to_string(kMaxGridZ) + " frames" : std::string());
  return LaunchDescription{{p}, ""};
}

// A warp walks down a segment of sh rows: each input row (sh + 2R of them) comes in once through
// the ring (32 N pixels, the N L on each side apron), is read back by the lane that copied it, and
// every lane sums the row taps for its N pixels (neighbours' pixels by shuffles) and adds them to
// the T pending output rows (masks of any rank: T row sums of T taps, one a mask row). The 2 L apron lanes
// compute but store nothing.
template <class K>
WorkModel modelInstance(const Launch& l) {
  using S = StreamShape<K::R, K::half, K::full, K::mag>;
  const StreamGeometry g = streamGeometryOn<K>(l);
  const double inputs = 32.0 * S::N * (g.u.sh + 2 * K::R), outputs = double(S::OutW) * g.u.sh;
  const double channels = K::filterAlpha ? 4 : 3;
  WorkModel m;
  m.globalReads = inputs / outputs;
  m.globalBytes = 4 * m.globalReads;
  m.sharedBytes = 4 * m.globalReads;
  m.apron = m.globalReads;
  m.idleThreads = 2.0 * S::L / 32;
  // Any rank: T row sums of T taps and T - 1 adds into the pending rows; separable: T row and T column taps.
  // A gradient magnitude over pairs of taps: each pass's 2R pair adds and 2R - 1 multiply-adds
  // (6R - 2), then gx^2 + gy^2 and the scale, 4 (sqrt uncounted).
  // A mirror-symmetric mask: R pair adds, R + 1 row sums of a product and R multiply-adds, T adds into
  // the pending rows (the last a multiply-add).
  m.flops = inputs / outputs * channels *
            (K::mag   ? 2 * (6 * K::R - 2) + 4
             : K::sym ? K::R + (K::R + 1) * (2 * K::R + 1) + S::T
                      : 2 * (K::full ? S::T * S::T + S::T - 1 : 2 * S::T));
  m.dramBytes = 8;
  m.notes.push_back("a segment of " + std::to_string(g.u.sh) + " rows a warp; " + std::to_string(S::N) +
                    " pixels a lane, " + std::to_string(2 * S::L) + " apron lanes");
  const std::string size = std::to_string(S::T) + "x" + std::to_string(S::T);
  if (K::mag)
    m.notes.push_back("a " + size +
                      " gradient magnitude: gx's and gy's row sums from one window over pairs of taps, the last " +
                      std::to_string(S::T) + " rows of each in registers" +
                      (K::integer ? "; in integers, two channel values an instruction (16-bit halves), exact" : ""));
  if (K::full && K::sym)
    m.notes.push_back("a " + size + " mirror-symmetric mask: " + std::to_string(K::R + 1) +
                      " row sums an input row over its pairs of pixels, one a pair of mask rows");
  else if (K::full)
    m.notes.push_back("a " + size + " mask of any rank: " + std::to_string(S::T) +
                      " row sums an input row, one a mask row" +
                      (K::integer ? "; its weights integers over one divisor, summed in integers, two channel values "
                                    "an instruction (16-bit halves), exact"
                                  : ""));
  if (!K::filterAlpha) m.notes.push_back("alpha kept: three channels summed");
  if (K::half) m.notes.push_back("fp16 sums, two channels an instruction (the error bound allows it)");
  return m;
}

}  // namespace

// A weight as the fp16 pair the fp16 kernels read, its bits in a float of the mask's arrays.
float halfPairBits(float w) {
  const __half_raw h = __float2half_rn(w);
  const unsigned bits = unsigned(h.x) | unsigned(h.x) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

MaskSep halfSumsMask(const MaskSep& m) {
  MaskSep scaled = m;
  for (int t = 0; t < 2 * m.radius + 1; ++t) {
    scaled.row[t] = halfPairBits(m.row[t]);
    scaled.col[t] = halfPairBits(m.col[t] / 255.f);
  }
  return scaled;
}

StreamUnits streamUnits(const Launch& l, int radius, bool halfSums, int residentWarps, int edgeDivisor) {
  return streamInstance(l, radius, halfSums, [&](auto k) {
    using S = StreamShape<decltype(k)::R, decltype(k)::half>;
    return streamGeometry(l, S::OutW, S::N, S::L, residentWarps, edgeDivisor).u;
  });
}

void stream(const Launch& l, const MaskSep& m, StreamSums sums) {
  streamInstance(l, m.radius, sums.half, [&](auto k) {
    using K = decltype(k);
    launchInstance<K>(l, scaledSeparable<K::R, K::half>(m), K::half ? halfPairBits(sums.offset) : 0.f);
  });
}

LaunchDescription describeStream(const Launch& l, int radius, bool halfSums) {
  return streamInstance(l, radius, halfSums, [&](auto k) { return describeInstance<decltype(k)>(l); });
}

WorkModel modelStream(const Launch& l, int radius, bool halfSums) {
  return streamInstance(l, radius, halfSums, [&](auto k) { return modelInstance<decltype(k)>(l); });
}

bool streamMagnitudeFactorsFit(const float* row, const float* col, int radius) {
  return (antisymmetric(row, radius) && symmetric(col, radius)) ||
         (antisymmetric(col, radius) && symmetric(row, radius));
}

bool streamMagnitudeIntegerFactors(const float* row, const float* col, int radius) {
  static_assert(kStreamIntegerMagnitudeRadius == 2, "the integer instances' radius");
  return radius == 2 && integerGrad<2>(row, col, nullptr);
}

// Masks of any rank and gradient magnitudes on l's frames: one, or a batch (Launch::frames > 1); the
// integer form made once, where the mask has one.
void streamMagnitude(const Launch& l, const MaskSep& m) {
  constexpr int RI = kStreamIntegerMagnitudeRadius;
  MaskGradInt<RI> q;
  if (m.radius == RI && integerGrad(m.row, m.col, &q))
    return streamMagAlphaInstance<RI, true>(l, [&](auto k) { launchFrames<decltype(k)>(l, q); });
  streamMagInstance(l, m.radius, false, [&](auto k) {
    using K = decltype(k);
    if constexpr (!K::integer) launchFrames<K>(l, scaledGrad<K::R>(m));  // (no integer instance is chosen here)
  });
}
LaunchDescription describeStreamMagnitude(const Launch& l, int radius, bool integer) {
  return streamMagInstance(l, radius, integer, [&](auto k) {
    return l.frames > 1 ? describeInstance<BatchOf<decltype(k)>>(l) : describeInstance<decltype(k)>(l);
  });
}
WorkModel modelStreamMagnitude(const Launch& l, int radius, bool integer) {
  return streamMagInstance(l, radius, integer, [&](auto k) {
    return l.frames > 1 ? modelInstance<BatchOf<decltype(k)>>(l) : modelInstance<decltype(k)>(l);
  });
}

bool streamAnyRankIntegerWeights(const float* w, int radius) {
  if (streamMaskMirrorSymmetric(w, radius)) return false;  // the Sym instances, fp32
  if (radius == 1) return integerFull<1>(w, nullptr);
  if (radius == 2) return integerFull<2>(w, nullptr);
  return false;
}

bool streamMaskMirrorSymmetric(const float* w, int radius) {
  const int n = 2 * radius + 1;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      if (w[y * n + x] != w[y * n + (n - 1 - x)] || w[y * n + x] != w[(n - 1 - y) * n + x]) return false;
  return true;
}

// The integer form made once, where the mask has one (and is not mirror-symmetric).
template <int R>
void streamAnyRankOf(const Launch& l, const Mask2D& m) {
  const bool symmetric = streamMaskMirrorSymmetric(m.w, R);
  MaskFullInt<R> q;
  if (!symmetric && integerFull<R>(m.w, &q))
    return streamRadiusInstance<R, true, true>(l, false, [&](auto k) { launchFrames<decltype(k)>(l, q); });
  const MaskFull<R> f = scaledFull<R>(m);
  streamRadiusInstance<R, true>(l, symmetric, [&](auto k) { launchFrames<decltype(k)>(l, f); });
}
void streamAnyRank(const Launch& l, const Mask2D& m) {
  static_assert(kStreamAnyRankRadius == 2, "an instance for each radius");
  if (m.radius == 1) return streamAnyRankOf<1>(l, m);
  if (m.radius == 2) return streamAnyRankOf<2>(l, m);
  throw std::invalid_argument("stream: masks of any rank take radius 1 to " + std::to_string(kStreamAnyRankRadius) +
                              " (asked for " + std::to_string(m.radius) + ")");
}

LaunchDescription describeStreamAnyRank(const Launch& l, int radius, bool symmetric, bool integer) {
  return streamFullInstance(l, radius, symmetric, integer, [&](auto k) {
    return l.frames > 1 ? describeInstance<BatchOf<decltype(k)>>(l) : describeInstance<decltype(k)>(l);
  });
}

WorkModel modelStreamAnyRank(const Launch& l, int radius, bool symmetric, bool integer) {
  return streamFullInstance(l, radius, symmetric, integer, [&](auto k) {
    return l.frames > 1 ? modelInstance<BatchOf<decltype(k)>>(l) : modelInstance<decltype(k)>(l);
  });
}

}  // namespace convlive::kernels
