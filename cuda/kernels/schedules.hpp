// Where each block of a tensorstream launch, and each work unit of a stream launch, lies in the
// frame. Host and device code: the kernels decode their place with these, and the launch, the
// inspector and the cpu tests (test_inspect.cpp: every strip row covered once) read the same.
//
// Both kernels walk strips of the frame, and the strips at its edges are slower than the rest:
// their lanes whose loads leave the frame copy pixel by pixel through the border mode, and their
// warps took 1.5-2.4x an interior warp's time, ending last. So their blocks or units come first, in
// segments of their own height, and the interior's follow.
#pragma once

#include "launch.hpp"

#ifndef CL_HOST_DEVICE
#if defined(__CUDACC__)
#define CL_HOST_DEVICE __host__ __device__
#else
#define CL_HOST_DEVICE
#endif
#endif

namespace convlive::kernels {

// tensorstream: a block is tileW / 16 strips (a warp each) wide and one segment tall. The grid is
// entries x segment rows, run x fastest, so a row of blocks runs after the row above it (as
// neighbouring columns share their apron's input in L2, that order reads less from DRAM than a
// column's segments one after another, which was 3-6% slower). Each row starts with the edge block
// columns' entries (left, then right), then the interior's columns. An edge column has 1 << step
// entries whose segments are rows >> shift tall: entry j takes segments j, j + (1 << step), ... of
// its column. Where the grid is more than one wave, step = shift + 1, so an edge column's blocks
// are all in the grid's first half rows (its entries' later rows return at once) and none is left
// for the last wave; within one wave step = shift. A block reads its place from the table in the
// kernel's parameters (one constant-bank load: decoding it with branches took the r <= 8 kernel
// from 80 registers to 94, so from 24 warps an SM to 20).
struct StripSchedule {
  // Entries: block columns and the edge columns' extra ones. The variant takes frames up to
  // kMaxEntries - 64 tiles wide (at most 12 extra entries were seen, r = 32 and the 32-wide tile;
  // 64 holds for edge divisors up to 8). The table (8 KB) makes the kernel's parameters larger than
  // 4 KB, which needs a CUDA 12.1 driver (R530); CUDA 13, which builds this, needs R580 anyway.
  static constexpr int kMaxEntries = 2048;
  int columns, left, right;     // block columns; the edge ones on each side
  int rows;                     // the interior's segment height (the tile's)
  int shift, step;              // the edge columns' segments: rows >> shift tall, 1 << step entries
  int segments;                 // gridDim.y: ceil(height / rows)
  int entries;                  // gridDim.x: (left + right) << step, then the interior's columns
  unsigned entry[kMaxEntries];  // column | shift << 16 | step << 20 | j << 24
};
struct BlockPlace {
  int column, y0, rows;  // rows: the segment's height (it may pass the frame's last row)
};
// An edge entry's segments past its column's last row start past the frame: those blocks return
// at once.
CL_HOST_DEVICE inline BlockPlace placeOf(const StripSchedule& s, unsigned bx, unsigned by) {
  const unsigned e = s.entry[bx];
  const int shift = static_cast<int>(e >> 16 & 15u), step = static_cast<int>(e >> 20 & 15u);
  const int j = static_cast<int>(e >> 24), rows = s.rows >> shift;
  return {static_cast<int>(e & 0xffffu), ((static_cast<int>(by) << step) + j) * rows, rows};
}
// The edge columns' segments: 1 / kTensorStreamEdgeDivisor of the tile's height where that is at
// least one 16-row step (0: no edge columns; 1: edge columns first at the tile's height; 4: a
// quarter). Halved was measured best overall on the H200: against 1, 1080p 9-14% faster at
// r <= 8, 4K r=24 5% faster, 4K r=32 1-2% slower; a quarter lost 7-12% at 4K r=16 and 32. That is
// the grids past one round: a launch whose grid is one round splits them finer
// (tensorStreamEdgeDivisor below: 1080p 6-16% faster back to back).
inline constexpr int kTensorStreamEdgeDivisor = 2;
static_assert(kTensorStreamEdgeDivisor >= 0 && kTensorStreamEdgeDivisor <= 8, "kMaxEntries' margin holds to 8");
// The schedule of a tensorstream launch at this radius (l's size and tile) on a GPU that holds
// `slots` of its blocks at once (0: unknown, taken as one wave). Throws past kMaxEntries columns
// (the variant refuses such frames first).
StripSchedule tensorStreamSchedule(const Launch& l, int radius, int slots, int edgeDivisor = kTensorStreamEdgeDivisor);
// The edge divisor a launch takes on a GPU that holds `slots` of its blocks at once: where the
// grid is one round (at kTensorStreamEdgeDivisor), the finest of 8 and 4 whose grid still is;
// elsewhere, and where slots is unknown (0), kTensorStreamEdgeDivisor. Within one round the edge
// columns' blocks are the grid's long pole (split finer: 1080p r=24 0.84x, r=32 0.85x back to back).
int tensorStreamEdgeDivisor(const Launch& l, int radius, int slots);

// stream: a unit is one strip's segment, walked by one warp; units 0 .. edgeUnits - 1 are the edge
// strips' (left then right, a segment row at a time), the rest the interior strips'.
struct StreamUnits {
  int strips;               // strips of OutW output pixels
  int sh;                   // the interior strips' segment height
  int units;                // work units, the edge strips' first
  int edgeLeft, edgeRight;  // edge strips on each side (0 when they are not set apart)
  int edgeSh, edgeUnits;    // the edge strips' segment height and their units
};
struct UnitPlace {
  int strip, y0, rows;  // rows: the segment's height (it may pass the frame's last row)
};
CL_HOST_DEVICE inline UnitPlace unitPlace(const StreamUnits& u, int unit) {
  if (unit < u.edgeUnits) {
    const int edges = u.edgeLeft + u.edgeRight, c = unit % edges;
    return {c < u.edgeLeft ? c : u.strips - u.edgeRight + (c - u.edgeLeft), unit / edges * u.edgeSh, u.edgeSh};
  }
  const int i = unit - u.edgeUnits, inner = u.strips - u.edgeLeft - u.edgeRight;
  return {u.edgeLeft + i % inner, i / inner * u.sh, u.sh};
}
// The edge strips' segments: 1 / kStreamEdgeDivisor of the interior's (1: not set apart). Halved
// made 4K r=1 0.0367 -> 0.0284 ms, r=2 0.045 -> 0.033, r=4 0.088 -> 0.063 on the H200, 1080p
// 17-25% faster.
inline constexpr int kStreamEdgeDivisor = 2;
// The units of a stream launch at this radius (l's size, tile and alpha mode; halfSums: the fp16
// instance, whose strips are 4 pixels a lane at every radius) on a GPU that holds residentWarps of
// its warps at once (0: unknown, one segment of the tile's height a warp).
StreamUnits streamUnits(const Launch& l, int radius, bool halfSums, int residentWarps,
                        int edgeDivisor = kStreamEdgeDivisor);

}  // namespace convlive::kernels
