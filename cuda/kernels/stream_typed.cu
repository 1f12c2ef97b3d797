// The typed stream launch: the instance for the frame's type, its work units, and what it
// launches (the kernel: stream_typed.cuh, its instances in stream_typed_<type>.cu).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "common.cuh"
#include "convlive/resources.hpp"
#include "stream_typed.hpp"

namespace convlive::kernels {
namespace {

const void* kernelFor(const ImageDesc& d, int radius) {
  switch (d.type) {
    case PixelType::U8:
      return typed::kernelU8(d.channels, radius);
    case PixelType::U16:
      return typed::kernelU16(d.channels, radius);
    case PixelType::F16:
      return typed::kernelF16(d.channels, radius);
    case PixelType::F32:
      return typed::kernelF32(d.channels, radius);
  }
  return nullptr;
}

// Warps the current device holds at once of the instance for l (0 without a device).
int residentWarpsFor(const TypedStreamLaunch& l, int radius) {
  const void* k = kernelFor(l.image, radius);
  if (!k || !deviceInfo().available) return 0;
  return residentBlocks(k, 32 * kTypedStreamWarps, 0) * kTypedStreamWarps;
}

}  // namespace

StreamUnits typedStreamUnits(const TypedStreamLaunch& l, int radius, int residentWarps, int edgeDivisor) {
  const ImageDesc& d = l.image;
  const int tb = int(pixelTypeBytes(d.type)), c = d.channels;
  const int v = typedStreamLaneValues(tb, radius), lanes = typedStreamApronLanes(tb, c, radius);
  const int outV = typedStreamOutValues(tb, c, radius), rowValues = d.width * c;
  StreamUnits u{};
  u.strips = static_cast<int>(ceilDiv(rowValues, outV));
  const int divisor = residentWarps > 0 ? std::max(1, edgeDivisor) : 1;
  if (divisor > 1) {
    // Strip s reads values s outV - v lanes .. that + 32 v - 1.
    u.edgeLeft = lanes > 0 ? 1 : 0;
    while (u.edgeLeft + u.edgeRight < u.strips && (u.strips - 1 - u.edgeRight) * outV - v * lanes + 32 * v > rowValues)
      ++u.edgeRight;
    if (u.edgeLeft + u.edgeRight >= u.strips) u.edgeLeft = u.edgeRight = 0;  // all edge: nothing to set apart
  }
  const int edges = u.edgeLeft + u.edgeRight, tileRows = std::max(1, l.tileRows);
  const long long weight = (static_cast<long long>(u.strips - edges) + divisor * edges) * std::max(1, d.batch);
  const long long perStrip = std::max(1LL, residentWarps / weight);
  u.sh = residentWarps > 0 ? std::max<int>(tileRows, static_cast<int>((d.height + perStrip - 1) / perStrip)) : tileRows;
  u.edgeSh = edges ? static_cast<int>(ceilDiv(u.sh, divisor)) : u.sh;
  u.edgeUnits = edges * static_cast<int>(ceilDiv(d.height, u.edgeSh));
  u.units = u.edgeUnits + (u.strips - edges) * static_cast<int>(ceilDiv(d.height, u.sh));
  return u;
}

void streamTyped(const TypedStreamLaunch& l, const MaskSep& m) {
  if (m.radius < kTypedStreamMinRadius || m.radius > kTypedStreamMaxRadius)
    throw std::invalid_argument("stream: radius " + std::to_string(m.radius) + " has no typed instance (1..4)");
  if (l.image.width < 1 || l.image.height < 1 || l.image.batch < 1) return;
  switch (l.image.type) {
    case PixelType::U8:
      return typed::launchU8(l, m);
    case PixelType::U16:
      return typed::launchU16(l, m);
    case PixelType::F16:
      return typed::launchF16(l, m);
    case PixelType::F32:
      return typed::launchF32(l, m);
  }
  throw std::invalid_argument("stream: unknown pixel type");
}

LaunchDescription describeStreamTyped(const TypedStreamLaunch& l, int radius) {
  const ImageDesc& d = l.image;
  const int tb = int(pixelTypeBytes(d.type)), c = d.channels;
  const int v = typedStreamLaneValues(tb, radius), lanes = typedStreamApronLanes(tb, c, radius);
  const int outV = typedStreamOutValues(tb, c, radius);
  const int resident = residentWarpsFor(l, radius);
  const StreamUnits u = typedStreamUnits(l, radius, resident);
  const long long total = static_cast<long long>(u.units) * std::max(1, d.batch);
  const long long blocks = resident > 0 ? std::min<long long>((total + kTypedStreamWarps - 1) / kTypedStreamWarps,
                                                              std::max(1, resident / kTypedStreamWarps))
                                        : (total + kTypedStreamWarps - 1) / kTypedStreamWarps;
  PassLaunch p;
  p.kernel = "streamTypedKernel<" + std::string(pixelTypeName(d.type)) + ", " + std::to_string(c) + ", " +
             std::to_string(radius) + ">";
  p.grid = dimsOf(unsigned(blocks));
  p.block = dimsOf(32 * kTypedStreamWarps);
  p.threadsPerBlock = 32 * kTypedStreamWarps;
  p.outputsPerThread = double(d.width) * d.height * std::max(1, d.batch) / (double(blocks) * p.threadsPerBlock);
  setFootprint(p, outV / c, u.sh, 32 * v / c, u.sh + 2 * radius, -(v * lanes) / c, -radius);
  p.staticShared = std::size_t(kTypedStreamWarps) * 16 * 32 * v * tb;  // 16 ring slots a warp
  p.kernelFunction = kernelFor(d, radius);
  const int edges = u.edgeLeft + u.edgeRight;
  p.note = "persistent: " + std::to_string(u.units) + " units a frame (" + std::to_string(u.strips) + " strip" +
           (u.strips == 1 ? "" : "s") + " of " + std::to_string(outV) + " values x " + std::to_string(u.sh) + " rows" +
           (edges ? ", the " + std::to_string(edges) + " edge strips' x " + std::to_string(u.edgeSh) : std::string()) +
           "), one a warp" +
           (resident > 0 ? ", as many warps as the device holds at once"
                         : "; on a device, as many as it holds at once, walking taller segments");
  return LaunchDescription{{p}, ""};
}

// A warp walks down a segment: each input row comes in once through the ring (32 v values, the
// v L on each side apron), and every lane sums the row taps for its v values (neighbours' values
// by shuffles) and adds them to the 2r + 1 pending output rows. The apron lanes compute but store
// nothing.
WorkModel modelStreamTyped(const TypedStreamLaunch& l, int radius) {
  const ImageDesc& d = l.image;
  const int tb = int(pixelTypeBytes(d.type)), c = d.channels;
  const int v = typedStreamLaneValues(tb, radius), lanes = typedStreamApronLanes(tb, c, radius);
  const int outV = typedStreamOutValues(tb, c, radius);
  const StreamUnits u = typedStreamUnits(l, radius, residentWarpsFor(l, radius));
  const double inputs = 32.0 * v * (u.sh + 2 * radius), outputs = double(outV) * u.sh;  // values
  const double taps = 2 * radius + 1;
  WorkModel m;
  m.globalReads = inputs / outputs;
  m.globalBytes = m.globalReads * c * tb;
  m.sharedBytes = m.globalBytes;
  m.apron = m.globalReads;
  m.idleThreads = 2.0 * lanes / 32;
  m.flops = inputs / outputs * c * 2 * 2 * taps;
  m.dramBytes = 2.0 * c * tb;
  m.notes.push_back("a segment of " + std::to_string(u.sh) + " rows a warp; " + std::to_string(v) + " " +
                    pixelTypeName(d.type) + " values a lane, " + std::to_string(2 * lanes) +
                    " apron lanes; figures per pixel of " + std::to_string(c) + " values");
  return m;
}

}  // namespace convlive::kernels
