// The separable variants, for masks that factor as col (x) row.
//   separable: the classic two passes. The row pass stages each block's rows plus a halo in shared
//              memory and writes float sums to an intermediate plane; the column pass does the same
//              vertically and writes bytes. Several outputs per thread (STEPS), taps unrolled.
//   fused:     one pass. The block stages its input tile plus apron in shared memory (16-byte
//              loads, several in flight per thread), runs the column factor over it into a float
//              tile (4x4 outputs per thread, sliding in registers), then the row factor from there
//              to the output (4 pixels per thread, one 16-byte store). No intermediate plane.
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

template <int BX, int BY>
void launchSeparable(const Launch& l, const MaskSep& m, float4* tmp0, float4* tmp1) {
  const std::size_t rowShared = std::size_t(BY) * (kSteps + 2 * halo(m.radius, BX)) * BX * sizeof(float4);
  allowSharedBytes(rowPassKernel<BX, BY>, rowShared);
  rowPassKernel<BX, BY>
      <<<dim3(ceilDiv(l.width, kSteps * BX), ceilDiv(l.height, BY)), dim3(BX, BY), rowShared, l.stream>>>(l, m, tmp0,
                                                                                                          tmp1);
  CL_CUDA_LAUNCHED("rowPassKernel<<<>>>");
  const std::size_t colShared = separableSharedBytes(BX, BY, m.radius) * (l.combine == Combine::Magnitude ? 2 : 1);
  allowSharedBytes(colPassKernel<BX, BY>, colShared);
  colPassKernel<BX, BY>
      <<<dim3(ceilDiv(l.width, BX), ceilDiv(l.height, kSteps * BY)), dim3(BX, BY), colShared, l.stream>>>(l, m, tmp0,
                                                                                                          tmp1);
  CL_CUDA_LAUNCHED("colPassKernel<<<>>>");
}

template <int TW, int TH>
void launchFused(const Launch& l, const MaskSep& m) {
  const std::size_t shared = fusedSharedBytes(TW, TH, m.radius);
  allowSharedBytes(fusedKernel<TW, TH>, shared);
  const bool aligned16 = (reinterpret_cast<std::size_t>(l.in) | l.inPitch) % 16 == 0;
  fusedKernel<TW, TH><<<dim3(ceilDiv(l.width, TW), ceilDiv(l.height, TH)), 256, shared, l.stream>>>(l, m, aligned16);
  CL_CUDA_LAUNCHED("fusedKernel<<<>>>");
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

// The tiles offered here must match the variant table's (tests run every offered tile).
void separable(const Launch& l, const MaskSep& m, float4* tmp0, float4* tmp1) {
  if (l.tileW == 32 && l.tileH == 4) return launchSeparable<32, 4>(l, m, tmp0, tmp1);
  if (l.tileW == 16 && l.tileH == 8) return launchSeparable<16, 8>(l, m, tmp0, tmp1);
  if (l.tileW == 32 && l.tileH == 8) return launchSeparable<32, 8>(l, m, tmp0, tmp1);
  badTile("separable", l);
}

void fused(const Launch& l, const MaskSep& m) {
  if (l.tileW == 64 && l.tileH == 32) return launchFused<64, 32>(l, m);
  if (l.tileW == 128 && l.tileH == 32) return launchFused<128, 32>(l, m);
  if (l.tileW == 64 && l.tileH == 16) return launchFused<64, 16>(l, m);
  badTile("fused", l);
}

}  // namespace convlive::kernels
