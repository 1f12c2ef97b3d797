// stream: separable masks of radius 0..4 at close to the memory floor.
//
// Each warp walks down a segment of SH output rows of a strip of the frame (SH: the tile's height
// or more, so that the frame makes one wave of segments), one input row at a time, with no
// block-wide barrier anywhere:
//   - rows arrive through a ring of kRing slots in shared memory (cp.async, several rows in flight
//     per warp; each lane reads back only what it copied itself);
//   - the row factor runs first, on the packed bytes: a lane holds N adjacent pixels, takes the
//     R pixels on either side from its neighbour lanes by warp shuffles (one 32-bit word a pixel),
//     unpacks them once and sums the taps;
//   - the column factor runs in registers: 2R+1 pending output rows, each input row added to
//     every output row whose window covers it, the oldest finished and stored per step.
// A warp covers 32*N input pixels and writes the (32 - 2L)*N in the middle (L apron lanes a side).
#include "async.cuh"
#include "common.cuh"
#include "convlive/resources.hpp"
#include "schedules.hpp"

namespace convlive::kernels {
namespace {

constexpr int kStreamWarps = 4;  // warps per block; each has its own segment and ring
constexpr int kRing = 8;         // ring slots (input rows in flight) per warp

template <int R>
struct StreamShape {
  static constexpr int N = R <= 2 ? 4 : 2;       // pixels per lane: 16- or 8-byte loads and stores
  static constexpr int L = (R + N - 1) / N;      // apron lanes on each side
  static constexpr int OutW = (32 - 2 * L) * N;  // output pixels per warp row
  static constexpr int T = 2 * R + 1;            // taps
};

// The alpha bytes of N packed pixels, pixel j in byte j.
template <int N>
__device__ __forceinline__ unsigned alphaBytes(const unsigned (&w)[N]) {
  if constexpr (N == 4)
    return __byte_perm(__byte_perm(w[0], w[1], 0x0073), __byte_perm(w[2], w[3], 0x0073), 0x5410);
  else
    return __byte_perm(w[0], w[1], 0x0073);
}

// The low bytes of four rounded channel values (see toByte) as one RGBA8 word.
__device__ __forceinline__ unsigned packBytes(unsigned x, unsigned y, unsigned z, unsigned w) {
  return __byte_perm(__byte_perm(x, y, 0x0040), __byte_perm(z, w, 0x0040), 0x5410);
}
// The last column tap of an output channel, clamped to [0, 1] by the FMA itself (FFMA.SAT): the
// column factor arrives scaled by 1/255 (launchStream), so [0, 1] is the byte range 0..255.
template <bool Absolute>
__device__ __forceinline__ float lastTap(float w, float h, float acc) {
  if constexpr (Absolute) return __saturatef(fabsf(fmaf(w, h, acc)));
  return __saturatef(fmaf(w, h, acc));
}
template <bool Absolute>
__device__ __forceinline__ float4 lastTap4(float w, float4 h, float4 acc) {
  return make_float4(lastTap<Absolute>(w, h.x, acc.x), lastTap<Absolute>(w, h.y, acc.y),
                     lastTap<Absolute>(w, h.z, acc.z), lastTap<Absolute>(w, h.w, acc.w));
}
// A value in [0, 1] times 255, rounded to the nearest integer in the low bits (one FFMA: adding
// 1.5 * 2^23 leaves the rounded value in the low mantissa bits; ties to even, as rintf).
__device__ __forceinline__ unsigned roundedBits(float s) { return __float_as_uint(fmaf(s, 255.f, 12582912.f)); }
__device__ __forceinline__ float4 mul4(float w, float4 v) { return make_float4(w * v.x, w * v.y, w * v.z, w * v.w); }

// Off the hot path (kept out of line so that the unrolled steps stay small in the instruction
// cache): rows outside the frame, and lanes whose pixels are not all inside it (the edge strips'
// apron lanes) or frames that are not aligned, copy through the border mode, pixel by pixel with
// 4-byte cp.async where needed. Asynchronous like the fast path: a synchronous load here made the
// edge strips' warps wait out the memory latency on every row, and the whole kernel with them.
// This copies input row y (any row; zeros for Zero outside the frame) for one lane's N pixels from x.
template <int N>
__device__ __noinline__ void copyBorderedRow(const uchar4* in, std::size_t pitch, int width, int height, Border border,
                                             bool fast, unsigned* dst, int x, int y) {
  const int sy = borderIndex(y, height, border);
  if (sy < 0) {
#pragma unroll
    for (int j = 0; j < N; ++j) dst[j] = 0;
    return;
  }
  const uchar4* row = rowPtr(in, pitch, sy);
  if (fast) return copyAsync<4 * N>(dst, row + x);
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const int sx = borderIndex(x + j, width, border);
    if (sx < 0)
      dst[j] = 0;
    else
      copyAsync<4>(&dst[j], row + sx);
  }
}

// Persistent warps: work unit u is a strip's segment (neighbouring warps take neighbouring strips,
// which share apron rows in L2); the grid is as large as the GPU holds at once, so no partial last
// wave.
// Alpha: with FilterAlpha false the output takes the input's alpha, and the alpha channel's
// conversions and sums are never computed (dead code once its result is not packed).
// Blocks an SM holds at least (the register cap, chosen with -Xptxas -v so that nothing spills):
// r=1 80 registers (6 blocks; 96 without a cap) or 96 with alpha; r=2..4 at most 128 (up to 142).
template <int R, bool FilterAlpha>
constexpr int kStreamMinBlocks = R == 1   ? (FilterAlpha ? 5 : 6)
                                 : R >= 2 ? 4
                                          : 1;

template <int R, bool Absolute, bool FilterAlpha>
__global__ void __launch_bounds__(32 * kStreamWarps, (kStreamMinBlocks<R, FilterAlpha>))
    streamKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m, bool aligned,
                 const __grid_constant__ StreamUnits u) {
  using S = StreamShape<R>;
  constexpr int N = S::N, L = S::L, T = S::T;
  __shared__ __align__(16) unsigned ring[kStreamWarps][kRing][32 * N];
  const float* col = m.col;  // the column factor divided by 255 (launchStream)
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const bool writes = lane >= L && lane < 32 - L;
  const bool alignedOut = (reinterpret_cast<std::size_t>(l.out) | l.outPitch) % (4 * N) == 0;
  const unsigned inPitch = static_cast<unsigned>(l.inPitch), outPitch = static_cast<unsigned>(l.outPitch);
  unsigned* const laneSlot = &ring[warp][0][N * lane];  // slot s of this lane: laneSlot + s * 32 * N

  for (int unit = blockIdx.x * kStreamWarps + warp; unit < u.units; unit += gridDim.x * kStreamWarps) {
    const UnitPlace place = unitPlace(u, unit);
    const int ys = place.y0, kRows = place.rows + 2 * R;
    const int xs = place.strip * S::OutW, xin = xs - N * L + N * lane;
    const bool fast = aligned && xin >= 0 && xin + N <= l.width;  // this lane's N pixels: one aligned copy
    // Per unit, so that a row step only adds a row offset (one IMAD.WIDE.U32) to these.
    const char* const inLane = reinterpret_cast<const char*>(l.in) + 4 * xin;
    char* const outLane = reinterpret_cast<char*>(l.out) + 4 * xin;
    const bool storeWhole = writes && alignedOut && xin + N <= l.width, storeSome = writes && xin < l.width;

    // Input row i (0-based from ys - R) into slot i % kRing: one commit group per row, always.
    auto issue = [&](int i) {
      if (i < kRows) {
        unsigned* dst = laneSlot + (unsigned(i) % kRing) * (32 * N);
        const int y = ys - R + i;
        if (fast && unsigned(y) < unsigned(l.height))
          copyAsync<4 * N>(dst, inLane + std::size_t(unsigned(y)) * inPitch);
        else
          copyBorderedRow<N>(l.in, l.inPitch, l.width, l.height, l.border, fast, dst, xin, y);
      }
      commitAsync();
    };

#pragma unroll 1
    for (int i = 0; i < kRing - 1; ++i) issue(i);

    float4 acc[T][N];   // acc[o % T]: the pending sums of output row o
    unsigned alpha[T];  // alpha[i % T]: the alpha bytes of input row i
#pragma unroll
    for (int s = 0; s < T; ++s)
#pragma unroll
      for (int j = 0; j < N; ++j) acc[s][j] = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int base = 0; base < kRows; base += T) {
#pragma unroll
      for (int k = 0; k < T; ++k) {
        const int i = base + k;
        if (i >= kRows) break;
        waitAsync<kRing - 2>();
        unsigned w[N];
        if constexpr (N == 4) {
          const uint4 v = *reinterpret_cast<const uint4*>(laneSlot + (unsigned(i) % kRing) * (32 * N));
          w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
        } else {
          const uint2 v = *reinterpret_cast<const uint2*>(laneSlot + (unsigned(i) % kRing) * (32 * N));
          w[0] = v.x, w[1] = v.y;
        }
        issue(i + kRing - 1);  // into the slot read at the previous step

        // Row factor: pixels -R .. N-1+R around this lane's N, from the lanes beside it.
        unsigned e[N + 2 * R];
#pragma unroll
        for (int j = 0; j < N; ++j) e[R + j] = w[j];
#pragma unroll
        for (int q = 1; q <= R; ++q) {
          const int dl = (q + N - 1) / N, dr = (q - 1) / N + 1;
          e[R - q] = __shfl_up_sync(0xffffffffu, w[N * dl - q], dl);
          e[R + N - 1 + q] = __shfl_down_sync(0xffffffffu, w[(q - 1) % N], dr);
        }
        float4 px[N + 2 * R];
#pragma unroll
        for (int j = 0; j < N + 2 * R; ++j) px[j] = unpackPixel(e[j]);
        alpha[k] = alphaBytes<N>(w);

        // Column factor: input row i adds to output rows i - 2R .. i, held in slots (k - t) mod T:
        // it completes row i - 2R (slot (k + 1) mod T, clamped to [0, 1] by its last FMA; frame
        // row y), packed at once, and starts row i in slot k mod T (a product: no slot is zeroed).
        const int done = (k + 1) % T, y = ys + i - 2 * R;
        unsigned o[N];
#pragma unroll
        for (int j = 0; j < N; ++j) {
          float4 h = mul4(m.row[0], px[j]);
#pragma unroll
          for (int t = 1; t < T; ++t) fma4(h, m.row[t], px[j + t]);
          float4 fin;  // in [0, 1]
          if constexpr (T == 1) {
            fin = lastTap4<Absolute>(col[0], h, make_float4(0.f, 0.f, 0.f, 0.f));
          } else {
            fin = lastTap4<Absolute>(col[T - 1], h, acc[done][j]);
#pragma unroll
            for (int t = 1; t < T - 1; ++t) fma4(acc[(k - t + T) % T][j], col[t], h);
            acc[k % T][j] = mul4(col[0], h);
          }
          if constexpr (FilterAlpha)
            o[j] = packBytes(roundedBits(fin.x), roundedBits(fin.y), roundedBits(fin.z), roundedBits(fin.w));
          else  // alpha: byte j of the alpha bytes of input row i - R (the output row's centre)
            o[j] = __byte_perm(__byte_perm(roundedBits(fin.x), roundedBits(fin.y), 0x0040),
                               __byte_perm(roundedBits(fin.z), alpha[(k + T - R) % T], 0x0040 + 0x10 * j), 0x5410);
        }

        // Store it.
        if (i >= 2 * R && y < l.height && storeSome) {
          char* dst = outLane + std::size_t(unsigned(y)) * outPitch;
          if (storeWhole) {
            if constexpr (N == 4)
              *reinterpret_cast<uint4*>(dst) = make_uint4(o[0], o[1], o[2], o[3]);
            else
              *reinterpret_cast<uint2*>(dst) = make_uint2(o[0], o[1]);
          } else {
#pragma unroll
            for (int j = 0; j < N; ++j)
              if (xin + j < l.width) reinterpret_cast<unsigned*>(dst)[j] = o[j];
          }
        }
      }
    }
    waitAsync<0>();  // no copy in flight into the ring when the next unit starts
  }
}

// Warps of this instance the GPU holds at once; asked once per instance (the answer does not change).
template <int R, bool Absolute, bool FilterAlpha>
int streamResidentWarps() {
  static const int residentWarps =
      residentBlocks(reinterpret_cast<const void*>(&streamKernel<R, Absolute, FilterAlpha>), 32 * kStreamWarps, 0) *
      kStreamWarps;
  return residentWarps;
}

// The work units of a launch: strips of outW output pixels (a lane's n pixels, l apron lanes a
// side), segments of sh rows, the edge strips' of sh / divisor rows, counted so that all of them
// make one wave: an edge strip takes `divisor` warps for every one an interior strip takes.
// residentWarps 0: unknown (no device), one segment of the tile's height per warp, no edge split.
struct StreamGeometry {
  StreamUnits u;
  int blocks;
};
StreamGeometry streamGeometry(const Launch& l, int outW, int n, int apronLanes, int residentWarps,
                              int edgeDivisor = kStreamEdgeDivisor) {
  StreamUnits u{};
  u.strips = static_cast<int>(ceilDiv(l.width, outW));
  const int divisor = residentWarps > 0 ? std::max(1, edgeDivisor) : 1;
  if (divisor > 1) {
    // Strip s reads pixels s outW - n l .. that + 32 n - 1.
    u.edgeLeft = apronLanes > 0 ? 1 : 0;
    while (u.edgeLeft + u.edgeRight < u.strips &&
           (u.strips - 1 - u.edgeRight) * outW - n * apronLanes + 32 * n > l.width)
      ++u.edgeRight;
    if (u.edgeLeft + u.edgeRight >= u.strips) u.edgeLeft = u.edgeRight = 0;  // all edge: nothing to set apart
  }
  const int edges = u.edgeLeft + u.edgeRight;
  const int perStrip = std::max(1, residentWarps / (u.strips - edges + divisor * edges));
  u.sh = residentWarps > 0 ? std::max(l.tileH, static_cast<int>(ceilDiv(l.height, perStrip))) : l.tileH;
  u.edgeSh = edges ? static_cast<int>(ceilDiv(u.sh, divisor)) : u.sh;
  u.edgeUnits = edges * static_cast<int>(ceilDiv(l.height, u.edgeSh));
  u.units = u.edgeUnits + (u.strips - edges) * static_cast<int>(ceilDiv(l.height, u.sh));
  return {u, (u.units + kStreamWarps - 1) / kStreamWarps};
}

// One wave: as many work units as warps the GPU holds at once, so every warp walks one segment
// of about the same height (at least the tile's), and none waits on a partial last wave.
template <int R, bool Absolute, bool FilterAlpha>
void launchStream(const Launch& l, const MaskSep& m) {
  using S = StreamShape<R>;
  const int residentWarps = streamResidentWarps<R, Absolute, FilterAlpha>();
  if (l.tileW != 32 || l.tileH < 1) badTile("stream", l);
  const bool aligned = (reinterpret_cast<std::size_t>(l.in) | l.inPitch) % (4 * S::N) == 0;
  const StreamGeometry g = streamGeometry(l, S::OutW, S::N, S::L, residentWarps);
  MaskSep scaled = m;  // the column factor over 255: each output's last FMA clamps it to [0, 1] (FFMA.SAT)
  for (int t = 0; t < S::T; ++t) scaled.col[t] = m.col[t] / 255.f;
  streamKernel<R, Absolute, FilterAlpha><<<g.blocks, 32 * kStreamWarps, 0, l.stream>>>(l, scaled, aligned, g.u);
  CL_CUDA_LAUNCHED("streamKernel<<<>>>");
}

// The compiled instance for a radius, combine rule and alpha mode, handed to `f`.
template <int R_, bool Absolute_, bool FilterAlpha_>
struct StreamInstance {
  static constexpr int R = R_;
  static constexpr bool absolute = Absolute_, filterAlpha = FilterAlpha_;
};
template <int R, bool Absolute, class F>
decltype(auto) streamAlphaInstance(const Launch& l, F&& f) {
  if (l.filterAlpha) return f(StreamInstance<R, Absolute, true>{});
  return f(StreamInstance<R, Absolute, false>{});
}
template <int R, class F>
decltype(auto) streamRadiusInstance(const Launch& l, F&& f) {
  if (l.combine == Combine::Abs) return streamAlphaInstance<R, true>(l, f);
  return streamAlphaInstance<R, false>(l, f);
}
template <class F>
decltype(auto) streamInstance(const Launch& l, int radius, F&& f) {
  switch (radius) {
    case 0:
      return streamRadiusInstance<0>(l, f);
    case 1:
      return streamRadiusInstance<1>(l, f);
    case 2:
      return streamRadiusInstance<2>(l, f);
    case 3:
      return streamRadiusInstance<3>(l, f);
    case 4:
      return streamRadiusInstance<4>(l, f);
  }
  throw std::invalid_argument("stream: radius " + std::to_string(radius) + " has no instance (0.." +
                              std::to_string(kStreamMaxRadius) + ")");
}

// What a launch of instance K makes: its geometry on this device (without one: see streamGeometry).
template <class K>
StreamGeometry streamGeometryOn(const Launch& l) {
  if (l.tileW != 32 || l.tileH < 1) badTile("stream", l);
  const int resident = deviceInfo().available ? streamResidentWarps<K::R, K::absolute, K::filterAlpha>() : 0;
  using S = StreamShape<K::R>;
  return streamGeometry(l, S::OutW, S::N, S::L, resident);
}

}  // namespace

StreamUnits streamUnits(const Launch& l, int radius, int residentWarps, int edgeDivisor) {
  return streamInstance(l, radius, [&](auto k) {
    using S = StreamShape<decltype(k)::R>;
    return streamGeometry(l, S::OutW, S::N, S::L, residentWarps, edgeDivisor).u;
  });
}

void stream(const Launch& l, const MaskSep& m) {
  streamInstance(l, m.radius, [&](auto k) {
    using K = decltype(k);
    launchStream<K::R, K::absolute, K::filterAlpha>(l, m);
  });
}

LaunchDescription describeStream(const Launch& l, int radius) {
  return streamInstance(l, radius, [&](auto k) {
    using K = decltype(k);
    using S = StreamShape<K::R>;
    const StreamGeometry g = streamGeometryOn<K>(l);
    PassLaunch p;
    p.kernel = "streamKernel<" + std::to_string(K::R) + ", " + (K::absolute ? "abs" : "identity") + ", " +
               (K::filterAlpha ? "alpha" : "no alpha") + ">";
    p.grid = dimsOf(g.blocks);
    p.block = dimsOf(32 * kStreamWarps);
    p.threadsPerBlock = 32 * kStreamWarps;
    p.outputsPerThread = double(l.width) * l.height / (double(g.blocks) * p.threadsPerBlock);
    setFootprint(p, S::OutW, g.u.sh, 32 * S::N, g.u.sh + 2 * K::R, -S::N * S::L, -K::R);
    p.staticShared = sizeof(unsigned) * kStreamWarps * kRing * 32 * S::N;
    p.kernelFunction = reinterpret_cast<const void*>(&streamKernel<K::R, K::absolute, K::filterAlpha>);
    const int edges = g.u.edgeLeft + g.u.edgeRight;
    p.note =
        "persistent: " + std::to_string(g.u.units) + " units (" + std::to_string(g.u.strips) + " strip" +
        (g.u.strips == 1 ? "" : "s") + " of " + std::to_string(S::OutW) + " pixels x " + std::to_string(g.u.sh) +
        " rows" +
        (edges ? ", the " + std::to_string(edges) + " edge strips' x " + std::to_string(g.u.edgeSh) : std::string()) +
        "), one a warp" +
        (deviceInfo().available ? ", as many warps as the device holds at once"
                                : "; on a device, as many as it holds at once, walking taller segments");
    return LaunchDescription{{p}, ""};
  });
}

// A warp walks down a segment of sh rows: each input row (sh + 2R of them) comes in once through
// the ring (32 N pixels, the N L on each side apron), is read back by the lane that copied it, and
// every lane sums the row taps for its N pixels (neighbours' pixels by shuffles) and adds them to
// the T pending output rows. The 2 L apron lanes compute but store nothing.
WorkModel modelStream(const Launch& l, int radius) {
  return streamInstance(l, radius, [&](auto k) {
    using K = decltype(k);
    using S = StreamShape<K::R>;
    const StreamGeometry g = streamGeometryOn<K>(l);
    const double inputs = 32.0 * S::N * (g.u.sh + 2 * K::R), outputs = double(S::OutW) * g.u.sh;
    const double channels = K::filterAlpha ? 4 : 3;
    WorkModel m;
    m.globalReads = inputs / outputs;
    m.globalBytes = 4 * m.globalReads;
    m.sharedBytes = 4 * m.globalReads;
    m.apron = m.globalReads;
    m.idleThreads = 2.0 * S::L / 32;
    m.flops = inputs / outputs * channels * 2 * 2 * S::T;
    m.dramBytes = 8;
    m.notes.push_back("a segment of " + std::to_string(g.u.sh) + " rows a warp; " + std::to_string(S::N) +
                      " pixels a lane, " + std::to_string(2 * S::L) + " apron lanes");
    if (!K::filterAlpha) m.notes.push_back("alpha kept: three channels summed");
    return m;
  });
}

}  // namespace convlive::kernels
