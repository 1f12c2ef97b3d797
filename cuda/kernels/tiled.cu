// The shared-memory tiled 2D variants. Both stage the input tile plus its apron (r pixels on each
// side) in shared memory once, then compute every tap from there.
//   tiled:      block = input tile. Each thread loads its pixels of the input tile; threads whose
//               pixels fall in the apron idle while the others compute. For large radii the tile
//               is coarsened (each thread owns kx x ky pixels, strided) so that at least half of it
//               is output.
//   tiled-coop: block = output tile. The threads load tile + apron together in batches, then every
//               thread computes one output.
#include <cmath>

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

// The input tile of a BW x BH block: kx x ky pixels a thread, the output tile inside its apron.
struct TiledShape {
  int kx, ky, inW, inH, outW, outH;
};
TiledShape tiledShape(int bw, int bh, int r) {
  const int kx = coarsen(bw, r), ky = coarsen(bh, r);
  return {kx, ky, bw * kx, bh * ky, bw * kx - 2 * r, bh * ky - 2 * r};
}
dim3 tiledGrid(const Launch& l, const TiledShape& s) {
  return dim3(ceilDiv(l.width, s.outW), ceilDiv(l.height, s.outH));
}
dim3 tiledCoopGrid(const Launch& l, int tw, int th) { return dim3(ceilDiv(l.width, tw), ceilDiv(l.height, th)); }

template <int BW, int BH>
void launchTiled(const Launch& l, const Mask2D& m) {
  const TiledShape s = tiledShape(BW, BH, m.radius);
  const std::size_t shared = tiledSharedBytes(BW, BH, m.radius);
  allowSharedBytes(tiledKernel<BW, BH>, shared);
  tiledKernel<BW, BH><<<tiledGrid(l, s), dim3(BW, BH), shared, l.stream>>>(l, m, s.kx, s.ky);
  CL_CUDA_LAUNCHED("tiledKernel<<<>>>");
}

template <int TW, int TH>
void launchTiledCoop(const Launch& l, const Mask2D& m) {
  const std::size_t shared = tiledCoopSharedBytes(TW, TH, m.radius);
  allowSharedBytes(tiledCoopKernel<TW, TH>, shared);
  tiledCoopKernel<TW, TH><<<tiledCoopGrid(l, TW, TH), dim3(TW, TH), shared, l.stream>>>(l, m);
  CL_CUDA_LAUNCHED("tiledCoopKernel<<<>>>");
}

// The tiles offered here must match the variant table's (tests run every offered tile). `f` gets
// the compiled shape (TileShape) for l's tile.
template <class F>
decltype(auto) tiledInstance(const Launch& l, F&& f) {
  if (l.tileW == 16 && l.tileH == 16) return f(TileShape<16, 16>{});
  if (l.tileW == 32 && l.tileH == 8) return f(TileShape<32, 8>{});
  if (l.tileW == 32 && l.tileH == 32) return f(TileShape<32, 32>{});
  badTile("tiled", l);
}
template <class F>
decltype(auto) tiledCoopInstance(const Launch& l, F&& f) {
  if (l.tileW == 16 && l.tileH == 16) return f(TileShape<16, 16>{});
  if (l.tileW == 32 && l.tileH == 8) return f(TileShape<32, 8>{});
  if (l.tileW == 32 && l.tileH == 32) return f(TileShape<32, 32>{});
  if (l.tileW == 64 && l.tileH == 4) return f(TileShape<64, 4>{});
  badTile("tiled-coop", l);
}

std::string instanceName(const char* kernel, int a, int b) {
  return std::string(kernel) + "<" + std::to_string(a) + ", " + std::to_string(b) + ">";
}

// The taps of both 2D tile kernels: read from the shared tile, one FMA per channel (all four) per mask.
void tileTaps(WorkModel& m, const Launch& l, int r) {
  const double taps = double(2 * r + 1) * (2 * r + 1), masks = l.combine == Combine::Magnitude ? 2 : 1;
  m.sharedBytes = 4 * (taps + 1);  // the taps, and the centre again for its alpha
  m.flops = 2 * 4 * taps * masks;
  m.dramBytes = 8;
}
}  // namespace

std::size_t tiledSharedBytes(int tileW, int tileH, int radius) {
  return std::size_t(tileW) * coarsen(tileW, radius) * tileH * coarsen(tileH, radius) * sizeof(uchar4);
}
std::size_t tiledCoopSharedBytes(int tileW, int tileH, int radius) {
  return std::size_t(tileW + 2 * radius) * (tileH + 2 * radius) * sizeof(uchar4);
}

void tiled(const Launch& l, const Mask2D& m) {
  tiledInstance(l, [&](auto t) { launchTiled<decltype(t)::w, decltype(t)::h>(l, m); });
}

void tiledCoop(const Launch& l, const Mask2D& m) {
  tiledCoopInstance(l, [&](auto t) { launchTiledCoop<decltype(t)::w, decltype(t)::h>(l, m); });
}

LaunchDescription describeTiled(const Launch& l, int radius) {
  return tiledInstance(l, [&](auto t) {
    constexpr int BW = decltype(t)::w, BH = decltype(t)::h;
    const TiledShape s = tiledShape(BW, BH, radius);
    const dim3 grid = tiledGrid(l, s);
    PassLaunch p;
    p.kernel = instanceName("tiledKernel", BW, BH);
    p.grid = dimsOf(grid.x, grid.y);
    p.block = dimsOf(BW, BH);
    p.threadsPerBlock = BW * BH;
    p.outputsPerThread = double(s.outW) * s.outH / (BW * BH);
    setFootprint(p, s.outW, s.outH, s.inW, s.inH, -radius, -radius);
    p.dynamicShared = tiledSharedBytes(BW, BH, radius);
    p.kernelFunction = reinterpret_cast<const void*>(&tiledKernel<BW, BH>);
    if (s.kx * s.ky > 1)
      p.note = "input tile " + std::to_string(s.inW) + "x" + std::to_string(s.inH) + ": " + std::to_string(s.kx) + "x" +
               std::to_string(s.ky) + " pixels a thread";
    return LaunchDescription{{p}, ""};
  });
}

// Each thread loads kx x ky pixels of the input tile; those in the apron idle while the rest compute.
WorkModel modelTiled(const Launch& l, int radius) {
  const TiledShape s = tiledInstance(l, [&](auto t) { return tiledShape(decltype(t)::w, decltype(t)::h, radius); });
  const double in = double(s.inW) * s.inH, out = double(s.outW) * s.outH;
  WorkModel m;
  m.globalReads = in / out;
  m.globalBytes = 4 * m.globalReads;
  m.apron = in / out;
  m.idleThreads = 1 - out / in;
  tileTaps(m, l, radius);
  return m;
}

LaunchDescription describeTiledCoop(const Launch& l, int radius) {
  return tiledCoopInstance(l, [&](auto t) {
    constexpr int TW = decltype(t)::w, TH = decltype(t)::h;
    const dim3 grid = tiledCoopGrid(l, TW, TH);
    PassLaunch p;
    p.kernel = instanceName("tiledCoopKernel", TW, TH);
    p.grid = dimsOf(grid.x, grid.y);
    p.block = dimsOf(TW, TH);
    p.threadsPerBlock = TW * TH;
    p.outputsPerThread = 1;
    setFootprint(p, TW, TH, TW + 2 * radius, TH + 2 * radius, -radius, -radius);
    p.dynamicShared = tiledCoopSharedBytes(TW, TH, radius);
    p.kernelFunction = reinterpret_cast<const void*>(&tiledCoopKernel<TW, TH>);
    return LaunchDescription{{p}, ""};
  });
}

// The block loads its output tile and apron in batches of one pixel a thread; all compute.
WorkModel modelTiledCoop(const Launch& l, int radius) {
  const Dims t = tiledCoopInstance(l, [](auto t) { return dimsOf(decltype(t)::w, decltype(t)::h); });
  const double in = double(t.x + 2 * radius) * (t.y + 2 * radius), out = double(t.x) * t.y;
  WorkModel m;
  m.globalReads = in / out;
  m.globalBytes = 4 * m.globalReads;
  m.apron = in / out;
  tileTaps(m, l, radius);
  const double batches = std::ceil(in / out);
  if (batches * out > in)
    m.notes.push_back("loading: the last of " + std::to_string(int(batches)) + " batches leaves " +
                      std::to_string(int(batches * out - in)) + " threads idle");
  return m;
}

}  // namespace convlive::kernels
