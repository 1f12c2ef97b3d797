// sweep: a separable filter on frames of any pixel type and 1, 3 or 4 channels, a batch in one
// launch. Each block owns a strip `tileValues` values wide and sweeps down a segment of its rows:
// a step converts `Q` input rows (plus the apron's columns, border applied) to float in shared
// memory, runs the row factor over them into a ring of the last 2r + Q rows' sums (each thread P
// outputs, the input window held in registers and slid by P taps a load), then the column factor
// down the ring into Q output rows (each thread one column, the window of rows in registers
// likewise), rounded and stored in the frame's type. Sums in fp32.
#include <cuda_fp16.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common.cuh"
#include "sweep.hpp"

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

template <class T, int C, int VW, int Q>
__global__ void __launch_bounds__(kSweepThreads)
    sweepKernel(const __grid_constant__ SweepArgs a, const __grid_constant__ SweepMask m) {
  constexpr int TW = sweepWidth<C, VW>(), P = sweepRowOutputs<C, VW, Q>(), GROUPS = (TW + P - 1) / P;
  extern __shared__ float smem[];
  const int r = m.radius, taps = 2 * r + 1, ring = 2 * r + Q, ss = stageStride(TW, r, P, C);
  const bool magnitude = a.combine == Combine::Magnitude;
  float* stage = smem;
  float* ringA = stage + Q * ss;
  float* ringB = ringA + ring * TW * C;
  const int x0 = blockIdx.x * TW, yStart = blockIdx.y * a.rowsPerBlock, yEnd = min(yStart + a.rowsPerBlock, a.height);
  const int tid = threadIdx.x;

  for (int f = blockIdx.z; f < a.batch; f += gridDim.z) {
    const char* in = a.in + a.frameStride * std::size_t(f);
    char* out = a.out + a.outFrameStride * std::size_t(f);

    // Rows [y0, y0 + rows) of the input into the stage as float, then their row sums into the ring.
    auto rowPass = [&](int y0, int rows) {
      loadRows<T, C>(a, in, x0, r, TW, y0, rows, stage, 0, Q, ss);
      __syncthreads();
      for (int job = tid; job < rows * GROUPS; job += kSweepThreads) {
        const int q = job / GROUPS, px0 = (job - q * GROUPS) * P;
        const float* s = stage + q * ss + px0 * C;
        float accA[C][P], accB[C][P];
#pragma unroll
        for (int c = 0; c < C; ++c)
#pragma unroll
          for (int p = 0; p < P; ++p) accA[c][p] = accB[c][p] = 0.f;
        rowSums<C, P>(s, m.row, m.col, 1, taps, magnitude, accA, accB);
        const int slot = (y0 + q - (yStart - r)) % ring;
#pragma unroll
        for (int p = 0; p < P; ++p)
          if (px0 + p < TW)
#pragma unroll
            for (int c = 0; c < C; ++c) {
              ringA[(slot * TW + px0 + p) * C + c] = accA[c][p];
              if (magnitude) ringB[(slot * TW + px0 + p) * C + c] = accB[c][p];
            }
      }
      __syncthreads();
    };

    // The column factor down the ring into output rows [y0, y0 + rows).
    auto columnPass = [&](int y0, int rows) {
      const int first = (y0 - yStart) % ring;  // the ring slot of row y0 - r
      for (int j = tid; j < TW * C; j += kSweepThreads) {
        const int px = j / C, ch = j - px * C, x = x0 + px;
        if (x >= a.width) continue;
        const std::size_t at = (std::size_t(x) * C + ch) * sizeof(T);
        if (C == 4 && ch == 3 && a.copyFourth) {
          for (int k = 0; k < rows; ++k)
            *reinterpret_cast<T*>(out + std::size_t(y0 + k) * a.outPitch + at) =
                *reinterpret_cast<const T*>(in + std::size_t(y0 + k) * a.pitch + at);
          continue;
        }
        float accA[Q], accB[Q], winA[2 * Q], winB[2 * Q];
#pragma unroll
        for (int k = 0; k < Q; ++k) accA[k] = accB[k] = 0.f;
#pragma unroll
        for (int i = 0; i < 2 * Q; ++i) winB[i] = 0.f;
        // The rows are read in order, one slot after another, wrapping at the ring's end.
        int slot = first;
#pragma unroll
        for (int i = 0; i < Q; ++i) {
          winA[i] = ringA[slot * TW * C + j];
          if (magnitude) winB[i] = ringB[slot * TW * C + j];
          slot = slot + 1 == ring ? 0 : slot + 1;
        }
        for (int t0 = 0; t0 < taps; t0 += Q) {
#pragma unroll
          for (int i = 0; i < Q; ++i) {
            winA[Q + i] = ringA[slot * TW * C + j];
            if (magnitude) winB[Q + i] = ringB[slot * TW * C + j];
            slot = slot + 1 == ring ? 0 : slot + 1;
          }
#pragma unroll
          for (int tt = 0; tt < Q; ++tt) {
            if (t0 + tt < taps) {
              const float wa = m.col[t0 + tt];
#pragma unroll
              for (int k = 0; k < Q; ++k) accA[k] = fmaf(wa, winA[k + tt], accA[k]);
              if (magnitude) {
                const float wb = m.row[t0 + tt];
#pragma unroll
                for (int k = 0; k < Q; ++k) accB[k] = fmaf(wb, winB[k + tt], accB[k]);
              }
            }
          }
#pragma unroll
          for (int i = 0; i < Q; ++i) {
            winA[i] = winA[Q + i];
            winB[i] = winB[Q + i];
          }
        }
#pragma unroll
        for (int k = 0; k < Q; ++k)
          if (k < rows)
            Value<T>::store(out + std::size_t(y0 + k) * a.outPitch + at, combineValue(accA[k], accB[k], a.combine));
      }
    };

    // The apron's rows above, then a step a Q rows: their row sums, then the outputs they complete.
    for (int y = yStart - r; y < yStart + r; y += Q) rowPass(y, min(Q, yStart + r - y));
    for (int y = yStart; y < yEnd; y += Q) {
      const int rows = min(Q, yEnd - y);
      rowPass(y + r, rows);
      columnPass(y, rows);
    }
    __syncthreads();  // the next frame's stage and ring writes wait for this frame's readers
  }
}

// A 2D mask: the ring holds the last 2r + Q input rows themselves (as float); each output sums the
// mask's rows one at a time (each row's sum from zero, then added: the error bound of two short
// sums, as the separable pass has), P outputs a thread, the window slid in registers.
template <class T, int C, int VW, int Q>
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
            char* o = out + std::size_t(y) * a.outPitch + at;
            if (C == 4 && c == 3 && a.copyFourth)
              *reinterpret_cast<T*>(o) = *reinterpret_cast<const T*>(in + std::size_t(y) * a.pitch + at);
            else
              Value<T>::store(o, combineValue(accA[c][p], accB[c][p], a.combine));
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

// The kernel for (pixel type, channels, tile): the separable one, or the 2D one.
template <bool TwoD, class T, int C, int VW, int Q>
const void* kernelOf() {
  if constexpr (TwoD)
    return reinterpret_cast<const void*>(&sweep2dKernel<T, C, VW, Q>);
  else
    return reinterpret_cast<const void*>(&sweepKernel<T, C, VW, Q>);
}

template <bool TwoD, class T, int C>
const void* kernelFor(int values, int rows) {
  if (values == 256 && rows == 8) return kernelOf<TwoD, T, C, 256, 8>();
  if (values == 256 && rows == 16) return kernelOf<TwoD, T, C, 256, 16>();
  if (values == 512 && rows == 8) return kernelOf<TwoD, T, C, 512, 8>();
  throw std::invalid_argument("sweep: no instance for tile " + std::to_string(values) + "x" + std::to_string(rows));
}

template <bool TwoD, class T>
const void* kernelFor(int channels, int values, int rows) {
  switch (channels) {
    case 1:
      return kernelFor<TwoD, T, 1>(values, rows);
    case 3:
      return kernelFor<TwoD, T, 3>(values, rows);
    case 4:
      return kernelFor<TwoD, T, 4>(values, rows);
  }
  throw std::invalid_argument("sweep: " + std::to_string(channels) + " channels");
}

template <bool TwoD>
const void* kernelFor(const SweepLaunch& l) {
  switch (l.image.type) {
    case PixelType::U8:
      return kernelFor<TwoD, unsigned char>(l.image.channels, l.tileValues, l.tileRows);
    case PixelType::U16:
      return kernelFor<TwoD, unsigned short>(l.image.channels, l.tileValues, l.tileRows);
    case PixelType::F16:
      return kernelFor<TwoD, __half>(l.image.channels, l.tileValues, l.tileRows);
    case PixelType::F32:
      return kernelFor<TwoD, float>(l.image.channels, l.tileValues, l.tileRows);
  }
  throw std::invalid_argument("sweep: unknown pixel type");
}

const void* kernelFor(const SweepLaunch& l) { return l.twoD ? kernelFor<true>(l) : kernelFor<false>(l); }

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
  const int gx = (d.width + tw - 1) / tw, frames = std::min(d.batch, 65535);
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
  const int p = rowOutputs(c, l.tileValues, q);
  const std::size_t ring = std::size_t(2 * radius + q), stage = stageStride(tw, radius, p, c);
  if (l.twoD) return sizeof(float) * ring * stage;  // the ring of input rows
  const std::size_t rings = l.combine == Combine::Magnitude ? 2 : 1;
  return sizeof(float) * (std::size_t(q) * stage + rings * ring * std::size_t(tw) * c);
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
  a.copyFourth = l.image.channels == 4 && (!l.image.alpha || !l.filterAlpha);
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
             std::to_string(l.tileRows) + ">";
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
  // Row pass: P outputs a job, a window load of P values per P taps; column pass: Q rows a job, Q loads per Q taps.
  m.sharedBytes = 4.0 * c * (inRows / rows * (taps + p) / p + (taps + q) / q);
  m.flops = 2 * c * mags * (inRows / rows * taps + taps);
  if (l.twoD) {  // each output: 2r + 1 rows of 2r + 1 taps, a window load of P values per P taps
    m.sharedBytes = 4.0 * c * taps * (taps + p) / p;
    m.flops = 2 * c * mags * taps * taps;
  }
  m.dramBytes = 2.0 * c * pixelTypeBytes(d.type);
  m.notes.push_back("row sums for the segment's apron rows too (" + std::to_string(int(inRows)) + " rows for " +
                    std::to_string(int(rows)) + " outputs); figures per pixel of " + std::to_string(c) + " " +
                    pixelTypeName(d.type) + " values");
  return m;
}

}  // namespace convlive::kernels
