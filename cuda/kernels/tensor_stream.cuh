// tensorstream's kernel and its launch helpers, shared by tensor_stream.cu (separable masks) and
// tensor_stream_terms.cu (masks of low rank: k separable terms in one pass).
//
// tensorstream: separable masks up to r = 32 on the tensor cores.
//
// Each warp walks down a segment of a 16-pixel-wide column strip, 16 input rows a step. Both
// passes are Toeplitz products on mma.sync m16n8k16 (fp16 operands, fp32 sums), arranged so that
// the first one's result is already the second one's operand, in the same registers:
//   row pass, per channel and per 8 input rows:  H^T[16 x 8] = R[16 x 16] * In^T[16 x 8], two K
//     chunks (the 16 outputs' window of 16 + 2r <= 32 input pixels). R[m][k] is the row factor's
//     weight from input pixel k to output pixel m. In^T's fragments are a lane's 4 adjacent
//     pixels (16 bytes) of one row, all four channels; K is contracted, so the order of the pixels
//     within a chunk is free, and R's columns follow the order the loads give (pixelOfSlot).
//     The input arrives through a ring of steps in the warp's shared memory (cp.async, one step
//     ahead, two at r > 8 on a large frame: ringOf), which holds no registers while it is in
//     flight, and from whose stages the input alpha of the stored rows is taken; the weight
//     fragments are made once per block in shared memory (at r = 5..8 made once per mask on the
//     host and copied in) and read where they are used. Both keep the registers down, so that
//     more warps share an SM (r <= 8: 116 -> 80 registers, 4K r=8 15% faster; r=32: 255 -> 174).
//   column pass: the row pass's C fragments of 16 rows (two n-blocks) are exactly B fragments
//     of the next product (K = 16 rows, N = 8 pixels: slots 0..7, then 8..15), split into fp16
//     high + low parts where the error plan needs it (the intermediate kept to about 2^-22
//     relative, as in tensorsep): Out[16 x 8] += C_j[16 x 16] * H[16 x 8], C_j the column
//     factor's Toeplitz slice (an A fragment) for the 16-row output block j that starts
//     8 (2 j - B0) rows below the chunk's first row, B0 = ceil(r / 8). A chunk touches blocks
//     j = 0..B0; after it block 0 is complete and is stored, the others carry on. The output
//     pixels follow the row factor's M order, chosen (pixelOfSlot again) so that a lane's C
//     elements are 4 adjacent pixels of one row: one 16-byte store, and the alpha it keeps one
//     16-byte shared load (before, lanes held 2 pixels of 2 rows: 4-byte stores; this made 4K
//     r=16 9% and r=32 5% faster).
// The bytes enter as fp16 subnormals, v 2^-24 (their bits are the byte: one PRMT a channel from
// pixel pairs regrouped once a step, where a biased 1024 + v took four instructions), with the row
// factor scaled by 2^S and the column factor by 2^(24 - S) on the host (convlive/tensor_inputs.hpp).
// Otherwise the numerics are tensorsep's (fp16 factors, fp32 sums, fp16 high + low intermediate):
// the same error plan (convlive/precision.hpp planHalfSeparable, which bounds the scaled
// intermediate's rounding below fp16's normal range) decides which masks it takes.
#pragma once

#include <cuda_fp16.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#pragma nv_diag_suppress 177  // the sm_75 pass compiles no tensor-core code, so its helpers go unused

#include "async.cuh"
#include "common.cuh"
#include "convlive/resources.hpp"
#include "convlive/tensor_inputs.hpp"
#include "dependent_launch.cuh"
#include "mma.cuh"
#include "schedules.hpp"

namespace convlive::kernels {
namespace {

// How many pixels left of its strip a warp's window starts. r rounded up to 4 keeps every load 16-byte
// aligned; at B0 >= 2, r rounded up to 8 (8 B0, which any r <= 8 B0 allows: the KC chunks then reach
// 16 + 8 B0 right of the strip's start) keeps a row's 16-byte loads within 32-byte sectors (1080p
// back to back r = 9..12 and 25..28 0.81-0.84, 4K r=25..28 0.96). Computed, not a
// constant of the instance: as one, ptxas gave r <= 32 three registers more and it ran 5% slower.
__host__ __device__ constexpr int apronOf(int b0, int radius) {
  return (radius + (b0 >= 2 ? 7 : 3)) & (b0 >= 2 ? ~7 : ~3);
}

// Where pixel slot k (0..15) of a K chunk lies in the chunk: lane t's 16-byte load holds pixels
// 4t..4t+3, which the B fragment calls k = 2t, 2t+1 (first register) and 2t+8, 2t+9 (second).
// The same order on the output side: the column pass's C elements n = 2t, 2t+1 of the two 8-slot
// halves are pixels 4t..4t+3.
__host__ __device__ constexpr int pixelOfSlot(int k) { return 4 * ((k & 7) >> 1) + 2 * (k >> 3) + (k & 1); }

// What a warp keeps in shared memory: the weight fragments (shared by the block) and a ring of
// input steps of 16 rows x 16 KC pixels, raw RGBA8 as the frame has them: the step being read,
// the next `ahead` ones arriving by cp.async (1 to kMaxAhead, chosen per launch: ringOf), and at
// r <= 8 with alpha kept the earlier one whose rows are being stored (kHistory: their input alpha
// is read back from there). B0 = ceil(r / 8).
constexpr int kMaxAhead = 2;
// Every launch is a programmatic dependent of the kernel before it (dependent_launch.cuh), and lets
// the next one start: at r > 8 once each block has started (back to back on the H100, 1080p r=16
// 0.888, r=32 0.970, 4K r=16 0.985, r=32 0.973); at r <= 8 once each warp is at its last step
// (1080p 0.975-0.988, 4K 0.980-0.982): its 1080p grid is one round of short blocks, whose places
// the next grid's took unevenly when it could start at once (1.02-1.04 slower).
template <int B0>
inline constexpr bool kTriggerAtLastStep = B0 == 1;
template <int B0>
struct Shape {
  static constexpr int KC = B0 + 1, NO = B0 + 1, NB = 2 * NO;  // K chunks, 16-row output blocks, products
  static constexpr int RowBytes = 64 * KC, StageBytes = 16 * RowBytes;
  __host__ __device__ static constexpr int stages(int ahead, int history) { return history + 1 + ahead; }
  static constexpr int WeightBytes = (KC + NO) * 32 * 16;
  // An LDS.128 phase reads rows g and g + 1 (64 bytes each): rows 128 bytes apart (KC even) would
  // put both on the same banks, so odd rows swap their 64-byte halves. The stores' alpha reads
  // (LDS.U8) take rows 2t + h, t = 0..3, at once, 256 bytes apart: on the same banks, a 4-way
  // conflict that was 16% of the L1 pipe's wavefronts at r=4; so row pairs also move their 32-byte
  // quarters by (row / 2) % 4 (both rows of an LDS.128 phase alike: 4K r <= 8 6-9% faster).
  static constexpr bool Swizzle = KC % 2 == 0;
  __host__ __device__ static constexpr int offset(int row, int byte) {
    return row * RowBytes + (Swizzle ? byte ^ ((row & 1) << 6) ^ (((row >> 1) & 3) << 5) : byte);
  }
};
// The factors' staged copy (the weight fragments are made from it): entry i is factor entry
// i - kFactorPad, zero outside 0..2r. The fragments read entries kFactorPad - 22 to kFactorPad +
// 16 B0 + 15: the row factor's 16 c + x(k) - apron - x(m) + r with r <= apron <= r + 7, c <= B0 and
// x(k), x(m) in 0..15; the column factor's k - m - 8 (2 j - B0) + r with 8 (B0 - 1) < r <= 8 B0.
constexpr int kFactorPad = 24, kFactorSpan = 128;
// Where the fragments are made from the staged copy rather than from the kernel's parameters: at
// B0 = 2 and 3 (r = 9..24), where the parameters' lane-indexed loads have up to 26 distinct in-range
// indices each (H100, back to back: 1080p r=12 and 16 0.94-0.95, r=20 and 24 0.99, 4K 0.97-1.0).
// Not at r <= 8, where r <= 4 has few distinct indices and the copy's fixed cost (a pass of loads,
// then a shared store and load a entry) made it 2-4% slower, and a choice by r at run time 9-11%;
// nor at r > 24, where the kernel so changed was 2-5% slower in its main loop (178 registers
// instead of 176).
template <int B0>
inline constexpr bool kStagedFactors = B0 == 2 || B0 == 3;
static_assert(kFactorPad >= 22 && kFactorPad + 16 * 4 + 15 < kFactorSpan, "the fragments' reads stay within the copy");
static_assert(2 * kFactorSpan * sizeof(float) <= Shape<1>::StageBytes, "both factors fit a stage of the smallest ring");
// The earlier steps a ring keeps for the rows being stored: only where their input alpha is read
// back from there at the store (B0 = 1, alpha kept). At B0 >= 2 each step reads the alpha of the
// rows it will store later from its own stage and carries it in registers; a filtered alpha needs none.
template <int B0, int NCH>
inline constexpr int kHistory = NCH == 3 && B0 == 1 ? 1 : 0;
// `terms`: a mask of low rank keeps each term's weight fragments, one after the other.
template <int B0>
constexpr std::size_t sharedBytes(int warps, int ahead, int history, int terms = 1) {
  return std::size_t(terms) * Shape<B0>::WeightBytes +
         std::size_t(warps) * Shape<B0>::stages(ahead, history) * Shape<B0>::StageBytes;
}

// The factors a launch takes: one separable pair (MaskSep), or a mask of low rank's terms (MaskTerms).
template <bool Terms>
using FactorsOf = std::conditional_t<Terms, MaskTerms, MaskSep>;
__host__ __device__ __forceinline__ constexpr int termsOf(const MaskSep&) { return 1; }
__host__ __device__ __forceinline__ int termsOf(const MaskTerms& m) { return m.terms; }
__device__ __forceinline__ float rowWeight(const MaskSep& m, int, int j) { return m.row[j]; }
__device__ __forceinline__ float colWeight(const MaskSep& m, int, int j) { return m.col[j]; }
__device__ __forceinline__ float rowWeight(const MaskTerms& m, int term, int j) { return m.row[term][j]; }
__device__ __forceinline__ float colWeight(const MaskTerms& m, int term, int j) { return m.col[term][j]; }

// Off the hot path (out of line, scalars by value): a lane's KC chunks of 4 pixels of one staged
// row when some chunk leaves the frame or the rows are not 16-byte aligned. A chunk inside the
// frame of an aligned row is still one 16-byte copy (at r=32 three of an edge lane's five), the
// others pixel by pixel through the border mode. The edge strips' warps are the kernel's long
// pole: copying every pixel made them 1.5x (r=1) to 3.5x (r=32) slower than the others; with
// the whole chunks, 1.5x to 2.4x (4K r=32 17% faster). Fixing clamp and mirror pixels from the
// staged row afterwards (a shared load and store a pixel) was 13% slower at r=32.
template <int B0>
__device__ __noinline__ void stageBorderedChunks(const uchar4* row, int width, Border border, bool aligned,
                                                 unsigned char* dst, int rowInStage, int x, int t) {
#pragma unroll
  for (int c = 0; c < Shape<B0>::KC; ++c) {
    const int xc = x + 16 * c;
    unsigned char* d = dst + Shape<B0>::offset(rowInStage, 64 * c + 16 * t);
    if (aligned && xc >= 0 && xc + 4 <= width) {
      copyAsync<16, true>(d, row + xc);
      continue;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int sx = borderIndex(xc + j, width, border);
      if (sx < 0)
        *reinterpret_cast<unsigned*>(d + 4 * j) = 0u;
      else
        copyAsync<4>(d + 4 * j, row + sx);
    }
  }
}

// How a channel sum becomes its byte: saturated, |sum| saturated, or (kFree) as it is, for masks
// whose sums cannot leave [-0.5, 255.5) (non-negative factors: the host checks the bound).
enum Output : int { kClamp, kAbs, kFree };
// Rounds a channel sum to its byte, in the low byte of the result.
template <int Out>
__device__ __forceinline__ unsigned roundedByte(float v) {
  if constexpr (Out == kAbs) v = fminf(fabsf(v), 255.f);
  if constexpr (Out == kClamp) v = fminf(fmaxf(v, 0.f), 255.f);
  return __float_as_uint(v + 12582912.f);
}
// Element e of a block's half h, one C fragment per channel, as an RGBA8 pixel; unless alpha was
// filtered, its alpha is the input's: byte `alphaByte` (0..3) of `alpha`.
template <int NCH, int Out>
__device__ __forceinline__ unsigned packPixel(const float (&block)[NCH][2][4], int h, int e, unsigned alpha,
                                              int alphaByte) {
  const unsigned c0 = roundedByte<Out>(block[0][h][e]), c1 = roundedByte<Out>(block[1][h][e]);
  const unsigned c2 = roundedByte<Out>(block[2][h][e]);
  if constexpr (NCH == 4)
    return __byte_perm(__byte_perm(c0, c1, 0x0040), __byte_perm(c2, roundedByte<Out>(block[3][h][e]), 0x0040), 0x5410);
  return __byte_perm(__byte_perm(c0, c1, 0x0040), __byte_perm(c2, alpha, 0x0040 | (4 + alphaByte) << 4), 0x5410);
}
// A centre-only term: c times each colour byte of `pixel` (its input at the output's place) added
// to element e of the block's half h, one rounding a channel.
template <int NCH>
__device__ __forceinline__ void addCentre(float (&block)[NCH][2][4], int h, int e, unsigned pixel, float c) {
#pragma unroll
  for (int ch = 0; ch < 3; ++ch) block[ch][h][e] = fmaf(c, float((pixel >> (8 * ch)) & 0xffu), block[ch][h][e]);
}
// f(ch, h, e) for every element of an output block: NCH channels, two halves of 4 elements.
template <int NCH, class F>
__device__ __forceinline__ void forEachElement(F&& f) {
#pragma unroll
  for (int ch = 0; ch < NCH; ++ch)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int e = 0; e < 4; ++e) f(ch, h, e);
}
// The alpha bytes of 4 RGBA8 pixels, pixel e's in byte e.
__device__ __forceinline__ unsigned alphaWord(uint4 v) {
  return __byte_perm(__byte_perm(v.x, v.y, 0x0073), __byte_perm(v.z, v.w, 0x0073), 0x5410);
}

// The row pass's C fragments (rows 0..7 of the 16, then 8..15) as the column pass's B fragments
// (half h: hi[h], hi[2 + h]): fp16, and where the error plan needs it (SplitH), a low fp16 part too.
template <bool SplitH>
__device__ __forceinline__ void columnOperands(const float (&hs)[2][4], unsigned (&hi)[4], unsigned (&lo)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float a = hs[i >> 1][2 * (i & 1)], b = hs[i >> 1][2 * (i & 1) + 1];
    hi[i] = halfPair(a, b);
    if constexpr (SplitH) {
      const float2 back = __half22float2(*reinterpret_cast<const __half2*>(&hi[i]));
      lo[i] = halfPair(a - back.x, b - back.y);
    }
  }
}
// The column pass of one channel (or plane) ch and term tm: the NO column factor slices C_j
// (`colFrag`: term tm's, at the lane's entry) times the operands hi (and lo where SplitH) into block
// (j + p) % NO of acc, or of accY for a magnitude's second term (Mag). A separable mask's last block
// starts here (mma16816Zero); a mask of low rank's were zeroed at the step's start (Terms).
template <bool SplitH, bool Terms, bool Mag, int NO, int NCH, int NY>
__device__ __forceinline__ void columnProducts(float (&acc)[NO][NCH][2][4], float (&accY)[NY][NCH][2][4],
                                               const uint4* colFrag, int p, int ch, int tm, const unsigned (&hi)[4],
                                               const unsigned (&lo)[4]) {
#pragma unroll
  for (int j = 0; j < NO; ++j) {
    const uint4 f = colFrag[j * 32];
    const unsigned ca[4] = {f.x, f.y, f.z, f.w};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if constexpr (Mag) {
        if (tm == 1) {
          mma16816(accY[(j + p) % NO][ch][h], ca, hi[h], hi[2 + h]);
          if constexpr (SplitH) mma16816(accY[(j + p) % NO][ch][h], ca, lo[h], lo[2 + h]);
          continue;
        }
      }
      if (Terms || j < NO - 1)
        mma16816(acc[(j + p) % NO][ch][h], ca, hi[h], hi[2 + h]);
      else
        mma16816Zero(acc[(j + p) % NO][ch][h], ca, hi[h], hi[2 + h]);  // the last block starts here
      if constexpr (SplitH) mma16816(acc[(j + p) % NO][ch][h], ca, lo[h], lo[2 + h]);
    }
  }
}

// Warp 0's weight fragments for `terms` terms of m (rowFrag: KC row fragments, then NO column
// fragments, then the next term's, 32 lanes each). Staged: the factors are first copied into
// `scratch` (the warp's first ring stage, free until its loads are issued) with kFactorPad zeros
// before them and zeros to kFactorSpan after, so that every entry a fragment reads is one shared
// load with no range check. Read from the kernel's parameters instead, an index that differs by lane
// costs one pass of the SM's constant cache per distinct in-range index, and each of a lane's 8
// entries a fragment had up to 26: the copy takes 2r + 1 for all of them (kStagedFactors).
template <int B0, bool Staged, class Factors>
__device__ __forceinline__ void makeWeightFragments(const Factors& m, int terms, int r, int apron, float* scratch,
                                                    uint4* rowFrag, int lane) {
  constexpr int KC = Shape<B0>::KC, NO = Shape<B0>::NO, kTermStride = (KC + NO) * 32;
  const int g = lane >> 2, t = lane & 3;
  uint4* colFrag = rowFrag + KC * 32;
  float* rowF = scratch;
  float* colF = rowF + kFactorSpan;
#pragma unroll 1
  for (int tm = 0; tm < terms; ++tm) {
    if constexpr (Staged) {
#pragma unroll
      for (int i = lane; i < kFactorSpan; i += 32) {
        const int j = i - kFactorPad;
        const bool in = j >= 0 && j <= 2 * r;
        rowF[i] = in ? rowWeight(m, tm, j) : 0.f;
        colF[i] = in ? colWeight(m, tm, j) : 0.f;
      }
      __syncwarp();
    }
    // The row factor's Toeplitz fragments for the K chunks: R[m][k] = row[x(k) - x(m) + r], x(k)
    // the pixel of input slot k relative to the strip's first output pixel, x(m) output slot m's.
#pragma unroll
    for (int c = 0; c < KC; ++c) {
      auto w = [&](int mm, int k) {
        const int j = 16 * c + pixelOfSlot(k) - apron - pixelOfSlot(mm) + r;
        return Staged ? rowF[kFactorPad + j] : j >= 0 && j <= 2 * r ? rowWeight(m, tm, j) : 0.f;
      };
      rowFrag[tm * kTermStride + c * 32 + lane] =
          make_uint4(halfPair(w(g, 2 * t), w(g, 2 * t + 1)), halfPair(w(g + 8, 2 * t), w(g + 8, 2 * t + 1)),
                     halfPair(w(g, 2 * t + 8), w(g, 2 * t + 9)), halfPair(w(g + 8, 2 * t + 8), w(g + 8, 2 * t + 9)));
    }
    // The column factor's slices for the NO output blocks a chunk touches: block j starts
    // 8 (2 j - B0) rows below the chunk's first; C_j[mm][k] = col[k - mm - 8 (2 j - B0) + r].
#pragma unroll
    for (int j = 0; j < NO; ++j) {
      auto w = [&](int mm, int k) {
        const int i = k - mm - 8 * (2 * j - B0) + r;
        return Staged ? colF[kFactorPad + i] : i >= 0 && i <= 2 * r ? colWeight(m, tm, i) : 0.f;
      };
      colFrag[tm * kTermStride + j * 32 + lane] =
          make_uint4(halfPair(w(g, 2 * t), w(g, 2 * t + 1)), halfPair(w(g + 8, 2 * t), w(g + 8, 2 * t + 1)),
                     halfPair(w(g, 2 * t + 8), w(g, 2 * t + 9)), halfPair(w(g + 8, 2 * t + 8), w(g + 8, 2 * t + 9)));
    }
    if constexpr (Staged)
      __syncwarp();  // every lane's reads of the staged factors done before the next term's or the loads below
  }
}

// B0 = ceil(r / 8): r <= 8 takes two K chunks and four live output blocks, r <= 16 three and
// six, r <= 24 four and eight, r <= 32 five and ten (ptxas -v, sm_90, alpha kept: about 80, 107,
// 156 and 176 registers). Every blur at r <= 8 (alpha kept, one fp16 intermediate) is held to 80 registers,
// 3 blocks of 256 threads an SM, which its unrolled loop would otherwise pass; the others keep
// ptxas's own choice (a minimum of 0 is none: 1 would let it take more, a block less an SM at
// r = 9..24: r = 9..16 took 130 registers instead of 107, and ran 1.2x slower).
//
// Fetched (B0 = 1 only: tensorStreamFetchedKernel): the weight fragments are not made by warp 0
// from the factors but copied in from `fragments`, made once per mask on the host
// (tensorStreamFragments), so that no block waits on warp 0's parameter loads (r = 5..8).
//
// Terms (tensorStreamTermsKernel): a mask of low rank, k separable terms. Warp 0 makes every term's
// fragments (from the staged factors); per channel and step, each term's row product feeds its own
// column product, and the column products of all terms add into the same output blocks. The input
// is read and regrouped once for all of them.
//
// OneTerm (with Terms): exactly one term (a mask of low rank whose centre-only term the host
// folded into `centre`: sharpen), known at compile time, so that the term's products are
// straight-line code as in the separable kernel and the channels' products interleave.
//
// Mag (with Terms): a gradient magnitude (sobel, scharr): exactly two terms, gx = col (x) row and
// gy = row (x) col, each summed in accumulators of its own (accY for gy) and stored as
// sqrt(gx^2 + gy^2) a channel. The input is read and regrouped once for both.
template <int B0, int NCH, int Out, bool SplitH, bool Fetched, bool Terms = false, bool OneTerm = false,
          bool Mag = false>
__device__ __forceinline__ void tensorStreamBody(const Launch& l, const FactorsOf<Terms>& m, const StripSchedule& sched,
                                                 int ahead, const uint4* fragments) {
  static_assert(!Fetched || B0 == 1, "fragments are fetched at B0 = 1 only");
  static_assert(!(Fetched && Terms), "a mask of low rank makes its fragments in the kernel");
  static_assert(!Mag || (Terms && !OneTerm), "a gradient magnitude runs as its two terms");
#if __CUDA_ARCH__ >= 800
  using S = Shape<B0>;
  constexpr int KC = S::KC, NO = S::NO;
  constexpr bool kRotate = B0 == 1;
  // At B0 >= 2 a step reads the input alpha of the rows it will store from its own stage and carries
  // it in registers until then, so that the ring keeps no stages for it (kHistory; the smaller ring
  // leaves the L1 cache more of the aprons: 4K r=28..32 3-5% faster). B0 = 1 reads it back at the store.
  constexpr bool kCarryAlpha = B0 >= 2;
  constexpr int History = kHistory<B0, NCH>;
  extern __shared__ __align__(16) unsigned char tensorStreamSmem[];
  uint4* rowFrag = reinterpret_cast<uint4*>(tensorStreamSmem);  // [KC][32 lanes], term t's kTermStride t on
  uint4* colFrag = rowFrag + KC * 32;                           // [NO][32 lanes], likewise
  constexpr int kTermStride = (KC + NO) * 32;
  const int terms = OneTerm ? 1 : Mag ? 2 : termsOf(m);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int warps = blockDim.x >> 5;
  const int r = m.radius, apron = apronOf(B0, r);
  // The next kernel on the stream, if a dependent launch, may start its blocks once this grid's
  // have all started (at r <= 8: reached their last step). An edge entry's rows past its column's
  // last segment (schedules.hpp) return before making the weights: the whole block or none of it,
  // so before the barrier.
  if constexpr (!kTriggerAtLastStep<B0>) allowDependentLaunch();
  const BlockPlace place = placeOf(sched, blockIdx.x, blockIdx.y);
  if (place.y0 >= l.height) return;
  const int x0 = (place.column * warps + warp) * 16;
  const bool active = x0 < l.width;  // a warp past the frame's right edge only helps with the barrier
  const int y0 = place.y0;
  const int rows = min(place.rows, l.height - y0);
  const int steps = (rows + 15) / 16;
  const int stages = S::stages(ahead, History);
  unsigned char* ring = tensorStreamSmem + terms * S::WeightBytes + warp * stages * S::StageBytes;

  // Step q's input: rows s = y0 - 8 B0 + 16 q .. s + 15 (lane (g, t): rows g and g + 8), pixels
  // x0 - apron + 16 c + 4 t .. + 3, copied into stage q % stages by cp.async.
  const int xl = x0 - apron + 4 * t;
  const bool aligned = (reinterpret_cast<std::size_t>(frameIn(l, blockIdx.z)) | l.inPitch) % 16 == 0;
  const bool fast = aligned && xl >= 0 && xl + 16 * (KC - 1) + 4 <= l.width;
  auto issue = [&](int q, int stage) {
    unsigned char* st = ring + stage * S::StageBytes;
#pragma unroll
    for (int nb = 0; nb < 2; ++nb) {
      const int row = 8 * nb + g, sy = borderIndex(y0 - 8 * B0 + 16 * q + row, l.height, l.border);
      if (sy < 0) {
#pragma unroll
        for (int c = 0; c < KC; ++c)
          *reinterpret_cast<uint4*>(st + S::offset(row, 64 * c + 16 * t)) = make_uint4(0, 0, 0, 0);
      } else if (fast) {
        const uchar4* src = rowPtr(frameIn(l, blockIdx.z), l.inPitch, sy) + xl;
#pragma unroll
        for (int c = 0; c < KC; ++c) copyAsync<16, true>(st + S::offset(row, 64 * c + 16 * t), src + 16 * c);
      } else {
        stageBorderedChunks<B0>(rowPtr(frameIn(l, blockIdx.z), l.inPitch, sy), l.width, l.border, aligned, st, row, xl,
                                t);
      }
    }
  };
  // Step q reads rows s = y0 - 8 B0 + 16 q .. s + 15 and, from q = B0 on, stores rows
  // s - 8 B0 .. s - 8 B0 + 15 (block 0), so the first B0 steps only fill the window.
  const int lastStep = steps + B0 - 1;
  if constexpr (Fetched) {
    // Every thread copies its share of the fragments, a group of its own ahead of the steps' (the
    // barrier below waits for it alone). Written before the previous kernel on the stream started
    // (a stream-ordered copy when the mask changed), so read before waiting for that kernel.
    constexpr int kFragments = (KC + NO) * 32;  // rowFrag, then colFrag
    for (int i = threadIdx.x; i < kFragments; i += blockDim.x) copyAsync<16, true>(rowFrag + i, fragments + i);
    commitAsync();
  }
  // Launched as a dependent of the previous kernel on the stream (dependent_launch.cuh): the
  // weights are made while that kernel may still run, and the loads wait for it to finish.
  // A mask of low rank stages its terms' factors one after the other, at any B0.
  if (!Fetched && warp == 0)
    makeWeightFragments<B0, kStagedFactors<B0> || Terms>(m, terms, r, apron, reinterpret_cast<float*>(ring), rowFrag,
                                                         lane);
  waitForPrerequisites();
  // The first `ahead` steps: a group each (empty past the last step), as every later step commits one.
  if (active)
    for (int a = 0; a < ahead; ++a) {
      if (a <= lastStep) issue(a, a);
      commitAsync();
    }
  if constexpr (Fetched) {
    // The fragments' group done: the steps' `ahead` groups after it may still be in flight.
    if (!active)
      waitAsync<0>();
    else if (ahead == 2)
      waitAsync<2>();
    else
      waitAsync<1>();
  }
  __syncthreads();
  if (!active) return;

  // acc[j][ch][h]: output block j (16 rows from 8 (2 j - B0) below the current chunk's first row),
  // channel ch, pixel slots 8 h .. 8 h + 7.
  float acc[NO][NCH][2][4];
  // Mag: gy's blocks, likewise (one unused block otherwise, which the compiler drops).
  float accY[Mag ? NO : 1][NCH][2][4];
#pragma unroll
  for (int j = 0; j < NO - 1; ++j)
#pragma unroll
    for (int ch = 0; ch < NCH; ++ch)
#pragma unroll
      for (int h = 0; h < 2; ++h) acc[j][ch][h][0] = acc[j][ch][h][1] = acc[j][ch][h][2] = acc[j][ch][h][3] = 0.f;
  // Where kCarryAlpha: the input alpha of rows 8 nb + g of steps q - 1 - i, i < (B0 + 1) / 2, pixel
  // e in byte e (alphaWord), for the step that stores them.
  constexpr int AS = kCarryAlpha ? (B0 + 1) / 2 : 1;
  unsigned alphaPast[AS][2];
  // One term with a folded centre at B0 >= 2 (sharpen past r = 8): the rows' 4 input pixels carried
  // whole instead of their alpha, for the centre's colour bytes at the store.
  constexpr bool kCarryPixels = kCarryAlpha && OneTerm && NCH == 3;
  uint4 pixelsPast[kCarryPixels ? AS : 1][2];

  const bool fullWidth = x0 + 16 <= l.width;
  const bool outAligned = (reinterpret_cast<std::size_t>(frameOut(l, blockIdx.z)) | l.outPitch) % 16 == 0;

  int stage = 0;     // q % stages
  int next = ahead;  // (q + ahead) % stages (stages > ahead)
  // Where kRotate (r <= 8), the loop is unrolled NO times, and in step q = q0 + p logical block j
  // is acc[(j + p) % NO]: the blocks move on by renaming, not copying (3-4% faster at 4K).
  // Elsewhere p = 0 and the blocks are copied down after each step: unrolled five times,
  // r = 25..32 was 2% slower at 4K and 9% at 1080p.
  constexpr int R = kRotate ? NO : 1;
#pragma unroll 1
  for (int q0 = 0; q0 <= lastStep; q0 += R) {
#pragma unroll
    for (int p = 0; p < R; ++p) {
      const int q = q0 + p;
      if (q > lastStep) break;
      if constexpr (kTriggerAtLastStep<B0>)
        if (q == lastStep) allowDependentLaunch();
      const int s = y0 - 8 * B0 + 16 * q;  // the chunk's first input row
      const int out0 = s - 8 * B0;         // the first row this step stores
      // Step q's group is done when at most ahead - 1 later ones are in flight.
      if (ahead == 2)
        waitAsync<1>();
      else
        waitAsync<0>();
      __syncwarp();  // every lane's copies of step q are visible, and step q - 1 is read everywhere
      // Step q + ahead takes the stage of step q - History - 1, which nothing reads again.
      if (q + ahead <= lastStep) issue(q + ahead, next);
      commitAsync();
      next = next + 1 == stages ? 0 : next + 1;
      const unsigned char* st = ring + stage * S::StageBytes;
      // The lane's two pixel pairs of each row and chunk, regrouped once for every channel: rb[.][.][j]
      // holds pair j's bytes R0 B0 R1 B1, ga[.][.][j] G0 A0 G1 A1 (pixels 4t + 2j and 4t + 2j + 1).
      // At r = 17..24 the raw words stay instead and each register takes two PRMT: regrouped, that
      // instance was 3% slower than before the subnormal inputs, kept raw level.
      constexpr bool kRegroup = B0 != 3;
      uint4 in[2][KC];
      unsigned rb[2][KC][2], ga[2][KC][2];
#pragma unroll
      for (int nb = 0; nb < 2; ++nb)
#pragma unroll
        for (int c = 0; c < KC; ++c) {
          in[nb][c] = *reinterpret_cast<const uint4*>(st + S::offset(8 * nb + g, 64 * c + 16 * t));
          if constexpr (kRegroup) {
            const uint4 v = in[nb][c];
            rb[nb][c][0] = __byte_perm(v.x, v.y, 0x6420), ga[nb][c][0] = __byte_perm(v.x, v.y, 0x7531);
            rb[nb][c][1] = __byte_perm(v.z, v.w, 0x6420), ga[nb][c][1] = __byte_perm(v.z, v.w, 0x7531);
          }
        }
      // The alpha of this step's rows 8 nb + g at the strip's pixels 4 t .. 4 t + 3, for the step
      // that stores them.
      unsigned alphaNow[2] = {0u, 0u};
      uint4 pixelsNow[2];
      if constexpr (kCarryPixels) {
#pragma unroll
        for (int nb = 0; nb < 2; ++nb)
          pixelsNow[nb] = *reinterpret_cast<const uint4*>(st + S::offset(8 * nb + g, 4 * apron + 16 * t));
      } else if constexpr (kCarryAlpha && NCH == 3) {
#pragma unroll
        for (int nb = 0; nb < 2; ++nb)
          alphaNow[nb] = alphaWord(*reinterpret_cast<const uint4*>(st + S::offset(8 * nb + g, 4 * apron + 16 * t)));
      }

      // A mask of low rank adds every term's column products into the block that starts here.
      if constexpr (Terms)
        forEachElement<NCH>([&](int ch, int h, int e) {
          acc[(NO - 1 + p) % NO][ch][h][e] = 0.f;
          if constexpr (Mag) accY[(NO - 1 + p) % NO][ch][h][e] = 0.f;
        });
      // Mag: both terms unrolled, so that each one's column products go to its own blocks.
      constexpr int kTermUnroll = Mag ? 2 : 1;
#pragma unroll
      for (int ch = 0; ch < NCH; ++ch) {
#pragma unroll kTermUnroll
        for (int tm = 0; tm < terms; ++tm) {
          // Row pass: H^T for rows s..s+7 (nb 0) and s+8..s+15 (nb 1) of this channel.
          float hs[2][4];
#pragma unroll
          for (int nb = 0; nb < 2; ++nb) {
#pragma unroll
            for (int c = 0; c < KC; ++c) {
              const uint4 f = rowFrag[tm * kTermStride + c * 32 + lane];
              const unsigned ra[4] = {f.x, f.y, f.z, f.w};
              // Channel ch of each pair as fp16 subnormals v 2^-24: its two bytes with zeros above them.
              unsigned b0, b1;
              if constexpr (kRegroup) {
                const unsigned sel = ch & 2 ? 0x4341 : 0x4240;
                b0 = __byte_perm(ch & 1 ? ga[nb][c][0] : rb[nb][c][0], 0u, sel);
                b1 = __byte_perm(ch & 1 ? ga[nb][c][1] : rb[nb][c][1], 0u, sel);
              } else {
                const unsigned sel = static_cast<unsigned>(ch | (4 + ch) << 8);  // bytes v0 . v1 .
                b0 = __byte_perm(__byte_perm(in[nb][c].x, in[nb][c].y, sel), 0u, 0x4240);
                b1 = __byte_perm(__byte_perm(in[nb][c].z, in[nb][c].w, sel), 0u, 0x4240);
              }
              if (c == 0)
                mma16816Zero(hs[nb], ra, b0, b1);
              else
                mma16816(hs[nb], ra, b0, b1);
            }
          }
          unsigned hi[4], lo[4];
          columnOperands<SplitH>(hs, hi, lo);
          columnProducts<SplitH, Terms, Mag>(acc, accY, colFrag + tm * kTermStride + lane, p, ch, tm, hi, lo);
        }
      }

      if (q >= B0) {
        // Block 0 is rows out0 .. out0 + 15: lane (g, t) stores pixels x0 + 4 t .. + 3 of rows
        // out0 + g (C elements 0, 1 of both halves) and out0 + 8 + g (elements 2, 3). Unless alpha
        // was filtered, it is the input's: read back as those 4 pixels from the stage that holds the
        // row (B0 = 1), or carried since that step (B0 >= 2).
        const bool full = fullWidth && outAligned && out0 + 16 <= y0 + rows;
        // Mag: block 0 becomes sqrt(gx^2 + gy^2) a channel (the blocks move on past it).
        if constexpr (Mag)
          forEachElement<NCH>([&](int ch, int h, int e) {
            const float gx = acc[p][ch][h][e], gy = accY[p][ch][h][e];
            acc[p][ch][h][e] = sqrtf(fmaf(gx, gx, gy * gy));
          });
#pragma unroll
        for (int i = 0; i < 2; ++i) {
          const int k = i - B0;                              // the 8 rows' place, in 8 rows, from s
          const int back = k >= 0 ? k / 2 : -((1 - k) / 2);  // their stage, relative to step q's
          const int y = out0 + 8 * i + g;
          uint4 src = make_uint4(0, 0, 0, 0);
          if constexpr (kCarryPixels) {
            src = pixelsPast[-back - 1][k & 1];  // back <= -1 at B0 >= 2
          } else if constexpr (NCH == 3 && kCarryAlpha) {
            const unsigned a = alphaPast[-back - 1][k & 1];  // back <= -1 at B0 >= 2
            src = make_uint4(a, a, a, a);
          } else if constexpr (NCH == 3) {
            const int as = stage + back;  // back <= 0, at most History steps
            const unsigned char* ast = ring + (as < 0 ? as + stages : as) * S::StageBytes;
            src = *reinterpret_cast<const uint4*>(ast + S::offset(8 * (k & 1) + g, 4 * apron + 16 * t));
          }
          // The terms' sums times 1 / n where the host wrote their factors n times over (emboss).
          if constexpr (Terms)
            if (m.outScale != 1.f)
#pragma unroll
              for (int ch = 0; ch < NCH; ++ch)
#pragma unroll
                for (int e = 0; e < 2; ++e)
                  acc[p][ch][0][2 * i + e] *= m.outScale, acc[p][ch][1][2 * i + e] *= m.outScale;
          // A mask of low rank's centre-only term, where the host folded it (alpha kept; B0 = 1, or one
          // term left: the 4 input pixels just read, or carried, are the outputs' own).
          if constexpr (Terms && NCH == 3 && (!kCarryAlpha || kCarryPixels))
            if (m.centre != 0.f) {
              addCentre(acc[p], 0, 2 * i, src.x, m.centre);
              addCentre(acc[p], 0, 2 * i + 1, src.y, m.centre);
              addCentre(acc[p], 1, 2 * i, src.z, m.centre);
              addCentre(acc[p], 1, 2 * i + 1, src.w, m.centre);
            }
          // Byte 3 of each pixel read back, or byte e of the carried word.
          constexpr bool carried = kCarryAlpha && !kCarryPixels;
          const uint4 px = make_uint4(packPixel<NCH, Out>(acc[p], 0, 2 * i, src.x, carried ? 0 : 3),
                                      packPixel<NCH, Out>(acc[p], 0, 2 * i + 1, src.y, carried ? 1 : 3),
                                      packPixel<NCH, Out>(acc[p], 1, 2 * i, src.z, carried ? 2 : 3),
                                      packPixel<NCH, Out>(acc[p], 1, 2 * i + 1, src.w, 3));
          unsigned* row = reinterpret_cast<unsigned*>(rowPtr(frameOut(l, blockIdx.z), l.outPitch, y)) + x0 + 4 * t;
          if (full) {
            *reinterpret_cast<uint4*>(row) = px;
          } else if (y < y0 + rows) {
            const int x = x0 + 4 * t;
            if (x < l.width) row[0] = px.x;
            if (x + 1 < l.width) row[1] = px.y;
            if (x + 2 < l.width) row[2] = px.z;
            if (x + 3 < l.width) row[3] = px.w;
          }
        }
      }
      if constexpr (kCarryPixels) {
#pragma unroll
        for (int j = AS - 1; j > 0; --j)
          pixelsPast[j][0] = pixelsPast[j - 1][0], pixelsPast[j][1] = pixelsPast[j - 1][1];
        pixelsPast[0][0] = pixelsNow[0], pixelsPast[0][1] = pixelsNow[1];
      } else if constexpr (kCarryAlpha && NCH == 3) {
#pragma unroll
        for (int j = AS - 1; j > 0; --j) alphaPast[j][0] = alphaPast[j - 1][0], alphaPast[j][1] = alphaPast[j - 1][1];
        alphaPast[0][0] = alphaNow[0], alphaPast[0][1] = alphaNow[1];
      }
      stage = stage + 1 == stages ? 0 : stage + 1;
    }
    if constexpr (!kRotate) {
#pragma unroll
      for (int j = 0; j < NO - 1; ++j)
        forEachElement<NCH>([&](int ch, int h, int e) {
          acc[j][ch][h][e] = acc[j + 1][ch][h][e];
          if constexpr (Mag) accY[j][ch][h][e] = accY[j + 1][ch][h][e];
        });
    }
  }
  waitAsync<0>();  // nothing in flight into shared memory when the warp exits
#endif
}

template <int B0, int NCH, int Out, bool SplitH>
__global__ void __launch_bounds__(256, B0 == 1 && NCH == 3 && !SplitH ? 3 : 0)
    tensorStreamKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m,
                       const __grid_constant__ StripSchedule sched, int ahead) {
  tensorStreamBody<B0, NCH, Out, SplitH, false>(l, m, sched, ahead, nullptr);
}
// B0 = 1 with the weight fragments read from memory: a kernel of its own, so that the other
// instances' parameters and code stay as they were (their PTX is unchanged). Neither pointer is
// __restrict__: on the body's parameter, even unused, that alone changed NVVM's code for B0 = 4 and
// B0 = 1 with alpha kept (178 registers instead of 176 at r > 24, a form measured 2-5% slower
// there).
template <int NCH, int Out, bool SplitH>
__global__ void __launch_bounds__(256, NCH == 3 && !SplitH ? 3 : 0)
    tensorStreamFetchedKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskSep m,
                              const __grid_constant__ StripSchedule sched, int ahead, const uint4* fragments) {
  tensorStreamBody<1, NCH, Out, SplitH, true>(l, m, sched, ahead, fragments);
}

// A mask of low rank: every term in the same pass (Terms).
template <int B0, int NCH, int Out, bool SplitH, bool OneTerm>
__global__ void __launch_bounds__(256, B0 == 1 && NCH == 3 && !SplitH ? 3 : 0)
    tensorStreamTermsKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskTerms m,
                            const __grid_constant__ StripSchedule sched, int ahead) {
  tensorStreamBody<B0, NCH, Out, SplitH, false, true, OneTerm>(l, m, sched, ahead, nullptr);
}
// A gradient magnitude: its two terms in the same pass, each in accumulators of its own (Mag).
// ptxas -v, sm_90: 158-179 registers at B0 = 1 and 206-252 at B0 = 2, no spills; B0 = 1 with
// alpha kept is held to 128 (2 blocks of 256 threads an SM), with none (alpha filtered spills).
template <int B0, int NCH, bool SplitH>
__global__ void __launch_bounds__(256, B0 == 1 && NCH == 3 ? 2 : 0)
    tensorStreamMagnitudeKernel(const __grid_constant__ Launch l, const __grid_constant__ MaskTerms m,
                                const __grid_constant__ StripSchedule sched, int ahead) {
  tensorStreamBody<B0, NCH, kClamp, SplitH, false, true, false, true>(l, m, sched, ahead, nullptr);
}

int tensorStreamThreads(const Launch& l) { return 32 * (l.tileW / 16); }  // a warp per 16-pixel strip

// How many times the edge columns' segments are halved for an edge divisor: while the half is at
// least one step tall, even where it is not a whole number of steps (64x272's 136 rows: its last
// step computes 8 rows it does not store). Requiring whole steps left 64x272's edge columns unsplit
// and that tile 14% slower than 64x288 at 4K r=32; split, it is 4% faster.
int edgeShift(int tileH, int div) {
  div = std::min(div, 8);  // shift <= 3, step <= 4: the entry's fields and kMaxEntries' margin
  int shift = 0;
  while ((2 << shift) <= div && (tileH >> (shift + 1)) >= 16) ++shift;
  return shift;
}

// The grid's shape before its entries: which block columns hold an edge strip, and how finely
// their segments are split (schedules.hpp).
struct StripLayout {
  int columns = 0, left = 0, right = 0, shift = 0, segments = 0;
  // The blocks of the grid within one round, its edge columns' segments halved `edgeShift` times.
  long blocks(int edgeShift) const { return long(segments) * (columns + (left + right) * ((1 << edgeShift) - 1)); }
  long blocks() const { return blocks(shift); }
};
template <int B0>
StripLayout layoutOf(const Launch& l, int radius, int div) {
  constexpr int KC = Shape<B0>::KC;
  const int apron = apronOf(B0, radius);
  StripLayout s;
  s.columns = static_cast<int>(ceilDiv(l.width, l.tileW));
  s.segments = static_cast<int>(ceilDiv(l.height, l.tileH));
  if (div > 0) {
    // A strip at x0 leaves the frame on the left when x0 < apron, on the right when
    // x0 + 16 KC - apron > width; a block column holds one when its first (last) strip does.
    const int lastStrip = (static_cast<int>(ceilDiv(l.width, 16)) - 1) * 16;
    s.left = std::min(s.columns, static_cast<int>(ceilDiv(apron, l.tileW)));
    while (s.left + s.right < s.columns) {
      const int bx = s.columns - 1 - s.right;
      if (std::min(bx * l.tileW + l.tileW - 16, lastStrip) + 16 * KC - apron <= l.width) break;
      ++s.right;
    }
    s.shift = edgeShift(l.tileH, div);
  }
  return s;
}

// How finely a launch splits its edge columns' segments, given the blocks the GPU holds at once.
// Past one round of blocks, halved (kTensorStreamEdgeDivisor): their blocks go first and the
// interior's overlap them. Within one round every block starts at once, and the edge columns'
// blocks, whose lanes go through the border mode, finish last: so an eighth, else a quarter, as
// long as the grid still fits the round. The interior then takes taller tiles with less apron
// (H100, 1080p back to back: r <= 8 0.91-0.94 of the halved split's time, r=13..16 0.92-0.94,
// r=24 0.84, r=32 0.85; 4K level).
// `halved`: the launch's layout at kTensorStreamEdgeDivisor (the edge columns do not depend on it).
int edgeDivisorOf(const StripLayout& halved, int tileH, int slots) {
  if (slots <= 0 || halved.blocks() > slots) return kTensorStreamEdgeDivisor;
  for (int div : {8, 4})
    if (halved.blocks(edgeShift(tileH, div)) <= slots) return div;
  return kTensorStreamEdgeDivisor;
}
template <int B0>
int edgeDivisorOf(const Launch& l, int radius, int slots) {
  return edgeDivisorOf(layoutOf<B0>(l, radius, kTensorStreamEdgeDivisor), l.tileH, slots);
}

// The grid's entries (schedules.hpp).
template <int B0>
StripSchedule scheduleOf(const Launch& l, int radius, int slots, int div = kTensorStreamEdgeDivisor) {
  const StripLayout layout = layoutOf<B0>(l, radius, div);
  StripSchedule s{};
  s.columns = layout.columns;
  s.left = layout.left;
  s.right = layout.right;
  s.shift = layout.shift;
  s.rows = l.tileH;
  s.segments = layout.segments;
  // Past one wave, the edge columns' blocks go ahead (twice the entries, so all in the grid's
  // first half rows); within one, every block starts at once and they spread over every row.
  if (div > 0) s.step = s.shift + (slots > 0 && layout.blocks() > slots ? 1 : 0);
  const int extra = (s.left + s.right) * ((1 << s.step) - 1);
  if (s.columns + extra > StripSchedule::kMaxEntries || s.columns > 0xffff)
    throw std::invalid_argument("tensorstream: " + std::to_string(s.columns) + " block columns, past its " +
                                std::to_string(StripSchedule::kMaxEntries));
  auto add = [&](int column, int shift, int step, int j) {
    s.entry[s.entries++] = static_cast<unsigned>(column) | static_cast<unsigned>(shift) << 16 |
                           static_cast<unsigned>(step) << 20 | static_cast<unsigned>(j) << 24;
  };
  for (int c = 0; c < s.columns; ++c) {
    const bool edge = c < s.left || c >= s.columns - s.right;
    if (edge)
      for (int j = 0; j < 1 << s.step; ++j) add(c, s.shift, s.step, j);
  }
  for (int c = s.left; c < s.columns - s.right; ++c) add(c, 0, 0, 0);
  return s;
}

// The kernel of an instance.
template <int B0, int NCH, int Out, bool SplitH, bool Fetched, bool Terms = false, bool OneTerm = false,
          bool Mag = false>
constexpr auto kernelOf() {
  if constexpr (Mag)
    return &tensorStreamMagnitudeKernel<B0, NCH, SplitH>;
  else if constexpr (Terms)
    return &tensorStreamTermsKernel<B0, NCH, Out, SplitH, OneTerm>;
  else if constexpr (Fetched)
    return &tensorStreamFetchedKernel<NCH, Out, SplitH>;
  else
    return &tensorStreamKernel<B0, NCH, Out, SplitH>;
}

// Blocks of this instance the current GPU holds at once with the launch's block and a ring `ahead`
// steps deep (0 without a device); residentBlocks keeps each device's answer, so two GPUs of a
// process each get theirs.
template <int B0, int NCH, int Out, bool SplitH, bool Fetched, bool Terms = false, bool OneTerm = false,
          bool Mag = false>
int tensorStreamSlots(const Launch& l, int ahead, int terms = 1) {
  if (!deviceInfo().available) return 0;
  const int warps = tensorStreamThreads(l) / 32;
  return residentBlocks(reinterpret_cast<const void*>(kernelOf<B0, NCH, Out, SplitH, Fetched, Terms, OneTerm, Mag>()),
                        32 * warps, sharedBytes<B0>(warps, ahead, kHistory<B0, NCH>, terms));
}

// How deep a launch's rings prefetch. Two steps ahead at r > 8 where the grid fills more than one
// round of blocks, if the deeper ring keeps those blocks on the SM: the loads' latency is what
// those warps wait on (4K back to back on the H100: r=13..16 0.88-0.93, r=17..24 0.93-0.94, r=32
// 0.95; r = 9..12 0.92-0.93 since their windows are sector-aligned). At r <= 8 one: a deeper ring's
// shared memory is taken from the L1 cache, whose hits on the neighbouring strips' aprons are worth
// more there (4K 1.17-1.19x slower with two steps ahead). Under one round of blocks the deeper ring
// has nothing to overlap (1080p level to 2.5% slower).
// The launch's depth and its grid's schedule (which depends on the blocks the GPU holds at once,
// and so on the depth; within one round its edge columns are split finer: edgeDivisorOf), made
// once a launch.
struct Ring {
  int ahead;
  StripSchedule schedule;
};
// A batch's frames (grid z) share the GPU's slots: a frame's share (frameSlots) is what its schedule sees.
template <int B0, int NCH, int Out, bool SplitH, bool Fetched, bool Terms = false, bool OneTerm = false,
          bool Mag = false>
Ring ringOf(const Launch& l, int radius, int terms = 1) {
  const int slots1 =
      frameSlots(tensorStreamSlots<B0, NCH, Out, SplitH, Fetched, Terms, OneTerm, Mag>(l, 1, terms), l.frames);
  Ring ring{1, scheduleOf<B0>(l, radius, slots1, edgeDivisorOf<B0>(l, radius, slots1))};
  if (slots1 == 0) return ring;  // no device: the schedule and description need no depth
  if (B0 == 1 || long(ring.schedule.entries) * ring.schedule.segments <= slots1) return ring;
  const int slots2 =
      frameSlots(tensorStreamSlots<B0, NCH, Out, SplitH, Fetched, Terms, OneTerm, Mag>(l, 2, terms), l.frames);
  if (slots2 < slots1) return ring;
  ring.ahead = 2;
  if (slots2 != slots1) ring.schedule = scheduleOf<B0>(l, radius, slots2);
  return ring;
}

// The factors scaled for the subnormal inputs (convlive/tensor_inputs.hpp): by powers of two, exact.
MaskSep scaledForTensorInputs(const MaskSep& m) {
  const int taps = 2 * m.radius + 1;
  const int scale = tensorInputScale(largestWeight(m.row, taps), largestWeight(m.col, taps));
  if (scale < 0)
    throw std::invalid_argument(
        "tensorstream: no input scale keeps both factors' largest weights within fp16's range (the "
        "variant's whyNot refuses such masks before a launch)");
  MaskSep scaled = m;
  for (int t = 0; t < taps; ++t) {
    scaled.row[t] = std::ldexp(m.row[t], scale);
    scaled.col[t] = std::ldexp(m.col[t], 24 - scale);
  }
  return scaled;
}

// A launch's grid: the schedule's entries x segments, x the batch's frames (grid z, at most
// kMaxGridZ a launch; a larger batch takes a launch per kMaxGridZ frames). kernel(l, m, sched, rest...).
template <class Kernel, class Mask, class... Rest>
void launchFrames(Kernel kernel, const StripSchedule& s, std::size_t shared, const Launch& l, const Mask& m,
                  Rest... rest) {
  forEachGridOfFrames(l, [&](const Launch& part) {
    launchDependent(kernel, dim3(s.entries, s.segments, part.frames), dim3(tensorStreamThreads(l)), shared, l.stream,
                    part, m, s, rest...);
  });
}

template <int B0, int NCH, int Out, bool SplitH, bool Fetched>
void launchTensorStream(const Launch& l, const MaskSep& m, const unsigned* fragments) {
  const Ring ring = ringOf<B0, NCH, Out, SplitH, Fetched>(l, m.radius);
  const StripSchedule& s = ring.schedule;
  const std::size_t shared = sharedBytes<B0>(tensorStreamThreads(l) / 32, ring.ahead, kHistory<B0, NCH>);
  constexpr auto kernel = kernelOf<B0, NCH, Out, SplitH, Fetched>();
  allowSharedBytes(kernel, shared);
  if constexpr (Fetched) {
    if (!fragments || reinterpret_cast<std::uintptr_t>(fragments) % 16)
      throw std::invalid_argument(
          "tensorstream: at r = " + std::to_string(m.radius) +
          " its weight fragments (tensorStreamFragments) must be in device memory, 16-byte aligned");
    launchFrames(kernel, s, shared, l, scaledForTensorInputs(m), ring.ahead, reinterpret_cast<const uint4*>(fragments));
  } else {
    launchFrames(kernel, s, shared, l, scaledForTensorInputs(m), ring.ahead);
  }
}

// Each term's factors scaled for the fp16 inputs by its own power of two (row by 2^S, column by
// 2^(24 - S)): every term's products are in the same units, 2^24 a level, and add up as they are.
inline MaskTerms scaledTerms(const MaskTerms& m) {
  if (m.terms < 1 || m.terms > kTensorStreamMaxTerms || m.radius < 1 || m.radius > kTensorStreamMaxRadius)
    throw std::invalid_argument(
        "tensorstream: " + std::to_string(m.terms) + " terms at r = " + std::to_string(m.radius) + " (it takes 1.." +
        std::to_string(kTensorStreamMaxTerms) + " terms, r = 1.." + std::to_string(kTensorStreamMaxRadius) + ")");
  const int taps = 2 * m.radius + 1;
  MaskTerms scaled = m;
  for (int t = 0; t < m.terms; ++t) {
    const int scale = tensorInputScale(largestWeight(m.row[t], taps), largestWeight(m.col[t], taps));
    if (scale < 0)
      throw std::invalid_argument("tensorstream: no input scale keeps term " + std::to_string(t) +
                                  "'s largest weights within fp16's range (the variant's whyNot refuses such masks "
                                  "before a launch)");
    for (int i = 0; i < taps; ++i) {
      scaled.row[t][i] = std::ldexp(m.row[t][i], scale);
      scaled.col[t][i] = std::ldexp(m.col[t][i], 24 - scale);
    }
  }
  return scaled;
}

// A gradient magnitude's two terms: gx = col (x) row, gy = row (x) col (the separable mask and its
// transpose).
inline MaskTerms magnitudeTerms(const MaskSep& m) {
  MaskTerms t{};
  t.radius = m.radius;
  t.terms = 2;
  t.centre = 0.f;
  const int taps = 2 * m.radius + 1;
  std::copy(m.row, m.row + taps, t.row[0]);
  std::copy(m.col, m.col + taps, t.col[0]);
  std::copy(m.col, m.col + taps, t.row[1]);
  std::copy(m.row, m.row + taps, t.col[1]);
  return t;
}

// halfPair's bits on the host: lo in the low half, each rounded to nearest even as the kernel's.
unsigned hostHalfPair(float lo, float hi) {
  const __half_raw a = __float2half_rn(lo), b = __float2half_rn(hi);
  return unsigned(a.x) | unsigned(b.x) << 16;
}
// The weight fragments tensorStreamBody<B0> makes for the scaled factors m (warp 0's formulas),
// lane by lane as rowFrag (KC entries of 32 lanes) and then colFrag (NO entries) hold them, 4
// words an entry.
template <int B0>
std::vector<unsigned> fragmentsOf(const MaskSep& m) {
  constexpr int KC = Shape<B0>::KC, NO = Shape<B0>::NO;
  const int r = m.radius, apron = apronOf(B0, r);
  std::vector<unsigned> f(std::size_t(KC + NO) * 32 * 4);
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane >> 2, t = lane & 3;
    auto put = [&](int entry, auto w) {
      unsigned* e = &f[(std::size_t(entry) * 32 + lane) * 4];
      e[0] = hostHalfPair(w(g, 2 * t), w(g, 2 * t + 1));
      e[1] = hostHalfPair(w(g + 8, 2 * t), w(g + 8, 2 * t + 1));
      e[2] = hostHalfPair(w(g, 2 * t + 8), w(g, 2 * t + 9));
      e[3] = hostHalfPair(w(g + 8, 2 * t + 8), w(g + 8, 2 * t + 9));
    };
    for (int c = 0; c < KC; ++c)
      put(c, [&](int mm, int k) {
        const int j = 16 * c + pixelOfSlot(k) - apron - pixelOfSlot(mm) + r;
        return j >= 0 && j <= 2 * r ? m.row[j] : 0.f;
      });
    for (int j = 0; j < NO; ++j)
      put(KC + j, [&](int mm, int k) {
        const int i = k - mm - 8 * (2 * j - B0) + r;
        return i >= 0 && i <= 2 * r ? m.col[i] : 0.f;
      });
  }
  return f;
}

// Where a launch reads its weight fragments from memory (tensorStreamFetchedKernel) instead of
// making them in warp 0: B0 = 1 from r = 5 (1080p back to back r=5 0.975, r=6 0.955, r=8 0.929; at
// r <= 2, with few distinct parameter indices, fetching was 1.5% slower).
constexpr bool fragmentsFetched(int radius) { return radius >= 5 && radius <= 8; }

// The compiled instance for a launch, handed to `f`: B0 from the radius, NCH from the alpha mode,
// Out from the combine rule and the byte-range bound, SplitH from the error plan.
template <int B0_, int NCH_, int Out_, bool SplitH_, bool Fetched_ = false>
struct TensorStreamInstance {
  static constexpr int B0 = B0_, NCH = NCH_, Out = Out_;
  static constexpr bool splitH = SplitH_, fetched = Fetched_;
};
template <int NCH, int Out, bool SplitH, class F>
decltype(auto) tensorStreamB0(int radius, F&& f) {
  if (radius <= 8) {
    if (fragmentsFetched(radius)) return f(TensorStreamInstance<1, NCH, Out, SplitH, true>{});
    return f(TensorStreamInstance<1, NCH, Out, SplitH>{});
  }
  if (radius <= 16) return f(TensorStreamInstance<2, NCH, Out, SplitH>{});
  if (radius <= 24) return f(TensorStreamInstance<3, NCH, Out, SplitH>{});
  return f(TensorStreamInstance<4, NCH, Out, SplitH>{});
}
template <int NCH, int Out, class F>
decltype(auto) tensorStreamSplit(int radius, bool splitH, F&& f) {
  if (splitH) return tensorStreamB0<NCH, Out, true>(radius, f);
  return tensorStreamB0<NCH, Out, false>(radius, f);
}
template <int NCH, class F>
decltype(auto) tensorStreamOut(const Launch& l, int radius, bool splitH, bool sumsInRange, F&& f) {
  if (l.combine == Combine::Abs) return tensorStreamSplit<NCH, kAbs>(radius, splitH, f);
  if (sumsInRange) return tensorStreamSplit<NCH, kFree>(radius, splitH, f);
  return tensorStreamSplit<NCH, kClamp>(radius, splitH, f);
}
template <class F>
decltype(auto) tensorStreamInstance(const Launch& l, int radius, bool splitH, bool sumsInRange, F&& f) {
  if (l.tileW % 16 || l.tileW < 16 || l.tileW > 128 || l.tileH % 16 || l.tileH < 16) badTile("tensorstream", l);
  if (l.filterAlpha) return tensorStreamOut<4>(l, radius, splitH, sumsInRange, f);
  return tensorStreamOut<3>(l, radius, splitH, sumsInRange, f);
}

const char* outName(int out) { return out == kAbs ? "abs" : out == kFree ? "free" : "clamp"; }

// What an instance launches for l (describeTensorStream, describeTensorStreamTerms,
// describeTensorStreamMagnitude): `terms` > 1 only with Terms (2 with Mag).
template <class K, bool Terms, bool Mag = false, bool OneTerm = false>
LaunchDescription describeInstance(const Launch& l, int radius, int terms) {
  const Ring ring = ringOf<K::B0, K::NCH, K::Out, K::splitH, K::fetched, Terms, OneTerm, Mag>(l, radius, terms);
  const StripSchedule& s = ring.schedule;
  PassLaunch p;
  p.kernel = std::string(Mag          ? "tensorStreamMagnitudeKernel<"
                         : Terms      ? "tensorStreamTermsKernel<"
                         : K::fetched ? "tensorStreamFetchedKernel<"
                                      : "tensorStreamKernel<") +
             std::to_string(K::B0) + ", " + std::to_string(K::NCH) + ", " + outName(K::Out) + ", " +
             (K::splitH ? "fp16 high + low" : "fp16") + ">";
  if (Terms && !Mag) p.kernel += OneTerm ? " (one term)" : " (" + std::to_string(terms) + " terms)";
  p.grid = dimsOf(s.entries, s.segments, gridFrames(l.frames));
  p.block = dimsOf(tensorStreamThreads(l));
  p.threadsPerBlock = tensorStreamThreads(l);
  p.outputsPerThread = double(l.tileW) * l.tileH / p.threadsPerBlock;
  // Each warp reads (B0 + 1) 16-pixel chunks from apronOf(B0, r) left of its strip, and 8 B0
  // rows above and below its segment.
  const int apron = apronOf(K::B0, radius);
  setFootprint(p, l.tileW, l.tileH, l.tileW - 16 + 16 * (K::B0 + 1), l.tileH + 16 * K::B0, -apron, -8 * K::B0);
  p.dynamicShared = sharedBytes<K::B0>(tensorStreamThreads(l) / 32, ring.ahead, kHistory<K::B0, K::NCH>, terms);
  p.kernelFunction =
      reinterpret_cast<const void*>(kernelOf<K::B0, K::NCH, K::Out, K::splitH, K::fetched, Terms, OneTerm, Mag>());
  return LaunchDescription{{p}, ""};
}

// The products' share of a work model per pixel, the same for the RGBA8 and the typed kernels:
// `planes` channels' row and column products of `terms` factor pairs at B0, perOutput steps made a
// step stored; the notes on the terms, a magnitude and a split intermediate. Returns the weight
// fragments' shared-memory bytes a pixel (per plane and term).
inline double modelProducts(WorkModel& m, int b0, int planes, int radius, int terms, double perOutput, bool magnitude,
                            bool splitH) {
  const int kc = b0 + 1, nb = 2 * (b0 + 1), parts = splitH ? 2 : 1;
  const double taps = 2 * radius + 1;
  m.matrixFlops = terms * perOutput * planes * (2 * kc + nb * parts) * 2.0 * 16 * 8 * 16 / 256;
  m.matrixUseful = terms * (perOutput * 2 * planes * taps + 2 * planes * taps * parts);
  if (magnitude)
    m.notes.push_back(
        "a gradient magnitude: the input read once, gx = col (x) row and gy = row (x) col as two terms, each in fp32 "
        "accumulators of its own, stored as sqrt(gx^2 + gy^2)");
  else if (terms > 1)
    m.notes.push_back(std::to_string(terms) + " separable terms (a mask of low rank): the input read once, " +
                      std::to_string(terms) + " row and column products, summed in the same fp32 accumulators");
  if (splitH) m.notes.push_back("the intermediate as fp16 high + low parts: two column products each");
  return terms * planes * perOutput * (512.0 * kc + 256.0 * nb) / 256;
}

// A warp walks down its 16-pixel strip of the tile's rows, 16 rows a step, B0 extra steps to fill
// the column window. A step copies 16 rows x 16 (B0 + 1) pixels into shared memory (16-byte
// cp.async) and reads them back once; per channel and term it reads the weight fragments and makes
// 2 (B0 + 1) row products and 2 + 2 B0 column products (twice that when the intermediate is split).
template <class K, bool Mag = false>
WorkModel modelInstance(const Launch& l, int radius, int terms) {
  constexpr int KC = Shape<K::B0>::KC;
  const double steps = l.tileH / 16, perOutput = (steps + K::B0) / steps;  // steps made per step stored
  WorkModel m;
  m.apron = KC * perOutput;
  m.globalReads = m.apron;  // the input's alpha, unless filtered, is read back from the ring
  m.globalBytes = 4 * m.globalReads;
  m.dramBytes = 8;
  m.notes.push_back("row and column products with Toeplitz bands " + std::to_string(16 * KC) + " deep, " +
                    std::to_string(2 * radius + 1) + " weighted; " + std::to_string(K::NCH) + " channels");
  // Per warp step (256 pixels): the staged input once, the weight fragments, and the stored pixels
  // read back for their alpha (16 bytes for 4).
  const double fragments = modelProducts(m, K::B0, K::NCH, radius, terms, perOutput, Mag, K::splitH);
  m.sharedBytes = perOutput * 1024.0 * KC / 256 + fragments + (K::NCH == 3 ? 4 : 0);
  return m;
}

}  // namespace

}  // namespace convlive::kernels
