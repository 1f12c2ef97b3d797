#include "frame_formats.hpp"

namespace convlive::gstelement {

// GRAY16_LE and RGBA64_LE are the library's u16 values only where the host is little-endian.
static_assert(G_BYTE_ORDER == G_LITTLE_ENDIAN, "the _LE formats are taken as native u16 values");

std::optional<ImageDesc> packedDescOf(const GstVideoInfo& info) {
  ImageDesc d;
  switch (GST_VIDEO_INFO_FORMAT(&info)) {
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
      d.type = PixelType::U8;
      d.channels = 4;
      break;
    case GST_VIDEO_FORMAT_RGBA64_LE:
      d.type = PixelType::U16;
      d.channels = 4;
      break;
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      d.type = PixelType::U8;
      d.channels = 3;
      break;
    case GST_VIDEO_FORMAT_GRAY8:
      d.type = PixelType::U8;
      d.channels = 1;
      break;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      d.type = PixelType::U16;
      d.channels = 1;
      break;
    default:
      return std::nullopt;
  }
  d.width = GST_VIDEO_INFO_WIDTH(&info);
  d.height = GST_VIDEO_INFO_HEIGHT(&info);
  d.alpha = d.channels == 4 && GST_VIDEO_INFO_HAS_ALPHA(&info);  // RGBx, BGRx: padding, copied through
  d.pitch = std::size_t(GST_VIDEO_INFO_PLANE_STRIDE(&info, 0));
  return d;
}

FrameRows rowsOf(GstVideoFrame& frame) {
  return {static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)), GST_VIDEO_FRAME_WIDTH(&frame),
          GST_VIDEO_FRAME_HEIGHT(&frame), std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0))};
}

}  // namespace convlive::gstelement
