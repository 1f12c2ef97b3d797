// sweep: a separable filter on frames of any pixel type and 1, 3 or 4 channels, a batch in one
// launch. Each block owns a strip `tileValues` values wide and sweeps down a segment of its rows:
// a step converts `Q` input rows (plus the apron's columns, border applied) to float in shared
// memory, runs the row factor over them into a ring of the last 2r + Q rows' sums (each thread P
// outputs, the input window held in registers and slid by P taps a load), then the column factor
// down the ring into Q output rows (each thread one column, the window of rows in registers
// likewise), rounded and stored in the frame's type. Sums in fp32.
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

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
// Chunks of 16 bytes a raw row holds: the span's values and one more for its alignment.
__host__ __device__ constexpr int sweepRawChunks(int tw, int radius, int c, int typeBytes) {
  return ((tw + 2 * radius) * c * typeBytes + 15) / 16 + 1;
}
// A stage row: the groups' windows, G J + J ceil((2r + 1) / J) pixels (J = kSweepJob).
__host__ __device__ constexpr int sweepStageFloats(int tw, int radius, int c) {
  constexpr int J = kSweepJob;
  const int groups = (tw + J - 1) / J, chunks = (2 * radius + 1 + J - 1) / J;
  return sweepRowFloats((groups + chunks) * J, c);
}
__host__ __device__ constexpr int stageStride(int tw, int radius, int p, int c) {
  return (tw + 2 * radius + 2 * p) * c;
}

// Input rows [y0, y0 + rows) of one frame, the segment of pixels [x0 - r, x0 + tw + r) with the
// border applied, into shared memory as float: row q at base + slot * ss, its slot firstSlot + q
// wrapping at `ring`. The elements go to the threads in turn, row after row, and each thread issues
// its loads kBatch at a time before it stores any: one memory latency a batch, not one an element
// (a step's load then waited on each element's latency in turn: 0.1 ms for a 4K u8x1 gaussian r=1).
constexpr int kLoadBatch = 8;
template <class T, int C>
__device__ __forceinline__ void loadRows(const SweepArgs& a, const char* in, int x0, int r, int tw, int y0, int rows,
                                         float* base, int firstSlot, int ring, int ss) {
  const int span = (tw + 2 * r) * C;
  int e = threadIdx.x, q = 0;
  while (e >= span) e -= span, ++q;
  int slot = firstSlot + q;
  while (slot >= ring) slot -= ring;
  while (q < rows) {
    float v[kLoadBatch];
    int to[kLoadBatch];
#pragma unroll
    for (int k = 0; k < kLoadBatch; ++k) {
      to[k] = -1;
      if (q < rows) {
        const int gy = borderIndex(y0 + q, a.height, a.border);
        const int px = e / C, ch = e - px * C;  // C is a constant: no division
        const int gx = borderIndex(x0 - r + px, a.width, a.border);
        v[k] = gx < 0 || gy < 0
                   ? 0.f
                   : Value<T>::load(in + std::size_t(gy) * a.pitch + (std::size_t(gx) * C + ch) * sizeof(T));
        to[k] = slot * ss + e;
        e += kSweepThreads;
        while (e >= span) {
          e -= span;
          ++q;
          slot = slot + 1 == ring ? 0 : slot + 1;
        }
      }
    }
#pragma unroll
    for (int k = 0; k < kLoadBatch; ++k)
      if (to[k] >= 0) base[to[k]] = v[k];
  }
}

// One row's window sums, added to accA (weights wa[t]) and, for a gradient magnitude, accB
// (weights wb[t * wbStride]): P outputs x C channels of sum over t < taps of w[t] x s[(p + t) * C + c],
// s being the row's values from the job's first pixel. The window is held in registers and slid P
// taps a load. Both passes of the separable kernel's row factor and each mask row of the 2D one.
template <int C, int P>
__device__ __forceinline__ void rowSums(const float* s, const float* wa, const float* wb, int wbStride, int taps,
                                        bool magnitude, float (&accA)[C][P], float (&accB)[C][P]) {
  float win[C][2 * P];
#pragma unroll
  for (int j = 0; j < P; ++j)
#pragma unroll
    for (int c = 0; c < C; ++c) win[c][j] = s[j * C + c];
  for (int t0 = 0; t0 < taps; t0 += P) {
#pragma unroll
    for (int j = 0; j < P; ++j)
#pragma unroll
      for (int c = 0; c < C; ++c) win[c][P + j] = s[(t0 + P + j) * C + c];
#pragma unroll
    for (int tt = 0; tt < P; ++tt) {
      if (t0 + tt < taps) {
        const float a = wa[t0 + tt];
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
          for (int p = 0; p < P; ++p) accA[c][p] = fmaf(a, win[c][p + tt], accA[c][p]);
        if (magnitude) {
          const float b = wb[(t0 + tt) * wbStride];
#pragma unroll
          for (int c = 0; c < C; ++c)
#pragma unroll
            for (int p = 0; p < P; ++p) accB[c][p] = fmaf(b, win[c][p + tt], accB[c][p]);
        }
      }
    }
#pragma unroll
    for (int j = 0; j < P; ++j)
#pragma unroll
      for (int c = 0; c < C; ++c) win[c][j] = win[c][P + j];
  }
}

// The separable kernel. A step's rows pass through three stages:
//   - the input rows, the apron's columns with the border applied, as float in the stage: 16-byte
//     loads where a chunk of the row lies in an aligned frame, else value by value;
//   - the row factor, a job J values of one channel in one row, into the ring of the last
//     2r + Q rows' sums: the window slid in registers J taps a load;
//   - the column factor, a job one column of J output rows, down the ring, likewise.
// The lanes of a row job's warp take its channels, then 8 rows, then its groups of pixels, and the
// stage's and the ring's rows are C floats past a multiple of 32 (sweepRowFloats): every lane on
// a bank of its own. The taps run in chunks of J to the mask's 2r + 1 (none padded).
template <class T, int C>
__device__ __noinline__ uint4 loadChunkBordered(const SweepArgs& a, const char* row, int v) {
  constexpr int E = 16 / int(sizeof(T)), VPW = Values<T>::kPerWord;
  unsigned w[4] = {0, 0, 0, 0};
  const int rowValues = a.width * C;
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const int xv = v + e;
    int at = xv;
    if (xv < 0 || xv >= rowValues) {
      const int px = xv >= 0 ? xv / C : -((-xv + C - 1) / C), ch = xv - px * C;
      const int sx = borderIndex(px, a.width, a.border);
      at = sx < 0 ? -1 : sx * C + ch;
    }
    if (at < 0) continue;
    T value;
    std::memcpy(&value, row + std::size_t(at) * sizeof(T), sizeof(T));
    unsigned bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    w[e / VPW] |= bits << (8 * sizeof(T) * (e % VPW));
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// The raw rows of a row pass: rows [y0, y0 + rows) of one frame, values [v0, v0 + span) of each
// (v0 < 0 and past the row: the border's), as 16-byte chunks of the row at absolute multiples of
// 16 bytes (chunks k0.., `chunks` a row), chunk k of row q at raw[q * stride + k]. issueRaw starts
// a pass's copies (cp.async where a chunk lies in an aligned frame, else the border's values
// stored now), convertRaw waits for them and writes the stage as float (value v at v - v0). A
// thread converts the chunks it issued, so no barrier stands between the two, and issues the next
// pass's only into chunks it has converted itself.
struct RawRows {
  int v0, span, k0, chunks, stride;
};

template <class T, int C>
__device__ __forceinline__ RawRows rawRows(int x0, int r, int tw) {
  constexpr int E = 16 / int(sizeof(T));
  RawRows rr;
  rr.v0 = (x0 - r) * C;
  rr.span = (tw + 2 * r) * C;
  const int last = rr.v0 + rr.span - 1;
  rr.k0 = rr.v0 >= 0 ? rr.v0 / E : -((-rr.v0 + E - 1) / E);
  rr.chunks = (last >= 0 ? last / E : -((-last + E - 1) / E)) - rr.k0 + 1;
  rr.stride = sweepRawChunks(tw, r, C, int(sizeof(T)));
  return rr;
}

// Item i of a pass: row q, chunk k (q = i / chunks by a float product, i < 2^24, corrected by one
// where it rounds across).
__device__ __forceinline__ void rawItem(int i, int chunks, float perChunk, int& q, int& k) {
  q = int((float(i) + 0.5f) * perChunk);
  k = i - q * chunks;
  if (k < 0) --q, k += chunks;
  if (k >= chunks) ++q, k -= chunks;
}

template <class T, int C>
__device__ __forceinline__ void issueRaw(const SweepArgs& a, const char* in, const RawRows& rr, int y0, int rows,
                                         uint4* raw) {
  constexpr int E = 16 / int(sizeof(T));
  const int total = rr.chunks * rows, rowValues = a.width * C;
  const float perChunk = 1.f / float(rr.chunks);
  for (int i = threadIdx.x; i < total; i += kSweepThreads) {
    int q, k;
    rawItem(i, rr.chunks, perChunk, q, k);
    const int v = (rr.k0 + k) * E;
    uint4* dst = raw + q * rr.stride + k;
    const int gy = borderIndex(y0 + q, a.height, a.border);
    if (gy < 0) {
      *dst = make_uint4(0, 0, 0, 0);
      continue;
    }
    const char* row = in + std::size_t(gy) * a.pitch;
    if (a.vector && v >= 0 && v + E <= rowValues)
      copyAsync<16>(dst, row + std::size_t(v) * sizeof(T));
    else
      *dst = loadChunkBordered<T, C>(a, row, v);
  }
  commitAsync();
}

template <class T, int C>
__device__ __forceinline__ void convertRaw(const RawRows& rr, int rows, const uint4* raw, float* stage, int ss) {
  constexpr int E = 16 / int(sizeof(T)), VPW = Values<T>::kPerWord;
  const int total = rr.chunks * rows;
  const float perChunk = 1.f / float(rr.chunks);
  waitAsync<0>();
  for (int i = threadIdx.x; i < total; i += kSweepThreads) {
    int q, k;
    rawItem(i, rr.chunks, perChunk, q, k);
    const int v = (rr.k0 + k) * E;
    const uint4 c = raw[q * rr.stride + k];
    const unsigned w[4] = {c.x, c.y, c.z, c.w};
    float* dst = stage + q * ss + (v - rr.v0);
    if (v >= rr.v0 && v + E <= rr.v0 + rr.span) {
#pragma unroll
      for (int e = 0; e < E; ++e) dst[e] = Values<T>::get(w[e / VPW], e % VPW);
    } else {
#pragma unroll
      for (int e = 0; e < E; ++e)
        if (v + e >= rr.v0 && v + e < rr.v0 + rr.span) dst[e] = Values<T>::get(w[e / VPW], e % VPW);
    }
  }
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

// A row job: J outputs of one channel, sum over t < taps of wa[t] x s[(o + t) C] (and wb):
// the window in registers, J values loaded a chunk of J taps; the last chunk, which
// the odd 2r + 1 always leaves part full, stops at the mask's last tap.
template <int J, int C, bool Magnitude>
__device__ __forceinline__ void rowJob(const float* s, const float* wa, const float* wb, int taps, float (&accA)[J],
                                       float (&accB)[J]) {
  float win[2 * J];
#pragma unroll
  for (int k = 0; k < J; ++k) win[k] = s[k * C];
  // Chunks of J taps while more than J + 1 remain; the last takes the 1..J + 1 left (win[o + J]
  // is loaded: 2r + 1 = 8k + 1 ends on a chunk of J + 1, with no tap guarded).
  int t0 = 0;
  for (; taps - t0 > J + 1; t0 += J) {
    s += J * C;
#pragma unroll
    for (int k = 0; k < J; ++k) win[J + k] = s[k * C];
#pragma unroll
    for (int tt = 0; tt < J; ++tt)
      tapSums<J, Magnitude>(win + tt, wa[t0 + tt], Magnitude ? wb[t0 + tt] : 0.f, accA, accB);
#pragma unroll
    for (int k = 0; k < J; ++k) win[k] = win[J + k];
  }
  s += J * C;
#pragma unroll
  for (int k = 0; k < J; ++k) win[J + k] = s[k * C];
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
template <int J, int RS, bool Magnitude>
__device__ __forceinline__ void columnJob(const float* ringA, const float* ringB, int ring, int slot, int j,
                                          const float* wa, const float* wb, int taps, float (&accA)[J],
                                          float (&accB)[J]) {
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
  load(slot, 0);
  int t0 = 0;  // chunks as rowJob's
  for (; taps - t0 > J + 1; t0 += J) {
    slot = slot + J >= ring ? slot + J - ring : slot + J;
    load(slot, J);
#pragma unroll
    for (int tt = 0; tt < J; ++tt) tap(t0 + tt, tt);
#pragma unroll
    for (int i = 0; i < J; ++i) {
      winA[i] = winA[J + i];
      if constexpr (Magnitude) winB[i] = winB[J + i];
    }
  }
  slot = slot + J >= ring ? slot + J - ring : slot + J;
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

// Magnitude: two sums a value in each pass, an instance of its own. 4 blocks an SM (64 registers), or
// 2 with two sums.
// TO: the output's values (T's, or float from u8: the sums as they are).
template <class T, int C, int VW, int Q, bool Magnitude, class TO = T>
__global__ void __launch_bounds__(kSweepThreads, Magnitude ? 2 : 4)
    sweepKernel(const __grid_constant__ SweepArgs a, const __grid_constant__ SweepMask m) {
  constexpr int TW = sweepWidth<C, VW>(), J = kSweepJob, G = (TW + J - 1) / J;
  constexpr int RS = sweepRowFloats(TW, C);
  extern __shared__ __align__(16) uint4 sweepShared[];
  const int r = m.radius, taps = 2 * r + 1, ring = 2 * r + Q;
  const int ss = sweepStageFloats(TW, r, C);
  const bool absolute = a.combine == Combine::Abs;
  const int x0 = blockIdx.x * TW;
  const RawRows rr = rawRows<T, C>(x0, r, TW);
  uint4* raw = sweepShared;
  float* stage = reinterpret_cast<float*>(raw + Q * rr.stride);
  float* ringA = stage + Q * ss;
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

    // Row pass n: its rows from the raw chunks into the stage as float (the next pass's copies
    // then issued), then their row sums into the ring.
    auto rowPass = [&](int n, int y0, int rows) {
      convertRaw<T, C>(rr, rows, raw, stage, ss);
      if (n + 1 < passes) {
        int y1, rows1;
        passRows(n + 1, y1, rows1);
        issueRaw<T, C>(a, in, rr, y1, rows1, raw);
      }
      __syncthreads();
      const int base = (y0 - (yStart - r)) % ring;  // the ring slot of row y0
      // CC channels a pixel (C, or the first 3 of 4 when the 4th is copied: its sums are not made)
      auto rowJobs = [&](auto channels) {
        constexpr int CC = decltype(channels)::value;
        const int jobs = CC * 8 * G * ((rows + 7) / 8);
        for (int job = tid; job < jobs; job += kSweepThreads) {
          // the lanes: channel, then 8 rows, then the groups of J pixels; then the next 8 rows
          const int c = job % CC, rest = job / CC, qLo = rest % 8, rest2 = rest / 8, g = rest2 % G;
          const int q = (rest2 / G) * 8 + qLo;
          if (q >= rows) continue;
          float accA[J], accB[J];
#pragma unroll
          for (int o = 0; o < J; ++o) accA[o] = accB[o] = 0.f;
          rowJob<J, C, Magnitude>(stage + q * ss + g * J * C + c, m.row, m.col, taps, accA, accB);
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

    // The column factor down the ring into output rows [y0, y0 + rows), J rows a job.
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
          columnJob<J, RS, Magnitude>(ringA, ringB, ring, slot, j, m.col, m.row, taps, accA, accB);
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
      issueRaw<T, C>(a, in, rr, y0, rows, raw);
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

// A 2D mask: the ring holds the last 2r + Q input rows themselves (as float); each output sums the
// mask's rows one at a time (each row's sum from zero, then added: the error bound of two short
// sums, as the separable pass has), P outputs a thread, the window slid in registers.
template <class T, int C, int VW, int Q, class TO = T>
__global__ void __launch_bounds__(kSweepThreads)
    sweep2dKernel(const __grid_constant__ SweepArgs a, const __grid_constant__ Mask2D m) {
  constexpr int TW = sweepWidth<C, VW>(), P = sweepRowOutputs<C, VW, Q>(), GROUPS = (TW + P - 1) / P;
  extern __shared__ float smem[];
  const int r = m.radius, taps = 2 * r + 1, ring = 2 * r + Q, ss = stageStride(TW, r, P, C);
  const bool magnitude = a.combine == Combine::Magnitude;
  const int x0 = blockIdx.x * TW, yStart = blockIdx.y * a.rowsPerBlock, yEnd = min(yStart + a.rowsPerBlock, a.height);
  const int tid = threadIdx.x;

  for (int f = blockIdx.z; f < a.batch; f += gridDim.z) {
    const char* in = a.in + a.frameStride * std::size_t(f);
    char* out = a.out + a.outFrameStride * std::size_t(f);

    // Input rows [y0, y0 + rows) into their ring slots as float, the border applied.
    auto load = [&](int y0, int rows) {
      loadRows<T, C>(a, in, x0, r, TW, y0, rows, smem, (y0 - (yStart - r)) % ring, ring, ss);
    };

    // Output rows [y0, y0 + rows), P pixels a job.
    auto compute = [&](int y0, int rows) {
      for (int job = tid; job < rows * GROUPS; job += kSweepThreads) {
        const int q = job / GROUPS, px0 = (job - q * GROUPS) * P;
        float accA[C][P], accB[C][P];
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
          for (int p = 0; p < P; ++p) accA[c][p] = accB[c][p] = 0.f;
        int slot = (y0 + q - yStart) % ring;  // input row y0 + q - r
        for (int dy = 0; dy < taps; ++dy) {
          const float* s = smem + slot * ss + px0 * C;
          float rowA[C][P], rowB[C][P];
#pragma unroll
          for (int c = 0; c < C; ++c)
#pragma unroll
            for (int p = 0; p < P; ++p) rowA[c][p] = rowB[c][p] = 0.f;
          rowSums<C, P>(s, m.w + dy * taps, m.w + dy, taps, taps, magnitude, rowA, rowB);  // gy: the transpose
#pragma unroll
          for (int c = 0; c < C; ++c)
#pragma unroll
            for (int p = 0; p < P; ++p) {
              accA[c][p] += rowA[c][p];
              accB[c][p] += rowB[c][p];
            }
          slot = slot + 1 == ring ? 0 : slot + 1;
        }
        const int y = y0 + q;
#pragma unroll
        for (int p = 0; p < P; ++p) {
          const int x = x0 + px0 + p;
          if (px0 + p >= TW || x >= a.width) continue;
#pragma unroll
          for (int c = 0; c < C; ++c) {
            const std::size_t at = (std::size_t(x) * C + c) * sizeof(T);
            char* o = out + std::size_t(y) * a.outPitch + (std::size_t(x) * C + c) * sizeof(TO);
            if (C == 4 && c == 3 && a.copyFourth) {
              if constexpr (std::is_same_v<T, TO>)
                *reinterpret_cast<T*>(o) = *reinterpret_cast<const T*>(in + std::size_t(y) * a.pitch + at);
              else
                Value<TO>::store(o, Value<T>::load(in + std::size_t(y) * a.pitch + at));
            } else {
              Value<TO>::store(o, combineValue(accA[c][p], accB[c][p], a.combine));
            }
          }
        }
      }
    };

    load(yStart - r, 2 * r);
    for (int y = yStart; y < yEnd; y += Q) {
      const int rows = min(Q, yEnd - y);
      load(y + r, rows);
      __syncthreads();
      compute(y, rows);
      __syncthreads();  // the next step's rows overwrite the oldest of these
    }
  }
}

// The kernel for (pixel type, channels, tile): the separable one (a gradient magnitude's instance,
// or the others'), or the 2D one.
enum class Kind { Separable, SeparableMagnitude, TwoD };
template <Kind K, class T, int C, int VW, int Q, class TO>
const void* kernelOf() {
  if constexpr (K == Kind::TwoD)
    return reinterpret_cast<const void*>(&sweep2dKernel<T, C, VW, Q, TO>);
  else
    return reinterpret_cast<const void*>(&sweepKernel<T, C, VW, Q, K == Kind::SeparableMagnitude, TO>);
}

template <Kind K, class T, int C, class TO>
const void* kernelFor(int values, int rows) {
  if (values == 256 && rows == 8) return kernelOf<K, T, C, 256, 8, TO>();
  if (values == 256 && rows == 16) return kernelOf<K, T, C, 256, 16, TO>();
  if (values == 512 && rows == 8) return kernelOf<K, T, C, 512, 8, TO>();
  throw std::invalid_argument("sweep: no instance for tile " + std::to_string(values) + "x" + std::to_string(rows));
}

template <Kind K, class T, class TO = T>
const void* kernelFor(int channels, int values, int rows) {
  switch (channels) {
    case 1:
      return kernelFor<K, T, 1, TO>(values, rows);
    case 3:
      return kernelFor<K, T, 3, TO>(values, rows);
    case 4:
      return kernelFor<K, T, 4, TO>(values, rows);
  }
  throw std::invalid_argument("sweep: " + std::to_string(channels) + " channels");
}

template <Kind K>
const void* kernelFor(const SweepLaunch& l) {
  if (l.floatOut) {
    if (l.image.type != PixelType::U8) throw std::invalid_argument("sweep: f32 output from u8 frames only");
    return kernelFor<K, unsigned char, float>(l.image.channels, l.tileValues, l.tileRows);
  }
  switch (l.image.type) {
    case PixelType::U8:
      return kernelFor<K, unsigned char>(l.image.channels, l.tileValues, l.tileRows);
    case PixelType::U16:
      return kernelFor<K, unsigned short>(l.image.channels, l.tileValues, l.tileRows);
    case PixelType::F16:
      return kernelFor<K, __half>(l.image.channels, l.tileValues, l.tileRows);
    case PixelType::F32:
      return kernelFor<K, float>(l.image.channels, l.tileValues, l.tileRows);
  }
  throw std::invalid_argument("sweep: unknown pixel type");
}

const void* kernelFor(const SweepLaunch& l) {
  if (l.twoD) return kernelFor<Kind::TwoD>(l);
  return l.combine == Combine::Magnitude ? kernelFor<Kind::SeparableMagnitude>(l) : kernelFor<Kind::Separable>(l);
}

int rowOutputs(int channels, int values, int rows) {
  const int p = rows * (values / channels) / kSweepThreads;
  return std::clamp(p, 1, 16);
}

struct Geometry {
  dim3 grid;
  int rowsPerBlock;
  std::size_t shared;
};

Geometry geometryOf(const SweepLaunch& l, int radius, int resident) {
  const ImageDesc& d = l.image;
  const int tw = l.tileValues / d.channels, q = l.tileRows;
  const int gx = (d.width + tw - 1) / tw, frames = std::min(d.batch, kMaxGridZ);
  // Enough blocks for two waves, each segment at least twice its apron (the 2r rows above and below
  // whose row sums it makes too) and four steps long.
  const long long want = 2LL * std::max(resident, 1);
  const long long segments = std::max(1LL, (want + gx * frames - 1) / (gx * (long long)frames));
  int rows = int((d.height + segments - 1) / segments);
  rows = std::max(rows, std::max(4 * radius, 4 * q));
  rows = (rows + q - 1) / q * q;
  Geometry g;
  g.rowsPerBlock = rows;
  g.grid = dim3(unsigned(gx), unsigned((d.height + rows - 1) / rows), unsigned(frames));
  g.shared = sweepSharedBytes(l, radius);
  return g;
}

}  // namespace

bool sweepTileCompiled(int values, int rows) {
  return (values == 256 && (rows == 8 || rows == 16)) || (values == 512 && rows == 8);
}

std::size_t sweepSharedBytes(const SweepLaunch& l, int radius) {
  const int c = l.image.channels, tw = l.tileValues / c, q = l.tileRows;
  const std::size_t ring = std::size_t(2 * radius + q);
  if (l.twoD) {  // the ring of input rows
    const int p = rowOutputs(c, l.tileValues, q);
    return sizeof(float) * ring * stageStride(tw, radius, p, c);
  }
  const std::size_t rings = l.combine == Combine::Magnitude ? 2 : 1;
  const int typeBytes = int(pixelTypeBytes(l.image.type));
  return 16 * std::size_t(q) * sweepRawChunks(tw, radius, c, typeBytes) +
         sizeof(float) *
             (std::size_t(q) * sweepStageFloats(tw, radius, c) + rings * (ring + kSweepJob) * sweepRowFloats(tw, c));
}

namespace {

// Launches `fn` with the arguments for l and `mask` (a SweepMask or a Mask2D).
template <class MaskT>
void launch(const SweepLaunch& l, const MaskT& mask, int radius) {
  const void* fn = kernelFor(l);
  const std::size_t shared = sweepSharedBytes(l, radius);
  allowLargeShared(fn, shared);
  const Geometry g = geometryOf(l, radius, residentBlocks(fn, kSweepThreads, shared));
  SweepArgs a;
  a.in = static_cast<const char*>(l.in);
  a.out = static_cast<char*>(l.out);
  a.pitch = l.image.rowPitch();
  a.frameStride = l.image.frameStride();
  a.outPitch = l.outPitch ? l.outPitch : a.pitch;
  a.outFrameStride = l.outFrameStride ? l.outFrameStride : a.frameStride;
  a.width = l.image.width;
  a.height = l.image.height;
  a.batch = l.image.batch;
  a.rowsPerBlock = g.rowsPerBlock;
  a.border = l.border;
  a.combine = l.combine;
  a.copyFourth = l.image.copiesFourth(l.filterAlpha);
  a.vector = (reinterpret_cast<std::size_t>(l.in) | a.pitch | (a.batch > 1 ? a.frameStride : 0)) % 16 == 0;
  void* args[] = {&a, const_cast<MaskT*>(&mask)};
  CL_CUDA(cudaLaunchKernel(fn, g.grid, dim3(kSweepThreads), args, g.shared, l.stream));
}

}  // namespace

void sweep(const SweepLaunch& l, const SweepMask& m) { launch(l, m, m.radius); }
void sweep2d(const SweepLaunch& l, const Mask2D& m) { launch(l, m, m.radius); }

LaunchDescription describeSweep(const SweepLaunch& l, int radius) {
  const void* k = kernelFor(l);
  // Without a device the grid assumes one block an SM of 132 (the note says so).
  int resident = 132;
  std::string note = "segments sized for two waves of 132 resident blocks (no device to ask)";
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    resident = residentBlocks(k, kSweepThreads, sweepSharedBytes(l, radius));
    note.clear();
  }
  const Geometry g = geometryOf(l, radius, resident);
  const int tw = l.tileValues / l.image.channels;
  PassLaunch p;
  p.kernel = std::string(l.twoD ? "sweep2dKernel<" : "sweepKernel<") + std::string(pixelTypeName(l.image.type)) + ", " +
             std::to_string(l.image.channels) + ", " + std::to_string(l.tileValues) + ", " +
             std::to_string(l.tileRows) + (!l.twoD && l.combine == Combine::Magnitude ? ", magnitude" : "") +
             (l.floatOut ? ", f32>" : ">");
  p.grid = dimsOf(g.grid.x, g.grid.y, g.grid.z);
  p.block = dimsOf(kSweepThreads);
  p.threadsPerBlock = kSweepThreads;
  p.outputsPerThread = double(tw) * g.rowsPerBlock / kSweepThreads;
  setFootprint(p, tw, g.rowsPerBlock, tw + 2 * radius, g.rowsPerBlock + 2 * radius, -radius, -radius);
  p.dynamicShared = g.shared;
  p.kernelFunction = k;
  p.note = note;
  return LaunchDescription{{p}, ""};
}

WorkModel modelSweep(const SweepLaunch& l, int radius) {
  const ImageDesc& d = l.image;
  const int c = d.channels, tw = l.tileValues / c, q = l.tileRows, p = rowOutputs(c, l.tileValues, q);
  const Geometry g = geometryOf(l, radius, 132);
  const double taps = 2 * radius + 1, rows = g.rowsPerBlock;
  const double inRows = rows + 2 * radius, out = double(tw) * rows;
  const double mags = l.combine == Combine::Magnitude ? 2 : 1;
  WorkModel m;
  m.globalReads = inRows * (tw + 2 * radius) / out;
  m.globalBytes = m.globalReads * c * pixelTypeBytes(d.type);
  m.apron = m.globalReads;
  // Each value: stored in the stage ((tw + 2r) / tw a pixel made), a window of J + J ceil(taps / J)
  // loads a job of J in the row pass and in the column pass, and stored in the ring between them.
  const double window = 1.0 + std::ceil(taps / kSweepJob);
  m.sharedBytes = 4.0 * c * (inRows / rows * ((tw + 2.0 * radius) / tw + window + 1) + window);
  m.flops = 2 * c * mags * (inRows / rows * taps + taps);
  if (l.twoD) {  // each output: 2r + 1 rows of 2r + 1 taps, a window load of P values per P taps
    m.sharedBytes = 4.0 * c * taps * (taps + p) / p;
    m.flops = 2 * c * mags * taps * taps;
  }
  m.dramBytes = (l.floatOut ? 1.0 + 4.0 / pixelTypeBytes(d.type) : 2.0) * c * pixelTypeBytes(d.type);
  m.notes.push_back("row sums for the segment's apron rows too (" + std::to_string(int(inRows)) + " rows for " +
                    std::to_string(int(rows)) + " outputs); figures per pixel of " + std::to_string(c) + " " +
                    pixelTypeName(d.type) + " values");
  return m;
}

}  // namespace convlive::kernels
