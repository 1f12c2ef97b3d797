// The separable variants, for masks that factor as col (x) row.
//   separable: the classic two passes. The row pass stages each block's rows plus a halo in shared
//              memory and writes float sums to an intermediate plane; the column pass does the same
//              vertically and writes bytes. Several outputs per thread (STEPS), taps unrolled.
//   fused:     one pass. The block stages its input tile plus apron in shared memory, runs the
//              column factor over it into a float tile (several outputs per thread, sliding in
//              registers), then the row factor from there to the output. No intermediate plane.
#include "common.cuh"

namespace convlive::kernels {
namespace {

constexpr int kSteps = 4;   // outputs per thread in each pass of `separable`
constexpr int kFusedV = 8;  // outputs per thread in the vertical stage of `fused`

__host__ __device__ inline int halo(int r, int threads) { return (r + threads - 1) / threads; }

// Row pass: in (bytes) -> tmp planes (float4). Plane 0 uses the row factor; plane 1 (Magnitude
// only) the column factor, for gy = transpose.
template <int BX, int BY>
__global__ void __launch_bounds__(BX* BY) rowPassKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m,
                                                        float4* __restrict__ tmp0, float4* __restrict__ tmp1) {
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
__global__ void __launch_bounds__(BX* BY) colPassKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m,
                                                        const float4* __restrict__ tmp0, const float4* __restrict__ tmp1) {
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

template <int TW, int TH>
__global__ void __launch_bounds__(256) fusedKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m) {
  extern __shared__ float4 smem[];
  const int r = m.radius, inW = TW + 2 * r, inH = TH + 2 * r;
  float4* vert = smem;                                          // TH x inW column sums
  uchar4* in = reinterpret_cast<uchar4*>(smem + TH * inW);      // inH x inW input bytes
  const int tid = threadIdx.y * 32 + threadIdx.x;
  const int ox = blockIdx.x * TW - r, oy = blockIdx.y * TH - r;
  for (int i = tid; i < inW * inH; i += 256) {
    const int ly = i / inW, lx = i - ly * inW;
    in[i] = loadBordered(l, ox + lx, oy + ly);
  }
  __syncthreads();
  // Vertical: each item is one column of the input tile and kFusedV consecutive output rows; every
  // loaded pixel feeds all the outputs whose window covers it.
  constexpr int segments = TH / kFusedV;
  for (int item = tid; item < inW * segments; item += 256) {
    const int seg = item / inW, c = item - seg * inW, y0 = seg * kFusedV;
    float4 acc[kFusedV];
#pragma unroll
    for (int j = 0; j < kFusedV; ++j) acc[j] = make_float4(0, 0, 0, 0);
    for (int k = 0; k < kFusedV + 2 * r; ++k) {
      const float4 v = toFloat4(in[(y0 + k) * inW + c]);
#pragma unroll
      for (int j = 0; j < kFusedV; ++j) {
        const int t = k - j;
        if (t >= 0 && t <= 2 * r) fma4(acc[j], m.col[t], v);
      }
    }
#pragma unroll
    for (int j = 0; j < kFusedV; ++j) vert[(y0 + j) * inW + c] = acc[j];
  }
  __syncthreads();
  // Horizontal: one output per thread per step, taps from the column sums.
#pragma unroll
  for (int j = 0; j < TH / 8; ++j)
#pragma unroll
    for (int i = 0; i < TW / 32; ++i) {
      const int lx = threadIdx.x + 32 * i, ly = threadIdx.y + 8 * j;
      const int x = ox + r + lx, y = oy + r + ly;
      if (x >= l.width || y >= l.height) continue;
      const float4* v = vert + ly * inW + lx;
      float4 a = make_float4(0, 0, 0, 0);
#pragma unroll 4
      for (int t = 0; t <= 2 * r; ++t) fma4(a, m.row[t], v[t]);
      storeOut(l, x, y, finishPixel(a, a, l.combine, l.filterAlpha, in[(ly + r) * inW + lx + r].w));
    }
}

template <int BX, int BY>
void launchSeparable(const Launch& l, const MaskSep& m, float4* tmp0, float4* tmp1) {
  const std::size_t rowShared = std::size_t(BY) * (kSteps + 2 * halo(m.radius, BX)) * BX * sizeof(float4);
  allowSharedBytes(rowPassKernel<BX, BY>, rowShared);
  rowPassKernel<BX, BY><<<dim3(ceilDiv(l.width, kSteps * BX), ceilDiv(l.height, BY)), dim3(BX, BY), rowShared, l.stream>>>(
      l, m, tmp0, tmp1);
  CL_CUDA_LAUNCHED("rowPassKernel<<<>>>");
  const std::size_t colShared = separableSharedBytes(BX, BY, m.radius) * (l.combine == Combine::Magnitude ? 2 : 1);
  allowSharedBytes(colPassKernel<BX, BY>, colShared);
  colPassKernel<BX, BY><<<dim3(ceilDiv(l.width, BX), ceilDiv(l.height, kSteps * BY)), dim3(BX, BY), colShared, l.stream>>>(
      l, m, tmp0, tmp1);
  CL_CUDA_LAUNCHED("colPassKernel<<<>>>");
}

template <int TW, int TH>
void launchFused(const Launch& l, const MaskSep& m) {
  static_assert(TW % 32 == 0 && TH % 8 == 0 && TH % kFusedV == 0, "fused tiles are whole 32x8 blocks");
  const std::size_t shared = fusedSharedBytes(TW, TH, m.radius);
  allowSharedBytes(fusedKernel<TW, TH>, shared);
  fusedKernel<TW, TH><<<dim3(ceilDiv(l.width, TW), ceilDiv(l.height, TH)), dim3(32, 8), shared, l.stream>>>(l, m);
  CL_CUDA_LAUNCHED("fusedKernel<<<>>>");
}

[[noreturn]] void badTile(const char* variant, const Launch& l) {
  throw std::invalid_argument(std::string(variant) + ": no compiled tile " + std::to_string(l.tileW) + "x" +
                              std::to_string(l.tileH));
}

}  // namespace

// The larger of the two passes (per intermediate plane).
std::size_t separableSharedBytes(int tileW, int tileH, int radius) {
  const std::size_t row = std::size_t(tileH) * (kSteps + 2 * halo(radius, tileW)) * tileW;
  const std::size_t col = std::size_t(tileW) * (kSteps + 2 * halo(radius, tileH)) * tileH;
  return std::max(row, col) * sizeof(float4);
}
std::size_t fusedSharedBytes(int tileW, int tileH, int radius) {
  const std::size_t inW = tileW + 2 * radius, inH = tileH + 2 * radius;
  return std::size_t(tileH) * inW * sizeof(float4) + inW * inH * sizeof(uchar4);
}

// The tiles offered here must match the variant table's (tests run every offered tile).
void separable(const Launch& l, const MaskSep& m, float4* tmp0, float4* tmp1) {
  if (l.tileW == 32 && l.tileH == 4) return launchSeparable<32, 4>(l, m, tmp0, tmp1);
  if (l.tileW == 16 && l.tileH == 8) return launchSeparable<16, 8>(l, m, tmp0, tmp1);
  if (l.tileW == 32 && l.tileH == 8) return launchSeparable<32, 8>(l, m, tmp0, tmp1);
  badTile("separable", l);
}

void fused(const Launch& l, const MaskSep& m) {
  if (l.tileW == 32 && l.tileH == 32) return launchFused<32, 32>(l, m);
  if (l.tileW == 64 && l.tileH == 32) return launchFused<64, 32>(l, m);
  if (l.tileW == 32 && l.tileH == 64) return launchFused<32, 64>(l, m);
  badTile("fused", l);
}

}  // namespace convlive::kernels
