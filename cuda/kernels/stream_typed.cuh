// The typed stream kernel, included by one .cu file per pixel type (stream_typed_<type>.cu), so
// that the instances build in parallel. stream.cu's design, on values instead of RGBA8 pixels:
//   - each warp walks down a segment of a strip of the frame, one input row at a time, with no
//     block-wide barrier; rows arrive through a ring of slots in shared memory (cp.async of a
//     lane's 8 or 16 bytes, 6 or 7 rows in flight; each lane reads back only what it copied);
//   - the row factor: a lane holds V adjacent values of the row, takes the R C values on either
//     side (the same channel's neighbours are C values apart) from its neighbour lanes by warp
//     shuffles of the packed 32-bit words, converts them once and sums the taps in fp32;
//   - the column factor runs in registers: 2R + 1 pending output rows, each input row added to
//     every output row whose window covers it, the oldest finished, rounded and stored per step.
// A warp covers 32 V input values and writes the (32 - 2L) V in the middle (L apron lanes a side),
// and, where the values outside the row are made in registers (typedStreamEdgesInRegisters), its
// outer lanes too at the row's start and end.
#pragma once

#include <cuda_fp16.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "async.cuh"
#include "common.cuh"
#include "convlive/resources.hpp"
#include "half_sums.cuh"
#include "stream_direct.cuh"
#include "stream_typed.hpp"
#include "values.cuh"

namespace convlive::kernels::typed {

constexpr int kAhead = 7;  // input rows in flight per warp
// Ring slots per warp: the rows in flight and the last 2 r + 1 read stay in the ring, so that a
// kept 4th channel is read back from the output row's centre row (in registers, the 2r + 1 rows'
// 4th channels made the r = 4 instances spill).
constexpr int kRing = 16;
static_assert(kRing >= kAhead + 1 + kTypedStreamMaxRadiusGrey && kTypedStreamMaxRadiusGrey >= kTypedStreamMaxRadius,
              "the centre row stays in the ring");

struct Args {
  const char* in;
  char* out;
  std::size_t pitch, frameStride, outPitch, outFrameStride;
  int width, height, rowValues, batch;
  Border border;
  bool absolute, copyFourth;
  bool aligned;           // input base, pitch and frame stride allow the lane's cp.async copies
  bool alignedOut;        // output base, pitch and frame stride allow the lane's vector stores
  bool edgesInRegisters;  // typedStreamEdgesInRegisters: strips from the row's first value, the
                          // values outside the row made in the lanes that read them
};

template <class T, int C, int R, int HalfV = 0>
struct Shape {
  static constexpr int V = typedStreamLaneValues(sizeof(T), C, R, HalfV);  // values a lane
  static constexpr int VPW = Values<T>::kPerWord;
  static constexpr int W = V / VPW;  // 32-bit words a lane
  static constexpr int B = 4 * W;    // bytes a lane: 8, 16 or 32
  // Rows in flight and ring slots: 7 in 16 (the last 2r + 1 rows' kept 4th channels stay), but f32
  // at r = 1 in 8 (6 rows in flight with 4 channels), so that an SM holds 8 of its blocks (64
  // registers), not 6: its rows' latency wants the warps (4K f32x3 0.945x, f32x4 0.989x). For the
  // others the smaller ring bought no blocks (their registers hold them) and cost up to 8% (u8x3 r=1).
  static constexpr bool F32R1 = sizeof(T) == 4 && R == 1;
  static constexpr int Ahead = F32R1 && C == 4 ? kAhead - 1 : kAhead;
  static constexpr int Ring = F32R1 ? 8 : kRing;
  static_assert(Ring >= Ahead + 1 + (C == 4 ? R : 0) && Ring <= kRing, "the centre row stays in the ring");
  static constexpr int A = R * C;  // apron values on each side
  static constexpr int L = typedStreamApronLanes(sizeof(T), C, R, HalfV);
  static constexpr int AW = (A + VPW - 1) / VPW;  // apron words on each side
  static constexpr int OutV = typedStreamOutValues(sizeof(T), C, R, HalfV);
  static constexpr int Taps = 2 * R + 1;
  // 4 channels: the words holding a 4th channel's value (every word of u8, the odd ones of 16-bit
  // types, every 4th of f32), KW of them a lane.
  static constexpr int KW = V / 4;
  static constexpr __host__ __device__ int keptWord(int kw) {
    return VPW == 4 ? kw : VPW == 2 ? 2 * kw + 1 : 4 * kw + 3;
  }
  static_assert(V % 4 == 0 && V % VPW == 0, "a lane starts at a pixel of 4 channels");
};

// A lane's B bytes from global to shared memory, asynchronously.
template <int B>
__device__ __forceinline__ void copyLane(unsigned* dst, const char* src) {
  copyAsync<B>(dst, src);
}

// Off the hot path: rows outside the frame (the border's row, or zeros), and lanes whose values
// are not all inside the frame or frames not aligned for the copies: value by value through the
// border mode (x: the lane's first value in the row, negative left of the frame).
template <class T, int C, int V>
__device__ __noinline__ void copyBorderedRow(const Args& a, const char* frame, bool fast, unsigned* dst, int x, int y) {
  constexpr int VPW = Values<T>::kPerWord, W = V / VPW;
  const int sy = borderIndex(y, a.height, a.border);
  if (sy < 0) {
#pragma unroll
    for (int j = 0; j < W; ++j) dst[j] = 0;
    return;
  }
  const char* row = frame + std::size_t(sy) * a.pitch;
  if (fast) return copyLane<4 * W>(dst, row + std::ptrdiff_t(x) * std::ptrdiff_t(sizeof(T)));
  unsigned w[W];
  packBordered<T, C, V>(row, x, a.rowValues, a.width, a.border, w);
#pragma unroll
  for (int j = 0; j < W; ++j) dst[j] = w[j];
}

// Lanes wholly outside the row (the edge strips' apron lanes) in aligned frames: their values are
// the border's, which lie in the frame, nearly always within the warp's own row in the ring (clamp
// and mirror: the first or last values of the row). So they are not loaded at issue but filled
// here, once the warp's row has arrived: from the ring, else (wrap, narrow strips) from memory.
// rowSlot: the warp's row in the slot; xw: the warp's first value; sy: the frame row it holds.
template <class T, int C, int V>
__device__ __noinline__ void fillOutsideLane(const Args& a, const char* frame, unsigned* rowSlot, int xw, int x,
                                             int sy) {
  constexpr int VPW = Values<T>::kPerWord, W = V / VPW;
  const T* ringRow = reinterpret_cast<const T*>(rowSlot);
  const char* row = frame + std::size_t(sy) * a.pitch;
  unsigned w[W];
#pragma unroll
  for (int j = 0; j < W; ++j) w[j] = 0;
#pragma unroll
  for (int j = 0; j < V; ++j) {
    const int xv = x + j, px = xv >= 0 ? xv / C : -((-xv + C - 1) / C), ch = xv - px * C;
    const int at = borderIndex(px, a.width, a.border) * C + ch;  // in the row: the border is not Zero
    T v;
    if (at >= xw && at < xw + 32 * V)
      v = ringRow[at - xw];
    else
      std::memcpy(&v, row + std::size_t(at) * sizeof(T), sizeof(T));
    unsigned bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    w[j / VPW] |= bits << (8 * sizeof(T) * (j % VPW));
  }
  unsigned* dst = rowSlot + W * ((x - xw) / V);
#pragma unroll
  for (int j = 0; j < W; ++j) dst[j] = w[j];
}

// The row's outside values in the registers of the lanes that read them (typedStreamEdgesInRegisters:
// Zero, Clamp or Mirror, a frame wider than R pixels, rows a whole number of lanes long): for the
// lane's value k (k = -A .. V + A - 1, the apron from the lanes beside it; xin: the lane's first
// value in the row), take(k, src, at) replaces it with its value src where `at`. A lane m lanes
// from the row's start (m < L) or end (m = 1..L) has its values left of 0 or from the row's end on
// replaced by the border's, which lie inside the row within R + 1 pixels of its edge and so among
// its values or its apron's: every index is a constant, one select a value; the lanes beyond the
// row load nothing.
template <Border B, int C, int R, int V, class Take>
__device__ __forceinline__ void borderWalk(int xin, int rowValues, Take&& take) {
  constexpr int A = R * C, L = (A + V - 1) / V;
#pragma unroll
  for (int m = 0; m < L; ++m) {  // the lane's first value is the row's m V: values left of 0
    const bool at = xin == m * V;
#pragma unroll
    for (int k = -A; k < 0; ++k) {
      const int g = m * V + k;  // the value's index in the row
      if (g >= 0) continue;
      const int p = (g - (C - 1)) / C, ch = g - p * C;  // pixel (negative) and channel
      take(k, (B == Border::Clamp ? ch : -p * C + ch) - m * V, at);
    }
  }
  const int toEnd = rowValues - xin;
#pragma unroll
  for (int m = 1; m <= L; ++m) {  // the row ends m V past the lane's first value
    const bool at = toEnd == m * V;
#pragma unroll
    for (int k = 0; k < V + A; ++k) {
      const int g = k - m * V;  // past the row's last value
      if (g < 0) continue;
      const int p = g / C, ch = g - p * C;
      take(k, m * V + (B == Border::Clamp ? -C : -(p + 2) * C) + ch, at);
    }
  }
}
// x[Base + k]: the lane's value k as a float.
template <Border B, int C, int R, int V, int Base, int N>
__device__ __forceinline__ void borderInRegisters(float (&x)[N], int xin, int rowValues) {
  static_assert(Base >= R * C && Base + V + R * C <= N, "the apron's values are in x");
  borderWalk<B, C, R, V>(xin, rowValues, [&](int k, int src, bool at) {
    x[Base + k] = at ? (B == Border::Zero ? 0.f : x[Base + src]) : x[Base + k];
  });
}
// The same on bytes (u8 values four to a word, the lane's value k at byte Base + k of e), before
// they are converted: the fp16 sums take their values in pairs.
template <Border B, int C, int R, int V, int Base, int N>
__device__ __forceinline__ void borderBytesInRegisters(unsigned (&e)[N], int xin, int rowValues) {
  static_assert(Base >= R * C && Base + V + R * C <= 4 * N, "the apron's values are in e");
  borderWalk<B, C, R, V>(xin, rowValues, [&](int k, int src, bool at) {
    const int d = Base + k, s = Base + src;
    const unsigned v = B == Border::Zero ? 0u : __byte_perm(e[s / 4], 0u, 0x4440 + s % 4);  // byte s alone
    constexpr unsigned kPut[4] = {0x3214, 0x3240, 0x3410, 0x4210};                          // v's low byte at d
    const unsigned put = __byte_perm(e[d / 4], v, kPut[d % 4]);
    e[d / 4] = at ? put : e[d / 4];
  });
}

// A finished output row's V values as f32 (TO = float from T values): unrounded; a kept 4th
// channel's values converted from the centre row's (in the ring); whole (16-byte stores)
// or value by value at the row's end.
template <class T, int C, int R>
__device__ __forceinline__ void storeFloats(const Args& a, float (&fin)[Shape<T, C, R>::V], const unsigned* centre,
                                            float* dst, int xin, bool whole) {
  using S = Shape<T, C, R>;
  constexpr int V = S::V, VPW = S::VPW;
  if constexpr (C == 4) {
    if (a.copyFourth) {
#pragma unroll
      for (int j = 3; j < V; j += 4) fin[j] = Values<T>::get(centre[j / VPW], j % VPW);
    }
  }
  if (whole) {
#pragma unroll
    for (int j = 0; j < V; j += 4)
      *reinterpret_cast<float4*>(dst + j) = make_float4(fin[j], fin[j + 1], fin[j + 2], fin[j + 3]);
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (xin + j < a.rowValues) dst[j] = fin[j];
  }
}

// The column factor of input row i, k = i mod T: the row adds to output rows i - 2R .. i, held
// in slots (k - t) mod T; it completes row i - 2R (slot (k + 1) mod T, into fin) and starts row i
// in slot k. Registers take constant indices only: k is a constant where the step is unrolled T
// times, else (columnStep) each k is a case of its own, and a step runs one of them.
template <int T, int V>
__device__ __forceinline__ void columnSlots(int k, float (&acc)[T][V], const float (&h)[V], const MaskSep& m,
                                            float (&fin)[V]) {
#pragma unroll
  for (int j = 0; j < V; ++j) fin[j] = fmaf(m.col[T - 1], h[j], acc[(k + 1) % T][j]);
#pragma unroll
  for (int t = 1; t < T - 1; ++t)
#pragma unroll
    for (int j = 0; j < V; ++j) acc[(k - t + T) % T][j] = fmaf(m.col[t], h[j], acc[(k - t + T) % T][j]);
#pragma unroll
  for (int j = 0; j < V; ++j) acc[k][j] = m.col[0] * h[j];
}
template <int T, int V>
__device__ __forceinline__ void columnStep(int k, float (&acc)[T][V], const float (&h)[V], const MaskSep& m,
                                           float (&fin)[V]) {
  static_assert(T <= 2 * kTypedStreamMaxRadiusGrey + 1, "a case for every slot");
  switch (k) {
#define CL_COLUMN_CASE(n)                                      \
  case n:                                                      \
    if constexpr (n < T) columnSlots<T, V>(n, acc, h, m, fin); \
    break;
    // clang-format off
    CL_COLUMN_CASE(0) CL_COLUMN_CASE(1) CL_COLUMN_CASE(2) CL_COLUMN_CASE(3) CL_COLUMN_CASE(4) CL_COLUMN_CASE(5)
    CL_COLUMN_CASE(6) CL_COLUMN_CASE(7) CL_COLUMN_CASE(8) CL_COLUMN_CASE(9) CL_COLUMN_CASE(10) CL_COLUMN_CASE(11)
    CL_COLUMN_CASE(12) CL_COLUMN_CASE(13) CL_COLUMN_CASE(14) CL_COLUMN_CASE(15) CL_COLUMN_CASE(16)
    // clang-format on
#undef CL_COLUMN_CASE
  }
}

// fp16 sums on u8 values (planHalfSums, half_sums.cuh): the lane's V values as V / 2 pairs, two
// values an HFMA2, in the order and roundings that bound describes. e: the lane's words with AW on
// either side (value k of the lane at byte Base + k); the row factor's tap t of pair j takes the
// values 2j - A + t C and the one after: a pair of the words' own (one PRMT, one HADD2) where that
// index is even, else the high half of one and the low half of the next (one PRMT).
template <int C, int R, int V, int Base, int N>
__device__ __forceinline__ void halfRowSums(const unsigned (&e)[N], const __half2 (&row)[2 * R + 1],
                                            __half2 (&h)[V / 2]) {
  constexpr int A = R * C;
  static_assert(Base % 2 == 0 && Base >= A && Base + V + A <= 4 * N, "the apron's values are in e");
  __half2 pair[2 * N];  // pair[p]: bytes 2p and 2p + 1 centred (the unused ones are dead code)
#pragma unroll
  for (int p = 0; p < 2 * N; ++p) pair[p] = centred(__byte_perm(e[p / 2], 0x64646464u, p % 2 ? 0x4342 : 0x4140));
#pragma unroll
  for (int j = 0; j < V / 2; ++j)
#pragma unroll
    for (int t = 0; t <= 2 * R; ++t) {
      const int at = Base - A + 2 * j + t * C;  // the pair's first byte
      const __half2 x =
          at % 2 == 0 ? pair[at / 2] : asHalf2(__byte_perm(bitsOf(pair[at / 2]), bitsOf(pair[at / 2 + 1]), 0x5432));
      h[j] = t == 0 ? __hmul2(row[0], x) : __hfma2(row[t], x, h[j]);
    }
}
// A lane's W words of its V values of type T into a row: whole (16- or 8-byte stores) or value by
// value to the row's end.
template <class T, int W, int V>
__device__ __forceinline__ void storeLaneWords(const unsigned (&o)[W], char* dst, bool whole, int xin, int rowValues) {
  constexpr int VPW = Values<T>::kPerWord;
  if (whole) {
#pragma unroll
    for (int j = 0; j < W; j += 4) {
      if constexpr (W % 4 == 0)
        *reinterpret_cast<uint4*>(dst + 4 * j) = make_uint4(o[j], o[j + 1], o[j + 2], o[j + 3]);
      else
        *reinterpret_cast<uint2*>(dst + 4 * j) = make_uint2(o[j], o[j + 1]);
    }
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (xin + j < rowValues) {
        const unsigned bits = o[j / VPW] >> (8 * sizeof(T) * (j % VPW));
        std::memcpy(dst + j * sizeof(T), &bits, sizeof(T));  // little-endian: the low bytes
      }
  }
}
// The modes the edges in registers take: f(std::integral_constant<Border, b>) for Clamp, Mirror, else Zero.
template <class F>
__device__ __forceinline__ void withEdgeBorder(Border b, F&& f) {
  if (b == Border::Clamp)
    f(std::integral_constant<Border, Border::Clamp>{});
  else if (b == Border::Mirror)
    f(std::integral_constant<Border, Border::Mirror>{});
  else
    f(std::integral_constant<Border, Border::Zero>{});
}
// columnSlots in fp16 pairs: the last tap adds the offset and saturates to [0, 1] (|.| first where
// absolute), as stream.cu's F16Steps.
template <int T, int V2>
__device__ __forceinline__ void halfColumnSlots(int k, __half2 (&acc)[T][V2], const __half2 (&h)[V2],
                                                const __half2 (&col)[T], __half2 offset, bool absolute,
                                                __half2 (&fin)[V2]) {
  if (absolute) {
#pragma unroll
    for (int j = 0; j < V2; ++j)
      fin[j] = __hadd2_sat(__habs2(__hadd2(__hfma2(col[T - 1], h[j], acc[(k + 1) % T][j]), offset)), asHalf2(0u));
  } else {
#pragma unroll
    for (int j = 0; j < V2; ++j) fin[j] = __hadd2_sat(__hfma2(col[T - 1], h[j], acc[(k + 1) % T][j]), offset);
  }
#pragma unroll
  for (int t = 1; t < T - 1; ++t)
#pragma unroll
    for (int j = 0; j < V2; ++j) acc[(k - t + T) % T][j] = __hfma2(col[t], h[j], acc[(k - t + T) % T][j]);
#pragma unroll
  for (int j = 0; j < V2; ++j) acc[k][j] = __hmul2(col[0], h[j]);
}

// Blocks an SM holds at least: 128 registers a thread at most (4 blocks of 4 warps); f32 at r = 1,
// 64 (8 blocks: their rows' latency wants the warps). TO: the output's values, T's (rounded and
// saturated as Values<T> packs them) or float (u8 in: the sums as they are). HalfV: u8 into u8 with
// fp16 sums (planHalfSums; the mask's weights as fp16 pairs, halfSumsMask), r <= 2, HalfV values a
// lane (8 or 16); 0: fp32 sums.
template <class T, int C, int R, class TO = T, int HalfV = 0>
__global__ void __launch_bounds__(32 * kTypedStreamWarps, (Shape<T, C, R>::F32R1 ? 8 : 4))
    streamTypedKernel(const __grid_constant__ Args a, const __grid_constant__ MaskSep m,
                      const __grid_constant__ StreamUnits u) {
  using S = Shape<T, C, R, HalfV>;
  constexpr bool Half = HalfV != 0;
  constexpr int V = S::V, W = S::W, VPW = S::VPW, L = S::L, AW = S::AW, A = S::A, TAPS = S::Taps, KW = S::KW;
  __shared__ __align__(16) unsigned ring[kTypedStreamWarps][S::Ring][32 * W];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned* const laneSlot = &ring[warp][0][W * lane];  // slot s of this lane: laneSlot + s * 32 * W
  const long long total = static_cast<long long>(u.units) * a.batch;
  static_assert(!Half || (std::is_same_v<T, unsigned char> && std::is_same_v<TO, T> && !typedStreamSwitched(R, V)),
                "fp16 sums: u8 into u8, the step unrolled");
  __half2 rowH[TAPS], colH[TAPS];  // Half: the weights as fp16 pairs
  if constexpr (Half)
#pragma unroll
    for (int t = 0; t < TAPS; ++t)
      rowH[t] = asHalf2(__float_as_uint(m.row[t])), colH[t] = asHalf2(__float_as_uint(m.col[t]));
  // Half: the centring's offset, an fp16 pair in the row factor's slot past its taps.
  const __half2 offsetH = asHalf2(__float_as_uint(m.row[Half ? TAPS : 0]));

  for (long long g = blockIdx.x * kTypedStreamWarps + warp; g < total; g += gridDim.x * kTypedStreamWarps) {
    const int f = static_cast<int>(g / u.units), unit = static_cast<int>(g - static_cast<long long>(f) * u.units);
    const UnitPlace place = unitPlace(u, unit);
    const int ys = place.y0, kRows = min(place.rows, a.height - ys) + 2 * R;
    // The edges in registers: never where the warp has more apron lanes (its code as without them).
    const bool inRegisters = L <= kTypedStreamEdgeLanesInRegisters && a.edgesInRegisters;
    const int xw = typedStreamWarpStart(place.strip, S::OutV, V, L, inRegisters);  // the warp's first value
    const int xin = xw + V * lane;                                                 // the lane's first value in the row
    const bool fast = a.aligned && xin >= 0 && xin + V <= a.rowValues;
    // Wholly outside the row: with the edges in registers, not loaded; else where aligned, filled
    // from the warp's row once it has arrived (zeros for Zero at issue), at every step.
    const bool outside = (a.aligned || inRegisters) && (xin + V <= 0 || xin >= a.rowValues);
    const bool fills = !inRegisters && __any_sync(0xffffffffu, outside) && a.border != Border::Zero;
    const bool writes = typedStreamLaneWrites(lane, xw, V, L, a.rowValues, inRegisters);
    const bool edgeWarp = inRegisters && (xw == 0 || xw + 32 * V >= a.rowValues);
    const char* const frameIn = a.in + a.frameStride * std::size_t(f);
    const char* const inLane = frameIn + (fast ? std::size_t(xin) * sizeof(T) : 0);
    char* const outLane = a.out + a.outFrameStride * std::size_t(f) + (writes ? std::size_t(xin) * sizeof(TO) : 0);
    const bool storeSome = writes && xin < a.rowValues;
    const bool storeWhole = storeSome && a.alignedOut && xin + V <= a.rowValues;

    // Input row i (0-based from ys - R) into slot i % S::Ring: one commit group per row, always.
    auto issue = [&](int i) {
      if (i < kRows) {
        unsigned* dst = laneSlot + (unsigned(i) % S::Ring) * (32 * W);
        const int y = ys - R + i;
        if (fast && unsigned(y) < unsigned(a.height)) {
          copyLane<4 * W>(dst, inLane + std::size_t(unsigned(y)) * a.pitch);
        } else if (outside) {
          if (a.border == Border::Zero && !inRegisters)
#pragma unroll
            for (int j = 0; j < W; ++j) dst[j] = 0;
        } else {
          copyBorderedRow<T, C, V>(a, frameIn, fast, dst, xin, y);
        }
      }
      commitAsync();
    };
#pragma unroll 1
    for (int i = 0; i < S::Ahead; ++i) issue(i);

    float acc[TAPS][V];  // acc[o % T]: the pending sums of output row o
#pragma unroll
    for (int s = 0; s < TAPS; ++s)
#pragma unroll
      for (int j = 0; j < V; ++j) acc[s][j] = 0.f;
    __half2 accH[TAPS][V / 2];  // Half: the same in fp16 pairs
    if constexpr (Half)
#pragma unroll
      for (int s = 0; s < TAPS; ++s)
#pragma unroll
        for (int j = 0; j < V / 2; ++j) accH[s][j] = asHalf2(0u);

    // Unrolled T steps a pass (each step's slots constants), or where typedStreamSwitched says so
    // one step a pass and the slots by case (columnStep).
    constexpr bool kSwitched = typedStreamSwitched(R, V);
    constexpr int kUnroll = kSwitched ? 1 : TAPS;
    int kNext = 0;  // switched: i mod T
    for (int base = 0; base < kRows; base += kUnroll) {
#pragma unroll
      for (int kk = 0; kk < kUnroll; ++kk) {
        const int i = base + kk;
        if (i >= kRows) break;
        const int k = kSwitched ? kNext : kk;
        if constexpr (kSwitched) kNext = kNext + 1 == TAPS ? 0 : kNext + 1;
        waitAsync<S::Ahead - 1>();
        const unsigned* slot = laneSlot + (unsigned(i) % S::Ring) * (32 * W);
        if (fills) {  // every lane's copies of this row have landed: the outside lanes take theirs
          __syncwarp();
          const int y = ys - R + i;
          if (outside)
            fillOutsideLane<T, C, V>(a, frameIn, &ring[warp][unsigned(i) % S::Ring][0], xw, xin,
                                     borderIndex(y, a.height, a.border));
          __syncwarp();
        }
        unsigned w[W];
#pragma unroll
        for (int j = 0; j < W; j += 4) {
          if constexpr (W % 4 == 0) {
            const uint4 q = *reinterpret_cast<const uint4*>(slot + j);
            w[j] = q.x, w[j + 1] = q.y, w[j + 2] = q.z, w[j + 3] = q.w;
          } else if constexpr (W == 1) {  // u8 grey 4 a lane
            w[0] = slot[0];
          } else {
            const uint2 q = *reinterpret_cast<const uint2*>(slot + j);
            w[j] = q.x, w[j + 1] = q.y;
          }
        }
        issue(i + S::Ahead);  // into the slot of row i + Ahead - Ring, long read

        // Row factor: the lane's words with AW on either side from the lanes beside it.
        unsigned e[W + 2 * AW];
#pragma unroll
        for (int j = 0; j < W; ++j) e[AW + j] = w[j];
#pragma unroll
        for (int q = 1; q <= AW; ++q) {
          const int dl = (q + W - 1) / W, dr = (q - 1) / W + 1;
          e[AW - q] = __shfl_up_sync(0xffffffffu, w[W * dl - q], dl);
          e[AW + W - 1 + q] = __shfl_down_sync(0xffffffffu, w[(q - 1) % W], dr);
        }
        if constexpr (Half) {
          if constexpr (L <= kTypedStreamEdgeLanesInRegisters) {
            if (edgeWarp)
              withEdgeBorder(a.border, [&](auto b) {
                borderBytesInRegisters<decltype(b)::value, C, R, V, AW * VPW>(e, xin, a.rowValues);
              });
          }
          __half2 h[V / 2], finH[V / 2];
          halfRowSums<C, R, V, AW * VPW>(e, rowH, h);
          halfColumnSlots<TAPS, V / 2>(k, accH, h, colH, offsetH, a.absolute, finH);
          const int y = ys + i - 2 * R;
          if (i >= 2 * R && y < a.height && storeSome) {
            unsigned o[W];  // a word's bytes from the low bytes of its two pairs' halves
#pragma unroll
            for (int j = 0; j < W; ++j)
              o[j] = __byte_perm(byteHalves(finH[2 * j]), byteHalves(finH[2 * j + 1]), 0x6420);
            storeLaneWords<T, W, V>(o, outLane + std::size_t(unsigned(y)) * a.outPitch, storeWhole, xin, a.rowValues);
          }
        } else {
          float x[(W + 2 * AW) * VPW];  // x[AW VPW + j]: the lane's value j (unused ones are dead code)
#pragma unroll
          for (int j = 0; j < (W + 2 * AW) * VPW; ++j) x[j] = Values<T>::get(e[j / VPW], j % VPW);
          if constexpr (L <= kTypedStreamEdgeLanesInRegisters) {
            if (edgeWarp)
              withEdgeBorder(a.border, [&](auto b) {
                borderInRegisters<decltype(b)::value, C, R, V, AW * VPW>(x, xin, a.rowValues);
              });
          }
          float h[V];
#pragma unroll
          for (int j = 0; j < V; ++j) {
            h[j] = m.row[0] * x[AW * VPW - A + j];
#pragma unroll
            for (int t = 1; t < TAPS; ++t) h[j] = fmaf(m.row[t], x[AW * VPW - A + j + t * C], h[j]);
          }

          // Column factor: input row i completes output row i - 2R (frame row y) into fin.
          const int y = ys + i - 2 * R;
          float fin[V];
          if constexpr (kSwitched)
            columnStep<TAPS, V>(k, acc, h, m, fin);
          else
            columnSlots<TAPS, V>(k, acc, h, m, fin);

          if (i >= 2 * R && y < a.height && storeSome) {
            if (a.absolute) {
#pragma unroll
              for (int j = 0; j < V; ++j) fin[j] = fabsf(fin[j]);
            }
            if constexpr (std::is_same_v<TO, float> && !std::is_same_v<T, float>) {
              storeFloats<T, C, R>(a, fin, laneSlot + (unsigned(i - R) % S::Ring) * (32 * W),
                                   reinterpret_cast<float*>(outLane + std::size_t(unsigned(y)) * a.outPitch), xin,
                                   storeWhole);
            } else {
              unsigned o[W];
#pragma unroll
              for (int j = 0; j < W; ++j) o[j] = Values<T>::pack(&fin[j * VPW]);
              if constexpr (C == 4) {
                if (a.copyFourth) {  // the 4th channel of the output row's centre, input row i - R
                  const unsigned* centre = laneSlot + (unsigned(i - R) % S::Ring) * (32 * W);
#pragma unroll
                  for (int kw = 0; kw < KW; ++kw)
                    o[S::keptWord(kw)] = Values<T>::keepTop(o[S::keptWord(kw)], centre[S::keptWord(kw)]);
                }
              }
              storeLaneWords<T, W, V>(o, outLane + std::size_t(unsigned(y)) * a.outPitch, storeWhole, xin, a.rowValues);
            }
          }
        }
      }
    }
    waitAsync<0>();  // no copy in flight into the ring when the next unit starts
  }
}

// Warps of the instance the current device holds at once.
template <class T, int C, int R, class TO = T, int HalfV = 0>
int residentWarps() {
  return residentBlocks(reinterpret_cast<const void*>(&streamTypedKernel<T, C, R, TO, HalfV>), 32 * kTypedStreamWarps,
                        0) *
         kTypedStreamWarps;
}

template <class T, int C, int R, class TO = T, int HalfV = 0>
void launchInstance(const TypedStreamLaunch& l, const MaskSep& m) {
  if constexpr (std::is_same_v<T, float> && std::is_same_v<TO, T> && C == 4 && R == 1)
    if (typedStreamDirect(l, R)) return launchDirect<T>(l, m);
  using S = Shape<T, C, R, HalfV>;
  const ImageDesc& d = l.image;
  Args a;
  setFrameArgs(a, l);
  a.rowValues = d.width * C;
  a.absolute = l.absolute;
  a.copyFourth = l.copyFourth;
  constexpr std::size_t grain = S::B;                                   // the lane's copies and stores
  constexpr std::size_t outGrain = std::is_same_v<TO, T> ? grain : 16;  // f32 out: 16-byte stores
  a.aligned = (reinterpret_cast<std::size_t>(l.in) | a.pitch | (d.batch > 1 ? a.frameStride : 0)) % grain == 0;
  a.alignedOut =
      (reinterpret_cast<std::size_t>(l.out) | a.outPitch | (d.batch > 1 ? a.outFrameStride : 0)) % outGrain == 0;
  a.edgesInRegisters = typedStreamEdgesInRegisters(l, R);
  const int warps = residentWarps<T, C, R, TO, HalfV>();
  const StreamUnits u = typedStreamUnits(l, R, warps);
  const long long total = static_cast<long long>(u.units) * d.batch;
  const long long blocks =
      std::min<long long>((total + kTypedStreamWarps - 1) / kTypedStreamWarps, std::max(1, warps / kTypedStreamWarps));
  MaskSep mask = m;
  if constexpr (HalfV != 0) {  // fp16 pairs, the offset past the row factor's taps
    static_assert(2 * R + 1 < 2 * kMaxSepRadius + 1, "a slot past the taps");
    mask = halfSumsMask(m);
    mask.row[2 * R + 1] = halfPairBits(l.halfOffset);
  }
  streamTypedKernel<T, C, R, TO, HalfV><<<unsigned(blocks), 32 * kTypedStreamWarps, 0, l.stream>>>(a, mask, u);
  CL_CUDA_LAUNCHED("streamTypedKernel<<<>>>");
}

// What launchInstance launches for l: its persistent grid (the device's resident warps where there
// is one; without, a warp a unit of tileRows rows) and a warp's unit as the footprint.
template <class T, int C, int R, class TO = T, int HalfV = 0>
LaunchDescription describeInstance(const TypedStreamLaunch& l) {
  if constexpr (std::is_same_v<T, float> && std::is_same_v<TO, T> && C == 4 && R == 1)
    if (typedStreamDirect(l, R)) return describeDirect<T>(l);
  using S = Shape<T, C, R, HalfV>;
  const ImageDesc& d = l.image;
  const bool device = deviceInfo().available;
  const int warps = device ? residentWarps<T, C, R, TO, HalfV>() : 0;
  const StreamUnits u = typedStreamUnits(l, R, warps);
  const long long total = static_cast<long long>(u.units) * d.batch, perBlock = kTypedStreamWarps;
  const long long blocks =
      device ? std::min<long long>((total + perBlock - 1) / perBlock, std::max<long long>(1, warps / perBlock))
             : (total + perBlock - 1) / perBlock;
  PassLaunch p;
  p.kernel = std::string("streamTypedKernel<") + pixelTypeName(d.type) + ", " + std::to_string(C) + ", " +
             std::to_string(R) + (std::is_same_v<TO, T> ? "" : ", f32") + (HalfV ? ", fp16 sums>" : ">");
  p.grid = dimsOf(unsigned(blocks));
  p.block = dimsOf(32 * kTypedStreamWarps);
  p.threadsPerBlock = 32 * kTypedStreamWarps;
  p.outputsPerThread = double(d.width) * d.height * d.batch / (double(blocks) * p.threadsPerBlock);
  // A warp's unit in pixels: OutV / C made, 32 V / C read from (V L) / C left of them (rounded
  // down where a lane's values split a pixel).
  setFootprint(p, S::OutV / C, u.sh, 32 * S::V / C, u.sh + 2 * R, -(S::V * S::L) / C, -R);
  p.staticShared = sizeof(unsigned) * kTypedStreamWarps * S::Ring * 32 * S::W;
  p.kernelFunction = reinterpret_cast<const void*>(&streamTypedKernel<T, C, R, TO, HalfV>);
  p.note = "persistent: " + std::to_string(u.units) + " units a frame x " + std::to_string(d.batch) + " frame" +
           (d.batch == 1 ? "" : "s") + " (" + std::to_string(u.strips) + " strip" + (u.strips == 1 ? "" : "s") +
           " of " + std::to_string(S::OutV / C) + " pixels x " + std::to_string(u.sh) + " rows), one a warp" +
           (device ? ", as many warps as the device holds at once"
                   : "; on a device, as many as it holds at once, walking taller segments") +
           (typedStreamEdgesInRegisters(l, R)
                ? "; the values outside each row made in the registers of the lanes that read them"
                : "; the edge strips' apron lanes hold the values outside each row");
  return LaunchDescription{{p}, ""};
}

// f(std::integral_constant<int, C>{}, std::integral_constant<int, R>{}) for l's channel count and
// `radius`: the instance of each that a type's file compiles (r = 5..8 for grey of 16 and 32 bits,
// and of 8 bits written as f32 (TO): typedStreamMaxRadius); what f returns.
template <class T, class TO, class F>
auto withInstance(const TypedStreamLaunch& l, int radius, F&& f) {
  auto forRadius = [&](auto c) -> decltype(f(c, std::integral_constant<int, 1>{})) {
    switch (radius) {
      case 1:
        return f(c, std::integral_constant<int, 1>{});
      case 2:
        return f(c, std::integral_constant<int, 2>{});
      case 3:
        return f(c, std::integral_constant<int, 3>{});
      case 4:
        return f(c, std::integral_constant<int, 4>{});
    }
    if constexpr ((!std::is_same_v<T, unsigned char> || !std::is_same_v<TO, T>)&&decltype(c)::value == 1) {
      switch (radius) {
        case 5:
          return f(c, std::integral_constant<int, 5>{});
        case 6:
          return f(c, std::integral_constant<int, 6>{});
        case 7:
          return f(c, std::integral_constant<int, 7>{});
        case 8:
          return f(c, std::integral_constant<int, 8>{});
      }
    }
    throw std::invalid_argument("stream: radius " + std::to_string(radius) + " has no typed instance for " +
                                l.image.str() + " (1.." +
                                std::to_string(typedStreamMaxRadius(l.image.type, l.image.channels, l.floatOut)) + ")");
  };
  switch (l.image.channels) {
    case 1:
      return forRadius(std::integral_constant<int, 1>{});
    case 3:
      return forRadius(std::integral_constant<int, 3>{});
    case 4:
      return forRadius(std::integral_constant<int, 4>{});
  }
  throw std::invalid_argument("stream: " + std::to_string(l.image.channels) + " channels");
}

// Whether the type's file compiles fp16-sum instances (u8 into u8, 1 or 3 channels, r <= 2, 8 and 16
// values a lane; their launch takes them where typedStreamHalfLaneValues says so).
template <class T, class TO, int C, int R>
constexpr bool kHasHalf = std::is_same_v<T, unsigned char>&& std::is_same_v<TO, T> && (C == 1 || C == 3) && R <= 2;

// f(std::integral_constant<int, HalfV>{}) for the instance l takes at (C, R): fp16 sums of 16 or 8
// values a lane where the file compiles them and typedStreamHalfLaneValues picks them, else fp32 (0).
template <class T, class TO, int C, int R, class F>
auto withSums(const TypedStreamLaunch& l, F&& f) {
  if constexpr (kHasHalf<T, TO, C, R>) {
    const int half = typedStreamHalfLaneValues(l, R);
    if (half == 16) return f(std::integral_constant<int, 16>{});
    if (half == 8) return f(std::integral_constant<int, 8>{});
  }
  return f(std::integral_constant<int, 0>{});
}

template <class T, class TO = T>
void launchType(const TypedStreamLaunch& l, const MaskSep& m) {
  withInstance<T, TO>(l, m.radius, [&](auto c, auto r) {
    constexpr int C = decltype(c)::value, R = decltype(r)::value;
    withSums<T, TO, C, R>(l, [&](auto h) { launchInstance<T, C, R, TO, decltype(h)::value>(l, m); });
  });
}

template <class T, class TO = T>
LaunchDescription describeType(const TypedStreamLaunch& l, int radius) {
  return withInstance<T, TO>(l, radius, [&](auto c, auto r) {
    constexpr int C = decltype(c)::value, R = decltype(r)::value;
    return withSums<T, TO, C, R>(l, [&](auto h) { return describeInstance<T, C, R, TO, decltype(h)::value>(l); });
  });
}

}  // namespace convlive::kernels::typed
