// The separable variants, for masks that factor as col (x) row.
//   separable: the classic two passes. The row pass stages each block's rows plus a halo in shared
//              memory and writes float sums to an intermediate plane; the column pass does the same
//              vertically and writes bytes. Several outputs per thread (STEPS), taps unrolled.
//   fused:     one pass. The block stages its input tile plus apron in shared memory (16-byte
//              loads, several in flight per thread), runs the column factor over it into a float
//              tile (4x4 outputs per thread, sliding in registers), then the row factor from there
//              to the output (4 pixels per thread, one 16-byte store). No intermediate plane.
#include <cmath>

#include "common.cuh"

namespace convlive::kernels {
namespace {

constexpr int kSteps = 4;   // outputs per thread in each pass of `separable`
constexpr int kFusedV = 4;  // output rows per item in the vertical stage of `fused`

__host__ __device__ inline int halo(int r, int threads) { return (r + threads - 1) / threads; }

// Row pass: in (bytes) -> tmp planes (float4). Plane 0 uses the row factor; plane 1 (Magnitude
// only) the column factor, for gy = transpose.
template <int BX, int BY>
__global__ void __launch_bounds__(BX* BY)
    rowPassKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m, float4* __restrict__ tmp0,
                  float4* __restrict__ tmp1) {
  extern __shared__ float4 rows[];
  const int r = m.radius, hs = halo(r, BX), span = (kSteps + 2 * hs) * BX;
  float4* s = rows + threadIdx.y * span;
  const int y = blockIdx.y * BY + threadIdx.y, x0 = blockIdx.x * kSteps * BX;
  const bool rowInside = y < l.height;
  for (int i = 0; i < kSteps + 2 * hs; ++i) {
    const int lx = i * BX + threadIdx.x;
    s[lx] = rowInside ? toFloat4(loadBordered(l, x0 - hs * BX + lx, y)) : make_float4(0, 0, 0, 0);
  }
  __syncthreads();
  if (!rowInside) return;
  const bool magnitude = l.combine == Combine::Magnitude;
#pragma unroll
  for (int i = 0; i < kSteps; ++i) {
    const int x = x0 + i * BX + threadIdx.x;
    if (x >= l.width) break;
    const float4* c = s + (hs + i) * BX + threadIdx.x - r;
    float4 a = make_float4(0, 0, 0, 0), b = a;
#pragma unroll 4
    for (int t = 0; t <= 2 * r; ++t) {
      fma4(a, m.row[t], c[t]);
      if (magnitude) fma4(b, m.col[t], c[t]);
    }
    const std::size_t o = static_cast<std::size_t>(y) * l.width + x;
    tmp0[o] = a;
    if (magnitude) tmp1[o] = b;
  }
}

// Column pass: tmp planes -> out (bytes), combining the planes.
template <int BX, int BY>
__global__ void __launch_bounds__(BX* BY)
    colPassKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m, const float4* __restrict__ tmp0,
                  const float4* __restrict__ tmp1) {
  extern __shared__ float4 cols[];
  const int r = m.radius, hs = halo(r, BY), span = (kSteps + 2 * hs) * BY;
  const bool magnitude = l.combine == Combine::Magnitude;
  float4* s0 = cols;
  float4* s1 = cols + span * BX;
  const int x = blockIdx.x * BX + threadIdx.x, y0 = blockIdx.y * kSteps * BY;
  const bool colInside = x < l.width;
  for (int i = 0; i < kSteps + 2 * hs; ++i) {
    const int ly = i * BY + threadIdx.y;
    const int sy = borderIndex(y0 - hs * BY + ly, l.height, l.border);
    const bool ok = colInside && sy >= 0;
    const std::size_t o = static_cast<std::size_t>(sy) * l.width + x;
    s0[ly * BX + threadIdx.x] = ok ? tmp0[o] : make_float4(0, 0, 0, 0);
    if (magnitude) s1[ly * BX + threadIdx.x] = ok ? tmp1[o] : make_float4(0, 0, 0, 0);
  }
  __syncthreads();
  if (!colInside) return;
#pragma unroll
  for (int i = 0; i < kSteps; ++i) {
    const int y = y0 + i * BY + threadIdx.y;
    if (y >= l.height) break;
    const int base = ((hs + i) * BY + threadIdx.y - r) * BX + threadIdx.x;
    float4 a = make_float4(0, 0, 0, 0), b = a;
#pragma unroll 4
    for (int t = 0; t <= 2 * r; ++t) {
      fma4(a, m.col[t], s0[base + t * BX]);
      if (magnitude) fma4(b, m.row[t], s1[base + t * BX]);
    }
    storeOut(l, x, y, finishPixel(a, b, l.combine, l.filterAlpha, rowPtr(l.in, l.inPitch, y)[x].w));
  }
}

// fused: the tile's columns start at a multiple of 4 pixels, the apron is rounded up to 4 pixels
// (r4) so that interior blocks load whole 16-byte chunks, several in flight per thread.
template <int TW, int TH>
__global__ void __launch_bounds__(256)
    fusedKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m, bool aligned16) {
  static_assert(TW % 4 == 0 && TH % kFusedV == 0 && 256 % TH == 0, "fused tile shape");
  extern __shared__ uint4 fusedSmem[];
  const int r = m.radius, r4 = (r + 3) & ~3;
  const int cw = TW / 4 + r4 / 2;       // 16-byte chunks per input row
  const int rows = TH + 2 * r;          // input rows
  const int vstride = TW + 2 * r4 + 1;  // float4s per row of column sums; +1 spreads rows over the banks
  uint4* in = fusedSmem;                // rows x cw chunks
  float4* vert = reinterpret_cast<float4*>(fusedSmem + rows * cw);  // TH x vstride
  const int tid = threadIdx.x;
  const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH, gx0 = x0 - r4, gy0 = y0 - r;
  const bool interior = aligned16 && gx0 >= 0 && x0 + TW + r4 <= l.width && gy0 >= 0 && y0 + TH + r <= l.height;

  // 1. Input tile + apron, batches of loads issued before any is stored.
  constexpr int kBatch = 4;
  const int chunks = rows * cw;
  for (int base = tid; base < chunks; base += 256 * kBatch) {
    uint4 v[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int i = base + b * 256;
      if (i >= chunks) break;
      const int ry = i / cw, cx = i - ry * cw;
      if (interior) {
        v[b] = reinterpret_cast<const uint4*>(rowPtr(l.in, l.inPitch, gy0 + ry))[gx0 / 4 + cx];
      } else {
        const int gx = gx0 + 4 * cx, gy = gy0 + ry;
        v[b] = make_uint4(packPixel(loadBordered(l, gx, gy)), packPixel(loadBordered(l, gx + 1, gy)),
                          packPixel(loadBordered(l, gx + 2, gy)), packPixel(loadBordered(l, gx + 3, gy)));
      }
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b)
      if (base + b * 256 < chunks) in[base + b * 256] = v[b];
  }
  __syncthreads();

  // 2. Column factor: an item is 4 adjacent columns x kFusedV output rows; each loaded chunk feeds
  // every output whose window covers it.
  const int items = cw * (TH / kFusedV);
  for (int item = tid; item < items; item += 256) {
    const int seg = item / cw, c = item - seg * cw, ys = seg * kFusedV;
    float4 acc[kFusedV][4];
#pragma unroll
    for (int j = 0; j < kFusedV; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[j][q] = make_float4(0, 0, 0, 0);
    for (int k = 0; k < kFusedV + 2 * r; ++k) {
      const uint4 w = in[(ys + k) * cw + c];
      const float4 px[4] = {unpackPixel(w.x), unpackPixel(w.y), unpackPixel(w.z), unpackPixel(w.w)};
#pragma unroll
      for (int j = 0; j < kFusedV; ++j) {
        const int t = k - j;
        if (t < 0 || t > 2 * r) continue;
        const float wt = m.col[t];
#pragma unroll
        for (int q = 0; q < 4; ++q) fma4(acc[j][q], wt, px[q]);
      }
    }
#pragma unroll
    for (int j = 0; j < kFusedV; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q) vert[(ys + j) * vstride + 4 * c + q] = acc[j][q];
  }
  __syncthreads();

  // 3. Row factor: a thread makes 4 adjacent output pixels of one row; lanes take consecutive rows.
  const bool alignedOut = (reinterpret_cast<std::size_t>(l.out) | l.outPitch) % 16 == 0;
  for (int g = tid / TH; g < TW / 4; g += 256 / TH) {
    const int row = tid % TH, x = 4 * g, y = y0 + row;
    if (y >= l.height || x0 + x >= l.width) continue;
    const float4* v = vert + row * vstride + r4 + x - r;
    float4 acc[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[j] = make_float4(0, 0, 0, 0);
    for (int k = 0; k < 2 * r + 4; ++k) {
      const float4 s = v[k];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int t = k - j;
        if (t >= 0 && t <= 2 * r) fma4(acc[j], m.row[t], s);
      }
    }
    const uint4 centre = in[(row + r) * cw + (r4 + x) / 4];
    const unsigned alpha[4] = {centre.x >> 24, centre.y >> 24, centre.z >> 24, centre.w >> 24};
    uchar4 o[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
      o[j] = finishPixel(acc[j], acc[j], l.combine, l.filterAlpha, static_cast<unsigned char>(alpha[j]));
    uchar4* dst = rowPtr(l.out, l.outPitch, y) + x0 + x;
    if (alignedOut && x0 + x + 4 <= l.width) {
      *reinterpret_cast<uint4*>(dst) = make_uint4(packPixel(o[0]), packPixel(o[1]), packPixel(o[2]), packPixel(o[3]));
    } else {
      for (int j = 0; j < 4 && x0 + x + j < l.width; ++j) dst[j] = o[j];
    }
  }
}

// Both passes of `separable` for a BX x BY block: grids, and shared memory (the column pass's
// for every plane).
struct SeparableShape {
  dim3 rowGrid, colGrid;
  std::size_t rowShared, colShared;
};
SeparableShape separableShape(const Launch& l, int bx, int by, int r) {
  return {dim3(ceilDiv(l.width, kSteps * bx), ceilDiv(l.height, by)),
          dim3(ceilDiv(l.width, bx), ceilDiv(l.height, kSteps * by)),
          std::size_t(by) * (kSteps + 2 * halo(r, bx)) * bx * sizeof(float4),
          separableSharedBytes(bx, by, r) * (l.combine == Combine::Magnitude ? 2 : 1)};
}
dim3 fusedGrid(const Launch& l, int tw, int th) { return dim3(ceilDiv(l.width, tw), ceilDiv(l.height, th)); }
constexpr int kFusedThreads = 256;

template <int BX, int BY>
void launchSeparable(const Launch& l, const MaskSep& m, float4* tmp0, float4* tmp1) {
  const SeparableShape s = separableShape(l, BX, BY, m.radius);
  allowSharedBytes(rowPassKernel<BX, BY>, s.rowShared);
  rowPassKernel<BX, BY><<<s.rowGrid, dim3(BX, BY), s.rowShared, l.stream>>>(l, m, tmp0, tmp1);
  CL_CUDA_LAUNCHED("rowPassKernel<<<>>>");
  allowSharedBytes(colPassKernel<BX, BY>, s.colShared);
  colPassKernel<BX, BY><<<s.colGrid, dim3(BX, BY), s.colShared, l.stream>>>(l, m, tmp0, tmp1);
  CL_CUDA_LAUNCHED("colPassKernel<<<>>>");
}

template <int TW, int TH>
void launchFused(const Launch& l, const MaskSep& m) {
  const std::size_t shared = fusedSharedBytes(TW, TH, m.radius);
  allowSharedBytes(fusedKernel<TW, TH>, shared);
  const bool aligned16 = (reinterpret_cast<std::size_t>(l.in) | l.inPitch) % 16 == 0;
  fusedKernel<TW, TH><<<fusedGrid(l, TW, TH), kFusedThreads, shared, l.stream>>>(l, m, aligned16);
  CL_CUDA_LAUNCHED("fusedKernel<<<>>>");
}

// The tiles offered here must match the variant table's (tests run every offered tile). `f` gets
// the compiled shape (TileShape) for l's tile.
template <class F>
decltype(auto) separableInstance(const Launch& l, F&& f) {
  if (l.tileW == 32 && l.tileH == 4) return f(TileShape<32, 4>{});
  if (l.tileW == 16 && l.tileH == 8) return f(TileShape<16, 8>{});
  if (l.tileW == 32 && l.tileH == 8) return f(TileShape<32, 8>{});
  badTile("separable", l);
}
template <class F>
decltype(auto) fusedInstance(const Launch& l, F&& f) {
  if (l.tileW == 64 && l.tileH == 32) return f(TileShape<64, 32>{});
  if (l.tileW == 128 && l.tileH == 32) return f(TileShape<128, 32>{});
  if (l.tileW == 64 && l.tileH == 16) return f(TileShape<64, 16>{});
  badTile("fused", l);
}

std::string instanceName(const char* kernel, int a, int b) {
  return std::string(kernel) + "<" + std::to_string(a) + ", " + std::to_string(b) + ">";
}

PassLaunch separablePass(const char* pass, const std::string& kernel, dim3 grid, dim3 block, std::size_t shared,
                         const void* function) {
  PassLaunch p = passOf(pass, kernel, grid, block, function);
  p.outputsPerThread = kSteps;
  p.dynamicShared = shared;
  return p;
}

// fused's idle threads: of the 256, those with no item in the last round of each stage, the
// stages weighted by their FLOPs per item.
double fusedIdle(double columnItems, double columnCost, double rowItems, double rowCost) {
  const auto slots = [](double items) { return std::ceil(items / kFusedThreads) * kFusedThreads; };
  const double busy = columnItems * columnCost + rowItems * rowCost;
  return 1 - busy / (slots(columnItems) * columnCost + slots(rowItems) * rowCost);
}
}  // namespace

// The larger of the two passes (per intermediate plane).
std::size_t separableSharedBytes(int tileW, int tileH, int radius) {
  const std::size_t row = std::size_t(tileH) * (kSteps + 2 * halo(radius, tileW)) * tileW;
  const std::size_t col = std::size_t(tileW) * (kSteps + 2 * halo(radius, tileH)) * tileH;
  return std::max(row, col) * sizeof(float4);
}
std::size_t fusedSharedBytes(int tileW, int tileH, int radius) {
  const std::size_t r4 = (radius + 3) & ~3, chunks = std::size_t(tileH + 2 * radius) * (tileW / 4 + r4 / 2);
  return chunks * sizeof(uint4) + std::size_t(tileH) * (tileW + 2 * r4 + 1) * sizeof(float4);
}

void separable(const Launch& l, const MaskSep& m, float4* tmp0, float4* tmp1) {
  separableInstance(l, [&](auto t) { launchSeparable<decltype(t)::w, decltype(t)::h>(l, m, tmp0, tmp1); });
}

void fused(const Launch& l, const MaskSep& m) {
  fusedInstance(l, [&](auto t) { launchFused<decltype(t)::w, decltype(t)::h>(l, m); });
}

LaunchDescription describeSeparable(const Launch& l, int radius) {
  return separableInstance(l, [&](auto t) {
    constexpr int BX = decltype(t)::w, BY = decltype(t)::h;
    const SeparableShape s = separableShape(l, BX, BY, radius);
    LaunchDescription d;
    d.passes.push_back(separablePass("row pass", instanceName("rowPassKernel", BX, BY), s.rowGrid, dim3(BX, BY),
                                     s.rowShared, reinterpret_cast<const void*>(&rowPassKernel<BX, BY>)));
    const int hx = halo(radius, BX), hy = halo(radius, BY);
    setFootprint(d.passes.back(), kSteps * BX, BY, (kSteps + 2 * hx) * BX, BY, -hx * BX, 0);
    d.passes.push_back(separablePass("column pass", instanceName("colPassKernel", BX, BY), s.colGrid, dim3(BX, BY),
                                     s.colShared, reinterpret_cast<const void*>(&colPassKernel<BX, BY>)));
    setFootprint(d.passes.back(), BX, kSteps * BY, BX, (kSteps + 2 * hy) * BY, 0, -hy * BY);
    return d;
  });
}

// Row pass: a thread stages kSteps + 2 halo blocks of its row, makes kSteps float4 sums per plane.
// Column pass: the same down the columns of each plane, then the output bytes.
WorkModel modelSeparable(const Launch& l, int radius) {
  const Dims b = separableInstance(l, [](auto t) { return dimsOf(decltype(t)::w, decltype(t)::h); });
  const double taps = 2 * radius + 1, planes = l.combine == Combine::Magnitude ? 2 : 1;
  const double rowLoads = double(kSteps + 2 * halo(radius, b.x)) / kSteps;  // pixels per value
  const double colLoads = double(kSteps + 2 * halo(radius, b.y)) / kSteps;  // float4 values per value, per plane
  WorkModel m;
  m.globalReads = rowLoads + planes * colLoads + 1;  // + the input again for alpha
  m.globalBytes = 4 * rowLoads + 16 * planes * colLoads + 4;
  m.sharedBytes = 16 * taps + 16 * taps * planes;  // the row pass's planes share its staged pixels
  m.apron = (rowLoads + colLoads) / 2;
  m.flops = 2 * 4 * taps * planes * 2;
  m.dramBytes = 8 + 32 * planes;
  m.notes.push_back("intermediate: " + std::string(planes > 1 ? "two float4 planes" : "a float4 plane") +
                    " (16 bytes a pixel) written by the row pass and read back by the column pass through DRAM");
  m.notes.push_back("the column pass reads the input's alpha again (a global read; L2 serves it at best)");
  return m;
}

LaunchDescription describeFused(const Launch& l, int radius) {
  return fusedInstance(l, [&](auto t) {
    constexpr int TW = decltype(t)::w, TH = decltype(t)::h;
    const dim3 grid = fusedGrid(l, TW, TH);
    PassLaunch p;
    p.kernel = instanceName("fusedKernel", TW, TH);
    p.grid = dimsOf(grid.x, grid.y);
    p.block = dimsOf(kFusedThreads);
    p.threadsPerBlock = kFusedThreads;
    p.outputsPerThread = double(TW) * TH / kFusedThreads;
    const int r4 = (radius + 3) & ~3;
    setFootprint(p, TW, TH, TW + 2 * r4, TH + 2 * radius, -r4, -radius);
    p.dynamicShared = fusedSharedBytes(TW, TH, radius);
    p.kernelFunction = reinterpret_cast<const void*>(&fusedKernel<TW, TH>);
    return LaunchDescription{{p}, ""};
  });
}

// fusedKernel's three stages: 16-byte chunks of the tile + apron (the apron's width rounded up to 4
// pixels) into shared memory; the column factor over every chunk column, kFusedV rows an item, into
// a float tile; the row factor, 4 outputs a thread.
WorkModel modelFused(const Launch& l, int radius) {
  const Dims t = fusedInstance(l, [](auto t) { return dimsOf(decltype(t)::w, decltype(t)::h); });
  const double taps = 2 * radius + 1, tw = t.x, th = t.y, out = tw * th;
  const int r4 = (radius + 3) & ~3;
  const double cw = tw / 4 + r4 / 2, chunks = (th + 2 * radius) * cw;
  const double columnItems = cw * th / kFusedV, rowItems = out / 4;
  WorkModel m;
  m.globalReads = 4 * chunks / out;
  m.globalBytes = 16 * chunks / out;
  m.apron = m.globalReads;
  m.sharedBytes = (columnItems * (kFusedV + 2 * radius) * 16 + rowItems * (2 * radius + 4 + 1) * 16) / out;
  const double columnCost = 2 * 4 * 4 * kFusedV * taps, rowCost = 2 * 4 * 4 * taps;  // FLOPs per item
  m.flops = (columnItems * columnCost + rowItems * rowCost) / out;
  m.idleThreads = fusedIdle(columnItems, columnCost, rowItems, rowCost);
  m.dramBytes = 8;
  m.notes.push_back("the column factor runs over the apron's columns too (" + std::to_string(int(tw) + 2 * r4) +
                    " of them for " + std::to_string(int(tw)) + " outputs)");
  return m;
}

}  // namespace convlive::kernels
