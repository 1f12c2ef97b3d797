// stream on frames of any pixel type (u8, u16, f16, f32) and 1, 3 or 4 channels, a batch in one
// launch: the stream variant's kernel for everything but single RGBA8 frames (stream.cu keeps
// those). Host-side entry point, light like launch.hpp; the kernels are in stream_typed*.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "convlive/border.hpp"
#include "convlive/image.hpp"
#include "launch.hpp"
#include "schedules.hpp"

namespace convlive::kernels {

inline constexpr int kTypedStreamMinRadius = 1;
inline constexpr int kTypedStreamMaxRadius = 4;  // the column window lives in registers
// 16- and 32-bit frames of one channel (grey, and channels-first planes) go to r = 8 with 4 values
// a lane: 2r + 1 pending rows in 68 registers at r = 8 (106-128 in all, no spill). 8 values a lane
// (u8; 16-bit values at r <= 4) would need twice that, and 3 or 4 channels as many apron lanes.
// u8 grey written as f32 (floatOut) goes there too, 4 values a lane; u8 grey into u8 takes
// tensorstream past r = 1, far ahead of this kernel, so it has no such instances.
inline constexpr int kTypedStreamMaxRadiusGrey = 8;
// The largest radius the typed kernel takes on frames of this type and channel count (floatOut:
// written as f32).
constexpr int typedStreamMaxRadius(PixelType type, int channels, bool floatOut = false) {
  return (type != PixelType::U8 || floatOut) && channels == 1 ? kTypedStreamMaxRadiusGrey : kTypedStreamMaxRadius;
}
// Whether a warp's step is written once and the column factor's slots chosen by case, not the step
// unrolled 2r + 1 times: from r = 4, and at r = 3 with 8 values a lane. Unrolled, the step made 84 KB
// of code at f32 r = 4 and 190 KB at r = 8, and instruction fetch stalled 45% of the warps' cycles
// there (H200, 4K f32x1 r = 8 0.0530 -> 0.0504 ms, r = 7 0.0530 -> 0.0446, 48 512x512 frames r = 8
// 0.0915 -> 0.0773; at r = 1 and 2 one step a pass cost 3-10%). At r = 3 only lanes of 8 values gain
// (u8x3 0.90x, u8x1 0.95-0.98x, u16x4 and f16x4 0.95-0.99x); lanes of 4 lost up to 3% (f32x1, f32x3,
// 16-bit grey).
constexpr bool typedStreamSwitched(int radius, int laneValues) {
  return radius >= 4 || (radius == 3 && laneValues >= 8);
}
inline constexpr int kTypedStreamWarps = 4;  // warps a block, each with its own units and ring

struct TypedStreamLaunch {
  const void* in;
  void* out;
  ImageDesc image;                       // type, channels, size, pitch, batch (rows and frames at its strides)
  std::size_t outPitch, outFrameStride;  // the output's strides where they differ (0: the image's)
  Border border;
  bool absolute;     // Combine::Abs: |sum|
  bool copyFourth;   // 4 channels: the 4th copied from the input (padding, or alpha not filtered)
  bool floatOut;     // u8 values written as f32 (neither rounded nor clamped); outPitch and
                     // outFrameStride then give the output's strides
  int tileRows;      // the least rows a warp walks (the tile's height)
  bool halfSums;     // u8 into u8: the mask's fp16 sums keep 1 LSB (planHalfSums fits)
  float halfOffset;  // and their centring's offset (HalfSumsPlan::offset)
  cudaStream_t stream;
};

// A lane's values, its apron lanes on each side and a warp's output values a row, as the kernel
// for (type bytes, channels, radius) has them: one copy of 16 bytes a lane (8 u16 or f16, 4 f32
// values), or 8 u8 values (16 took 106 registers at r = 1, 4 blocks an SM, and half the strips:
// 4K u8x1 r = 1 0.0248 ms against 0.0233 for r = 2 at 8, H200). 16-bit values of one channel go 4
// a lane (8-byte copies) from r = 3: half the column window's registers (past r = 4 it would not
// fit at 8), measured 1.17-1.39x faster at r = 3 and 4 (H200: 4K u16x1 r=4 0.0432 -> 0.0363 ms,
// f16x1 0.039 -> 0.033, 64 256x256 f16x1 frames 0.054 -> 0.039); 3 channels stay at 8 (u16x3 r=4
// 0.095 -> 0.099 at 4, f16x3 r=3 0.071 -> 0.069), 4 channels too (u16x4 r=4 0.124 -> 0.149).
// halfValues: u8 values summed in fp16 pairs take that many a lane (typedStreamHalfLaneValues).
constexpr int typedStreamLaneValues(int typeBytes, int channels, int radius, int halfValues = 0) {
  if (halfValues) return halfValues;
  if (typeBytes == 1) return channels == 1 && radius > kTypedStreamMaxRadius ? 4 : 8;
  return typeBytes == 2 && channels == 1 && radius >= 3 ? 4 : 16 / typeBytes;
}
constexpr int typedStreamApronLanes(int typeBytes, int channels, int radius, int halfValues = 0) {
  const int v = typedStreamLaneValues(typeBytes, channels, radius, halfValues);
  return (radius * channels + v - 1) / v;
}
constexpr int typedStreamOutValues(int typeBytes, int channels, int radius, int halfValues = 0) {
  return (32 - 2 * typedStreamApronLanes(typeBytes, channels, radius, halfValues)) *
         typedStreamLaneValues(typeBytes, channels, radius, halfValues);
}

// Whether l's launch at this radius makes the values outside each row in the registers of the
// lanes that read them (borderInRegisters), rather than in lanes of the row's edge strips that
// write nothing: for Zero, Clamp and Mirror (their values lie within R + 1 pixels of the edge) on
// frames wider than the radius whose rows are a whole number of lanes' values, where a warp has at
// most kTypedStreamEdgeLanesInRegisters apron lanes a side. Strips then start at the row's first
// value and the edge strips write their outer lanes too: a row of 32 V values (256 16-bit grey
// values at r = 1, 2) is one warp's, not two, and no edge strip fills its apron lanes from the ring
// at every row. A launch is one wave, as long as its slowest warp: the edge strips, which with
// those fills took longer than the others even on segments half as tall (4K u16x1 r = 2 0.0268 ->
// 0.0178 ms, 64 256x256 frames 0.0365 -> 0.0124, H200). With 3 and 4 apron lanes (f32x3 and f32x4
// at r = 3, 4) the selects of the lanes near an edge cost more than the fills (4K f32x4 r = 4
// 0.128 -> 0.166 ms): those keep the apron lanes.
inline constexpr int kTypedStreamEdgeLanesInRegisters = 2;
bool typedStreamEdgesInRegisters(const TypedStreamLaunch& l, int radius);

// A warp's first value in the row for strip s (before the row's start where the edge strips' apron
// lanes hold the outside values), and whether its lane writes its v values: the lanes of the middle,
// less L apron lanes on each side but, with the edges in registers, strip 0's first ones and the
// last strip's to the row's end. Every value of a row is written by one lane of one strip.
CL_HOST_DEVICE inline int typedStreamWarpStart(int strip, int outValues, int v, int apronLanes, bool inRegisters) {
  return strip * outValues - (inRegisters ? 0 : v * apronLanes);
}
CL_HOST_DEVICE inline bool typedStreamLaneWrites(int lane, int xw, int v, int apronLanes, int rowValues,
                                                 bool inRegisters) {
  if (!inRegisters) return lane >= apronLanes && lane < 32 - apronLanes;
  return xw + v * lane < rowValues && (lane >= apronLanes || xw == 0) &&
         (lane < 32 - apronLanes || xw + 32 * v >= rowValues);
}

// The work units of a launch (per frame; the launch runs units x batch): strips of a warp's output
// values, segments of at least tileRows rows, the edge strips' shorter (as stream's), counted so
// that the whole batch makes one wave on a GPU that holds residentWarps at once (0: unknown, one
// segment of tileRows a warp).
StreamUnits typedStreamUnits(const TypedStreamLaunch& l, int radius, int residentWarps,
                             int edgeDivisor = kStreamEdgeDivisor);
// f32 frames of 4 channels at r = 1 whose pixels, pitches and frame strides (in and out) are
// 16-byte aligned, the sum kept as it is (|sum| stays on the streaming kernel), run a direct kernel
// (stream_direct.cuh): a thread a pixel of kStreamDirectRows rows, its neighbours' 16-byte loads through L1, where the
// streaming kernel's warps leave 2 of 32 lanes to the apron (4K: 1.11x the copy of the bytes against 1.25x, H200).
inline constexpr int kStreamDirectRows = 4;
bool typedStreamDirect(const TypedStreamLaunch& l, int radius);
// u8 frames of 1 or 3 channels into u8 at r = 1, 2 whose mask's fp16 sums keep 1 LSB (halfSums) sum in
// fp16 pairs, two values an instruction, as the RGBA8 kernel does (half_sums.cuh): the same steps,
// so planHalfSums' bound. They take 16 values a lane (one 16-byte copy; half the per-row work of 8
// a lane), or 8 where a row is at most 256 values (one warp's at 8: at 16 half its lanes would
// idle, 64 256x256 grey frames 0.92x the time of 8) or the frames are not 16-byte aligned (rows of
// 1000 RGB pixels: 8-byte copies stay whole). The values a lane, or 0 for fp32 sums.
int typedStreamHalfLaneValues(const TypedStreamLaunch& l, int radius);
// Separable, radius kTypedStreamMinRadius..typedStreamMaxRadius(type, channels), fp32 sums.
void streamTyped(const TypedStreamLaunch& l, const MaskSep& m);
// What streamTyped launches for l (pointers and stream not read).
LaunchDescription describeStreamTyped(const TypedStreamLaunch& l, int radius);
// Its work per pixel of l's values, counted from a warp's unit of the tile's rows (the fewest a
// warp walks; a device's persistent grid walks taller ones, with fewer apron rows a row made).
WorkModel modelStreamTyped(const TypedStreamLaunch& l, int radius);

// Internal: each type's file (stream_typed_<type>.cu) defines its launch.
namespace typed {
void launchU8(const TypedStreamLaunch& l, const MaskSep& m);
void launchU16(const TypedStreamLaunch& l, const MaskSep& m);
void launchF16(const TypedStreamLaunch& l, const MaskSep& m);
void launchF32(const TypedStreamLaunch& l, const MaskSep& m);
LaunchDescription describeU8(const TypedStreamLaunch& l, int radius);
LaunchDescription describeU16(const TypedStreamLaunch& l, int radius);
LaunchDescription describeF16(const TypedStreamLaunch& l, int radius);
LaunchDescription describeF32(const TypedStreamLaunch& l, int radius);
void launchU8F32(const TypedStreamLaunch& l, const MaskSep& m);  // u8 in, f32 out
LaunchDescription describeU8F32(const TypedStreamLaunch& l, int radius);
}  // namespace typed

}  // namespace convlive::kernels
