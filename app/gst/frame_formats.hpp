// The video formats convlivefilter takes, and how each one-plane format is laid out for the library
// (convlive/image.hpp): every format is filtered in its own type and channel count, never converted
// (NV12 and I420, two or three planes, go through RGBA8: yuv_frames.hpp). Pure functions, any thread.
#pragma once

#include <gst/video/video.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "convlive/image.hpp"

namespace convlive::gstelement {

// In system memory: the RGBA8 family (u8x4; the 4th byte alpha or padding), RGB and BGR (u8x3),
// GRAY8 (u8x1), GRAY16_LE (u16x1), RGBA64_LE (u16x4 with alpha), NV12 and I420. The filter is per
// channel, so the order of the colour channels does not matter.
#define CONVLIVE_GST_SYSTEM_FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGBA64_LE, RGB, BGR, GRAY8, GRAY16_LE, NV12, I420 }"
// In CUDA memory: those that GstCuda's allocator can lay out. GRAY8, GRAY16_LE and RGBA64_LE are not
// among them (gst_cuda_allocator_alloc in 1.22 reaches g_assert_not_reached() for them, and
// cudaupload, cudadownload and nvcodec do not offer them), so they stay system-memory formats.
#define CONVLIVE_GST_CUDA_FORMATS "{ RGBA, BGRA, RGBx, BGRx, RGB, BGR, NV12, I420 }"

// The library's description of one frame of a one-plane format: width, height, type, channels,
// alpha (4 channels: alpha when the format has it, else padding) and the caps' row stride as the
// pitch. nullopt for NV12, I420 and formats the element does not take.
std::optional<ImageDesc> packedDescOf(const GstVideoInfo& info);

// The first plane of a mapped frame (host or, mapped with GST_MAP_CUDA, device pointers): its size in
// pixels, its first row and the bytes from one row to the next. Valid while the frame stays mapped.
struct FrameRows {
  std::uint8_t* data = nullptr;
  int width = 0, height = 0;
  std::size_t pitch = 0;
};
FrameRows rowsOf(GstVideoFrame& frame);

}  // namespace convlive::gstelement
