// The kernels' host-side entry points: plain data in, one launch (or two) on the given stream.
// Included by the .cu files and by the variant table, so it holds no heavy headers. Callers have
// checked every precondition (the variant table's whyNot); these only launch and check the launch.
#pragma once

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "convlive/border.hpp"
#include "convlive/work_model.hpp"

namespace convlive::kernels {

constexpr int kMax2DRadius = 32;                     // 65x65 masks for the 2D variants
constexpr int kMaxSepRadius = 64;                    // 129-tap factors for the separable ones
constexpr int kStreamMaxRadius = 4;                  // stream: the column window lives in registers
constexpr int kMaxGridZ = 65535;                     // a grid's z: frames a launch of the batched kernels
constexpr int kTensorStreamMaxRadius = 32;           // tensorstream: a 16-pixel strip's window is 2..5 16-wide K chunks
constexpr int kTensorStreamMaxTerms = 4;             // tensorstream: the separable terms of a mask of low rank
constexpr int kTensorStreamMaxMagnitudeRadius = 16;  // tensorstream: a gradient magnitude's two sets of sums
constexpr int kMax2DTaps = (2 * kMax2DRadius + 1) * (2 * kMax2DRadius + 1);

// A 2D mask passed by value as a kernel parameter (__grid_constant__): it lives in the constant
// bank of that one launch, so a mask change can never race a frame in flight on another stream.
struct Mask2D {
  int radius;
  float w[kMax2DTaps];  // (2r+1)^2 used, row-major, row stride 2r+1
};
// Separable factors, likewise by value. Magnitude: gx = col (x) row, gy = row (x) col (transpose).
struct MaskSep {
  int radius;
  float row[2 * kMaxSepRadius + 1];
  float col[2 * kMaxSepRadius + 1];
};

// A mask of low rank as k separable terms, w = sum over t < terms of col[t] (x) row[t]
// (convlive/low_rank.hpp), likewise by value (2.1 KB).
struct MaskTerms {
  int radius, terms;
  // A centre-only term (centre x delta (x) delta) taken out of the terms and added to each channel's
  // sum at the store, where the kernel has the stored rows' input (alpha kept: r <= 8, or one term
  // left; tensorStreamTerms folds it there); 0: none.
  float centre;
  float row[kTensorStreamMaxTerms][2 * kTensorStreamMaxRadius + 1];
  float col[kTensorStreamMaxTerms][2 * kTensorStreamMaxRadius + 1];
  // The terms' sums times this at the store, before the centre (fp32): factors written n times over
  // as integers fp16 holds exactly (emboss's j / r; convlive/precision.hpp halfTermsOf) take 1 / n.
  float outScale = 1.f;
};

struct Launch {
  const uchar4* in;
  std::size_t inPitch;  // bytes, multiple of 4
  uchar4* out;
  std::size_t outPitch;
  int width, height;
  Border border;
  Combine combine;
  bool filterAlpha;  // false: output alpha = input alpha
  int tileW, tileH;  // one of the variant's offered tiles
  cudaStream_t stream;
  // A batch of frames of this size (tensorstream and tensor2d, grid z a frame; the other RGBA8
  // kernels take one frame a launch and leave these as they are): bytes from one frame to the next.
  int frames = 1;
  std::size_t inFrameStride = 0, outFrameStride = 0;
};

void naive(const Launch& l, const float* deviceWeights, int radius);
void constant(const Launch& l, const Mask2D& m);
// normalized: the texture uses normalized coordinates (wrap); otherwise unnormalized (zero, clamp,
// and mirror, whose reflect-101 the kernel computes itself).
void texture(const Launch& l, cudaTextureObject_t tex, bool normalized, const Mask2D& m);
void tiled(const Launch& l, const Mask2D& m);
void tiledCoop(const Launch& l, const Mask2D& m);
// tmp: one float4 plane per mask pass (two for Magnitude), width*height each, packed.
void separable(const Launch& l, const MaskSep& m, float4* tmp0, float4* tmp1);
void fused(const Launch& l, const MaskSep& m);
// Separable, radius 0..kStreamMaxRadius, Identity or Abs; tile {32, SH}: a warp walks SH rows.
// The sums are fp32, or fp16 pairs where convlive/precision.hpp's planHalfSums allows them (offset:
// its centring offset).
struct StreamSums {
  bool half = false;
  float offset = 0.f;
};
void stream(const Launch& l, const MaskSep& m, StreamSums sums);
// Any 2D mask (Identity or Abs) on the tensor cores (compute capability 8.0 or newer). split: fp16
// weights as high + low parts (see convlive/precision.hpp).
void tensor2d(const Launch& l, const Mask2D& m, bool split);
// Separable (Identity or Abs) on the tensor cores: a row then a column Toeplitz product per tile,
// fp16 factors, the intermediate as fp16 high + low parts in shared memory.
void tensorSep(const Launch& l, const MaskSep& m);
// Separable, radius 0..kTensorStreamMaxRadius (Identity or Abs) on the tensor cores, no shared
// memory: warps walk 16-pixel strips, the row product's result is the column product's operand in
// registers. Tile {16 * warps per block (16..128), rows a warp walks (a multiple of 16)}.
// splitIntermediate: the row sums as fp16 high + low parts (else fp16 alone; see
// convlive/precision.hpp planHalfSeparable). sumsInByteRange (Identity only): every computed sum
// lies in [-0.5, 255.5), so the outputs need rounding but no clamp.
// fragments: tensorStreamFragments(m) in device memory, 16-byte aligned, where that is not empty
// (kept by the caller until the launch has run; null otherwise).
void tensorStream(const Launch& l, const MaskSep& m, const unsigned* fragments, bool splitIntermediate,
                  bool sumsInByteRange);
// The weight fragments a tensorstream launch with mask m reads from memory (the factors scaled for
// its fp16 inputs, as Toeplitz tiles in the mma.sync operand layout), made once per mask: at
// r = 5..8, where warp 0 making them from the kernel's parameters kept the block waiting (fetched,
// 1080p r=8 is 7% faster back to back); empty where the launch makes its own.
std::vector<unsigned> tensorStreamFragments(const MaskSep& m);
// A mask of low rank (2..kTensorStreamMaxTerms terms, radius 1..kTensorStreamMaxRadius; Identity or
// Abs) in one tensorstream pass: the input read once, each term's row product feeding its column
// product, all terms' column products summed in the same fp32 accumulators. splitIntermediate:
// every term's row sums as fp16 high + low parts (convlive/precision.hpp planHalfTerms).
void tensorStreamTerms(const Launch& l, const MaskTerms& m, bool splitIntermediate);
// Whether tensorStreamTerms adds a centre-only term of such a mask (sharpen's 2 delta, emboss's
// centre, a peeled centre) at the store, one FMA a channel from the input byte, instead of as a
// term's products: where alpha is kept (the stored rows' input is at hand: read back from the ring
// at r <= 8, carried by the one-term instance past it) and a term is left, so past r = 8 only for 2
// terms. Its error plan then counts one product term fewer (planHalfTerms' centreAtStore).
constexpr bool tensorStreamCentreAtStore(int radius, int terms, bool filterAlpha) {
  return !filterAlpha && terms >= 2 && (radius <= 8 || terms == 2);
}
// The gradient magnitude of a separable mask (sobel, scharr; radius 1..kTensorStreamMaxMagnitudeRadius)
// in one tensorstream pass: gx = col (x) row and gy = row (x) col as two terms, the input read
// once, each term summed in fp32 accumulators of its own, stored as sqrt(gx^2 + gy^2) a channel.
// splitIntermediate: both terms' row sums as fp16 high + low parts (planHalfMagnitude).
void tensorStreamMagnitude(const Launch& l, const MaskSep& m, bool splitIntermediate);

// Lets `kernel` (its host stub) take `bytes` of dynamic shared memory: up to 48 KiB every kernel
// may; past that, its limit is raised to as much as the current device allows a block, once per
// kernel and device, and never lowered, so that no launch, on any thread, finds the limit below
// what it asks for. cudaFuncSetAttribute is a call into the driver: prepared once, not repeated
// every frame.
void allowLargeShared(const void* kernel, std::size_t bytes);
// Blocks of `kernel` (threads a block, dynamicShared bytes each, its limit raised as above) the
// current device holds at once, over all its SMs; at least 1. Persistent and wave-sized launches
// ask it once and keep the answer.
int residentBlocks(const void* kernel, int threads, std::size_t dynamicShared);

// Dynamic shared memory each needs for a tile and radius (bytes), for the precondition checks.
std::size_t tiledSharedBytes(int tileW, int tileH, int radius);
std::size_t tiledCoopSharedBytes(int tileW, int tileH, int radius);
std::size_t separableSharedBytes(int tileW, int tileH, int radius);
std::size_t fusedSharedBytes(int tileW, int tileH, int radius);
// filterAlpha false: 3 fp16 lines a pixel (alpha gets no products), 4 otherwise.
std::size_t tensor2dSharedBytes(int tileW, int tileH, int radius, bool split, bool filterAlpha);
// The rows a walking tensor2d block makes (a multiple of tileH) on a width x height frame, on a GPU
// that holds `slots` of its blocks at once (0: unknown, one tileH step a block).
int tensor2dSegmentRows(int width, int height, int tileW, int tileH, int radius, int slots);
std::size_t tensorSepSharedBytes(int tileW, int tileH, int radius);
std::size_t tensorStreamSharedBytes(int tileW, int radius, bool filterAlpha, int terms = 1);

// The inspector's figures (convlive/work_model.hpp), next to each kernel: what the entry point above
// would launch for `l` (its pointers and stream are not read) and the work it does per output
// pixel, from the shapes its launch uses. `radius` and the flags are the launch's. Like the launch,
// they throw std::invalid_argument for a tile or radius no instance was compiled for.
LaunchDescription describeNaive(const Launch& l, int radius);
LaunchDescription describeConstant(const Launch& l, int radius);
LaunchDescription describeTexture(const Launch& l, int radius);
// The direct variants differ in where they read: naive's weights are global loads too; texture
// reads the image through the texture unit.
enum class DirectVariant { Naive, Constant, Texture };
WorkModel modelDirect(const Launch& l, int radius, DirectVariant which);
LaunchDescription describeTiled(const Launch& l, int radius);
WorkModel modelTiled(const Launch& l, int radius);
LaunchDescription describeTiledCoop(const Launch& l, int radius);
WorkModel modelTiledCoop(const Launch& l, int radius);
LaunchDescription describeSeparable(const Launch& l, int radius);
WorkModel modelSeparable(const Launch& l, int radius);
LaunchDescription describeFused(const Launch& l, int radius);
WorkModel modelFused(const Launch& l, int radius);
// stream's grid is what the device holds at once: without a device, one segment of the tile's
// height per warp (the note says so).
LaunchDescription describeStream(const Launch& l, int radius, bool halfSums);
WorkModel modelStream(const Launch& l, int radius, bool halfSums);
LaunchDescription describeTensor2D(const Launch& l, int radius, bool split);
WorkModel modelTensor2D(const Launch& l, int radius, bool split);
LaunchDescription describeTensorSep(const Launch& l, int radius);
WorkModel modelTensorSep(const Launch& l, int radius);
LaunchDescription describeTensorStream(const Launch& l, int radius, bool splitIntermediate, bool sumsInByteRange);
WorkModel modelTensorStream(const Launch& l, int radius, bool splitIntermediate);
// A mask of low rank of `terms` terms, centreOnlyTerm: one of them centre-only, which the launch adds
// at the store where tensorStreamCentreAtStore (one term of products fewer; one left: the one-term
// instance, as tensorStreamTerms launches it).
LaunchDescription describeTensorStreamTerms(const Launch& l, int radius, int terms, bool splitIntermediate,
                                            bool centreOnlyTerm);
WorkModel modelTensorStreamTerms(const Launch& l, int radius, int terms, bool splitIntermediate, bool centreOnlyTerm);
LaunchDescription describeTensorStreamMagnitude(const Launch& l, int radius, bool splitIntermediate);
WorkModel modelTensorStreamMagnitude(const Launch& l, int radius, bool splitIntermediate);
// A compiled tile shape, for the dispatchers that pick an instance for both the launch and its
// description.
template <int W, int H>
struct TileShape {
  static constexpr int w = W, h = H;
};
inline Dims dimsOf(unsigned x, unsigned y = 1, unsigned z = 1) {
  return {static_cast<int>(x), static_cast<int>(y), static_cast<int>(z)};
}
// A pass named `pass` launching `kernel` (its host stub `function`) on grid x block threads.
inline PassLaunch passOf(const char* pass, const std::string& kernel, dim3 grid, dim3 block, const void* function) {
  PassLaunch p;
  p.pass = pass;
  p.kernel = kernel;
  p.grid = dimsOf(grid.x, grid.y, grid.z);
  p.block = dimsOf(block.x, block.y);
  p.threadsPerBlock = static_cast<int>(block.x * block.y);
  p.kernelFunction = function;
  return p;
}
// The frame fields a kernel's arguments take from its launch (l: TypedStreamLaunch,
// TypedTensorStreamLaunch, SweepLaunch): the pointers, the strides (the output's where l gives them), the size,
// the batch and the border.
template <class Args, class Launch>
void setFrameArgs(Args& a, const Launch& l) {
  a.in = static_cast<decltype(a.in)>(l.in);
  a.out = static_cast<decltype(a.out)>(l.out);
  a.pitch = l.image.rowPitch();
  a.frameStride = l.image.frameStride();
  a.outPitch = l.outPitch ? l.outPitch : a.pitch;
  a.outFrameStride = l.outFrameStride ? l.outFrameStride : a.frameStride;
  a.width = l.image.width;
  a.height = l.image.height;
  a.batch = l.image.batch;
  a.border = l.border;
}
// A block's footprint (PassLaunch::outputTile and inputTile): outW x outH made from inW x inH read,
// its corner offsetX, offsetY from the output's.
inline void setFootprint(PassLaunch& p, int outW, int outH, int inW, int inH, int offsetX, int offsetY) {
  p.outputTile = {outW, outH, 1};
  p.inputTile = {inW, inH, 1};
  p.inputOffsetX = offsetX;
  p.inputOffsetY = offsetY;
}

}  // namespace convlive::kernels
