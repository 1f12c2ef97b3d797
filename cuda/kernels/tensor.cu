// tensor2d: any 2D mask on the tensor cores (mma.sync m16n8k16, fp16 operands, fp32 accumulation).
//
// For one mask row dy, a row of outputs is a 1D convolution of an input row: a product with a
// banded Toeplitz matrix. Per warp, the GEMM is
//   C[16 x 8]  += A[16 x 16] * B[16 x 8]
//   rows of C: 16 adjacent output pixels; columns of C: 8 (output row, channel) lines;
//   A: the Toeplitz slice A[m][k] = w[dy][16 kc + k - m] (zero off the band), kc = 0..KC-1;
//   B: 16 adjacent input pixels of those lines, shifted down by dy (fp16, exact).
// The input tile (with apron) is held in shared memory as fp16 lines, one per (row, channel): 4
// channels when alpha is filtered, 3 when it is kept (alpha then costs no products). A warp makes
// 4 rows x 4 channels (2 blocks of 8 lines: one ldmatrix.x4 gives their B fragments) or 8 rows x 3
// channels (3 blocks: an ldmatrix.x4 and an x2). A fragment at column 16s serves
// output chunks s - kc for every kc: 16 pixels a product, so each 512-byte fragment feeds 2 KC
// products (the outputs as A's rows, 8 pixels a product, fed only KC). Weights are fp16 (error
// bound checked on the host, convlive/precision.hpp) or, where that bound is too loose, an fp16
// high part plus an fp16 low part (two products per fragment), kept as pairs (w[q], w[q + 1]) so
// that every A register is one 32-bit load. The result goes through shared memory (over the input
// tile, once that is spent) so that each thread writes whole RGBA8 pixels, 16 bytes at a time.
#include <cuda_fp16.h>

#pragma nv_diag_suppress 177  // the sm_75 pass compiles no tensor-core code, so its helpers go unused

#include "async.cuh"
#include "common.cuh"
#include "dependent_launch.cuh"
#include "mma.cuh"

namespace convlive::kernels {
namespace {

#if __CUDA_ARCH__ >= 800
// ldmatrix.x2: two 8x8 fp16 matrices, rows addressed by lanes 0-7 and 8-15 (mma.cuh has the x4).
__device__ __forceinline__ void ldmatrixX2(unsigned (&a)[2], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(a[0]), "=r"(a[1]) : "r"(addr));
}
#endif

constexpr int kKcMax = 5;  // 16-wide chunks of B per output chunk: ceil((8 + 2r) / 16) <= 5 for r <= 32

__host__ __device__ constexpr int kChunks(int r) { return (8 + 2 * r + 15) / 16; }
// Halves per (row, channel) line: room for the last A fragment past the apron, and = 8 (mod 16)
// so that the 8 lines an ldmatrix phase reads fall in 8 different 16-byte bank groups.
__host__ __device__ constexpr int linePitch(int inW) { return (inW + 16 + 7) / 16 * 16 + 8; }
__host__ __device__ constexpr int weightPitch(int r) { return 16 * kChunks(r) + 8; }
// tensor2d's K chunks for a 16-pixel output chunk: ceil((16 + 2r) / 16) <= 5 for r <= 32.
// The kernel is compiled for KC = 2..5 (r = 0 runs with KC = 2, its second chunk's weights zero).
__host__ __device__ constexpr int kChunks16(int r) { return r < 1 ? 2 : (16 + 2 * r + 15) / 16; }
// tensor2d's weight pairs per mask row: (w[q], w[q + 1]) at q + 16 for q = -16 .. 16 KC - 1.
__host__ __device__ constexpr int pairPitch(int kc) { return 16 * kc + 16; }

// Writes a TW x TH tile of RGBA8 results (staged in shared memory) at (x0, y0) of frame f, 16 bytes a thread
// where the row allows; alpha comes from the input unless it was filtered.
template <int TW, int TH, class Frame>
__device__ __forceinline__ void storeTile(const Launch& l, const Frame& f, const unsigned* staged, int x0, int y0,
                                          int tid, int threads) {
  const bool alignedOut = (reinterpret_cast<std::size_t>(f.out()) | l.outPitch) % 16 == 0;
  for (int i = tid; i < TH * TW / 4; i += threads) {
    const int yy = i / (TW / 4), x = 4 * (i - yy * (TW / 4)), y = y0 + yy;
    if (y >= l.height || x0 + x >= l.width) continue;
    unsigned px[4];
    const uchar4* src = rowPtr(f.in(), l.inPitch, y) + x0 + x;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      px[q] = staged[yy * TW + x + q];
      if (!l.filterAlpha && x0 + x + q < l.width) px[q] = (px[q] & 0x00FFFFFFu) | unsigned(src[q].w) << 24;
    }
    uchar4* dst = rowPtr(f.out(), l.outPitch, y) + x0 + x;
    if (alignedOut && x0 + x + 4 <= l.width) {
      *reinterpret_cast<uint4*>(dst) = make_uint4(px[0], px[1], px[2], px[3]);
    } else {
      for (int q = 0; q < 4 && x0 + x + q < l.width; ++q) reinterpret_cast<unsigned*>(dst)[q] = px[q];
    }
  }
}

// Frame f's input pixels x0..x0+inW-1 of rows y0..y0+inH-1 (through the border mode where they
// leave the frame) as fp16 lines, one per (row, channel), P halves apart: line C row + channel, channels
// 0..C-1 (C = 3: alpha is not filtered, so it gets no lines). Columns inW..P-1 and rows
// inH..rows-1 are zero (the Toeplitz factors are zero there too, but products must not meet
// garbage that could be NaN).
template <int C = 4, class Frame>
__device__ __forceinline__ void fillHalfTile(const Launch& l, const Frame& f, __half* tile, int x0, int y0, int inW,
                                             int inH, int rows, int P, int tid, int threads) {
  const bool interior = x0 >= 0 && x0 + inW <= l.width && y0 >= 0 && y0 + inH <= l.height;
  const int pairs = P / 2, n = rows * pairs;
  // kBatch pairs a thread at a time, every load before any store: the loads' latencies overlap
  // instead of one round trip to memory per pair.
  constexpr int kBatch = 4;
  for (int i0 = tid; i0 < n; i0 += kBatch * threads) {
    unsigned p0[kBatch], p1[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const int i = i0 + k * threads, ir = i / pairs, c = 2 * (i - ir * pairs), y = y0 + ir, x = x0 + c;
      p0[k] = p1[k] = 0;
      if (i < n && ir < inH) {
        if (interior) {
          const uchar4* row = rowPtr(f.in(), l.inPitch, y);
          if (c < inW) p0[k] = packPixel(row[x]);
          if (c + 1 < inW) p1[k] = packPixel(row[x + 1]);
        } else {
          if (c < inW) p0[k] = packPixel(loadBordered(l, f, x, y));
          if (c + 1 < inW) p1[k] = packPixel(loadBordered(l, f, x + 1, y));
        }
      }
    }
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const int i = i0 + k * threads, ir = i / pairs, c = 2 * (i - ir * pairs);
      if (i >= n) break;
#pragma unroll
      for (int ch = 0; ch < C; ++ch)
        *reinterpret_cast<unsigned*>(&tile[(ir * C + ch) * P + c]) = bytesToHalf2(p0[k], p1[k], ch);
    }
  }
}

// The lines a warp's B fragments cover: R rows x C channels of the tile, NB = R C / 8 blocks of 8
// lines. With alpha filtered (C = 4) a warp makes 4 rows (2 blocks) of the tile's width; with alpha
// kept (C = 3) it makes 8 rows (3 blocks), so no product is spent on alpha, of 64 pixels (the
// tile's 128 are two warps: 3 blocks of 8 chunks would need 96 accumulators a lane).
__host__ __device__ constexpr int warpRows2D(int c) { return c == 4 ? 4 : 8; }
__host__ __device__ constexpr int warpsAcross2D(int tw, int c) { return c == 4 ? 1 : tw / 64; }
// Whether tensor2d walks rows (tensor2dStreamKernel) for a tile TH rows high and KC K chunks: where
// the apron's rows (2r, up to 16 (KC - 1)) may be twice TH, so that a tile fills mostly apron. 4K on
// the H200, walking against one tile a block: 16-row tiles r=12 0.199-0.215 ms against 0.207-0.247,
// r=16 0.258-0.297 against 0.303-0.396; 32-row tiles r=32 0.666-0.891 against 0.861-0.914, but
// r=24 at 128x32 0.468 against 0.403 (its 8 warps of 94 registers hold 2 blocks an SM, against 3).
__host__ __device__ constexpr bool streamsRows2D(int th, int kc) { return 16 * (kc - 1) >= 2 * th; }

// Frame f's input pixels x0..x0 + inW - 1 of rows y0..y0 + n - 1, 4 bytes each, into `raw` (inW a row)
// by cp.async, through the border mode where they leave the frame (zeros for a constant border).
// inX: the columns are all inside the frame.
template <class Frame>
__device__ __forceinline__ void fetchRows(const Launch& l, const Frame& f, unsigned* raw, int x0, int inW, int y0,
                                          int n, bool inX, int tid, int threads) {
  // (row, c) of element i = tid + k threads, stepped without a division.
  int row = tid / inW, c = tid - row * inW;
  const int dRow = threads / inW, dC = threads - dRow * inW;
  for (int i = tid; i < n * inW; i += threads) {
    const int y = y0 + row, x = x0 + c;
    int sx = x, sy = y;
    if (!inX || y < 0 || y >= l.height) {
      sx = borderIndex(x, l.width, l.border);
      sy = borderIndex(y, l.height, l.border);
    }
    if (sx < 0 || sy < 0)
      raw[i] = 0;
    else
      copyAsync<4>(raw + i, rowPtr(f.in(), l.inPitch, sy) + sx);
    row += dRow;
    c += dC;
    if (c >= inW) {
      c -= inW;
      ++row;
    }
  }
  commitAsync();
}

// n rows of `raw` (inW pixels a row) as fp16 lines of the ring (C channels a pixel, P halves a
// line), from ring row `at` on (wrapping past ringRows); columns inW..P-1 zero.
template <int C>
__device__ __forceinline__ void convertRows(const unsigned* raw, int inW, __half* ring, int P, int at, int ringRows,
                                            int n, int tid, int threads) {
  const int pairs = P / 2;
  int row = tid / pairs, c = tid - row * pairs;
  const int dRow = threads / pairs, dC = threads - dRow * pairs;
  for (int i = tid; i < n * pairs; i += threads) {
    uint2 p = make_uint2(0, 0);  // inW is even: a pair is wholly inside the row or past it
    if (2 * c < inW) p = *reinterpret_cast<const uint2*>(raw + row * inW + 2 * c);
    int rr = at + row;
    if (rr >= ringRows) rr -= ringRows;
#pragma unroll
    for (int ch = 0; ch < C; ++ch)
      *reinterpret_cast<unsigned*>(&ring[(rr * C + ch) * P + 2 * c]) = bytesToHalf2(p.x, p.y, ch);
    row += dRow;
    c += dC;
    if (c >= pairs) {
      c -= pairs;
      ++row;
    }
  }
}

// A warp's sums rounded into the TW-wide RGBA8 staging tile. acc[p][j][e]: pixel
// xw + 16 j + g + 8 (e / 2), line n = 8 p + 2 t4 + e % 2 of the warp's: row R wr + n / C, channel
// n % C.
// The mask's taps x taps weights as pairs of fp16 high (and, Split, low) parts, zero off the mask, WQ
// pairs a mask row: pair i of row dy holds columns i - 16 and i - 15. A mask row a warp.
template <int WARPS, int WQ, bool Split>
__device__ __forceinline__ void stageWeights(const Mask2D& m, int taps, unsigned* whi, unsigned* wlo, int warp,
                                             int lane) {
  for (int dy = warp; dy < taps; dy += WARPS)
    for (int i = lane; i < WQ; i += 32) {
      const int q = i - 16;
      const float w0 = q >= 0 && q < taps ? m.w[dy * taps + q] : 0.f;
      const float w1 = q + 1 >= 0 && q + 1 < taps ? m.w[dy * taps + q + 1] : 0.f;
      const __half h0 = __float2half_rn(w0), h1 = __float2half_rn(w1);
      whi[dy * WQ + i] = halfPair(__half2float(h0), __half2float(h1));
      if (Split) wlo[dy * WQ + i] = halfPair(w0 - __half2float(h0), w1 - __half2float(h1));
    }
}

// A mask row's A fragments for a lane, KC chunks: wh and wl point at the lane's pair of the row's
// weight pairs (stageWeights: pair 16 + 2 t4 - g). A[m][k] = w[16 kc + k - m]: (g, 2 t4..) and
// (g + 8, 2 t4 + 8..) share a pair; (g + 8, 2 t4..) is 8 before it, (g, 2 t4 + 8..) 8 after.
template <int KC, bool Split>
__device__ __forceinline__ void weightFragments(const unsigned* wh, const unsigned* wl, unsigned (&ah)[KC][3],
                                                unsigned (&al)[KC][3]) {
#pragma unroll
  for (int kc = 0; kc < KC; ++kc) {
    ah[kc][0] = wh[16 * kc];
    ah[kc][1] = wh[16 * kc - 8];
    ah[kc][2] = wh[16 * kc + 8];
    if (Split) {
      al[kc][0] = wl[16 * kc];
      al[kc][1] = wl[16 * kc - 8];
      al[kc][2] = wl[16 * kc + 8];
    }
  }
}

template <int TW, int R, int C, int NB, int NCH>
__device__ __forceinline__ void stageSums(const float (&acc)[NB][NCH][4], unsigned char* outBytes, int wr, int xw,
                                          int g, int t4, bool absolute) {
#pragma unroll
  for (int p = 0; p < NB; ++p)
#pragma unroll
    for (int j = 0; j < NCH; ++j)
#pragma unroll
      for (int e = 0; e < 4; e += 2) {
        const int x = xw + 16 * j + g + 4 * e, n = 8 * p + 2 * t4;
        const float v0 = absolute ? fabsf(acc[p][j][e]) : acc[p][j][e];
        const float v1 = absolute ? fabsf(acc[p][j][e + 1]) : acc[p][j][e + 1];
        if constexpr (C == 4) {  // lines n and n + 1: two channels of one pixel
          const unsigned short two = static_cast<unsigned short>(toByte(v0) | toByte(v1) << 8);
          *reinterpret_cast<unsigned short*>(&outBytes[((R * wr + n / 4) * TW + x) * 4 + n % 4]) = two;
        } else {
          outBytes[((R * wr + n / C) * TW + x) * 4 + n % C] = toByte(v0);
          outBytes[((R * wr + (n + 1) / C) * TW + x) * 4 + (n + 1) % C] = toByte(v1);
        }
      }
}

// KC: K chunks a mask row (kChunks16(r)), a template argument so that the loops over output and K
// chunks unroll without run-time tests (they cost ~20 instructions a B fragment when KC was not).
// C: fp16 lines a pixel (4, or 3 when alpha is kept).
//
// A block makes one TW x TH tile: it fills the tile's input with its apron (TH + 2r rows), then
// makes its products, then stores. Where 2r may be twice TH, tensor2dStreamKernel below walks rows.
template <int TW, int WARPS, int KC, bool Split, int C, bool Batch>
__global__ void __launch_bounds__(32 * WARPS)
    tensor2dKernel(const __grid_constant__ Launch l, const __grid_constant__ Mask2D m) {
#if __CUDA_ARCH__ >= 800
  const BlockFrame<Batch> frame{l};
  static_assert(TW % 16 == 0, "tensor2d tile width");
  static_assert(C == 4 || (C == 3 && TW % 64 == 0), "tensor2d lines a pixel");
  constexpr int WC = warpsAcross2D(TW, C), NCH = TW / 16 / WC, R = warpRows2D(C), NB = R * C / 8;
  constexpr int TH = R * WARPS / WC, kThreads = 32 * WARPS;
  extern __shared__ __align__(16) unsigned char tensorSmem[];
  constexpr int WQ = pairPitch(KC);
  const int r = m.radius, taps = 2 * r + 1;
  const int inW = TW + 2 * r, inH = TH + 2 * r, P = linePitch(inW);
  __half* tile = reinterpret_cast<__half*>(tensorSmem);             // inH * C lines of P halves
  unsigned* whi = reinterpret_cast<unsigned*>(tile + inH * C * P);  // taps rows of WQ weight pairs
  unsigned* wlo = whi + taps * WQ;                                  // (split only)
  unsigned char* outBytes = tensorSmem;  // the TH x TW RGBA8 result, over the tile once that is spent
  const int tid = threadIdx.x, x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;

  // 1. The weights (stageWeights), while the previous kernel on the stream may still run (a
  // dependent launch: dependent_launch.cuh).
  allowDependentLaunch();
  const int warp = tid >> 5, lane = tid & 31;
  stageWeights<WARPS, WQ, Split>(m, taps, whi, wlo, warp, lane);
  // 2. The input tile with apron as fp16 lines, once the previous kernel's writes are visible.
  waitForPrerequisites();
  fillHalfTile<C>(l, frame, tile, x0 - r, y0 - r, inW, inH, inH, P, tid, kThreads);
  __syncthreads();

  // 3. The products. Warp w makes rows R wr..R wr + R - 1 (wr = w / WC) of pixels 16 NCH wc.. (wc =
  // w % WC): lines C (R wr + dy) + 0..R C - 1 of the tile for mask row dy, in NB blocks of 8. Lane
  // (g, t4) holds C rows (pixels) g and g + 8, columns (lines of the block) 2 t4 and 2 t4 + 1.
  const int g = lane >> 2, t4 = lane & 3, wr = warp / WC, xw = 16 * NCH * (warp - wr * WC);
  float acc[NB][NCH][4];
#pragma unroll
  for (int p = 0; p < NB; ++p)
#pragma unroll
    for (int j = 0; j < NCH; ++j) acc[p][j][0] = acc[p][j][1] = acc[p][j][2] = acc[p][j][3] = 0.f;
  // ldmatrix.x4: lanes 0-7 give lines 0-7 at column 0, 8-15 lines 0-7 at column 8, 16-23 lines
  // 8-15 at column 0, 24-31 lines 8-15 at column 8: {b0, b1} is block 0's B, {b2, b3} block 1's.
  // A third block (C = 3) comes from ldmatrix.x2 on lines 16-23 (lanes 0-15's addresses).
  const int bLine = (lane & 7) + 8 * (lane >> 4), bCol = 8 * ((lane >> 3) & 1);
  const unsigned bBase = smemAddress(tile + (R * C * wr + bLine) * P + xw + bCol);
  const unsigned bBase2 = smemAddress(tile + (R * C * wr + 16 + (lane & 7)) * P + xw + bCol);
  for (int dy = 0; dy < taps; ++dy) {
    unsigned ah[KC][3], al[KC][3];
    weightFragments<KC, Split>(whi + dy * WQ + 16 + 2 * t4 - g, wlo + dy * WQ + 16 + 2 * t4 - g, ah, al);
    const unsigned rowOffset = static_cast<unsigned>(dy * C * P * 2);
#pragma unroll
    for (int s = 0; s < NCH + KC - 1; ++s) {
      unsigned b[NB == 3 ? 6 : 4];
      ldmatrixX4(reinterpret_cast<unsigned(&)[4]>(b[0]), bBase + rowOffset + 32u * s);
      if constexpr (NB == 3) ldmatrixX2(reinterpret_cast<unsigned(&)[2]>(b[4]), bBase2 + rowOffset + 32u * s);
#pragma unroll
      for (int kc = 0; kc < KC; ++kc) {
        const int j = s - kc;
        if (j < 0 || j >= NCH) continue;
        const unsigned a[4] = {ah[kc][0], ah[kc][1], ah[kc][2], ah[kc][0]};
#pragma unroll
        for (int p = 0; p < NB; ++p) mma16816(acc[p][j], a, b[2 * p], b[2 * p + 1]);
        if (Split) {
          const unsigned lo[4] = {al[kc][0], al[kc][1], al[kc][2], al[kc][0]};
#pragma unroll
          for (int p = 0; p < NB; ++p) mma16816(acc[p][j], lo, b[2 * p], b[2 * p + 1]);
        }
      }
    }
  }
  __syncthreads();  // every warp is done with the tile: the result goes over it

  // 4. Round into the RGBA8 staging tile, then whole pixels out.
  stageSums<TW, R, C>(acc, outBytes, wr, xw, g, t4, l.combine == Combine::Abs);
  __syncthreads();
  storeTile<TW, TH>(l, frame, reinterpret_cast<const unsigned*>(outBytes), x0, y0, tid, kThreads);
#endif
}

// tensor2d where the apron's 2r rows may be twice the tile's TH (streamsRows2D): the same products,
// but a block walks a TW-wide strip down a segment of `segmentRows` output rows (a multiple of TH), TH
// rows a step. Its input rows are a ring of TH + 2r rows of fp16 lines: while a step's products run,
// the next step's TH new rows come into `raw` by cp.async; then they are converted over the ring's
// oldest TH rows, which that step no longer needs. So each input row is read and converted once a
// segment, and its loads overlap the products.
template <int TW, int WARPS, int KC, bool Split, int C, bool Batch>
__global__ void __launch_bounds__(32 * WARPS)
    tensor2dStreamKernel(const __grid_constant__ Launch l, const __grid_constant__ Mask2D m, int segmentRows) {
#if __CUDA_ARCH__ >= 800
  // The block's frame of the batch (its pointers made where they are used: held across the walk,
  // they took up to 21 more registers).
  const BlockFrame<Batch> frame{l};
  static_assert(TW % 16 == 0, "tensor2d tile width");
  static_assert(C == 4 || (C == 3 && TW % 64 == 0), "tensor2d lines a pixel");
  constexpr int WC = warpsAcross2D(TW, C), NCH = TW / 16 / WC, R = warpRows2D(C), NB = R * C / 8;
  constexpr int TH = R * WARPS / WC, kThreads = 32 * WARPS;
  extern __shared__ __align__(16) unsigned char tensorSmem[];
  constexpr int WQ = pairPitch(KC);
  const int r = m.radius, taps = 2 * r + 1;
  const int inW = TW + 2 * r, ringRows = TH + 2 * r, P = linePitch(inW);
  __half* ring = reinterpret_cast<__half*>(tensorSmem);                  // ringRows * C lines of P halves
  unsigned* raw = reinterpret_cast<unsigned*>(ring + ringRows * C * P);  // TH rows of inW pixels
  unsigned* whi = raw + TH * inW;                                        // taps rows of WQ weight pairs
  unsigned* wlo = whi + taps * WQ;                                       // (split only)
  unsigned char* outBytes = reinterpret_cast<unsigned char*>(raw);       // a step's TH x TW RGBA8 result
  const int tid = threadIdx.x, x0 = blockIdx.x * TW, ys = blockIdx.y * segmentRows;
  const int yEnd = min(ys + segmentRows, l.height);
  const bool inX = x0 - r >= 0 && x0 + TW + r <= l.width;

  // 1. The weights (stageWeights), while the previous kernel on the stream may still run (a
  // dependent launch: dependent_launch.cuh).
  allowDependentLaunch();
  const int warp = tid >> 5, lane = tid & 31;
  stageWeights<WARPS, WQ, Split>(m, taps, whi, wlo, warp, lane);
  // 2. The first step's window, rows ys - r..ys + TH + r - 1, at ring rows 0.., TH rows at a time,
  // once the previous kernel's writes are visible.
  waitForPrerequisites();
  for (int done = 0; done < ringRows; done += TH) {
    const int n = min(TH, ringRows - done);
    fetchRows(l, frame, raw, x0 - r, inW, ys - r + done, n, inX, tid, kThreads);
    waitAsync<0>();
    __syncthreads();
    convertRows<C>(raw, inW, ring, P, done, ringRows, n, tid, kThreads);
    __syncthreads();
  }

  // 3. The steps. Warp w makes rows R wr..R wr + R - 1 (wr = w / WC) of pixels xw.. (wc = w % WC):
  // for mask row dy, lines C (R wr + dy) + 0..R C - 1 of the window, in NB blocks of 8. Lane
  // (g, t4) holds C rows (pixels) g and g + 8, columns (lines of the block) 2 t4 and 2 t4 + 1.
  const int g = lane >> 2, t4 = lane & 3, wr = warp / WC, xw = 16 * NCH * (warp - wr * WC);
  // ldmatrix.x4: lanes 0-7 give lines 0-7 at column 0, 8-15 lines 0-7 at column 8, 16-23 lines
  // 8-15 at column 0, 24-31 lines 8-15 at column 8: {b0, b1} is block 0's B, {b2, b3} block 1's.
  // A third block (C = 3) comes from ldmatrix.x2 on lines 16-23 (lanes 0-15's addresses). A lane's
  // line n is window row R wr + n / C (+ dy), channel n % C.
  const int lineA = (lane & 7) + 8 * (lane >> 4), lineB = 16 + (lane & 7), bCol = 8 * ((lane >> 3) & 1);
  const unsigned ringBase = smemAddress(ring) + static_cast<unsigned>((xw + bCol) * 2);
  const int chA = lineA % C, chB = lineB % C;
  const bool absolute = l.combine == Combine::Abs;
  int oldest = 0;  // the ring row of the step's first window row
  for (int y = ys; y < yEnd; y += TH) {
    const bool more = y + TH < yEnd;
    if (more) fetchRows(l, frame, raw, x0 - r, inW, y + TH + r, TH, inX, tid, kThreads);

    float acc[NB][NCH][4];
#pragma unroll
    for (int p = 0; p < NB; ++p)
#pragma unroll
      for (int j = 0; j < NCH; ++j) acc[p][j][0] = acc[p][j][1] = acc[p][j][2] = acc[p][j][3] = 0.f;
    int rowA = oldest + R * wr + lineA / C, rowB = oldest + R * wr + lineB / C;
    if (rowA >= ringRows) rowA -= ringRows;
    if (rowB >= ringRows) rowB -= ringRows;
    for (int dy = 0; dy < taps; ++dy) {
      unsigned ah[KC][3], al[KC][3];
      weightFragments<KC, Split>(whi + dy * WQ + 16 + 2 * t4 - g, wlo + dy * WQ + 16 + 2 * t4 - g, ah, al);
      const unsigned addrA = ringBase + static_cast<unsigned>((rowA * C + chA) * P * 2);
      const unsigned addrB = ringBase + static_cast<unsigned>((rowB * C + chB) * P * 2);
#pragma unroll
      for (int s = 0; s < NCH + KC - 1; ++s) {
        unsigned b[NB == 3 ? 6 : 4];
        ldmatrixX4(reinterpret_cast<unsigned(&)[4]>(b[0]), addrA + 32u * s);
        if constexpr (NB == 3) ldmatrixX2(reinterpret_cast<unsigned(&)[2]>(b[4]), addrB + 32u * s);
#pragma unroll
        for (int kc = 0; kc < KC; ++kc) {
          const int j = s - kc;
          if (j < 0 || j >= NCH) continue;
          const unsigned a[4] = {ah[kc][0], ah[kc][1], ah[kc][2], ah[kc][0]};
#pragma unroll
          for (int p = 0; p < NB; ++p) mma16816(acc[p][j], a, b[2 * p], b[2 * p + 1]);
          if (Split) {
            const unsigned lo[4] = {al[kc][0], al[kc][1], al[kc][2], al[kc][0]};
#pragma unroll
            for (int p = 0; p < NB; ++p) mma16816(acc[p][j], lo, b[2 * p], b[2 * p + 1]);
          }
        }
      }
      if (++rowA == ringRows) rowA = 0;
      if (++rowB == ringRows) rowB = 0;
    }
    // Every warp is done with the window (its oldest TH rows are free) and the next rows are in.
    waitAsync<0>();
    __syncthreads();
    if (more) convertRows<C>(raw, inW, ring, P, oldest, ringRows, TH, tid, kThreads);
    __syncthreads();  // raw is spent: the result goes over it

    // 4. Round into the RGBA8 staging tile, then whole pixels out.
    stageSums<TW, R, C>(acc, outBytes, wr, xw, g, t4, absolute);
    __syncthreads();
    storeTile<TW, TH>(l, frame, reinterpret_cast<const unsigned*>(outBytes), x0, y, tid, kThreads);
    __syncthreads();  // the staged result is read before the next rows come over it
    oldest += TH;
    if (oldest >= ringRows) oldest -= ringRows;
  }
#endif
}

// tensorsep: separable masks on the tensor cores, two Toeplitz products per tile.
//   Horizontal, every row of the tile (apron rows too): H[16 x 8] = A[16 x 16] B[16 x 8] as in
//   tensor2d with one mask row (A: 4 input rows x 4 channels of the fp16 tile; B: the row factor's
//   Toeplitz slice). H goes to shared memory as fp16 high + low parts (together within 2^-22 of the
//   fp32 sum), laid out [row][pixel * 4 + channel].
//   Vertical: C[16 x 8] = A[16 x 16] B[16 x 8] with C rows = 16 output rows, C columns = 8
//   (pixel, channel) values, A = the column factor's Toeplitz slice (A[m][k] = col[16 kc + k - m]),
//   B = 16 rows of H read with ldmatrix.trans; high and low parts are two products.
template <int TW, int TH>
__global__ void __launch_bounds__(256)
    tensorSepKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m) {
#if __CUDA_ARCH__ >= 800
  static_assert(TW % 16 == 0 && TH % 16 == 0, "tensorsep tile shape");
  constexpr int kThreads = 256, kWarps = 8, NCH = TW / 8, HP = 4 * TW + 8;
  extern __shared__ __align__(16) unsigned char tensorSmem[];
  const int r = m.radius, taps = 2 * r + 1, kch = kChunks(r), kcv = (16 + 2 * r + 15) / 16;
  const int inW = TW + 2 * r, inH = TH + 2 * r, rows4 = (inH + 3) & ~3, hRows = TH + 2 * r + 16;
  const int P = linePitch(inW), RP = weightPitch(r), CP = 16 * kcv + 16;
  __half* tile = reinterpret_cast<__half*>(tensorSmem);  // rows4 * 4 lines of P halves
  __half* hHi = tile + rows4 * 4 * P;                    // hRows rows of HP halves
  __half* hLo = hHi + hRows * HP;
  __half* rowW = hLo + hRows * HP;  // row[q] at q + 8
  __half* colW = rowW + RP;         // col[q] at q + 16
  // The RGBA8 result (TH x TW), over the input tile once that is spent.
  unsigned char* outBytes = tensorSmem;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t4 = lane & 3;
  const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;

  for (int i = tid; i < RP; i += kThreads) {
    const int q = i - 8;
    rowW[i] = __float2half_rn(q >= 0 && q < taps ? m.row[q] : 0.f);
  }
  for (int i = tid; i < CP; i += kThreads) {
    const int q = i - 16;
    colW[i] = __float2half_rn(q >= 0 && q < taps ? m.col[q] : 0.f);
  }
  // Rows of H past the tile's are read by the last column slices (where A is zero): make them 0.
  for (int i = tid; i < (hRows - rows4) * HP; i += kThreads) {
    hHi[rows4 * HP + i] = __float2half_rn(0.f);
    hLo[rows4 * HP + i] = __float2half_rn(0.f);
  }
  fillHalfTile(l, BlockFrame<false>{l}, tile, x0 - r, y0 - r, inW, inH, rows4, P, tid, kThreads);
  __syncthreads();

  {  // Horizontal.
    unsigned b[kKcMax][2];
    const __half* wr = rowW + 8 + 2 * t4 - g;
#pragma unroll
    for (int kc = 0; kc < kKcMax; ++kc)
      if (kc < kch) {
        b[kc][0] = pairOf(wr + 16 * kc);
        b[kc][1] = pairOf(wr + 16 * kc + 8);
      }
    const int aRow = (lane & 7) + 8 * ((lane >> 3) & 1), aCol = 8 * (lane >> 4);
    const unsigned aBase = smemAddress(tile + aRow * P + aCol);
    const int units = (rows4 / 4) * NCH;
    for (int u = warp; u < units; u += kWarps) {
      const int mb = u / NCH, j = u - mb * NCH;
      float acc[4] = {0.f, 0.f, 0.f, 0.f};
      const unsigned addr = aBase + static_cast<unsigned>((16 * mb * P + 8 * j) * 2);
#pragma unroll
      for (int kc = 0; kc < kKcMax; ++kc)
        if (kc < kch) {
          unsigned a[4];
          ldmatrixX4(a, addr + 32u * kc);
          mma16816(acc, a, b[kc][0], b[kc][1]);
        }
        // acc[e]: input row 4 mb + g / 4 + 2 (e / 2), channel g % 4, pixel 8 j + 2 t4 + e % 2.
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = 4 * mb + (g >> 2) + 2 * (e >> 1), x = 8 * j + 2 * t4 + (e & 1);
        const int at = row * HP + 4 * x + (g & 3);
        const __half hi = __float2half_rn(acc[e]);
        hHi[at] = hi;
        hLo[at] = __float2half_rn(acc[e] - __half2float(hi));
      }
    }
  }
  __syncthreads();

  {  // Vertical: a unit is 16 output rows x 16 (pixel, channel) values.
    const int bRow = (lane & 7) + 8 * ((lane >> 3) & 1), bCol = 8 * (lane >> 4);
    const unsigned hiBase = smemAddress(hHi + bRow * HP + bCol), loBase = smemAddress(hLo + bRow * HP + bCol);
    const bool absolute = l.combine == Combine::Abs;
    constexpr int kPairs = TW / 4;  // 16-value column groups per row
    for (int u = warp; u < (TH / 16) * kPairs; u += kWarps) {
      const int mb = u / kPairs, n0 = 16 * (u - mb * kPairs);
      float acc0[4] = {0.f, 0.f, 0.f, 0.f}, acc1[4] = {0.f, 0.f, 0.f, 0.f};
      for (int kc = 0; kc < kcv; ++kc) {
        // A[m][k] = col[16 kc + k - m]: (g, 2 t4..), (g + 8, 2 t4..), (g, 2 t4 + 8..), (g + 8, 2 t4 + 8..).
        const __half* cw = colW + 16 + 16 * kc + 2 * t4 - g;
        unsigned a[4];
        a[0] = pairOf(cw);
        a[1] = pairOf(cw - 8);
        a[2] = pairOf(cw + 8);
        a[3] = a[0];
        const unsigned off = static_cast<unsigned>(((16 * mb + 16 * kc) * HP + n0) * 2);
        unsigned bh[4], bl[4];
        ldmatrixX4Trans(bh, hiBase + off);
        ldmatrixX4Trans(bl, loBase + off);
        mma16816(acc0, a, bh[0], bh[1]);
        mma16816(acc0, a, bl[0], bl[1]);
        mma16816(acc1, a, bh[2], bh[3]);
        mma16816(acc1, a, bl[2], bl[3]);
      }
      // acc0[e]: output row 16 mb + g + 8 (e / 2), value n0 + 2 t4 + e % 2 (value = 4 pixel + channel).
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int at = (16 * mb + g + 8 * (e >> 1)) * TW * 4 + n0 + 2 * t4 + (e & 1);
        outBytes[at] = toByte(absolute ? fabsf(acc0[e]) : acc0[e]);
        outBytes[at + 8] = toByte(absolute ? fabsf(acc1[e]) : acc1[e]);
      }
    }
  }
  __syncthreads();
  storeTile<TW, TH>(l, BlockFrame<false>{l}, reinterpret_cast<const unsigned*>(outBytes), x0, y0, tid, kThreads);
#endif
}

constexpr int kTensorSepThreads = 256;  // tensorSepKernel's block
dim3 tileGrid(const Launch& l, int tw, int th) { return dim3(ceilDiv(l.width, tw), ceilDiv(l.height, th)); }

// tensor2d's TW x TH output tile: TW / 16 output chunks wide, WARPS warps of warpRows2D(C) rows,
// warpsAcross2D(TW, C) of them across the tile.
// Split: weights as fp16 high + low parts (a template argument: the low parts' registers cost the
// single-part kernel 30% more registers, and so a block an SM, when only known at run time).
// Batch: blocks take their frame from grid z (a template argument: with it, single 4K frames ran
// up to 13% slower at r = 32 on 128x32, the H200, so single frames keep the kernel without it).
// The instance's kernel (its host stub) and its segment's rows (TH where it makes one tile a block).
template <int TW, int WARPS, int KC, bool Split, int C, bool Batch>
const void* kernel2D() {
  constexpr int TH = warpRows2D(C) * WARPS / warpsAcross2D(TW, C);
  if constexpr (streamsRows2D(TH, KC))
    return reinterpret_cast<const void*>(&tensor2dStreamKernel<TW, WARPS, KC, Split, C, Batch>);
  return reinterpret_cast<const void*>(&tensor2dKernel<TW, WARPS, KC, Split, C, Batch>);
}
// A batch's frames share the GPU's slots: the segments are sized for a frame's share of them.
template <int TW, int WARPS, int KC, bool Split, int C, bool Batch>
int segmentRows2D(const Launch& l, int radius) {
  constexpr int TH = warpRows2D(C) * WARPS / warpsAcross2D(TW, C);
  if (!streamsRows2D(TH, KC) || !deviceInfo().available) return TH;
  const int slots = residentBlocks(kernel2D<TW, WARPS, KC, Split, C, Batch>(), 32 * WARPS,
                                   tensor2dSharedBytes(TW, TH, radius, Split, C == 4));
  return tensor2dSegmentRows(l.width, l.height, TW, TH, radius, frameSlots(slots, l.frames));
}
// A batch in one launch, a frame a grid z (a launch per kMaxGridZ frames past that).
template <int TW, int WARPS, int KC, bool Split, int C, bool Batch>
void launchTensor2D(const Launch& l, const Mask2D& m) {
  constexpr int TH = warpRows2D(C) * WARPS / warpsAcross2D(TW, C);
  const std::size_t shared = tensor2dSharedBytes(TW, TH, m.radius, Split, C == 4);
  const int rows = segmentRows2D<TW, WARPS, KC, Split, C, Batch>(l, m.radius);
  if constexpr (streamsRows2D(TH, KC))
    allowSharedBytes(tensor2dStreamKernel<TW, WARPS, KC, Split, C, Batch>, shared);
  else
    allowSharedBytes(tensor2dKernel<TW, WARPS, KC, Split, C, Batch>, shared);
  forEachGridOfFrames(l, [&](const Launch& part) {
    const dim3 grid(ceilDiv(l.width, TW), ceilDiv(l.height, rows), static_cast<unsigned>(part.frames));
    if constexpr (streamsRows2D(TH, KC))
      launchDependent(tensor2dStreamKernel<TW, WARPS, KC, Split, C, Batch>, grid, dim3(32 * WARPS), shared, l.stream,
                      part, m, rows);
    else
      launchDependent(tensor2dKernel<TW, WARPS, KC, Split, C, Batch>, grid, dim3(32 * WARPS), shared, l.stream, part,
                      m);
  });
}
// `f` gets the compiled K-chunk count for radius r (std::integral_constant<int, KC>).
template <class F>
decltype(auto) withChunks16(int r, F&& f) {
  switch (kChunks16(r)) {
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 5:
      return f(std::integral_constant<int, 5>{});
    default:  // r > 32: the variant table's whyNot refuses it first
      throw std::invalid_argument("tensor2d: radius " + std::to_string(r) + " is past 32, the largest compiled");
  }
}
template <int TW, int TH>
void launchTensorSep(const Launch& l, const MaskSep& m) {
  const std::size_t shared = tensorSepSharedBytes(TW, TH, m.radius);
  allowSharedBytes(tensorSepKernel<TW, TH>, shared);
  tensorSepKernel<TW, TH><<<tileGrid(l, TW, TH), kTensorSepThreads, shared, l.stream>>>(l, m);
  CL_CUDA_LAUNCHED("tensorSepKernel<<<>>>");
}

// The tiles offered here must match the variant table's (tests run every offered tile). `f` gets
// the compiled shape (TileShape) for l's tile.
template <class F>
decltype(auto) tensor2dInstance(const Launch& l, F&& f) {
  if (l.tileW == 64 && l.tileH == 16) return f(TileShape<64, 16>{});
  if (l.tileW == 128 && l.tileH == 16) return f(TileShape<128, 16>{});
  if (l.tileW == 64 && l.tileH == 32) return f(TileShape<64, 32>{});
  if (l.tileW == 128 && l.tileH == 32) return f(TileShape<128, 32>{});
  badTile("tensor2d", l);
}
template <class F>
decltype(auto) tensorSepInstance(const Launch& l, F&& f) {
  if (l.tileW == 32 && l.tileH == 32) return f(TileShape<32, 32>{});
  if (l.tileW == 64 && l.tileH == 32) return f(TileShape<64, 32>{});
  if (l.tileW == 64 && l.tileH == 16) return f(TileShape<64, 16>{});
  if (l.tileW == 128 && l.tileH == 16) return f(TileShape<128, 16>{});
  badTile("tensorsep", l);
}

std::string instanceName(const char* kernel, int a, int b) {
  return std::string(kernel) + "<" + std::to_string(a) + ", " + std::to_string(b) + ">";
}

PassLaunch tilePass(const Launch& l, std::string kernel, int tw, int th, int r, int threads, std::size_t shared,
                    const void* function) {
  const dim3 grid = tileGrid(l, tw, th);
  PassLaunch p;
  p.kernel = std::move(kernel);
  p.grid = dimsOf(grid.x, grid.y);
  p.block = dimsOf(threads);
  p.threadsPerBlock = threads;
  p.outputsPerThread = double(tw) * th / threads;
  setFootprint(p, tw, th, tw + 2 * r, th + 2 * r, -r, -r);
  p.dynamicShared = shared;
  p.kernelFunction = function;
  return p;
}

constexpr double kMmaFlops = 2.0 * 16 * 8 * 16;  // one mma.sync m16n8k16

// Both load the input tile with apron once (4-byte reads) and, unless alpha is filtered, read the
// input's alpha again when they store.
void tileLoads(WorkModel& m, const Launch& l, int tw, int th, int r) {
  const double in = double(tw + 2 * r) * (th + 2 * r), out = double(tw) * th;
  m.apron = in / out;
  m.globalReads = in / out + (l.filterAlpha ? 0 : 1);
  m.globalBytes = 4 * m.globalReads;
  m.dramBytes = 8;
}
}  // namespace

std::size_t tensorSepSharedBytes(int tileW, int tileH, int radius) {
  const int inW = tileW + 2 * radius, rows4 = (tileH + 2 * radius + 3) & ~3, hRows = tileH + 2 * radius + 16;
  const int kcv = (16 + 2 * radius + 15) / 16;
  return std::size_t(rows4) * 4 * linePitch(inW) * 2 + std::size_t(2) * hRows * (4 * tileW + 8) * 2 +
         std::size_t(weightPitch(radius)) * 2 + std::size_t(16 * kcv + 16) * 2;
}

void tensorSep(const Launch& l, const MaskSep& m) {
  tensorSepInstance(l, [&](auto t) { launchTensorSep<decltype(t)::w, decltype(t)::h>(l, m); });
}

// The rows a walking tensor2d block makes: the frame's TH-row steps split into segments of k steps (0 slots, no
// device: one step a block). A block's time goes as its k TH + 2r input rows, and the grid takes
// ceil(blocks / slots) rounds of the blocks the GPU holds at once: the k with the least rounds x
// (k TH + 2r), the longest on a tie. One segment a column when the columns were a little fewer
// than the slots left SMs idle (5120x2880 at r = 32 on 64x32, 80 columns on 132 slots: 1 round of
// 2880 + 64 rows, against 2 of 960 + 64 with 3 segments). 4K and 1080p keep the segments measured.
int tensor2dSegmentRows(int width, int height, int tw, int th, int radius, int slots) {
  const long columns = ceilDiv(width, tw), steps = ceilDiv(height, th);
  if (slots <= 0) return th;
  long best = steps, bestCost = -1;
  for (long k = steps; k >= 1; --k) {
    const long blocks = columns * ((steps + k - 1) / k), rounds = (blocks + slots - 1) / slots;
    const long cost = rounds * (k * th + 2L * radius);
    if (bestCost < 0 || cost < bestCost) {
      bestCost = cost;
      best = k;
    }
  }
  return static_cast<int>(best) * th;
}

std::size_t tensor2dSharedBytes(int tileW, int tileH, int radius, bool split, bool filterAlpha) {
  // The tile (or ring) of tileH + 2r rows of fp16 lines, a ring's next rows of pixels (tileH x
  // inW), the weights.
  const int inW = tileW + 2 * radius, inH = tileH + 2 * radius, taps = 2 * radius + 1;
  const bool ring = streamsRows2D(tileH, kChunks16(radius));
  return std::size_t(inH) * (filterAlpha ? 4 : 3) * linePitch(inW) * 2 + (ring ? std::size_t(tileH) * inW * 4 : 0) +
         std::size_t(split ? 2 : 1) * taps * pairPitch(kChunks16(radius)) * 4;
}

namespace {
// `f` gets the compiled instance for l's tile and mask: TW, WARPS, KC, Split, C and Batch as integral
// constants (C = 3 where alpha is kept, so a warp makes 8 rows, 4 otherwise; Batch where l has more
// than one frame: its blocks find their frame from grid z, which single frames do not pay for).
template <class F>
decltype(auto) withTensor2D(const Launch& l, int radius, bool split, F&& f) {
  return tensor2dInstance(l, [&](auto t) {
    return withChunks16(radius, [&](auto kc) {
      constexpr int TW = decltype(t)::w, TH = decltype(t)::h, KC = decltype(kc)::value;
      using C3 = std::integral_constant<int, 3>;
      using C4 = std::integral_constant<int, 4>;
      auto pick = [&](auto s, auto b) -> decltype(auto) {
        if (l.filterAlpha)
          return f(std::integral_constant<int, TW>{}, std::integral_constant<int, TH / 4>{},
                   std::integral_constant<int, KC>{}, s, C4{}, b);
        return f(std::integral_constant<int, TW>{}, std::integral_constant<int, TH / 8 * warpsAcross2D(TW, 3)>{},
                 std::integral_constant<int, KC>{}, s, C3{}, b);
      };
      auto batched = [&](auto s) -> decltype(auto) {
        return l.frames > 1 ? pick(s, std::true_type{}) : pick(s, std::false_type{});
      };
      return split ? batched(std::true_type{}) : batched(std::false_type{});
    });
  });
}
}  // namespace

void tensor2d(const Launch& l, const Mask2D& m, bool split) {
  withTensor2D(l, m.radius, split, [&](auto tw, auto warps, auto kc, auto s, auto c, auto b) {
    launchTensor2D<tw.value, warps.value, kc.value, s.value, c.value, b.value>(l, m);
  });
}

LaunchDescription describeTensor2D(const Launch& l, int radius, bool split) {
  return withTensor2D(l, radius, split, [&](auto tw, auto warps, auto kc, auto s, auto c, auto b) {
    constexpr int TW = tw.value, WARPS = warps.value, C = c.value, TH = warpRows2D(C) * WARPS / warpsAcross2D(TW, C);
    const int rows = segmentRows2D<TW, WARPS, kc.value, s.value, C, b.value>(l, radius);
    // A block's footprint is its segment: TW x rows outputs.
    constexpr bool ring = streamsRows2D(TH, kc.value);
    PassLaunch p =
        tilePass(l,
                 std::string(ring ? "tensor2dStreamKernel<" : "tensor2dKernel<") + std::to_string(TW) + ", " +
                     std::to_string(WARPS) + ", " + std::to_string(kc.value) + (s.value ? ", true, " : ", false, ") +
                     std::to_string(C) + (b.value ? ", true>" : ", false>"),
                 TW, rows, radius, 32 * WARPS, tensor2dSharedBytes(TW, TH, radius, split, C == 4),
                 kernel2D<TW, WARPS, kc.value, s.value, C, b.value>());
    p.grid.z = gridFrames(l.frames);
    if (ring)
      p.note = "the apron's rows may be twice the tile's: a block walks " + std::to_string(rows) + " rows, " +
               std::to_string(TH) + " a step, the next step's input rows loaded while its products run" +
               (deviceInfo().available ? "" : " (without a device, one step a block)");
    if (C == 3)
      p.note += std::string(ring ? "; " : "") +
                "alpha is kept, so it gets no products: 3 fp16 lines a pixel, 8 rows x 64 pixels a warp";
    if (l.frames > 1)
      p.note += std::string(p.note.empty() ? "" : "; ") + "a frame of the batch a grid z" +
                (l.frames > kMaxGridZ ? ", a launch per " + std::to_string(kMaxGridZ) + " frames" : std::string());
    return LaunchDescription{{std::move(p)}, ""};
  });
}

// Per mask row and warp: kChunks16(r) Toeplitz slices of A (3 weight pairs a lane each, twice when
// split), the B fragments of its 2 or 3 blocks of lines (ldmatrix.x4, and .x2 for a third) per
// 16-pixel column of its part of the tile, a product a block (two when split) per output chunk and
// slice; the result staged in shared memory and stored 16 bytes a thread.
WorkModel modelTensor2D(const Launch& l, int radius, bool split) {
  const Dims t = tensor2dInstance(l, [](auto t) { return dimsOf(decltype(t)::w, decltype(t)::h); });
  const int lines = l.filterAlpha ? 4 : 3, blocks = l.filterAlpha ? 2 : 3, across = warpsAcross2D(t.x, lines);
  const int warps = t.y / warpRows2D(lines) * across, nch = t.x / 16 / across;  // output chunks a warp
  const int taps = 2 * radius + 1, kc = kChunks16(radius), parts = split ? 2 : 1;
  const int rows = withTensor2D(l, radius, split, [&](auto tw, auto w, auto k, auto s, auto c, auto b) {
    return segmentRows2D<tw.value, w.value, k.value, s.value, c.value, b.value>(l, radius);
  });
  const double out = double(t.x) * t.y;  // a step's
  WorkModel m;
  tileLoads(m, l, t.x, rows, radius);  // each input row of a block's segment is loaded once
  const double bBytes = (nch + kc - 1) * 256.0 * blocks, aBytes = 32.0 * kc * 3 * 4 * parts;
  m.sharedBytes = (double(warps) * taps * (aBytes + bBytes) + out * 4) / out;
  // Walking blocks pass each input pixel through the ring's next rows (written by cp.async, read
  // to convert) before its lines.
  if (streamsRows2D(t.y, kc)) m.sharedBytes += 8 * m.apron;
  m.matrixFlops = double(warps) * taps * nch * blocks * kc * parts * kMmaFlops / out;
  m.matrixUseful = 2.0 * lines * taps * taps * parts;
  m.notes.push_back("a mask row is a product with a Toeplitz band " + std::to_string(16 * kc) +
                    " inputs deep: " + std::to_string(taps) + " of them weighted");
  if (split) m.notes.push_back("weights as fp16 high + low parts: two products each");
  return m;
}

LaunchDescription describeTensorSep(const Launch& l, int radius) {
  return tensorSepInstance(l, [&](auto t) {
    constexpr int TW = decltype(t)::w, TH = decltype(t)::h;
    return LaunchDescription{
        {tilePass(l, instanceName("tensorSepKernel", TW, TH), TW, TH, radius, kTensorSepThreads,
                  tensorSepSharedBytes(TW, TH, radius), reinterpret_cast<const void*>(&tensorSepKernel<TW, TH>))},
        ""};
  });
}

// Horizontal: every 4 rows of the tile (apron rows too, rounded up to 4) x 8 pixels, kChunks(r)
// products from ldmatrix.x4 fragments. Vertical: every 16 rows x 16 (pixel, channel) values, per
// 16-row K chunk two ldmatrix.trans (high and low parts) and four products. Then staged bytes out.
WorkModel modelTensorSep(const Launch& l, int radius) {
  const Dims t = tensorSepInstance(l, [](auto t) { return dimsOf(decltype(t)::w, decltype(t)::h); });
  const int taps = 2 * radius + 1, kch = kChunks(radius), kcv = (16 + 2 * radius + 15) / 16;
  const int rows4 = (t.y + 2 * radius + 3) & ~3, nch = t.x / 8;
  const double out = double(t.x) * t.y;
  const double unitsH = double(rows4 / 4) * nch, unitsV = double(t.y / 16) * (t.x / 4);
  WorkModel m;
  tileLoads(m, l, t.x, t.y, radius);
  m.sharedBytes =
      (unitsH * kch * 512 + kTensorSepThreads * kch * 2 * 4.0 + unitsV * kcv * (384 + 1024) + out * 4) / out;
  m.matrixFlops = (unitsH * kch + unitsV * kcv * 4) * kMmaFlops / out;
  m.matrixUseful = 2.0 * 4 * taps * rows4 / t.y + 2.0 * 4 * taps * 2;
  m.notes.push_back("row and column products with Toeplitz bands " + std::to_string(16 * kch) + " and " +
                    std::to_string(16 * kcv) + " deep, " + std::to_string(taps) + " weighted");
  m.notes.push_back("the intermediate as fp16 high + low parts in shared memory: two column products each");
  return m;
}

}  // namespace convlive::kernels
