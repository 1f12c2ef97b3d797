#include "frame_staging.hpp"

#include <cstring>

#include "convlive/check.hpp"

namespace convlive {
namespace {

// Copies rows between host images of the same size (pitches may differ).
void copyRows(ConstImageView from, ImageView to) {
  const std::size_t rowBytes = std::size_t(from.width) * 4;
  if (from.pitch == to.pitch) {
    std::memcpy(to.data, from.data, from.pitch * std::size_t(from.height - 1) + rowBytes);
    return;
  }
  for (int y = 0; y < from.height; ++y) std::memcpy(to.row(y), from.row(y), rowBytes);
}

// Where the planes of a frame lie in the block [base, base + bytes) it came in.
YuvLayout layoutWithin(const ConstYuvView& v, const std::uint8_t* base, std::size_t bytes) {
  YuvLayout l;
  l.format = v.format, l.width = v.width, l.height = v.height, l.bytes = bytes;
  for (int p = 0; p < yuvPlaneCount(v.format); ++p) {
    l.offsets[p] = std::size_t(v.planes[p] - base);
    l.pitches[p] = v.pitches[p];
  }
  return l;
}

void copyPlanes(const ConstYuvView& from, const YuvView& to) {
  for (int p = 0; p < yuvPlaneCount(from.format); ++p)
    for (int y = 0; y < yuvPlaneRows(from.height, p); ++y)
      std::memcpy(to.planes[p] + std::size_t(y) * to.pitches[p], from.planes[p] + std::size_t(y) * from.pitches[p],
                  yuvRowBytes(from.format, from.width, p));
}

// RGBA frames: the host frame the upload reads (the sample itself, or its copy in the slot's
// pinned buffer).
ConstImageView stageRgba(Slot& slot, bool pinned) {
  GpuSlot& g = *slot.gpu;
  const ConstImageView src = slot.frame.pixels;
  const int w = src.width, h = src.height;
  const std::size_t rowBytes = std::size_t(w) * 4;
  slot.direct = pinned && slot.frame.pinned;
  if (!pinned || slot.frame.pinned) return src;
  if (g.hostIn.bytes() < rowBytes * h) g.hostIn = PinnedBuffer(rowBytes * h);
  const auto t0 = Clock::now();
  const ImageView staged{static_cast<std::uint8_t*>(g.hostIn.get()), w, h, rowBytes};
  copyRows(src, staged);
  slot.hostCopyMs = msBetween(t0, Clock::now());
  return staged;
}

// YUV frames: the block the upload copies in one piece (the sample's memory, or a copy in the
// slot's pinned buffer; planes lying apart are packed first), with slot.yuvLayout saying where its
// planes are.
const std::uint8_t* stageYuv(Slot& slot, bool pinned) {
  GpuSlot& g = *slot.gpu;
  const SourceFrame& f = slot.frame;
  slot.yuvLayout =
      f.bytes ? layoutWithin(f.yuv, f.bytes, f.byteCount) : packedYuvLayout(f.yuv.format, f.yuv.width, f.yuv.height);
  g.yuvIn.reserve(slot.yuvLayout.bytes);
  slot.direct = pinned && f.pinned && f.bytes;
  if (f.bytes && (!pinned || f.pinned)) return f.bytes;
  std::uint8_t* to;
  if (pinned) {
    if (g.hostIn.bytes() < slot.yuvLayout.bytes) g.hostIn = PinnedBuffer(slot.yuvLayout.bytes);
    to = static_cast<std::uint8_t*>(g.hostIn.get());
  } else {
    slot.hostStaging.resize(slot.yuvLayout.bytes);
    to = slot.hostStaging.data();
  }
  const auto t0 = Clock::now();
  if (f.bytes)
    std::memcpy(to, f.bytes, f.byteCount);
  else
    copyPlanes(f.yuv, yuvViewAt(slot.yuvLayout, to));
  slot.hostCopyMs = msBetween(t0, Clock::now());
  return to;
}

// Grey frames: the plane the upload copies in one piece (the sample's memory, or a copy in the
// slot's pinned buffer).
const void* stageGrey(Slot& slot, bool pinned) {
  GpuSlot& g = *slot.gpu;
  const SourceFrame& f = slot.frame;
  const std::size_t bytes = f.greyDesc.span();
  slot.direct = pinned && f.pinned;
  if (!pinned || f.pinned) return f.grey;
  if (g.hostIn.bytes() < bytes) g.hostIn = PinnedBuffer(bytes);
  const auto t0 = Clock::now();
  std::memcpy(g.hostIn.get(), f.grey, bytes);
  slot.hostCopyMs = msBetween(t0, Clock::now());
  return g.hostIn.get();
}

}  // namespace

void enqueueUpload(Slot& slot, bool pinned) {
  GpuSlot& g = *slot.gpu;
  const cudaStream_t s = g.stream.get();
  slot.hostCopyMs = 0;
  if (slot.frame.onDevice) {  // NVDEC's frame, in GPU memory: converted where it is
    slot.uploadedFrom = {};
    slot.direct = false;
    slot.enqueued = Clock::now();
    g.start.record(s);
    g.uploaded.record(s);
    yuvToRgba(slot.frame.yuv, g.in.view(), slot.frame.colour, s);
    g.converted.record(s);
    return;
  }
  if (slot.frame.isYuv()) {
    const std::uint8_t* from = stageYuv(slot, pinned);
    slot.uploadedFrom = {};
    slot.enqueued = Clock::now();
    g.start.record(s);
    CL_CUDA(cudaMemcpyAsync(g.yuvIn.get(), from, slot.yuvLayout.bytes, cudaMemcpyHostToDevice, s));
    g.uploaded.record(s);
    yuvToRgba(yuvViewAt(slot.yuvLayout, g.yuvIn.as<const std::uint8_t>()), g.in.view(), slot.frame.colour, s);
    g.converted.record(s);
    return;
  }
  if (slot.frame.isGrey()) {
    const void* from = stageGrey(slot, pinned);
    const ImageDesc& d = slot.frame.greyDesc;
    slot.uploadedFrom = {};
    slot.enqueued = Clock::now();
    g.start.record(s);
    CL_CUDA(cudaMemcpyAsync(g.greyIn.get(), from, d.span(), cudaMemcpyHostToDevice, s));
    g.uploaded.record(s);
    if (!slot.filtersGrey()) greyToRgba(g.greyIn.get(), d, g.in.view(), s);  // the variant takes RGBA8 only
    g.converted.record(s);
    return;
  }
  const ConstImageView upFrom = stageRgba(slot, pinned);
  slot.uploadedFrom = upFrom;
  slot.enqueued = Clock::now();
  g.start.record(s);
  CL_CUDA(cudaMemcpy2DAsync(g.in.view().data, g.in.pitch(), upFrom.data, upFrom.pitch, std::size_t(upFrom.width) * 4,
                            upFrom.height, cudaMemcpyHostToDevice, s));
  g.uploaded.record(s);
  g.converted.record(s);
}

ConstImageView rgbaOnHost(Slot& slot) {
  slot.cpuConvertMs = 0;
  if (!slot.frame.isYuv() && !slot.frame.isGrey()) return slot.frame.pixels;
  const int w = slot.frame.pixels.width, h = slot.frame.pixels.height;
  slot.hostRgba.resize(std::size_t(w) * h * 4);
  const ImageView rgba{slot.hostRgba.data(), w, h, std::size_t(w) * 4};
  const auto t0 = Clock::now();
  if (slot.frame.isGrey()) {
    referenceGreyToRgba(slot.frame.grey, slot.frame.greyDesc, rgba);
    slot.cpuConvertMs = msBetween(t0, Clock::now());
    return rgba;
  }
  ConstYuvView from = slot.frame.yuv;
  if (slot.frame.onDevice) {  // an NVDEC frame for a CPU variant: its planes to host memory first
    const YuvLayout packed = packedYuvLayout(from.format, w, h);
    slot.hostStaging.resize(packed.bytes);
    const YuvView to = yuvViewAt(packed, slot.hostStaging.data());
    for (int p = 0; p < yuvPlaneCount(from.format); ++p)
      CL_CUDA(cudaMemcpy2D(to.planes[p], to.pitches[p], from.planes[p], from.pitches[p], yuvRowBytes(from.format, w, p),
                           std::size_t(yuvPlaneRows(h, p)), cudaMemcpyDeviceToHost));
    from = to;
  }
  referenceYuvToRgba(from, rgba, slot.frame.colour);
  slot.cpuConvertMs = msBetween(t0, Clock::now());
  return rgba;
}

}  // namespace convlive
