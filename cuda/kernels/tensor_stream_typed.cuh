// tensorstream's kernel for 8-bit frames of C = 1 or 3 channels (grey; RGB and BGR), a batch in one
// launch, included by tensor_stream_u8x1.cu and tensor_stream_u8x3.cu. The RGBA8 kernel's
// numerics and products (tensor_stream.cuh: both passes Toeplitz products on mma.sync m16n8k16, the
// row pass's C fragments the column pass's B fragments, the bytes as fp16 subnormals against factors
// scaled by 2^S and 2^(24 - S), the same error plan), on frames whose pixels are not 4 bytes:
//   - a warp walks down SS side-by-side 16-pixel strips (SS = 4 for one channel, 1 for three), so
//     that a step holds NP = SS C planes (a strip's channel) of products, as an RGBA8 step holds its
//     channels; the strips' K-chunk windows overlap, so the ring stages their union once: 16 (SS + B0)
//     pixels a row from the 16-byte boundary below the window's first byte (the loads stay 16-byte
//     copies whatever C and the apron), rows padded to 4 mod 8 words so that a warp's reads of
//     8 rows hit every bank once;
//   - each lane reads its 4 pixels (C words) of each row and 16-pixel unit once, and each plane
//     takes its two fp16 pairs from them (one PRMT, or two where a pair's bytes straddle words);
//   - a lane stores its 4 pixels of each strip and row as C words (4-byte stores; the rows' bytes
//     of a store instruction are 16 contiguous bytes per row).
// u16 grey frames (Kind kU16Values) take the same walk on C = 2 bytes a pixel, one plane a strip:
// each value's high and low bytes are fp16 subnormals of their own, the factors split into fp16 high
// + low parts (the kernel's comment below; tensor_stream_u16x1.cu); f16 grey frames (kF16Values) too,
// the values the row products' inputs as they are (tensor_stream_f16x1.cu).
// The grid: x the block columns of warps' strips, y the segments of tileRows rows, z the frames (a
// block walks every gridDim.z-th frame past 65535).
#pragma once

#include "tensor_stream.cuh"
#include "tensor_stream_typed.hpp"

namespace convlive::kernels {
namespace {

struct TypedTensorArgs {
  const unsigned char* in;
  unsigned char* out;
  std::size_t pitch, frameStride, outPitch, outFrameStride;
  int width, height, batch, tileRows;
  Border border;
  bool aligned;       // the input's base, pitch and frame stride are multiples of 16 bytes
  bool aligned4;      // of 4
  bool outAligned;    // the output's are multiples of 4
  bool copyFourth;    // 16-bit values of 4 channels: the 4th copied from the input (padding, or alpha not filtered)
  bool outAligned16;  // the output's base, pitch and frame stride are multiples of 16 bytes
  // f32 grey frames: a warp whose stored steps' scale 2^P has P at or below this makes its outputs
  // again (directOutputs): an Inf or NaN input takes the least P, and only a P this low lets a sum
  // pass f32's range (f32RerunScale).
  int f32RerunScale;
};

// What the kernel's bytes are: bytes (u8: C a pixel, a plane per channel), 16-bit unsigned values
// (u16 grey: C = 2 bytes a pixel, one plane, whose high and low bytes enter as two sets of fp16
// subnormals: kU16Values), or fp16 values (f16 grey: C = 2, one plane, the values the tensor cores'
// inputs as they are: kF16Values), or f32 values (f32 grey: C = 4, one plane, each step's values
// scaled by a power of two into [2^14, 2^15) and split into fp16 high + low parts: kF32Values).
enum TypedValues : int { kBytes, kU16Values, kF16Values, kF32Values };

// f16 and f32 frames' rare path (T: __half or float): the outputs of a warp's strips in one segment of one frame,
// straight from the input on the CUDA cores in fp32 (f32 frames: in fp64, so that a row sum past f32's range whose
// output is not does not become Inf) (a row sum a tap row, then the column sum, as the reference's row and column
// passes; the factors as the kernel's two parts added, the product of their scales 1), CH channels a pixel (a kept 4th
// channel copied). Taken where a value the tensor cores made is Inf or NaN: an Inf or NaN input reaches every output of
// its 16x16 products through the band's zero weights (0 x Inf is NaN), and an output past fp16's range is Inf; here
// each output sees only its window, as the reference's. Each lane walks down one channel of one pixel at a time, with
// the last 2r + 1 row sums in a ring (local memory).
template <int SS, int CH, class T>
__device__ __noinline__ void directOutputs(const TypedTensorArgs& a, const MaskTerms& m, const unsigned char* in,
                                           unsigned char* out, int x0, int y0, int rows, int lane) {
  using Sum = std::conditional_t<std::is_same_v<T, float>, double, float>;
  const int r = m.radius, taps = 2 * r + 1;
  Sum ring[2 * kTensorStreamMaxRadius + 1];
  for (int idx = lane; idx < 16 * SS * CH; idx += 32) {
    const int x = x0 + idx / CH, ch = idx % CH;
    if (x >= a.width) continue;
    if (CH == 4 && ch == 3 && a.copyFourth) {
      for (int y = y0; y < y0 + rows; ++y)
        *reinterpret_cast<T*>(out + std::size_t(y) * a.outPitch + sizeof(T) * (std::size_t(x) * CH + ch)) =
            *reinterpret_cast<const T*>(in + std::size_t(y) * a.pitch + sizeof(T) * (std::size_t(x) * CH + ch));
      continue;
    }
    auto rowSum = [&](int y) {
      const int sy = borderIndex(y, a.height, a.border);
      if (sy < 0) return Sum(0);
      const T* row = reinterpret_cast<const T*>(in + std::size_t(sy) * a.pitch);
      Sum h = 0;
      for (int j = 0; j < taps; ++j) {
        const int sx = borderIndex(x + j - r, a.width, a.border);
        h += Sum(m.row[0][j] + m.row[1][j]) * (sx < 0 ? Sum(0) : Sum(float(row[sx * CH + ch])));
      }
      return h;
    };
    for (int i = 0; i < 2 * r; ++i) ring[i] = rowSum(y0 - r + i);
    for (int y = y0; y < y0 + rows; ++y) {
      ring[(y - y0 + 2 * r) % taps] = rowSum(y + r);
      Sum v = 0;
      for (int i = 0; i < taps; ++i) v += Sum(m.col[0][i] + m.col[1][i]) * ring[(y - y0 + i) % taps];
      *reinterpret_cast<T*>(out + std::size_t(y) * a.outPitch + sizeof(T) * (std::size_t(x) * CH + ch)) = T(float(v));
    }
  }
}

// f32 frames: the step scale that marks an all-zero window (the largest taken: 2^126), and 2^p
// (p in -126..127) as a float.
constexpr int kF32NoScale = 126;
// An Inf or NaN's exponent bits (255) give the least step scale (own below), f32RerunScale's floor.
static_assert(141 - 255 == kF32LeastScale, "the step scale an Inf or NaN input takes");
__device__ __forceinline__ float powerOfTwo(int p) { return __int_as_float((127 + p) << 23); }

// Channel ch's 16-bit values of a lane's pixels 2h and 2h + 1 as one word (low half: pixel 2h), from
// the lane's 4 pixels of a 16-pixel unit (CH channels a pixel: 2 CH words; pixel p's channel ch in
// word p CH / 2 + ch / 2, its half ch % 2).
template <int CH>
__device__ __forceinline__ unsigned sixteenPair(const unsigned (&w)[2 * CH], int ch, int h) {
  if constexpr (CH == 1) {
    return w[h];
  } else {
    const unsigned a = w[(2 * h) * CH / 2 + ch / 2], b = w[(2 * h + 1) * CH / 2 + ch / 2];
    return __byte_perm(a, b, ch % 2 ? 0x7632u : 0x5410u);
  }
}

// C: bytes a pixel (u8: its channels; u16 grey: 2); P: planes a strip (u8: C; u16 grey: 1).
template <int C, int SS_, int B0, int P = C>
struct TypedShape {
  static constexpr int SS = SS_;     // 16-pixel strips a warp
  static constexpr int NP = SS * P;  // planes: a strip's channel
  static constexpr int KC = B0 + 1, NO = B0 + 1;
  static constexpr int U = SS + B0;         // 16-pixel units of the warp's window
  static constexpr int Pieces = U * C + 1;  // 16-byte copies a staged row (the window's bytes from a 16-byte boundary)
  static constexpr int RowWords = Pieces * 4 % 8 == 4 ? Pieces * 4 : Pieces * 4 + 4;  // 4 mod 8
  static constexpr int RowBytes = 4 * RowWords, StageBytes = 16 * RowBytes;
  static constexpr int WeightBytes = (KC + NO) * 32 * 16;
  static constexpr int PlanBytes = 4 * 16 * U * C;  // makePatchPlan's entries: at most the window's bytes
  static_assert(2 * kFactorSpan * sizeof(float) <= StageBytes, "warp 0 stages the factors in its first stage");
};
template <int C, int SS, int B0>
constexpr std::size_t typedSharedBytes(int warps, int ahead, int terms = 1) {
  using S = TypedShape<C, SS, B0>;  // the planes change no shared memory
  return std::size_t(terms) * S::WeightBytes + std::size_t(warps) * ((1 + ahead) * S::StageBytes + S::PlanBytes);
}
// Steps a ring holds ahead of the one being read: one for the f32 instance held to 80 registers
// (typedAheadOf), else kTypedAhead. Two (1 to 2 KB a step at r <= 8, a third to half an
// RGBA8 step's, so that as many bytes are in flight).
constexpr int kTypedAhead = 2;
template <int Kind, bool Held>
constexpr int typedAheadOf() {
  return Held && Kind == kF32Values ? 1 : kTypedAhead;
}

// Off the hot path, the rows of a warp whose window leaves the frame (or whose rows are not 16-byte
// aligned): a lane's 16-byte pieces of a staged row (bytes ba + 16 i, i = t, t + 4, ...) that lie in
// the row are still one copy, the rest word by word where the word lies in the row (4-byte copies,
// asynchronous like the others), the bytes of a word the row's end cuts (width C not a multiple of
// 4) one by one. The bytes outside the row are patched once they have all arrived (makePatchPlan).
// Copying the outside bytes here through the border mode, one synchronous load each, held the edge
// strips' warps a load's latency a row: they took 3-5x the others' time, the whole kernel's.
template <int Pieces>
__device__ __forceinline__ void stageInsidePieces(const unsigned char* row, int rowBytes, bool aligned16,
                                                  unsigned char* dst, int ba, int t) {
  for (int i = t; i < Pieces; i += 4) {
    const int b0 = ba + 16 * i;
    if (aligned16 && b0 >= 0 && b0 + 16 <= rowBytes) {
      copyAsync<16, true>(dst + 16 * i, row + b0);
      continue;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int wb = b0 + 4 * j;  // a multiple of 4: the row's first byte starts a word
      if (wb >= 0 && wb + 4 <= rowBytes)
        copyAsync<4>(dst + 16 * i + 4 * j, row + wb);
      else if (wb >= 0 && wb < rowBytes)
        for (int e = 0; wb + e < rowBytes; ++e) dst[16 * i + 4 * j + e] = row[wb + e];
    }
  }
}
// Where each byte of the window outside the row comes from, the same in every row: its place in
// the staged row (low 16 bits) and its source's (high 16 bits: kPatchZero for a zero, kPatchLoad
// where the source lies outside the staged span: loaded, through the border mode, row by row). Made
// once a warp (n entries, lane by lane; the caller syncs); clamp and mirror take their sources from
// the staged bytes but for frames narrower than a window, wrap loads them. Computing every byte's
// source at every step (a division and the border mode's each) held the edge strips' warps 1.6x
// the others' time, the whole kernel's.
constexpr unsigned kPatchZero = 0xfffeu, kPatchLoad = 0xffffu;
template <int C, int U, int Pieces>
__device__ __forceinline__ int makePatchPlan(unsigned* plan, int width, Border border, int ba, int skew, int lane) {
  const int rowBytes = width * C;
  const int winStart = ba + skew, winEnd = winStart + 16 * U * C;  // the window's bytes in the row
  const int left = max(0, min(winEnd, 0) - winStart);
  const int rightStart = max(winStart, rowBytes), right = max(0, winEnd - rightStart);
  const int n = left + right;
  for (int i = lane; i < n; i += 32) {
    const int gb = i < left ? winStart + i : rightStart + (i - left);
    const int x = gb >= 0 ? gb / C : -((C - 1 - gb) / C);  // the pixel, rounded down
    const int sx = borderIndex(x, width, border);
    const int sb = sx * C + (gb - x * C) - ba;
    const unsigned src = sx < 0 ? kPatchZero : sb >= 0 && sb < 16 * Pieces ? unsigned(sb) : kPatchLoad;
    plan[i] = unsigned(gb - ba) | src << 16;
  }
  return n;
}
// A stage's 16 rows patched as the plan's n entries say, the warp's lanes sharing them; a row at a
// time, so that it holds few registers (out of line, the call cost the kernel 47 registers).
template <int C, int RowBytes>
__device__ __forceinline__ void applyPatch(unsigned char* st, const unsigned* plan, int n, int lane,
                                           const unsigned char* frame, std::size_t pitch, int width, int height,
                                           Border border, int firstRow, int ba) {
  for (int i = lane; i < n; i += 32) {
    const unsigned e = plan[i], src = e >> 16;
    const int at = int(e & 0xffffu);
    if (src != kPatchLoad) {
#pragma unroll 1
      for (int row = 0; row < 16; ++row)
        st[row * RowBytes + at] = src == kPatchZero ? 0 : st[row * RowBytes + int(src)];
      continue;
    }
    // Loaded, row by row through the border mode.
    const int gb = at + ba, x = gb >= 0 ? gb / C : -((C - 1 - gb) / C);
    const int sx = borderIndex(x, width, border);
#pragma unroll 1
    for (int row = 0; row < 16; ++row) {
      const int sy = borderIndex(firstRow + row, height, border);
      st[row * RowBytes + at] = sy < 0 ? 0 : frame[std::size_t(sy) * pitch + std::size_t(sx * C + (gb - x * C))];
    }
  }
}

// The rows of a frame whose rows are not even 4 bytes apart: every byte through the border mode,
// one synchronous load each.
template <int C, int Pieces>
__device__ __forceinline__ void stageBorderedPieces(const unsigned char* row, int width, Border border,
                                                    unsigned char* dst, int ba, int t) {
  for (int i = t; i < Pieces; i += 4) {
    const int b0 = ba + 16 * i;
    unsigned w[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      w[j] = 0u;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int b = b0 + 4 * j + e;
        const int x = b >= 0 ? b / C : -((C - 1 - b) / C);  // the pixel, rounded down
        const int sx = borderIndex(x, width, border);
        if (sx >= 0) w[j] |= unsigned(row[sx * C + (b - x * C)]) << (8 * e);
      }
    }
    *reinterpret_cast<uint4*>(dst + 16 * i) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

// Bytes k0 and k1 of a lane's 4 pixels (C words) as an fp16 pair of subnormals: each byte with a
// zero byte above it.
template <int C>
__device__ __forceinline__ unsigned bytePair(const unsigned (&w)[C], int k0, int k1) {
  if (k0 / 4 == k1 / 4)
    return __byte_perm(w[k0 / 4], 0u, static_cast<unsigned>(k0 % 4 | 4 << 4 | (k1 % 4) << 8 | 4 << 12));
  const unsigned both = __byte_perm(w[k0 / 4], w[k1 / 4], static_cast<unsigned>(k0 % 4 | (4 + k1 % 4) << 4));
  return __byte_perm(both, 0u, 0x4140);
}
// Four bytes, each in the low byte of its word, as one word.
__device__ __forceinline__ unsigned packBytes(unsigned b0, unsigned b1, unsigned b2, unsigned b3) {
  return __byte_perm(__byte_perm(b0, b1, 0x0040), __byte_perm(b2, b3, 0x0040), 0x5410);
}

// The kernel: tensorStreamBody's walk (tensor_stream.cuh) for NP planes of C-channel bytes, the
// output blocks copied down one after each step. Renamed instead (the loop unrolled NO times at B0
// = 1, as the RGBA8 kernel does) the step missed the instruction cache; copied (H200, same call):
// u16 grey 0.85x the time on 16 1080p frames, 0.95x on 64 256x256, 0.96x at 4K (152 registers, not
// 166); u8x1 and u8x3 at r <= 8 0.90-0.95x on the batches, 0.93-0.97x at 4K, level from r = 16.
// Registers (ptxas -v, sm_90): a minimum of one block, else ptxas held the B0 = 2..4 instances to
// 128 registers and spilled 70-460 bytes; three planes at B0 = 1 (u8x3) are held to 80, 3 blocks of
// 256 threads an SM (120 free; 4K r=8 3% faster). One channel keeps four strips a warp (128
// registers at B0 = 1): two, at 80 registers, were 1.1x slower at 4K r <= 8, level at 1080p. u16
// grey (kU16Values, four strips): 152 registers at B0 = 1, 210 at B0 = 2, no spill (its bytes split
// at each product since 4 channels came; split before the products again, 204 registers and the held
// instance's spill 56 bytes, not 8: 1.03-1.045x the time at 4K and 64 256x256 r <= 8); held to 128 at
// B0 = 1 (renaming then: 4 blocks of 4 warps an SM, an 84-byte spill) it took 0.90x the time at 4K
// but 1.02-1.04x on 16 1080p frames and 64 256x256 ones, so it keeps ptxas's where that held
// instance would not bring the launch into one wave (Held: launchU16x1 takes it where it does). f16
// grey (kF16Values) at B0 = 1 is always held to 128 (ptxas's own 154; an 8-byte spill): 4 blocks an
// SM, 4K r = 4 and 8 0.92x the time, 16 1080p and 64 256x256 frames 0.99-1.01x (H200, alternating in
// one call).
//
// Terms: a mask of low rank (MaskTerms, up to kTensorStreamMaxTerms separable terms, none folded):
// each plane's row product per term feeds that term's column products, all adding into the same
// output blocks, as tensorStreamBody's Terms.
//
// Mag (with Terms): a gradient magnitude, exactly two terms (gx, gy: magnitudeTerms), each summed in
// accumulators of its own (accY for gy) and stored as sqrt(gx^2 + gy^2) a channel.
//
// Kind = kU16Values (C = 2, Terms, SplitH): u16 grey frames, a separable mask whose factors come as
// two terms, their fp16 high parts (term 0) and low parts (term 1), so that the weights hold about
// 2^-22 of themselves (planU16Separable). Each value's high and low bytes enter as subnormals, as
// bytes do, summed by the row pass in accumulators of their own (the low weight parts' products
// first, so that the high parts' come last into each sum) and joined in fp32 as 256 high + low; the
// column pass takes that intermediate as fp16 high + low parts times the column's high part, and its
// high part times the column's low part. The sums are the values, rounded and saturated to 16 bits.
//
// Kind = kF16Values (C = 2, Terms, SplitH): f16 grey frames, the factors' parts as for u16 (the row
// factor scaled by 2^A and the column's by 2^-A, so that the intermediate stays within fp16's range:
// f16IntermediateScale), the values themselves the row products' inputs (2 products a K chunk, the
// low parts' first), the column pass as u16's; the sums rounded to fp16 (planF16Separable). A stored
// Inf or NaN sends the warp's outputs of that segment to directOutputs.
//
// Kind = kF32Values (C = 4, Terms, SplitH): f32 grey frames, the factors as for f16. Each step's
// values are multiplied by 2^P, P from the warp's largest |value| of the step so that it lies in
// [2^14, 2^15) (never more than the B0 steps' before, whose sums the output blocks still hold; the
// blocks rescaled by a power of two where P moves), and split into fp16 high + low parts: 3 row
// products a K chunk (the factor's low parts x the high values and its high parts x the low values
// first, then high x high), the column pass as u16's, the sums times 2^-P stored as they are. Values
// far below the step's largest lose only what lies below 2^-25 of 2^-14 of it. A stored Inf or NaN
// sends the warp's outputs of that segment to directOutputs. Held (B0 = 1): held to 80 registers (a
// 20-byte spill) with a two-stage ring (typedAheadOf), for blocks of 8 warps (tensorStreamF32Held).
template <int C, int SS_, int B0, int Out, bool SplitH, bool Terms = false, bool Mag = false, int Kind = kBytes,
          bool Held = false>
__global__ void __launch_bounds__(256, B0 == 1 && !SplitH && !Terms && SS_ * C <= 3 ? 3
                                       : Held && Kind == kF32Values                 ? 3
                                       : Held                                       ? 2
                                                                                    : 1)
    tensorStreamTypedKernel(const __grid_constant__ TypedTensorArgs a, const __grid_constant__ FactorsOf<Terms> m,
                            int ahead) {
#if __CUDA_ARCH__ >= 800
  static_assert(Kind == kBytes || (Kind != kF32Values && (C == 2 || C == 8) && Terms && SplitH && !Mag) ||
                    (Kind == kF32Values && C == 4 && Terms && SplitH && !Mag),
                "16-bit values: 1 or 4 channels, split parts; f32 values: grey, split parts");
  constexpr int CH = Kind == kBytes ? C : Kind == kF32Values ? C / 4 : C / 2;  // channels a pixel: a plane each
  using S = TypedShape<C, SS_, B0, CH>;
  constexpr int KC = S::KC, NO = S::NO, NP = S::NP, U = S::U, SS = S::SS;
  extern __shared__ __align__(16) unsigned char typedTensorSmem[];
  uint4* rowFrag = reinterpret_cast<uint4*>(typedTensorSmem);  // [KC][32 lanes], term t's kTermStride t on
  const uint4* colFrag = rowFrag + KC * 32;                    // [NO][32 lanes], likewise
  constexpr int kTermStride = (KC + NO) * 32;
  static_assert(!Mag || Terms, "a gradient magnitude runs as its two terms");
  const int terms = Mag ? 2 : termsOf(m);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int warps = blockDim.x >> 5;
  const int r = m.radius, apron = apronOf(B0, r);
  if constexpr (!kTriggerAtLastStep<B0>) allowDependentLaunch();
  const int x0 = (blockIdx.x * warps + warp) * 16 * SS;
  const bool active = x0 < a.width;
  const int y0 = blockIdx.y * a.tileRows;
  const int rows = min(a.tileRows, a.height - y0);
  const int steps = (rows + 15) / 16, lastStep = steps + B0 - 1;
  const int stages = 1 + ahead;
  unsigned char* ring = typedTensorSmem + terms * S::WeightBytes + warp * (stages * S::StageBytes + S::PlanBytes);
  if (warp == 0) makeWeightFragments<B0, true>(m, terms, r, apron, reinterpret_cast<float*>(ring), rowFrag, lane);
  waitForPrerequisites();
  __syncthreads();
  if (!active) return;

  // The warp's window: pixels x0 - apron .. x0 + 16 (SS + B0) - apron - 1, its bytes staged from
  // the 16-byte boundary ba at or below its first (skew bytes before it).
  const int bw = (x0 - apron) * C, ba = bw & ~15, skew = bw - ba;
  const bool fast = a.aligned && ba >= 0 && ba + 16 * S::Pieces <= a.width * C;
  // The window leaves the frame, or the rows are not 16-byte aligned: the bytes in the row staged as
  // they can be, those outside patched from them (makePatchPlan); rows not 4 bytes apart byte by byte.
  const bool patch = !fast && a.aligned4;
  unsigned* plan = reinterpret_cast<unsigned*>(ring + stages * S::StageBytes);
  const int patchBytes = patch ? makePatchPlan<C, U, S::Pieces>(plan, a.width, a.border, ba, skew, lane) : 0;
  __syncwarp();
  // Every strip of the warp inside the frame, and the output's rows 4-byte aligned: whole words.
  const bool fullRow = a.outAligned && x0 + 16 * SS <= a.width;
  // Step q's input: rows y0 - 8 B0 + 16 q .. + 15 (lane (g, t): rows g and g + 8), pieces t, t + 4, ...
  auto issue = [&](const unsigned char* frame, int q, int stage) {
    unsigned char* st = ring + stage * S::StageBytes;
    if constexpr (Kind == kF32Values) {
      // Every row of the step in the frame (most steps): the copies with no border check, one
      // address a lane.
      const int first = y0 - 8 * B0 + 16 * q;
      if (fast && first >= 0 && first + 16 <= a.height) {
        const unsigned char* src = frame + std::size_t(first + g) * a.pitch + ba + 16 * t;
        unsigned char* d = st + g * S::RowBytes + 16 * t;
#pragma unroll
        for (int nb = 0; nb < 2; ++nb)
#pragma unroll
          for (int k = 0; k < (S::Pieces + 3) / 4; ++k)
            if (t + 4 * k < S::Pieces)
              copyAsync<16, true>(d + 8 * nb * S::RowBytes + 64 * k, src + 8 * nb * a.pitch + 64 * k);
        return;
      }
    }
#pragma unroll
    for (int nb = 0; nb < 2; ++nb) {
      const int row = 8 * nb + g, sy = borderIndex(y0 - 8 * B0 + 16 * q + row, a.height, a.border);
      unsigned char* d = st + row * S::RowBytes;
      if (sy < 0) {
#pragma unroll
        for (int k = 0; k < (S::Pieces + 3) / 4; ++k)
          if (t + 4 * k < S::Pieces) *reinterpret_cast<uint4*>(d + 16 * (t + 4 * k)) = make_uint4(0, 0, 0, 0);
      } else if (fast) {
        const unsigned char* src = frame + std::size_t(sy) * a.pitch + ba;
#pragma unroll
        for (int k = 0; k < (S::Pieces + 3) / 4; ++k)
          if (t + 4 * k < S::Pieces) copyAsync<16, true>(d + 16 * (t + 4 * k), src + 16 * (t + 4 * k));
      } else if (patch) {
        stageInsidePieces<S::Pieces>(frame + std::size_t(sy) * a.pitch, a.width * C, a.aligned, d, ba, t);
      } else {
        stageBorderedPieces<C, S::Pieces>(frame + std::size_t(sy) * a.pitch, a.width, a.border, d, ba, t);
      }
    }
  };

#pragma unroll 1
  for (int f = blockIdx.z; f < a.batch; f += gridDim.z) {
    const unsigned char* in = a.in + std::size_t(f) * a.frameStride;
    unsigned char* out = a.out + std::size_t(f) * a.outFrameStride;
    const bool lastFrame = f + int(gridDim.z) >= a.batch;
    for (int s = 0; s < ahead; ++s) {
      if (s <= lastStep) issue(in, s, s);
      commitAsync();
    }
    // acc[j][pl][h]: output block j (16 rows from 8 (2 j - B0) below the current chunk's first
    // row), plane pl (strip pl / C, channel pl % C), pixel slots 8 h .. 8 h + 7.
    float acc[NO][NP][2][4];
    float accY[Mag ? NO : 1][NP][2][4];         // Mag: gy's blocks, likewise (otherwise unused, dropped)
    __half2 nonFinite = __float2half2_rn(0.f);  // kF16Values: NaN once a stored value is Inf or NaN
    int leastStored = kF32NoScale;              // kF32Values: the least scale P a stored step had
    // kF32Values: the scale 2^P of the step's values and of the blocks' sums (the least P of this
    // step and the B0 before, so that every sum a block holds stays within fp16's and fp32's range),
    // and the B0 steps' own (kF32NoScale: all zero).
    int scaleNow = kF32NoScale, scaleBefore[B0];
#pragma unroll
    for (int k = 0; k < B0; ++k) scaleBefore[k] = kF32NoScale;
#pragma unroll
    for (int j = 0; j < NO - 1; ++j) forEachElement<NP>([&](int pl, int h, int e) { acc[j][pl][h][e] = 0.f; });
    int stage = 0, next = ahead;
#pragma unroll 1
    for (int q = 0; q <= lastStep; ++q) {
      if constexpr (kTriggerAtLastStep<B0>)
        if (q == lastStep && lastFrame) allowDependentLaunch();
      const int out0 = y0 - 16 * B0 + 16 * q;  // the first row this step stores
      if (ahead == 2)
        waitAsync<1>();
      else
        waitAsync<0>();
      __syncwarp();
      if (q + ahead <= lastStep) issue(in, q + ahead, next);
      commitAsync();
      next = next + 1 == stages ? 0 : next + 1;
      unsigned char* st = ring + stage * S::StageBytes;
      if (patch) {
        applyPatch<C, S::RowBytes>(st, plan, patchBytes, lane, in, a.pitch, a.width, a.height, a.border,
                                   y0 - 8 * B0 + 16 * q, ba);
        __syncwarp();
      }
      // The lane's 4 pixels (C words) of rows g and g + 8 in each 16-pixel unit of the window.
      unsigned w[2][U][C];
#pragma unroll
      for (int nb = 0; nb < 2; ++nb)
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int i = 0; i < C; ++i)
            w[nb][u][i] = *reinterpret_cast<const unsigned*>(st + (8 * nb + g) * S::RowBytes + skew + 16 * C * u +
                                                             4 * C * t + 4 * i);
      // A mask of low rank adds every term's column products into the block that starts here.
      if constexpr (Terms)
        forEachElement<NP>([&](int pl, int h, int e) {
          acc[NO - 1][pl][h][e] = 0.f;
          if constexpr (Mag) accY[NO - 1][pl][h][e] = 0.f;
        });
      if constexpr (Kind == kF32Values) {
        // The step's scale: its largest |value| (the warp's, from the words' magnitude bits) into
        // [2^14, 2^15) (an Inf or NaN takes the least: its outputs are made again), no less than the
        // B0 steps' before it, whose sums the blocks still hold; the blocks rescaled where it moves.
        unsigned most = 0u;
#pragma unroll
        for (int nb = 0; nb < 2; ++nb)
#pragma unroll
          for (int u = 0; u < U; ++u)
#pragma unroll
            for (int i = 0; i < C; ++i) most = max(most, w[nb][u][i] & 0x7fffffffu);
        most = __reduce_max_sync(0xffffffffu, most);
        const int own = most == 0u ? kF32NoScale : min(kF32NoScale, 141 - int(most >> 23));
        int scale = own;
#pragma unroll
        for (int k = 0; k < B0; ++k) scale = min(scale, scaleBefore[k]);
#pragma unroll
        for (int k = B0 - 1; k > 0; --k) scaleBefore[k] = scaleBefore[k - 1];
        scaleBefore[0] = own;
        if (scale != scaleNow) {
          const int d = scale - scaleNow;
          const float f0 = powerOfTwo(d >> 1), f1 = powerOfTwo(d - (d >> 1));
#pragma unroll
          for (int j = 0; j < NO - 1; ++j)
            forEachElement<NP>([&](int pl, int h, int e) { acc[j][pl][h][e] = acc[j][pl][h][e] * f0 * f1; });
          scaleNow = scale;
        }
        // Each unit's values, scaled, as fp16 high and low pairs (pixels 0, 1 and 2, 3).
        const float sc = powerOfTwo(scale);
        unsigned hiv[2][U][2], lov[2][U][2];
#pragma unroll
        for (int nb = 0; nb < 2; ++nb)
#pragma unroll
          for (int u = 0; u < U; ++u)
#pragma unroll
            for (int i = 0; i < 2; ++i) {
              const float x0v = __uint_as_float(w[nb][u][2 * i]) * sc, x1v = __uint_as_float(w[nb][u][2 * i + 1]) * sc;
              const __half2 h = __floats2half2_rn(x0v, x1v);
              const float2 hf = __half22float2(h);
              const __half2 l = __floats2half2_rn(x0v - hf.x, x1v - hf.y);
              hiv[nb][u][i] = *reinterpret_cast<const unsigned*>(&h);
              lov[nb][u][i] = *reinterpret_cast<const unsigned*>(&l);
            }
#pragma unroll
        for (int pl = 0; pl < NP; ++pl) {
          float hs[2][4];
          // The small products first (the factor's low parts times the high values, its high parts
          // times the low values: 2^-11 of the sum each), then the high parts times the high values;
          // the low x low product dropped (2^-22 of the sum).
#pragma unroll
          for (int nb = 0; nb < 2; ++nb)
#pragma unroll
            for (int k = 0; k < 3; ++k)
#pragma unroll
              for (int c = 0; c < KC; ++c) {
                const uint4 fr = rowFrag[(k == 0 ? kTermStride : 0) + c * 32 + lane];
                const unsigned ra[4] = {fr.x, fr.y, fr.z, fr.w};
                const unsigned(&b)[2] = k == 1 ? lov[nb][pl + c] : hiv[nb][pl + c];
                if (k == 0 && c == 0)
                  mma16816Zero(hs[nb], ra, b[0], b[1]);
                else
                  mma16816(hs[nb], ra, b[0], b[1]);
              }
          unsigned hi[4], lo[4];
          columnOperands<true>(hs, hi, lo);
          columnProducts<false, true, false>(acc, accY, colFrag + kTermStride + lane, 0, pl, 1, hi, lo);
          columnProducts<true, true, false>(acc, accY, colFrag + lane, 0, pl, 0, hi, lo);
        }
      } else if constexpr (Kind != kBytes) {
#pragma unroll
        for (int pl = 0; pl < NP; ++pl) {
          const int s = pl / CH, ch = pl % CH;
          // Plane pl's values of the lane's pixels 0, 1 and 2, 3 of each chunk (sixteenPair).
          unsigned v[2][KC][2];
#pragma unroll
          for (int nb = 0; nb < 2; ++nb)
#pragma unroll
            for (int c = 0; c < KC; ++c)
#pragma unroll
              for (int i = 0; i < 2; ++i) v[nb][c][i] = sixteenPair<CH>(w[nb][s + c], ch, i);
          float hs[2][4];
          if constexpr (Kind == kF16Values) {
            // fp16 pairs already: the B fragments as they are, times the factor's low parts, then
            // its high parts.
#pragma unroll
            for (int nb = 0; nb < 2; ++nb)
#pragma unroll
              for (int part = 1; part >= 0; --part)
#pragma unroll
                for (int c = 0; c < KC; ++c) {
                  const uint4 fr = rowFrag[part * kTermStride + c * 32 + lane];
                  const unsigned ra[4] = {fr.x, fr.y, fr.z, fr.w};
                  if (part == 1 && c == 0)
                    mma16816Zero(hs[nb], ra, v[nb][c][0], v[nb][c][1]);
                  else
                    mma16816(hs[nb], ra, v[nb][c][0], v[nb][c][1]);
                }
          } else {
            // u16: the low bytes (0, 2 of a pair) and high bytes (1, 3) as subnormal pairs, summed
            // apart and joined in fp32 as 256 high + low.
            float hh[2][4];
#pragma unroll
            for (int nb = 0; nb < 2; ++nb) {
#pragma unroll
              for (int part = 1; part >= 0; --part)  // the low weight parts' products first
#pragma unroll
                for (int c = 0; c < KC; ++c) {
                  const uint4 fr = rowFrag[part * kTermStride + c * 32 + lane];
                  const unsigned ra[4] = {fr.x, fr.y, fr.z, fr.w};
                  const unsigned lb0 = __byte_perm(v[nb][c][0], 0u, 0x4240), lb1 = __byte_perm(v[nb][c][1], 0u, 0x4240);
                  const unsigned hb0 = __byte_perm(v[nb][c][0], 0u, 0x4341), hb1 = __byte_perm(v[nb][c][1], 0u, 0x4341);
                  if (part == 1 && c == 0) {
                    mma16816Zero(hs[nb], ra, lb0, lb1);
                    mma16816Zero(hh[nb], ra, hb0, hb1);
                  } else {
                    mma16816(hs[nb], ra, lb0, lb1);
                    mma16816(hh[nb], ra, hb0, hb1);
                  }
                }
#pragma unroll
              for (int e = 0; e < 4; ++e) hs[nb][e] = fmaf(256.f, hh[nb][e], hs[nb][e]);
            }
          }
          unsigned hi[4], lo[4];
          columnOperands<true>(hs, hi, lo);
          // The column's low part times the intermediate's high part, then its high part times both.
          columnProducts<false, true, false>(acc, accY, colFrag + kTermStride + lane, 0, pl, 1, hi, lo);
          columnProducts<true, true, false>(acc, accY, colFrag + lane, 0, pl, 0, hi, lo);
        }
      } else {
        // Mag: both terms unrolled, so that each one's column products go to its own blocks.
        constexpr int kTermUnroll = Mag ? 2 : 1;
#pragma unroll
        for (int pl = 0; pl < NP; ++pl)
#pragma unroll kTermUnroll
          for (int tm = 0; tm < terms; ++tm) {
            const int s = pl / C, ch = pl % C;
            // Row pass: H^T for rows s..s+7 (nb 0) and s+8..s+15 (nb 1) of this plane; strip s's
            // chunk c is the window's unit s + c.
            float hs[2][4];
#pragma unroll
            for (int nb = 0; nb < 2; ++nb)
#pragma unroll
              for (int c = 0; c < KC; ++c) {
                const uint4 fr = rowFrag[tm * kTermStride + c * 32 + lane];
                const unsigned ra[4] = {fr.x, fr.y, fr.z, fr.w};
                // Pixel slots k = 2t, 2t + 1 are the lane's pixels 0 and 1, k = 2t + 8, 2t + 9 its 2 and 3.
                const unsigned b0 = bytePair<C>(w[nb][s + c], ch, C + ch);
                const unsigned b1 = bytePair<C>(w[nb][s + c], 2 * C + ch, 3 * C + ch);
                if (c == 0)
                  mma16816Zero(hs[nb], ra, b0, b1);
                else
                  mma16816(hs[nb], ra, b0, b1);
              }
            unsigned hi[4], lo[4];
            columnOperands<SplitH>(hs, hi, lo);
            columnProducts<SplitH, Terms, Mag>(acc, accY, colFrag + tm * kTermStride + lane, 0, pl, tm, hi, lo);
          }
      }

      if (q >= B0) {
        if constexpr (Kind == kF32Values) leastStored = min(leastStored, scaleNow);
        // Block 0 is rows out0 .. out0 + 15: lane (g, t) stores pixels 4 t .. 4 t + 3 of each strip
        // in rows out0 + g (C elements 0, 1 of both halves) and out0 + 8 + g (elements 2, 3).
        // Mag: block 0 becomes sqrt(gx^2 + gy^2) a channel (the blocks move on past it).
        if constexpr (Mag)
          forEachElement<NP>([&](int pl, int h, int e) {
            const float gx = acc[0][pl][h][e], gy = accY[0][pl][h][e];
            acc[0][pl][h][e] = sqrtf(fmaf(gx, gx, gy * gy));
          });
        // The terms' sums times 1 / n where the host wrote their factors n times over (emboss).
        if constexpr (Terms)
          if (m.outScale != 1.f) forEachElement<NP>([&](int pl, int h, int e) { acc[0][pl][h][e] *= m.outScale; });
#pragma unroll
        for (int i = 0; i < 2; ++i) {
          const int y = out0 + 8 * i + g;
          if (y >= y0 + rows) continue;
          unsigned char* orow = out + std::size_t(y) * a.outPitch;
          if constexpr (Kind == kF32Values) {
            // Strip s's 4 values, unscaled (exact: a power of two).
            static_assert(Out == kClamp, "f32 sums stored as they are");
            const float unscale = powerOfTwo(-scaleNow);
#pragma unroll
            for (int s = 0; s < SS; ++s) {
              float v[4];
#pragma unroll
              for (int j = 0; j < 4; ++j) {
                v[j] = acc[0][s][j >> 1][2 * i + (j & 1)] * unscale;
              }
              const int x = x0 + 16 * s + 4 * t;
              unsigned char* at = orow + std::size_t(x) * 4;
              if (fullRow && a.outAligned16) {
                *reinterpret_cast<float4*>(at) = make_float4(v[0], v[1], v[2], v[3]);
              } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                  if (x + j >= a.width) continue;
                  if (a.outAligned) {
                    reinterpret_cast<float*>(at)[j] = v[j];
                  } else {
                    const unsigned word = __float_as_uint(v[j]);
#pragma unroll
                    for (int b = 0; b < 4; ++b) at[4 * j + b] = static_cast<unsigned char>(word >> (8 * b));
                  }
                }
              }
            }
          } else if constexpr (Kind != kBytes) {
            // Strip s's values in the lane's order (value j: pixel j / CH, channel j % CH), two a
            // word: word k holds values 2k and 2k + 1. f16: rounded to nearest, each word stored
            // also going into nonFinite (x 0 + nonFinite: NaN once one is Inf or NaN); u16: rounded
            // and saturated. A kept 4th channel is the input's, read at the store.
            static_assert(Out == kClamp, "16-bit sums saturated or rounded to fp16");
            auto valueOf = [&](int s, int j) { return acc[0][s * CH + j % CH][(j / CH) >> 1][2 * i + ((j / CH) & 1)]; };
            auto wordOf = [&](int s, int k) {
              unsigned word;
              if constexpr (Kind == kF16Values) {
                const __half2 h = __floats2half2_rn(valueOf(s, 2 * k), valueOf(s, 2 * k + 1));
                nonFinite = __hfma2(h, __float2half2_rn(0.f), nonFinite);
                word = *reinterpret_cast<const unsigned*>(&h);
              } else {
                auto bits = [](float f) { return __float_as_uint(fminf(fmaxf(f, 0.f), 65535.f) + 12582912.f); };
                word = __byte_perm(bits(valueOf(s, 2 * k)), bits(valueOf(s, 2 * k + 1)), 0x5410);
              }
              if constexpr (CH == 4)
                if (a.copyFourth && (k & 1)) {
                  const int x = x0 + 16 * s + 4 * t + k / 2;
                  const unsigned kept =
                      *reinterpret_cast<const unsigned short*>(in + std::size_t(y) * a.pitch + std::size_t(x) * 8 + 6);
                  word = (word & 0xffffu) | kept << 16;
                }
              return word;
            };
            if (fullRow) {
#pragma unroll
              for (int s = 0; s < SS; ++s)
#pragma unroll
                for (int k = 0; k < 2 * CH; ++k)
                  reinterpret_cast<unsigned*>(orow + std::size_t(x0 + 16 * s + 4 * t) * C)[k] = wordOf(s, k);
            } else {
#pragma unroll
              for (int s = 0; s < SS; ++s)
#pragma unroll
                for (int k = 0; k < 2 * CH; ++k) {
                  const int px0 = (2 * k) / CH, px1 = (2 * k + 1) / CH;
                  if (x0 + 16 * s + 4 * t + px0 >= a.width) continue;
                  const unsigned word = wordOf(s, k);
                  unsigned char* at = orow + std::size_t(x0 + 16 * s + 4 * t) * C + 4 * k;
                  at[0] = static_cast<unsigned char>(word);
                  at[1] = static_cast<unsigned char>(word >> 8);
                  if (x0 + 16 * s + 4 * t + px1 < a.width) {
                    at[2] = static_cast<unsigned char>(word >> 16);
                    at[3] = static_cast<unsigned char>(word >> 24);
                  }
                }
            }
          } else {
            // Strip s's 4 pixels: byte px C + ch is plane s C + ch's element for pixel px.
            auto byteOf = [&](int s, int k) {
              const int px = k / C, ch = k % C;
              return roundedByte<Out>(acc[0][s * C + ch][px >> 1][2 * i + (px & 1)]);
            };
            if (fullRow) {
#pragma unroll
              for (int s = 0; s < SS; ++s)
#pragma unroll
                for (int k = 0; k < C; ++k)
                  reinterpret_cast<unsigned*>(orow + std::size_t(x0 + 16 * s + 4 * t) * C)[k] =
                      packBytes(byteOf(s, 4 * k), byteOf(s, 4 * k + 1), byteOf(s, 4 * k + 2), byteOf(s, 4 * k + 3));
            } else {
#pragma unroll
              for (int s = 0; s < SS; ++s)
#pragma unroll
                for (int k = 0; k < 4 * C; ++k)
                  if (x0 + 16 * s + 4 * t + k / C < a.width)
                    orow[std::size_t(x0 + 16 * s + 4 * t) * C + k] = static_cast<unsigned char>(byteOf(s, k));
            }
          }
        }
      }
      stage = stage + 1 == stages ? 0 : stage + 1;
      // acc[0] is stored: each later block moves down one (the last starts in the next step).
#pragma unroll
      for (int j = 0; j < NO - 1; ++j)
        forEachElement<NP>([&](int pl, int h, int e) {
          acc[j][pl][h][e] = acc[j + 1][pl][h][e];
          if constexpr (Mag) accY[j][pl][h][e] = accY[j + 1][pl][h][e];
        });
    }
    waitAsync<0>();  // nothing in flight into the ring
    __syncwarp();    // every lane's reads of the last steps done before the next frame's copies
    if constexpr (Kind == kF16Values || Kind == kF32Values) {
      // An Inf or NaN reaches every output of its products: the warp's outputs made again, each from
      // its own window (directOutputs), where any lane stored one.
      bool seen;
      if constexpr (Kind == kF16Values) {
        const float2 f = __half22float2(nonFinite);
        seen = isnan(f.x) || isnan(f.y);
      } else {
        seen = leastStored <= a.f32RerunScale;
      }
      if (__any_sync(0xffffffffu, seen)) {
        __syncwarp();  // every lane's stores of the walk done before the outputs are made again
        if constexpr (Kind == kF16Values)
          directOutputs<SS, CH, __half>(a, m, in, out, x0, y0, rows, lane);
        else
          directOutputs<SS, CH, float>(a, m, in, out, x0, y0, rows, lane);
      }
    }
  }
#endif
}

// The grid of a launch: x the block columns of warps' strips, y the segments, z the frames (at most
// 65535; a block walks every gridDim.z-th frame).
template <int SS>
dim3 typedGrid(const TypedTensorStreamLaunch& l) {
  const ImageDesc& d = l.image;
  return dim3(ceilDiv(d.width, 16 * SS * l.warps), ceilDiv(d.height, l.tileRows),
              static_cast<unsigned>(std::min(d.batch, kMaxGridZ)));
}

// The launch of an instance; m already scaled for the subnormal inputs.
template <int C, int SS, int B0, int Out, bool SplitH, bool Mag = false, int Kind = kBytes, bool Held = false,
          class Factors>
void launchTypedTensorStream(const TypedTensorStreamLaunch& l, const Factors& m) {
  constexpr bool Terms = std::is_same_v<Factors, MaskTerms>;
  const ImageDesc& d = l.image;
  TypedTensorArgs a{};
  setFrameArgs(a, l);
  a.tileRows = l.tileRows;
  const std::uintptr_t inBits = reinterpret_cast<std::uintptr_t>(a.in) | a.pitch | (d.batch > 1 ? a.frameStride : 0);
  a.aligned = inBits % 16 == 0;
  a.aligned4 = inBits % 4 == 0;
  a.outAligned = (reinterpret_cast<std::uintptr_t>(a.out) | a.outPitch | (d.batch > 1 ? a.outFrameStride : 0)) % 4 == 0;
  a.copyFourth = l.copyFourth;
  a.outAligned16 =
      (reinterpret_cast<std::uintptr_t>(a.out) | a.outPitch | (d.batch > 1 ? a.outFrameStride : 0)) % 16 == 0;
  if constexpr (Kind == kF32Values) a.f32RerunScale = f32RerunScale(m);
  if (l.warps < 1 || l.warps > 8 || l.tileRows < 16 || l.tileRows % 16)
    throw std::invalid_argument("tensorstream: no typed launch of " + std::to_string(l.warps) + " warps x " +
                                std::to_string(l.tileRows) + " rows");
  constexpr int ahead = typedAheadOf<Kind, Held>();
  const std::size_t shared = typedSharedBytes<C, SS, B0>(l.warps, ahead, termsOf(m));
  constexpr auto kernel = &tensorStreamTypedKernel<C, SS, B0, Out, SplitH, Terms, Mag, Kind, Held>;
  allowSharedBytes(kernel, shared);
  launchDependent(kernel, typedGrid<SS>(l), dim3(32 * l.warps), shared, l.stream, a, m, ahead);
}

// What launchTypedTensorStream<C, SS, B0, Out, SplitH, Mag, Kind> launches for l (`terms` factor
// pairs; pointers and stream not read).
template <int C, int SS, int B0, int Out, bool SplitH, bool Terms, bool Mag = false, int Kind = kBytes,
          bool Held = false>
LaunchDescription describeTypedTensorStream(const TypedTensorStreamLaunch& l, int radius, int terms) {
  const ImageDesc& d = l.image;
  const dim3 grid = typedGrid<SS>(l);
  const int blockW = 16 * SS * l.warps;
  PassLaunch p;
  p.kernel = std::string("tensorStreamTypedKernel<") +
             (Kind == kU16Values   ? "u16x" + std::to_string(C / 2)
              : Kind == kF16Values ? "f16x" + std::to_string(C / 2)
              : Kind == kF32Values ? "f32x" + std::to_string(C / 4)
                                   : "u8x" + std::to_string(C)) +
             ", " + std::to_string(SS) + (SS == 1 ? " strip a warp, " : " strips a warp, ") + std::to_string(B0) +
             ", " + outName(Out) + ", " + (SplitH ? "fp16 high + low" : "fp16") + (Mag ? ", magnitude>" : ">");
  if (Kind == kU16Values)
    p.kernel += " (the factors as fp16 high + low parts; each value's high and low bytes as products of their own)";
  else if (Kind == kF16Values)
    p.kernel += " (the factors as fp16 high + low parts; the values as they are)";
  else if (Kind == kF32Values)
    p.kernel +=
        " (the factors as fp16 high + low parts; each step's values scaled by a power of two, as fp16 high + "
        "low parts)";
  else if (Terms && !Mag)
    p.kernel += " (" + std::to_string(terms) + " terms)";
  if (Held) p.kernel += Kind == kF32Values ? ", held to 80 registers, a two-stage ring" : ", held to 128 registers";
  p.grid = dimsOf(grid.x, grid.y, grid.z);
  p.block = dimsOf(32 * l.warps);
  p.threadsPerBlock = 32 * l.warps;
  p.outputsPerThread = double(blockW) * l.tileRows / p.threadsPerBlock;
  // Each warp stages (SS + B0) 16-pixel units from apronOf(B0, r) left of its strips, and 8 B0 rows
  // above and below its segment.
  setFootprint(p, blockW, l.tileRows, blockW + 16 * B0, l.tileRows + 16 * B0, -apronOf(B0, radius), -8 * B0);
  p.dynamicShared = typedSharedBytes<C, SS, B0>(l.warps, typedAheadOf<Kind, Held>(), terms);
  p.kernelFunction =
      reinterpret_cast<const void*>(&tensorStreamTypedKernel<C, SS, B0, Out, SplitH, Terms, Mag, Kind, Held>);
  if (d.batch > kMaxGridZ)
    p.note = "a block walks every " + std::to_string(kMaxGridZ) + "th frame of the " + std::to_string(d.batch);
  return LaunchDescription{{p}, ""};
}

// Whether the instance held to 128 registers (Held: 4 blocks of 4 warps an SM where ptxas's own
// takes 3) brings l's launch into one wave where ptxas's would take two: its blocks past the free
// instance's resident ones and within the held one's (false without a device). Held, the u16 grey
// instance at B0 = 1 spilled 56 bytes as timed (8 since the bytes are split at each product): 4K
// r = 4..8 at 64x64 (510 blocks; 396 resident free, 528 held) 0.93x the time, 64 256x256
// 0.93-0.94x, but 16 1080p frames (many waves) 1.03-1.04x.
template <int C, int SS, int B0, int Out, bool SplitH, bool Terms, int Kind>
bool heldFillsOneWave(const TypedTensorStreamLaunch& l, int terms) {
  if (!deviceInfo().available) return false;
  const dim3 g = typedGrid<SS>(l);
  const long blocks = long(g.x) * g.y * g.z;
  const int threads = 32 * l.warps;
  const std::size_t shared = typedSharedBytes<C, SS, B0>(l.warps, kTypedAhead, terms);
  if (blocks <= residentBlocks(reinterpret_cast<const void*>(
                                   &tensorStreamTypedKernel<C, SS, B0, Out, SplitH, Terms, false, Kind, false>),
                               threads, shared))
    return false;
  return blocks <= residentBlocks(reinterpret_cast<const void*>(
                                      &tensorStreamTypedKernel<C, SS, B0, Out, SplitH, Terms, false, Kind, true>),
                                  threads, shared);
}

// f(B0, Out, SplitH), as integral constants, for the instance of a separable mask (Free: the sums
// may run unclamped) or a mask of low rank: B0 from the radius, Out from the combine rule and the
// byte-range bound, SplitH from the error plan. What f returns.
template <bool Free, class F>
auto withTypedInstance(int radius, bool absolute, bool sumsInRange, bool splitH, F&& f) {
  auto byB0 = [&](auto out, auto split) {
    if (radius <= 8) return f(std::integral_constant<int, 1>{}, out, split);
    if (radius <= 16) return f(std::integral_constant<int, 2>{}, out, split);
    if (radius <= 24) return f(std::integral_constant<int, 3>{}, out, split);
    return f(std::integral_constant<int, 4>{}, out, split);
  };
  auto bySplit = [&](auto out) {
    if (splitH) return byB0(out, std::true_type{});
    return byB0(out, std::false_type{});
  };
  if (absolute) return bySplit(std::integral_constant<int, kAbs>{});
  if constexpr (Free)
    if (sumsInRange) return bySplit(std::integral_constant<int, kFree>{});
  return bySplit(std::integral_constant<int, kClamp>{});
}

// The same for a gradient magnitude (r <= kTensorStreamMaxMagnitudeRadius: B0 = 1 or 2), clamped.
template <class F>
auto withTypedMagnitude(int radius, bool splitH, F&& f) {
  auto byB0 = [&](auto split) {
    if (radius <= 8) return f(std::integral_constant<int, 1>{}, std::integral_constant<int, kClamp>{}, split);
    return f(std::integral_constant<int, 2>{}, std::integral_constant<int, kClamp>{}, split);
  };
  if (splitH) return byB0(std::true_type{});
  return byB0(std::false_type{});
}

// The launch of a separable mask or a mask of low rank.
template <int C, int SS, class Factors>
void launchTypedInstance(const TypedTensorStreamLaunch& l, const Factors& m, bool splitH, bool sumsInRange) {
  withTypedInstance<std::is_same_v<Factors, MaskSep>>(
      m.radius, l.absolute, sumsInRange, splitH, [&](auto b0, auto out, auto split) {
        launchTypedTensorStream<C, SS, decltype(b0)::value, decltype(out)::value, decltype(split)::value>(l, m);
      });
}

// A gradient magnitude: SS strips a warp (tensorStreamTypedMagnitudeStrips).
template <int C, int SS>
void launchTypedMagnitude(const TypedTensorStreamLaunch& l, const MaskSep& m, bool splitH) {
  const MaskTerms scaled = scaledTerms(magnitudeTerms(m));
  withTypedMagnitude(m.radius, splitH, [&](auto b0, auto out, auto split) {
    launchTypedTensorStream<C, SS, decltype(b0)::value, decltype(out)::value, decltype(split)::value, true>(l, scaled);
  });
}

// What the launches above launch for l: a separable mask, a mask of `terms` factor pairs (asTerms),
// or a gradient magnitude.
template <int C, int SS, int MagSS>
LaunchDescription describeTypedInstance(const TypedTensorStreamLaunch& l, int radius, int terms, bool asTerms,
                                        bool magnitude, bool splitH, bool sumsInRange) {
  if (magnitude)
    return withTypedMagnitude(radius, splitH, [&](auto b0, auto out, auto split) {
      return describeTypedTensorStream<C, MagSS, decltype(b0)::value, decltype(out)::value, decltype(split)::value,
                                       true, true>(l, radius, 2);
    });
  if (asTerms)
    return withTypedInstance<false>(radius, l.absolute, false, splitH, [&](auto b0, auto out, auto split) {
      return describeTypedTensorStream<C, SS, decltype(b0)::value, decltype(out)::value, decltype(split)::value, true>(
          l, radius, terms);
    });
  return withTypedInstance<true>(radius, l.absolute, sumsInRange, splitH, [&](auto b0, auto out, auto split) {
    return describeTypedTensorStream<C, SS, decltype(b0)::value, decltype(out)::value, decltype(split)::value, false>(
        l, radius, 1);
  });
}

// f(B0) for a split-factor instance: u16 and f16 of 1 or 4 channels, f32 grey (r <=
// kTensorStreamU16MaxRadius: B0 = 1 or 2; no |sum|: planU16Separable, planF16Separable and
// planF32Separable refuse it). What f returns.
template <class F>
auto withU16Instance(int radius, bool absolute, F&& f) {
  if (absolute) throw std::invalid_argument("tensorstream: no 16-bit instance for |sum| (it takes that on u8 frames)");
  if (radius < 0 || radius > kTensorStreamU16MaxRadius)
    throw std::invalid_argument("tensorstream: radius " + std::to_string(radius) + " has no 16-bit instance (0.." +
                                std::to_string(kTensorStreamU16MaxRadius) + ")");
  if (radius <= 8) return f(std::integral_constant<int, 1>{});
  return f(std::integral_constant<int, 2>{});
}

}  // namespace
}  // namespace convlive::kernels
