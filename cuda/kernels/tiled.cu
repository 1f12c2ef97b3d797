// The shared-memory tiled 2D variants. Both stage the input tile plus its apron (r pixels on each
// side) in shared memory once, then compute every tap from there.
//   tiled:      block = input tile. Each thread loads its pixels of the input tile; threads whose
//               pixels fall in the apron idle while the others compute. For large radii the tile
//               is coarsened (each thread owns kx x ky pixels, strided) so that at least half of it
//               is output.
//   tiled-coop: block = output tile. The threads load tile + apron together in batches, then every
//               thread computes one output.
#include "common.cuh"

namespace convlive::kernels {
namespace {

// The filter at tile position (cx, cy) of a tile `stride` pixels wide.
__device__ __forceinline__ uchar4 tilePixel(const Launch& l, const uchar4* tile, int stride, int cx, int cy,
                                            const Mask2D& m) {
  const int r = m.radius, k = 2 * r + 1;
  float4 a = make_float4(0, 0, 0, 0), b = a;
  const bool magnitude = l.combine == Combine::Magnitude;
  for (int dy = -r; dy <= r; ++dy) {
    const uchar4* row = tile + (cy + dy) * stride + cx;
    for (int dx = -r; dx <= r; ++dx) {
      const float4 v = toFloat4(row[dx]);
      fma4(a, m.w[(dy + r) * k + dx + r], v);
      if (magnitude) fma4(b, m.w[(dx + r) * k + dy + r], v);
    }
  }
  return finishPixel(a, b, l.combine, l.filterAlpha, tile[cy * stride + cx].w);
}

// Coarsening of the input-tile kernel along one axis: pixels per thread so that the tile (threads *
// k) is at least 4r wide, which leaves at least half of it as output.
int coarsen(int threads, int r) { return r == 0 ? 1 : std::max(1, static_cast<int>(ceilDiv(4 * r, threads))); }

template <int BW, int BH>
__global__ void __launch_bounds__(BW* BH)
    tiledKernel(const __grid_constant__ Launch l, const __grid_constant__ Mask2D m, int kx, int ky) {
  extern __shared__ uchar4 tile[];
  const int r = m.radius, inW = BW * kx, inH = BH * ky, outW = inW - 2 * r, outH = inH - 2 * r;
  const int ox = blockIdx.x * outW - r, oy = blockIdx.y * outH - r;
  for (int j = 0; j < ky; ++j)
    for (int i = 0; i < kx; ++i) {
      const int lx = threadIdx.x + i * BW, ly = threadIdx.y + j * BH;
      tile[ly * inW + lx] = loadBordered(l, ox + lx, oy + ly);
    }
  __syncthreads();
  for (int j = 0; j < ky; ++j)
    for (int i = 0; i < kx; ++i) {
      const int lx = threadIdx.x + i * BW, ly = threadIdx.y + j * BH;
      if (lx < r || lx >= inW - r || ly < r || ly >= inH - r) continue;  // apron: idle
      const int x = ox + lx, y = oy + ly;
      if (x >= l.width || y >= l.height) continue;
      storeOut(l, x, y, tilePixel(l, tile, inW, lx, ly, m));
    }
}

template <int TW, int TH>
__global__ void __launch_bounds__(TW* TH)
    tiledCoopKernel(const __grid_constant__ Launch l, const __grid_constant__ Mask2D m) {
  extern __shared__ uchar4 tile[];
  const int r = m.radius, inW = TW + 2 * r, inH = TH + 2 * r;
  const int ox = blockIdx.x * TW - r, oy = blockIdx.y * TH - r;
  for (int i = threadIdx.y * TW + threadIdx.x; i < inW * inH; i += TW * TH) {
    const int ly = i / inW, lx = i - ly * inW;
    tile[i] = loadBordered(l, ox + lx, oy + ly);
  }
  __syncthreads();
  const int x = blockIdx.x * TW + threadIdx.x, y = blockIdx.y * TH + threadIdx.y;
  if (x >= l.width || y >= l.height) return;
  storeOut(l, x, y, tilePixel(l, tile, inW, threadIdx.x + r, threadIdx.y + r, m));
}

template <int BW, int BH>
void launchTiled(const Launch& l, const Mask2D& m) {
  const int kx = coarsen(BW, m.radius), ky = coarsen(BH, m.radius);
  const int outW = BW * kx - 2 * m.radius, outH = BH * ky - 2 * m.radius;
  const std::size_t shared = tiledSharedBytes(BW, BH, m.radius);
  allowSharedBytes(tiledKernel<BW, BH>, shared);
  tiledKernel<BW, BH>
      <<<dim3(ceilDiv(l.width, outW), ceilDiv(l.height, outH)), dim3(BW, BH), shared, l.stream>>>(l, m, kx, ky);
  CL_CUDA_LAUNCHED("tiledKernel<<<>>>");
}

template <int TW, int TH>
void launchTiledCoop(const Launch& l, const Mask2D& m) {
  const std::size_t shared = tiledCoopSharedBytes(TW, TH, m.radius);
  allowSharedBytes(tiledCoopKernel<TW, TH>, shared);
  tiledCoopKernel<TW, TH><<<dim3(ceilDiv(l.width, TW), ceilDiv(l.height, TH)), dim3(TW, TH), shared, l.stream>>>(l, m);
  CL_CUDA_LAUNCHED("tiledCoopKernel<<<>>>");
}
}  // namespace

std::size_t tiledSharedBytes(int tileW, int tileH, int radius) {
  return std::size_t(tileW) * coarsen(tileW, radius) * tileH * coarsen(tileH, radius) * sizeof(uchar4);
}
std::size_t tiledCoopSharedBytes(int tileW, int tileH, int radius) {
  return std::size_t(tileW + 2 * radius) * (tileH + 2 * radius) * sizeof(uchar4);
}

// The tiles offered here must match the variant table's (tests run every offered tile).
void tiled(const Launch& l, const Mask2D& m) {
  if (l.tileW == 16 && l.tileH == 16) return launchTiled<16, 16>(l, m);
  if (l.tileW == 32 && l.tileH == 8) return launchTiled<32, 8>(l, m);
  if (l.tileW == 32 && l.tileH == 32) return launchTiled<32, 32>(l, m);
  badTile("tiled", l);
}

void tiledCoop(const Launch& l, const Mask2D& m) {
  if (l.tileW == 16 && l.tileH == 16) return launchTiledCoop<16, 16>(l, m);
  if (l.tileW == 32 && l.tileH == 8) return launchTiledCoop<32, 8>(l, m);
  if (l.tileW == 32 && l.tileH == 32) return launchTiledCoop<32, 32>(l, m);
  if (l.tileW == 64 && l.tileH == 4) return launchTiledCoop<64, 4>(l, m);
  badTile("tiled-coop", l);
}

}  // namespace convlive::kernels
