// sweep's separable kernel and what it shares with the 2D one, included by sweep.cu (every
// instance at a radius read at run time, and the 2D kernel) and by sweep_fixed_<type>.cu (the
// separable kernel compiled for one radius: its taps unrolled, the weights read as constants).
// The separable kernel: a block owns a strip `tileValues` values wide and sweeps down a segment
// of its rows; a step converts Q input rows (plus the apron's columns, border applied) to float in
// shared memory (f32 frames: takes them as they arrived, sweepDirect), runs the row factor over them
// into a ring of the last 2r + Q rows' sums, then the column factor down the ring into Q output
// rows, rounded and stored in the frame's type. Sums in fp32.
#pragma once

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "async.cuh"
#include "common.cuh"
#include "sweep.hpp"
#include "values.cuh"

namespace convlive::kernels {
namespace {

struct SweepArgs {
  const char* in;
  char* out;
  std::size_t pitch, frameStride, outPitch, outFrameStride;
  int width, height, batch, rowsPerBlock;
  Border border;
  Combine combine;
  bool copyFourth;  // 4 channels: the 4th is copied from the input (padding, or alpha not filtered)
  bool vector;      // input base, pitch and frame stride at multiples of 16 bytes: the stage's 16-byte loads
};

template <class T>
struct Value;
template <>
struct Value<unsigned char> {
  static __device__ __forceinline__ float load(const char* p) {
    return float(*reinterpret_cast<const unsigned char*>(p));
  }
  static __device__ __forceinline__ void store(char* p, float v) {
    *reinterpret_cast<unsigned char*>(p) = static_cast<unsigned char>(__float2uint_rn(fminf(fmaxf(v, 0.f), 255.f)));
  }
};
template <>
struct Value<unsigned short> {
  static __device__ __forceinline__ float load(const char* p) {
    return float(*reinterpret_cast<const unsigned short*>(p));
  }
  static __device__ __forceinline__ void store(char* p, float v) {
    *reinterpret_cast<unsigned short*>(p) = static_cast<unsigned short>(__float2uint_rn(fminf(fmaxf(v, 0.f), 65535.f)));
  }
};
template <>
struct Value<__half> {
  static __device__ __forceinline__ float load(const char* p) {
    return __half2float(*reinterpret_cast<const __half*>(p));
  }
  static __device__ __forceinline__ void store(char* p, float v) { *reinterpret_cast<__half*>(p) = __float2half_rn(v); }
};
template <>
struct Value<float> {
  static __device__ __forceinline__ float load(const char* p) { return *reinterpret_cast<const float*>(p); }
  static __device__ __forceinline__ void store(char* p, float v) { *reinterpret_cast<float*>(p) = v; }
};

// Pixels a block makes across, and the outputs a thread makes in the row pass.
template <int C, int VW>
constexpr int sweepWidth() {
  return VW / C;
}
template <int C, int VW, int Q>
constexpr int sweepRowOutputs() {
  const int p = Q * sweepWidth<C, VW>() / kSweepThreads;
  return p < 1 ? 1 : (p > 16 ? 16 : p);
}
// The separable kernel's job: J values of one channel in a row pass, J rows of one column in a
// column pass. 8 for every tile: 16 on the 16-row tile measured no faster on one channel (f32x1 r=8)
// and slower on four (the ring's extra rows: fewer blocks an SM).
constexpr int kSweepJob = 8;
// Floats between rows of `pixels` pixels in the stage or the ring: C floats past a multiple of 32,
// so that rows 1..7 apart start on other banks (the row pass's lanes span 8 rows).
__host__ __device__ constexpr int sweepRowFloats(int pixels, int c) { return (pixels * c - c + 31) / 32 * 32 + c; }
// f32 frames' row passes read the raw chunks as they arrived, with no stage between: three and four
// channels always, one where the instance is compiled for its radius (the window's offset from a
// chunk boundary is then a constant, so that its loads are 16 bytes each; at a run-time offset one
// channel's loads would take 4 wavefronts each). Their raw rows are then twice buffered (the next
// pass's copies land while this pass's row jobs read) and an odd number of chunks apart, so that
// the 8 rows of a warp's loads take every bank once (one channel's 16-byte loads, four channels;
// three channels: the quarter of a warp's lanes in its second group of pixels 2-way).
__host__ __device__ constexpr bool sweepDirect(int typeBytes, int c, bool compiled) {
  return typeBytes == 4 && (c > 1 || compiled);
}
// Chunks of 16 bytes between raw rows: the span's values and one more for its alignment (f32 frames:
// the next odd number).
__host__ __device__ constexpr int sweepRawChunks(int tw, int radius, int c, int typeBytes) {
  const int n = ((tw + 2 * radius) * c * typeBytes + 15) / 16 + 1;
  return typeBytes == 4 ? n | 1 : n;
}
// Chunks past a direct pass's raw rows: a row job's last window loads reach past its row's stride
// (taps past the mask's and the last group's pixels past the strip, never summed) by up to 38
// values (three channels, the 512-value tiles, r = 0; 31 from r = 1). They must reach neither the
// other buffer (being copied into) nor the ring (being written).
constexpr int kSweepRawPad = 12;
// A stage row: the groups' windows, G J + J ceil((2r + 1) / J) pixels (J = kSweepJob).
__host__ __device__ constexpr int sweepStageFloats(int tw, int radius, int c) {
  constexpr int J = kSweepJob;
  const int groups = (tw + J - 1) / J, chunks = (2 * radius + 1 + J - 1) / J;
  return sweepRowFloats((groups + chunks) * J, c);
}
__host__ __device__ constexpr int stageStride(int tw, int radius, int p, int c) {
  return (tw + 2 * radius + 2 * p) * c;
}

// A chunk of 16 bytes from value v of a row with values past its ends (the border's): one value
// at a time.
template <class T, int C>
__device__ __noinline__ uint4 loadChunkBordered(const SweepArgs& a, const char* row, int v) {
  unsigned w[4];
  packBordered<T, C, 16 / int(sizeof(T))>(row, v, a.width * C, a.width, a.border, w);
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// The raw rows of a row pass: rows [y0, y0 + rows) of one frame, values [v0, v0 + span) of each
// (v0 < 0 and past the row: the border's), as 16-byte chunks of the row at absolute multiples of
// 16 bytes (chunks k0.., `chunks` a row), chunk k of row q at raw[q * stride + k]. issueRaw starts
// a pass's copies (cp.async where a chunk lies in an aligned frame, else the border's values
// stored now), convertRaw waits for them and writes the stage as float (value v at v - v0). A
// thread converts the chunks it issued, so no barrier stands between the two, and issues the next
// pass's only into chunks it has converted itself. Direct passes (sweepDirect) have no conversion:
// each thread waits for its own copies, and the block's barrier before the row jobs orders the
// rest; a buffer is copied into again only after the barrier that ends its row jobs.
struct RawRows {
  int v0, span, k0, chunks, stride;
  // Where value v0 lies in chunk k0, in values (E = 16 / sizeof(T) a chunk): a raw row's value v
  // is its v - v0 + lead(E).
  __device__ __forceinline__ int lead(int e) const { return v0 - k0 * e; }
};

// tw: the strip's pixels (the frame's last strip may have fewer than the tile's TW), which are
// all the raw rows hold; their stride is the tile's.
template <class T, int C>
__device__ __forceinline__ RawRows rawRows(int x0, int r, int tw, int TW) {
  constexpr int E = 16 / int(sizeof(T));
  RawRows rr;
  rr.v0 = (x0 - r) * C;
  rr.span = (tw + 2 * r) * C;
  const int last = rr.v0 + rr.span - 1;
  rr.k0 = rr.v0 >= 0 ? rr.v0 / E : -((-rr.v0 + E - 1) / E);
  rr.chunks = (last >= 0 ? last / E : -((-last + E - 1) / E)) - rr.k0 + 1;
  rr.stride = sweepRawChunks(TW, r, C, int(sizeof(T)));
  return rr;
}

// A pass's chunks go to the threads in one of two ways, the same for its copies and its
// conversions, so that each thread reads only what it copied:
//   - f32 frames (65-81 chunks a row on the 256-value tiles, 129-145 on 512): by row and lane,
//     warp w taking rows w, w + kSweepWarps, .. of the pass and its lanes the row's chunks lane,
//     lane + 32, .. (the row's border index and address made once a warp, not once a chunk);
//   - u8 and 16-bit frames (17-73 chunks a row): chunk i of the pass (row i / chunks) to thread
//     i % kSweepThreads, so that no warp walks a row of a few chunks with most of its lanes idle
//     (by row and lane those took 1.05-1.2x the time).
template <class T>
constexpr bool kSweepChunksByRow = sizeof(T) == 4;
constexpr int kSweepWarps = kSweepThreads / 32;

// Item i of a pass: row q, chunk k (q = i / chunks by a float product, i < 2^24, corrected by one
// where it rounds across).
__device__ __forceinline__ void rawItem(int i, int chunks, float perChunk, int& q, int& k) {
  q = int((float(i) + 0.5f) * perChunk);
  k = i - q * chunks;
  if (k < 0) --q, k += chunks;
  if (k >= chunks) ++q, k -= chunks;
}

// The chunks this thread takes of a pass of `rows` rows, in the mapping above: row(q) before the
// chunks of row q it takes (once a warp's row by row and lane, before each chunk by the flat
// index), then chunk(q, k). issueRaw and convertRaw both walk them so, which is what lets each
// thread read only what it copied.
template <class T, class Row, class Chunk>
__device__ __forceinline__ void forEachChunk(const RawRows& rr, int rows, Row&& row, Chunk&& chunk) {
  if constexpr (kSweepChunksByRow<T>) {
    const int lane = int(threadIdx.x) % 32;
    for (int q = int(threadIdx.x) / 32; q < rows; q += kSweepWarps) {
      row(q);
      for (int k = lane; k < rr.chunks; k += 32) chunk(q, k);
    }
  } else {
    const int total = rr.chunks * rows;
    const float perChunk = 1.f / float(rr.chunks);
    for (int i = threadIdx.x; i < total; i += kSweepThreads) {
      int q, k;
      rawItem(i, rr.chunks, perChunk, q, k);
      row(q);
      chunk(q, k);
    }
  }
}

// Whether every raw chunk of the block's rows lies in the row, in a 16-byte-aligned frame.
template <class T, int C>
__device__ __forceinline__ bool rawInside(const SweepArgs& a, const RawRows& rr) {
  constexpr int E = 16 / int(sizeof(T));
  return a.vector && rr.k0 >= 0 && (rr.k0 + rr.chunks) * E <= a.width * C;
}

// inside: rawInside. A pass whose rows all lie in the frame then copies each chunk with no check.
template <class T, int C>
__device__ __forceinline__ void issueRaw(const SweepArgs& a, const char* in, const RawRows& rr, int y0, int rows,
                                         uint4* raw, bool inside) {
  constexpr int E = 16 / int(sizeof(T));
  if (inside && y0 >= 0 && y0 + rows <= a.height) {
    const char* first = in + std::size_t(y0) * a.pitch + std::size_t(rr.k0) * 16;
    const char* src = nullptr;
    uint4* dst = nullptr;
    forEachChunk<T>(
        rr, rows,
        [&](int q) {
          src = first + std::size_t(q) * a.pitch;
          dst = raw + q * rr.stride;
        },
        [&](int, int k) { copyAsync<16>(dst + k, src + 16 * k); });
    commitAsync();
    return;
  }
  const int rowValues = a.width * C;
  const char* row = nullptr;  // the row's first value; null: a row of zeros past a Zero border
  forEachChunk<T>(
      rr, rows,
      [&](int q) {
        const int gy = borderIndex(y0 + q, a.height, a.border);
        row = gy < 0 ? nullptr : in + std::size_t(gy) * a.pitch;
      },
      [&](int q, int k) {
        uint4* dst = raw + q * rr.stride + k;
        const int v = (rr.k0 + k) * E;
        if (!row)
          *dst = make_uint4(0, 0, 0, 0);
        else if (a.vector && v >= 0 && v + E <= rowValues)
          copyAsync<16>(dst, row + std::size_t(v) * sizeof(T));
        else
          *dst = loadChunkBordered<T, C>(a, row, v);
      });
  commitAsync();
}

template <class T, int C>
__device__ __forceinline__ void convertRaw(const RawRows& rr, int rows, const uint4* raw, float* stage, int ss) {
  constexpr int E = 16 / int(sizeof(T)), VPW = Values<T>::kPerWord;
  waitAsync<0>();
  // Chunk k's first value at the stage row's k E - d (value v at v - v0).
  const int d = rr.lead(E);
  const uint4* src = nullptr;
  float* dst = nullptr;
  forEachChunk<T>(
      rr, rows,
      [&](int q) {
        src = raw + q * rr.stride;
        dst = stage + q * ss - d;
      },
      [&](int, int k) {
        const uint4 c = src[k];
        const unsigned w[4] = {c.x, c.y, c.z, c.w};
        const int b = k * E - d;
        float* o = dst + k * E;
        if (b >= 0 && b + E <= rr.span) {
#pragma unroll
          for (int e = 0; e < E; ++e) o[e] = Values<T>::get(w[e / VPW], e % VPW);
        } else {
#pragma unroll
          for (int e = 0; e < E; ++e)
            if (b + e >= 0 && b + e < rr.span) o[e] = Values<T>::get(w[e / VPW], e % VPW);
        }
      });
}

// One tap of the window: accA[o] += wa x win[o + tt] (and accB with wb) for the job's outputs.
template <int J, bool Magnitude>
__device__ __forceinline__ void tapSums(const float* win, float wa, float wb, float (&accA)[J], float (&accB)[J]) {
#pragma unroll
  for (int o = 0; o < J; ++o) accA[o] = fmaf(wa, win[o], accA[o]);
  if constexpr (Magnitude)
#pragma unroll
    for (int o = 0; o < J; ++o) accB[o] = fmaf(wb, win[o], accB[o]);
}

// The chunks of J taps before the last: body(t0) for t0 = 0, J, .. while more than J + 1 taps remain
// from t0; returns the last chunk's t0, which takes the 1..J + 1 left (2r + 1 = 8k + 1 ends on a
// chunk of J + 1, with no tap guarded). TAPS > 0: the tap count is that constant and the chunks are
// unrolled, so that each weight is read at a fixed offset (a constant operand of the FFMA) and the
// window's registers are renamed, not moved; 0: `taps` read at run time.
template <int J, int TAPS, class Body>
__device__ __forceinline__ int wholeChunks(int taps, Body&& body) {
  if constexpr (TAPS > 0) {
    constexpr int n = TAPS > J + 1 ? (TAPS - 2) / J : 0;
#pragma unroll
    for (int c = 0; c < n; ++c) body(c * J);
    return n * J;
  } else {
    int t0 = 0;
    for (; taps - t0 > J + 1; t0 += J) body(t0);
    return t0;
  }
}

// A row job: J outputs of one channel, sum over t < taps of wa[t] x s[(o + t) C] (and wb):
// the window in registers, J values loaded a chunk of J taps; the last chunk, which
// the odd 2r + 1 always leaves part full, stops at the mask's last tap. TAPS: as wholeChunks.
// D0 >= 0 (one channel, J = 8): s is 16-byte aligned and the window's first value s[D0]; its values
// are loaded 4 at a time, the 4 that straddle two loads kept from the one before.
template <int J, int C, bool Magnitude, int TAPS = 0, int D0 = -1>
__device__ __forceinline__ void rowJob(const float* s, const float* wa, const float* wb, int tapsRead, float (&accA)[J],
                                       float (&accB)[J]) {
  static_assert(D0 < 0 || (C == 1 && J == 8 && D0 < 4), "aligned windows: one channel, 8 values a job");
  const int taps = TAPS > 0 ? TAPS : tapsRead;
  float win[2 * J];
  float4 carry = make_float4(0.f, 0.f, 0.f, 0.f);  // D0 > 0: the 4 values from s[i0] on
  if constexpr (D0 > 0) carry = *reinterpret_cast<const float4*>(s);
  // win[at + k] = the window's value i0 + k, k < J (i0 a multiple of J, in order)
  auto load = [&](int i0, int at) {
    if constexpr (D0 < 0) {
#pragma unroll
      for (int k = 0; k < J; ++k) win[at + k] = s[(i0 + k) * C];
    } else {
      const float4* p = reinterpret_cast<const float4*>(s + i0);
      const float4 b0 = D0 > 0 ? carry : p[0], b1 = p[1];
      const float4 b2 = D0 > 0 ? p[2] : b1;
      const float t[12] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w, b2.x, b2.y, b2.z, b2.w};
#pragma unroll
      for (int k = 0; k < J; ++k) win[at + k] = t[D0 + k];
      carry = b2;
    }
  };
  load(0, 0);
  const int t0 = wholeChunks<J, TAPS>(taps, [&](int c0) {
    load(c0 + J, J);
#pragma unroll
    for (int tt = 0; tt < J; ++tt)
      tapSums<J, Magnitude>(win + tt, wa[c0 + tt], Magnitude ? wb[c0 + tt] : 0.f, accA, accB);
#pragma unroll
    for (int k = 0; k < J; ++k) win[k] = win[J + k];
  });
  load(t0 + J, J);
  if (taps - t0 == J + 1) {
#pragma unroll
    for (int tt = 0; tt <= J; ++tt)
      tapSums<J, Magnitude>(win + tt, wa[t0 + tt], Magnitude ? wb[t0 + tt] : 0.f, accA, accB);
  } else {
#pragma unroll
    for (int tt = 0; tt < J; ++tt)
      if (t0 + tt < taps) tapSums<J, Magnitude>(win + tt, wa[t0 + tt], Magnitude ? wb[t0 + tt] : 0.f, accA, accB);
  }
}

// A column job: J outputs down column j of the ring from `slot` (the ring row of the first
// output's first tap), sum over t < taps of wa[t] x row (o + t) (and wb on ringB). The ring's first
// J rows are kept again past its end (rowPass writes both), so that a chunk of J
// rows from any slot lies in one piece: one address a chunk, the rows at fixed offsets from it.
// TAPS: as wholeChunks.
template <int J, int RS, bool Magnitude, int TAPS = 0>
__device__ __forceinline__ void columnJob(const float* ringA, const float* ringB, int ring, int slot, int j,
                                          const float* wa, const float* wb, int tapsRead, float (&accA)[J],
                                          float (&accB)[J]) {
  const int taps = TAPS > 0 ? TAPS : tapsRead;
  float winA[2 * J], winB[2 * J];
  ringA += j;
  ringB += j;
  auto load = [&](int sl, int at) {
#pragma unroll
    for (int i = 0; i < J; ++i) winA[at + i] = ringA[(sl + i) * RS];
    if constexpr (Magnitude)
#pragma unroll
      for (int i = 0; i < J; ++i) winB[at + i] = ringB[(sl + i) * RS];
  };
  auto tap = [&](int t, int tt) {
#pragma unroll
    for (int k = 0; k < J; ++k) accA[k] = fmaf(wa[t], winA[k + tt], accA[k]);
    if constexpr (Magnitude)
#pragma unroll
      for (int k = 0; k < J; ++k) accB[k] = fmaf(wb[t], winB[k + tt], accB[k]);
  };
  auto next = [&] { slot = slot + J >= ring ? slot + J - ring : slot + J; };
  load(slot, 0);
  const int t0 = wholeChunks<J, TAPS>(taps, [&](int c0) {  // chunks as rowJob's
    next();
    load(slot, J);
#pragma unroll
    for (int tt = 0; tt < J; ++tt) tap(c0 + tt, tt);
#pragma unroll
    for (int i = 0; i < J; ++i) {
      winA[i] = winA[J + i];
      if constexpr (Magnitude) winB[i] = winB[J + i];
    }
  });
  next();
  load(slot, J);
  if (taps - t0 == J + 1) {
#pragma unroll
    for (int tt = 0; tt <= J; ++tt) tap(t0 + tt, tt);
  } else {
#pragma unroll
    for (int tt = 0; tt < J; ++tt)
      if (t0 + tt < taps) tap(t0 + tt, tt);
  }
}

// The separable kernel. A step's rows pass through three stages:
//   - the input rows, the apron's columns with the border applied, as float in the stage: 16-byte
//     copies where a chunk of the row lies in an aligned frame (with no check a chunk where all of
//     the pass's do), else value by value; f32 frames' row jobs read the copies themselves;
//   - the row factor, a job J values of one channel in one row, into the ring of the last
//     2r + Q rows' sums: the window slid in registers J taps a load;
//   - the column factor, a job one column of J output rows, down the ring, likewise.
// The lanes of a row job's warp take its channels, then 8 rows, then its groups of pixels, and the
// stage's and the ring's rows are C floats past a multiple of 32 (sweepRowFloats): every lane on
// a bank of its own (f32 frames' raw rows: an odd number of chunks apart, see sweepDirect). The
// taps run in chunks of J to the mask's 2r + 1 (none padded).
// Magnitude: two sums a value in each pass, an instance of its own. 4 blocks an SM (64 registers),
// or 2 with two sums; the instances compiled for their radius on 16-bit frames 5 (48 registers, no
// spill), which their shared memory allows to r = 7 on one channel: u16x4 and f16x4 at r = 5, 6
// 1.05-1.09x faster (H200, 4K and 16 1080p). Held to 48, the run-time instances lost: 16-bit
// frames at r = 24 6-7%, u8x4 8-14%.
// TO: the output's values (T's, or float from u8: the sums as they are).
// RC: the radius the instance is compiled for (m.radius must equal it), or 0: m.radius read at run
// time. A compiled radius unrolls the jobs' taps (wholeChunks) and makes the ring's and the
// stage's sizes constants.
// The blocks an SM the compiled 16-bit instances ask for (above): 5, but Turing holds at most 4 of
// 256 threads (1024 threads an SM; ptxas ignores a larger bound there and warns).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kSweepCompiled16BitBlocks = 4;
#else
constexpr int kSweepCompiled16BitBlocks = 5;
#endif
template <class T, int C, int VW, int Q, bool Magnitude, class TO = T, int RC = 0>
__global__ void __launch_bounds__(kSweepThreads,
                                  Magnitude ? 2 : (sizeof(T) == 2 && RC > 0 ? kSweepCompiled16BitBlocks : 4))
    sweepKernel(const __grid_constant__ SweepArgs a, const __grid_constant__ SweepMask m) {
  constexpr int TW = sweepWidth<C, VW>(), J = kSweepJob, G = (TW + J - 1) / J;
  constexpr int RS = sweepRowFloats(TW, C), TAPS = RC > 0 ? 2 * RC + 1 : 0;
  extern __shared__ __align__(16) uint4 sweepShared[];
  const int r = RC > 0 ? RC : m.radius, taps = 2 * r + 1, ring = 2 * r + Q;
  const int ss = sweepStageFloats(TW, r, C);
  const bool absolute = a.combine == Combine::Abs;
  const int x0 = blockIdx.x * TW;
  // The frame's last strip may hold a few pixels (a 256-pixel f32x3 row is 3 strips of 85 and one
  // of 1): it reads and sums only those and their apron, not a whole strip through the border mode.
  // One channel's strips divide the usual widths, and the clip costs those kernels a register
  // spill, so they read whole strips as before.
  constexpr bool kClip = C > 1;
  const RawRows rr = rawRows<T, C>(x0, r, kClip ? min(TW, a.width - x0) : TW, TW);
  const bool inside = rawInside<T, C>(a, rr);
  // Direct: pass n's raw rows in buffer n % 2, read by the row jobs as they are; else one buffer,
  // converted into the stage.
  constexpr bool kDirect = sweepDirect(int(sizeof(T)), C, RC > 0);
  const int rawBuffer = kDirect ? Q * rr.stride + kSweepRawPad : 0;
  uint4* raw = sweepShared;
  float* stage = reinterpret_cast<float*>(raw + (kDirect ? 2 * rawBuffer : Q * rr.stride));
  float* ringA = kDirect ? stage : stage + Q * ss;
  float* ringB = ringA + (ring + J) * RS;  // each ring: its rows, then its first J again
  const int yStart = blockIdx.y * a.rowsPerBlock, yEnd = min(yStart + a.rowsPerBlock, a.height);
  const int tid = threadIdx.x;
  // The row passes: the apron's rows above in steps of Q, then a step a Q output rows (the rows
  // r below them).
  const int aprons = (2 * r + Q - 1) / Q, passes = aprons + (yEnd - yStart + Q - 1) / Q;
  auto passRows = [&](int n, int& y0, int& rows) {
    if (n < aprons) {
      y0 = yStart - r + n * Q;
      rows = min(Q, yStart + r - y0);
    } else {
      y0 = yStart + (n - aprons) * Q + r;
      rows = min(Q, yEnd + r - y0);
    }
  };

  for (int f = blockIdx.z; f < a.batch; f += gridDim.z) {
    const char* in = a.in + a.frameStride * std::size_t(f);
    char* out = a.out + a.outFrameStride * std::size_t(f);

    // Row pass n: its rows from the raw chunks into the stage as float (direct: taken as they are),
    // the next pass's copies then issued, then their row sums into the ring.
    auto rowPass = [&](int n, int y0, int rows) {
      if constexpr (kDirect)
        waitAsync<0>();
      else
        convertRaw<T, C>(rr, rows, raw, stage, ss);
      if (n + 1 < passes) {
        int y1, rows1;
        passRows(n + 1, y1, rows1);
        issueRaw<T, C>(a, in, rr, y1, rows1, raw + ((n + 1) & 1) * rawBuffer, inside);
      }
      __syncthreads();
      // The row jobs' values: the stage's rows, or (direct) this pass's raw rows, value v of row q
      // at rows[q * rowStride + v - v0].
      const float* rowsAt = kDirect ? reinterpret_cast<const float*>(raw + (n & 1) * rawBuffer) + rr.lead(4) : stage;
      const int rowStride = kDirect ? 4 * rr.stride : ss;
      const int base = (y0 - (yStart - r)) % ring;  // the ring slot of row y0
      // CC channels a pixel (C, or the first 3 of 4 when the 4th is copied: its sums are not made)
      auto rowJobs = [&](auto channels) {
        constexpr int CC = decltype(channels)::value;
        const int jobs = CC * 8 * G * ((rows + 7) / 8);
        for (int job = tid; job < jobs; job += kSweepThreads) {
          // the lanes: channel, then 8 rows, then the groups of J pixels; then the next 8 rows
          const int c = job % CC, rest = job / CC, qLo = rest % 8, rest2 = rest / 8, g = rest2 % G;
          const int q = (rest2 / G) * 8 + qLo;
          if (q >= rows || (kClip && x0 + g * J >= a.width)) continue;  // past a short last strip
          float accA[J], accB[J];
#pragma unroll
          for (int o = 0; o < J; ++o) accA[o] = accB[o] = 0.f;
          if constexpr (kDirect && C == 1) {             // the window 16-byte aligned but for its constant offset
            constexpr int D0 = ((-RC * C) % 4 + 4) % 4;  // rr.lead(4): strips start on chunk boundaries
            rowJob<J, C, Magnitude, TAPS, D0>(rowsAt - D0 + q * rowStride + g * J, m.row, m.col, taps, accA, accB);
          } else {
            rowJob<J, C, Magnitude, TAPS>(rowsAt + q * rowStride + g * J * C + c, m.row, m.col, taps, accA, accB);
          }
          const int slot = base + q >= ring ? base + q - ring : base + q;
          float* dA = ringA + slot * RS + g * J * C + c;
          const int again = slot < J ? ring * RS : 0;  // the ring's first J rows, kept past its end too
#pragma unroll
          for (int o = 0; o < J; ++o)
            if (TW % J == 0 || g * J + o < TW) {
              dA[o * C] = accA[o];
              if (again) dA[again + o * C] = accA[o];
              if constexpr (Magnitude) {
                dA[(ringB - ringA) + o * C] = accB[o];
                if (again) dA[(ringB - ringA) + again + o * C] = accB[o];
              }
            }
        }
      };
      if (C == 4 && a.copyFourth)
        rowJobs(std::integral_constant<int, 3>{});
      else
        rowJobs(std::integral_constant<int, C>{});
      __syncthreads();
    };

    // The column factor down the ring into output rows [y0, y0 + rows), J rows a job: job (qb, px,
    // ch) makes rows y0 + qb J.. of the value ch of pixel px.
    auto columnPass = [&](int y0, int rows) {
      const int base = (y0 - yStart) % ring;  // the ring slot of row y0 - r
      auto columnAt = [&](int qb, int px, int ch) {
        const int j = px * C + ch, x = x0 + px, yb = y0 + qb * J, here = min(J, rows - qb * J);
        if (x >= a.width) return;
        const std::size_t at = (std::size_t(x) * C + ch) * sizeof(T);
        char* o = out + std::size_t(yb) * a.outPitch + (std::size_t(x) * C + ch) * sizeof(TO);
        // A kept 4th channel is copied from the input, in jobs of its own (no sums made for it):
        // a job's loads, then its stores (one wait, not one a row), the values' bits held in the
        // sums' registers.
        const bool copy = C == 4 && ch == 3 && a.copyFourth;
        float accA[J], accB[J];
#pragma unroll
        for (int k = 0; k < J; ++k) accA[k] = accB[k] = 0.f;
        if (copy) {
          const char* i = in + std::size_t(yb) * a.pitch + at;
#pragma unroll
          for (int k = 0; k < J; ++k, i += a.pitch)
            if (k < here) {
              if constexpr (std::is_same_v<T, TO>) {
                unsigned bits = 0;
                std::memcpy(&bits, i, sizeof(T));
                accA[k] = __uint_as_float(bits);
              } else {
                accA[k] = Value<T>::load(i);
              }
            }
        } else {
          const int slot = base + qb * J >= ring ? base + qb * J - ring : base + qb * J;
          columnJob<J, RS, Magnitude, TAPS>(ringA, ringB, ring, slot, j, m.col, m.row, taps, accA, accB);
#pragma unroll
          for (int k = 0; k < J; ++k) {
            if constexpr (Magnitude)
              accA[k] = sqrtf(accA[k] * accA[k] + accB[k] * accB[k]);
            else if (absolute)
              accA[k] = fabsf(accA[k]);
          }
        }
        if constexpr (std::is_same_v<T, TO>) {
          if (copy) {
#pragma unroll
            for (int k = 0; k < J; ++k, o += a.outPitch)
              if (k < here) {
                const unsigned bits = __float_as_uint(accA[k]);
                std::memcpy(o, &bits, sizeof(T));  // little-endian: the low bytes
              }
            return;
          }
        }
        if (here == J) {
#pragma unroll
          for (int k = 0; k < J; ++k, o += a.outPitch) Value<TO>::store(o, accA[k]);
        } else {
#pragma unroll
          for (int k = 0; k < J; ++k, o += a.outPitch)
            if (k < here) Value<TO>::store(o, accA[k]);
        }
      };
      const int blocks = (rows + J - 1) / J;
      if (C == 4 && a.copyFourth) {  // the 3 filtered channels, then the copies of the 4th
        for (int job = tid; job < TW * 3 * blocks; job += kSweepThreads) {
          const int qb = job / (TW * 3), v = job - qb * (TW * 3), px = v / 3;
          columnAt(qb, px, v - px * 3);
        }
        for (int job = tid; job < TW * blocks; job += kSweepThreads) {
          const int qb = job / TW;
          columnAt(qb, job - qb * TW, 3);
        }
      } else {
        for (int job = tid; job < TW * C * blocks; job += kSweepThreads) {
          const int qb = job / (TW * C), v = job - qb * (TW * C), px = v / C;
          columnAt(qb, px, v - px * C);
        }
      }
    };

    // The apron's rows above, then a step a Q rows: their row sums, then the outputs they complete.
    {
      int y0, rows;
      passRows(0, y0, rows);
      issueRaw<T, C>(a, in, rr, y0, rows, raw, inside);
    }
    for (int n = 0; n < passes; ++n) {
      int y0, rows;
      passRows(n, y0, rows);
      rowPass(n, y0, rows);
      if (n >= aprons) columnPass(y0 - r, rows);
    }
    __syncthreads();  // the next frame's stage and ring writes wait for this frame's readers
  }
}

}  // namespace
}  // namespace convlive::kernels

namespace convlive::kernels {

// The separable kernel's instances compiled for one radius (sweepFixedKernel), one file a type.
const void* sweepFixedU16(int channels, int radius);
const void* sweepFixedF16(int channels, int radius);
const void* sweepFixedF32(int channels, int radius);

namespace {
// Type T's instances for `channels` at radius r (kSweepFixedMinRadius..kSweepFixedMaxRadius, tile
// kSweepFixedValues x kSweepFixedRows, neither a magnitude nor another output type), else nullptr.
template <class T, int C, int... I>
const void* fixedInstance(int radius, std::integer_sequence<int, I...>) {
  const void* k = nullptr;
  ((radius == kSweepFixedMinRadius + I
        ? (k = reinterpret_cast<const void*>(
               &sweepKernel<T, C, kSweepFixedValues, kSweepFixedRows, false, T, kSweepFixedMinRadius + I>))
        : nullptr),
   ...);
  return k;
}
template <class T>
const void* fixedInstance(int channels, int radius) {
  using Radii = std::make_integer_sequence<int, kSweepFixedMaxRadius - kSweepFixedMinRadius + 1>;
  switch (channels) {
    case 1:
      return fixedInstance<T, 1>(radius, Radii{});
    case 3:
      return fixedInstance<T, 3>(radius, Radii{});
    case 4:
      return fixedInstance<T, 4>(radius, Radii{});
  }
  return nullptr;
}
}  // namespace

}  // namespace convlive::kernels
