// sweep: separable and 2D filtering of frames of any pixel type and 1, 3 or 4 channels, a batch in
// one launch. This file: the 2D kernel (the ring holds input rows, each output sums 2r + 1 of
// them), the choice of instance and the host entry points. The separable kernel is in sweep.cuh;
// its instances compiled for one radius are in sweep_fixed_<type>.cu.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "sweep.cuh"

namespace convlive::kernels {
namespace {

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
  const int tw = min(TW, a.width - x0);  // as the separable kernel's: the last strip's pixels

  for (int f = blockIdx.z; f < a.batch; f += gridDim.z) {
    const char* in = a.in + a.frameStride * std::size_t(f);
    char* out = a.out + a.outFrameStride * std::size_t(f);

    // Input rows [y0, y0 + rows) into their ring slots as float, the border applied.
    auto load = [&](int y0, int rows) {
      loadRows<T, C>(a, in, x0, r, tw, y0, rows, smem, (y0 - (yStart - r)) % ring, ring, ss);
    };

    // Output rows [y0, y0 + rows), P pixels a job.
    auto compute = [&](int y0, int rows) {
      for (int job = tid; job < rows * GROUPS; job += kSweepThreads) {
        const int q = job / GROUPS, px0 = (job - q * GROUPS) * P;
        if (px0 >= tw) continue;
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
          if (px0 + p >= tw) continue;
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

// The separable kernel compiled for this radius (sweep_fixed_<type>.cu), or nullptr where none is.
const void* fixedKernelFor(const SweepLaunch& l, int radius) {
  if (l.twoD || l.combine == Combine::Magnitude || l.floatOut || l.tileValues != kSweepFixedValues ||
      l.tileRows != kSweepFixedRows || radius < kSweepFixedMinRadius || radius > kSweepFixedMaxRadius)
    return nullptr;
  switch (l.image.type) {
    case PixelType::U16:
      return sweepFixedU16(l.image.channels, radius);
    case PixelType::F16:
      return sweepFixedF16(l.image.channels, radius);
    case PixelType::F32:
      return sweepFixedF32(l.image.channels, radius);
    case PixelType::U8:
      break;
  }
  return nullptr;
}

const void* kernelFor(const SweepLaunch& l, int radius) {
  if (const void* k = fixedKernelFor(l, radius)) return k;
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
  // Enough blocks for two waves (three for the instances compiled for their radius), each segment
  // at least twice its apron (the 2r rows above and below whose row sums it makes too) and four
  // steps long. Measured on the compiled instances (H200, u16x1, u16x4, f16x3, f32x1, f32x3, f32x4
  // at 4K and 16 1080p frames, r = 5..16; the time over two waves' as a geometric mean): one wave
  // 1.14, three 0.958 (0.87-1.03), four 0.951 (0.84-1.06); a floor of 6r or 8r rows 1.00.
  const long long waves = fixedKernelFor(l, radius) ? 3 : 2;
  const long long want = waves * std::max(resident, 1);
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
  const std::size_t rawChunks = std::size_t(q) * sweepRawChunks(tw, radius, c, typeBytes);
  const std::size_t ringBytes = sizeof(float) * rings * (ring + kSweepJob) * sweepRowFloats(tw, c);
  if (sweepDirect(typeBytes, c, fixedKernelFor(l, radius) != nullptr))  // two raw buffers, no stage
    return 16 * 2 * (rawChunks + kSweepRawPad) + ringBytes;
  return 16 * rawChunks + sizeof(float) * std::size_t(q) * sweepStageFloats(tw, radius, c) + ringBytes;
}

namespace {

// Launches `fn` with the arguments for l and `mask` (a SweepMask or a Mask2D).
template <class MaskT>
void launch(const SweepLaunch& l, const MaskT& mask, int radius) {
  const void* fn = kernelFor(l, radius);
  const std::size_t shared = sweepSharedBytes(l, radius);
  allowLargeShared(fn, shared);
  const Geometry g = geometryOf(l, radius, residentBlocks(fn, kSweepThreads, shared));
  SweepArgs a;
  setFrameArgs(a, l);
  a.rowsPerBlock = g.rowsPerBlock;
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
  const void* k = kernelFor(l, radius);
  // Without a device the grid assumes one block an SM of 132 (the note says so).
  int resident = 132;
  std::string note = std::string("segments sized for ") + (fixedKernelFor(l, radius) ? "three" : "two") +
                     " waves of 132 resident blocks (no device to ask)";
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
             (fixedKernelFor(l, radius) ? ", radius " + std::to_string(radius) : "") + (l.floatOut ? ", f32>" : ">");
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
