// sweep: separable and 2D filtering of frames of any pixel type (u8, u16, f16, f32), 1, 3 or 4 channels,
// a whole batch in one launch. Host-side entry point; the kernels are in sweep.cuh and sweep.cu. Light, like
// launch.hpp: the variant's file and the kernel file include it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "convlive/border.hpp"
#include "convlive/image.hpp"
#include "convlive/work_model.hpp"
#include "launch.hpp"

namespace convlive::kernels {

constexpr int kSweepMaxRadius = 32;
constexpr int kSweepThreads = 256;
// The separable kernel is also compiled for each radius from kSweepFixedMinRadius to
// kSweepFixedMaxRadius on u16, f16 and f32 frames (1, 3 or 4 channels) at one tile, so that its
// taps are unrolled with the weights read as constants: the radii it serves by default on those
// frames to r = 16 (16-bit grey frames' from r = 9, f32 grey frames' from r = 6, the others' from
// r = 5, and batches of small grey frames from r = 5). Other radii, types and tiles read the radius
// at run time.
constexpr int kSweepFixedMinRadius = 5;
constexpr int kSweepFixedMaxRadius = 16;
constexpr int kSweepFixedValues = 256;
constexpr int kSweepFixedRows = 8;
// The factors padded with zeros past 2r+1 taps to a whole number of register windows (16 taps).
constexpr int kSweepTaps = 2 * kSweepMaxRadius + 1 + 15;

// Magnitude: gx = col (x) row, gy = row (x) col (the transpose), as MaskSep.
struct SweepMask {
  int radius;
  float row[kSweepTaps];
  float col[kSweepTaps];
};

struct SweepLaunch {
  const void* in;
  void* out;
  ImageDesc image;                       // type, channels, alpha, size, pitch, batch (rows and frames at its strides)
  std::size_t outPitch, outFrameStride;  // the output's strides where they differ (0: the image's)
  Border border;
  Combine combine;
  bool filterAlpha;  // 4 channels with alpha: filter it (else copied, as padding always is)
  int tileValues;    // values a block makes across (256 or 512): tileValues / channels pixels
  int tileRows;      // rows a step makes (8 or 16)
  bool twoD;         // a 2D mask (sweep2d): the ring holds input rows, each output sums 2r + 1 of them
  bool floatOut;     // u8 values written as f32 (neither rounded nor clamped); outPitch and
                     // outFrameStride then give the output's strides
  cudaStream_t stream;
};

// The offered tiles (values across x rows a step), the default first.
bool sweepTileCompiled(int values, int rows);
// Dynamic shared memory a block needs (bytes).
std::size_t sweepSharedBytes(const SweepLaunch& l, int radius);
void sweep(const SweepLaunch& l, const SweepMask& m);
// Any 2D mask (up to kSweepMaxRadius), Identity, Abs or Magnitude (gy: the transpose).
void sweep2d(const SweepLaunch& l, const Mask2D& m);
// What sweep launches for `l` (pointers and stream not read) and its work per output pixel.
LaunchDescription describeSweep(const SweepLaunch& l, int radius);
WorkModel modelSweep(const SweepLaunch& l, int radius);

}  // namespace convlive::kernels
