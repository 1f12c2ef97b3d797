// The typed stream launch: the instance for the frame's type and its work units (the kernel:
// stream_typed.cuh, its instances in stream_typed_<type>.cu).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "common.cuh"
#include "stream_typed.hpp"

namespace convlive::kernels {
bool typedStreamEdgesInRegisters(const TypedStreamLaunch& l, int radius) {
  const ImageDesc& d = l.image;
  const int tb = int(pixelTypeBytes(d.type));
  const int half = typedStreamHalfLaneValues(l, radius);
  const int v = typedStreamLaneValues(tb, d.channels, radius, half);
  return (l.border == Border::Zero || l.border == Border::Clamp || l.border == Border::Mirror) && d.width > radius &&
         (static_cast<long long>(d.width) * d.channels) % v == 0 &&
         typedStreamApronLanes(tb, d.channels, radius, half) <= kTypedStreamEdgeLanesInRegisters;
}

namespace {
// Whether l's frames, in and out (pointers, row pitches and, in a batch, frame strides), are all
// `grain` bytes aligned, as the kernels' launches find them.
bool framesAligned(const TypedStreamLaunch& l, std::size_t grain) {
  struct {  // the kernel's frame fields, as its launch sets them
    const void* in;
    void* out;
    std::size_t pitch, frameStride, outPitch, outFrameStride;
    int width, height, batch;
    Border border;
  } f;
  setFrameArgs(f, l);
  const std::size_t strides = l.image.batch > 1 ? f.frameStride | f.outFrameStride : 0;
  return (reinterpret_cast<std::size_t>(f.in) | reinterpret_cast<std::size_t>(f.out) | f.pitch | f.outPitch | strides) %
             grain ==
         0;
}
}  // namespace

bool typedStreamDirect(const TypedStreamLaunch& l, int radius) {
  const ImageDesc& d = l.image;
  if (d.type != PixelType::F32 || d.channels != 4 || radius != 1 || l.floatOut || l.absolute) return false;
  return framesAligned(l, 16);
}

int typedStreamHalfLaneValues(const TypedStreamLaunch& l, int radius) {
  const ImageDesc& d = l.image;
  if (!l.halfSums || d.type != PixelType::U8 || l.floatOut || (d.channels != 1 && d.channels != 3) || radius < 1 ||
      radius > 2)
    return 0;
  // 16 a lane copies and stores 16 bytes: frames 8 bytes aligned keep 8 a lane, whose 8-byte copies
  // and stores then stay whole.
  return static_cast<long long>(d.width) * d.channels <= 32 * 8 || !framesAligned(l, 16) ? 8 : 16;
}

StreamUnits typedStreamUnits(const TypedStreamLaunch& l, int radius, int residentWarps, int edgeDivisor) {
  const ImageDesc& d = l.image;
  const int tb = int(pixelTypeBytes(d.type)), c = d.channels;
  const int half = typedStreamHalfLaneValues(l, radius);
  const int v = typedStreamLaneValues(tb, c, radius, half), lanes = typedStreamApronLanes(tb, c, radius, half);
  const int outV = typedStreamOutValues(tb, c, radius, half), rowValues = d.width * c;
  const bool inRegisters = typedStreamEdgesInRegisters(l, radius);
  StreamUnits u{};
  // In registers: strip s reads values s outV .. that + 32 v - 1, the last one to the row's end.
  u.strips = inRegisters ? 1 + static_cast<int>(ceilDiv(std::max(0, rowValues - 32 * v), outV))
                         : static_cast<int>(ceilDiv(rowValues, outV));
  const int divisor = residentWarps > 0 && !inRegisters ? std::max(1, edgeDivisor) : 1;
  if (divisor > 1) {
    // Strip s reads values s outV - v lanes .. that + 32 v - 1.
    u.edgeLeft = lanes > 0 ? 1 : 0;
    while (u.edgeLeft + u.edgeRight < u.strips && (u.strips - 1 - u.edgeRight) * outV - v * lanes + 32 * v > rowValues)
      ++u.edgeRight;
    if (u.edgeLeft + u.edgeRight >= u.strips) u.edgeLeft = u.edgeRight = 0;  // all edge: nothing to set apart
  }
  const int edges = u.edgeLeft + u.edgeRight, tileRows = std::max(1, l.tileRows);
  const long long weight = (static_cast<long long>(u.strips - edges) + divisor * edges) * std::max(1, d.batch);
  auto place = [&](long long perStrip) {  // segments of about height / perStrip rows
    u.sh =
        residentWarps > 0 ? std::max<int>(tileRows, static_cast<int>((d.height + perStrip - 1) / perStrip)) : tileRows;
    u.edgeSh = edges ? static_cast<int>(ceilDiv(u.sh, divisor)) : u.sh;
    u.edgeUnits = edges * static_cast<int>(ceilDiv(d.height, u.edgeSh));
    u.units = u.edgeUnits + (u.strips - edges) * static_cast<int>(ceilDiv(d.height, u.sh));
  };
  // One wave of segments as tall as it allows. Where that leaves many of the GPU's warps idle (a
  // batch with more strips than half its warps got one segment a strip: 16 1080p f32x4 frames at
  // r = 4 filled 64% of them), more segments in a few waves finish sooner: the segments a warp walks
  // in turn (waves) times their rows and apron, the least of that.
  const long long fill = std::max(1LL, residentWarps / weight);
  place(fill);
  if (residentWarps > 0) {
    auto waves = [&] {
      return (static_cast<long long>(u.units) * std::max(1, d.batch) + residentWarps - 1) / residentWarps;
    };
    const long long apron = 2LL * radius + 8;  // a segment's rows that store nothing (+ 8: its first rows in flight)
    auto cost = [&] { return waves() * (u.sh + apron); };
    long long best = fill, bestCost = cost();
    // Among the counts that make the same number of waves the largest (shortest segments) costs
    // least: one of them a wave count, found by bisection (units grow with the count), until no
    // later count can cost less. The same choice as trying every count, in at most a few dozen steps.
    for (long long lo = fill + 1, hi = 4 * fill + 4; lo <= hi;) {
      place(lo);
      const long long w = waves();
      long long a = lo, b = hi;
      while (a < b) {
        const long long m = (a + b + 1) / 2;
        place(m);
        if (waves() <= w)
          a = m;
        else
          b = m - 1;
      }
      place(a);
      if (const long long c = cost(); c < bestCost) best = a, bestCost = c;
      if (u.sh == tileRows || (w + 1) * (tileRows + apron) >= bestCost) break;
      lo = a + 1;
    }
    place(best);
  }
  return u;
}

namespace {
// Each type's instances, in a file of their own (stream_typed_<type>.cu).
struct TypeEntry {
  void (*launch)(const TypedStreamLaunch&, const MaskSep&);
  LaunchDescription (*describe)(const TypedStreamLaunch&, int radius);
};
TypeEntry entryFor(PixelType t, bool floatOut) {
  if (floatOut) {
    if (t != PixelType::U8) throw std::invalid_argument("stream: f32 output from u8 frames only");
    return {typed::launchU8F32, typed::describeU8F32};
  }
  switch (t) {
    case PixelType::U8:
      return {typed::launchU8, typed::describeU8};
    case PixelType::U16:
      return {typed::launchU16, typed::describeU16};
    case PixelType::F16:
      return {typed::launchF16, typed::describeF16};
    case PixelType::F32:
      return {typed::launchF32, typed::describeF32};
  }
  throw std::invalid_argument("stream: unknown pixel type");
}
}  // namespace

void streamTyped(const TypedStreamLaunch& l, const MaskSep& m) {
  if (const int most = typedStreamMaxRadius(l.image.type, l.image.channels, l.floatOut);
      m.radius < kTypedStreamMinRadius || m.radius > most)
    throw std::invalid_argument("stream: radius " + std::to_string(m.radius) + " has no typed instance for " +
                                l.image.str() + " (1.." + std::to_string(most) + ")");
  if (l.image.width < 1 || l.image.height < 1 || l.image.batch < 1) return;
  entryFor(l.image.type, l.floatOut).launch(l, m);
}

LaunchDescription describeStreamTyped(const TypedStreamLaunch& l, int radius) {
  return entryFor(l.image.type, l.floatOut).describe(l, radius);
}

WorkModel modelStreamTyped(const TypedStreamLaunch& l, int radius) {
  const ImageDesc& d = l.image;
  const int tb = int(pixelTypeBytes(d.type)), c = d.channels;
  if (typedStreamDirect(l, radius)) {
    // A thread: its pixel and the two beside it in each of RB + 2 rows (the neighbours through L1),
    // RB pixels made.
    const double rows = kStreamDirectRows + 2.0, filtered = l.copyFourth ? 3 : c;
    WorkModel m;
    m.globalReads = 3 * rows / kStreamDirectRows;
    m.globalBytes = m.globalReads * c * tb;
    m.sharedBytes = 0;
    m.apron = rows / kStreamDirectRows;
    m.idleThreads = 0;
    m.flops = 2 * filtered * 3 * (rows / kStreamDirectRows + 1);
    m.dramBytes = 2.0 * c * tb;
    m.notes.push_back("direct: a thread a pixel of " + std::to_string(kStreamDirectRows) +
                      " rows, its neighbours' loads through L1; figures per pixel of 4 f32 values");
    if (l.copyFourth) m.notes.push_back("the 4th channel copied: three filtered");
    return m;
  }
  const int half = typedStreamHalfLaneValues(l, radius);
  const int v = typedStreamLaneValues(tb, c, radius, half), lanes = typedStreamApronLanes(tb, c, radius, half);
  const int outV = typedStreamOutValues(tb, c, radius, half), sh = std::max(1, l.tileRows);
  // A warp's unit: 32 lanes of v values down sh + 2r staged rows, for outV values down sh rows.
  const double staged = 32.0 * v * (sh + 2 * radius), made = double(outV) * sh;
  const double taps = 2 * radius + 1, filtered = l.copyFourth ? 3 : c;
  WorkModel m;
  m.globalReads = staged / made;
  m.globalBytes = m.globalReads * c * tb;
  m.sharedBytes = m.globalBytes;  // each staged value read once from the ring
  m.apron = m.globalReads;
  m.idleThreads = 2.0 * lanes / 32;
  // Row sums on every staged row (its taps by shuffles), then the column's taps in registers.
  m.flops = 2 * filtered * taps * ((sh + 2.0 * radius) / sh + 1);
  m.dramBytes = (l.floatOut ? 1.0 + 4.0 / tb : 2.0) * c * tb;
  m.notes.push_back("a unit of " + std::to_string(sh) + " rows a warp (the tile's; a device's persistent grid walks " +
                    "taller ones); " + std::to_string(v) + " values a lane, " + std::to_string(2 * lanes) +
                    " apron lanes; figures per pixel of " + std::to_string(c) + " " + pixelTypeName(d.type) +
                    " values");
  if (l.copyFourth) m.notes.push_back("the 4th channel copied: three filtered");
  if (l.floatOut) m.notes.push_back("written as f32: 4 bytes a value out");
  return m;
}

}  // namespace convlive::kernels
