#include "yuv_frames.hpp"

#include <stdexcept>
#include <string>

namespace convlive::gstelement {

YuvView yuvViewOf(GstVideoFrame& frame) {
  const auto format = yuvFormatOf(GST_VIDEO_FRAME_FORMAT(&frame));
  if (!format)
    throw std::invalid_argument(std::string("not an NV12 or I420 frame: ") + GST_VIDEO_INFO_NAME(&frame.info));
  YuvView v;
  v.format = *format;
  v.width = GST_VIDEO_FRAME_WIDTH(&frame);
  v.height = GST_VIDEO_FRAME_HEIGHT(&frame);
  for (int p = 0; p < yuvPlaneCount(*format); ++p) {
    v.planes[p] = static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    v.pitches[p] = std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p));
  }
  return v;
}

}  // namespace convlive::gstelement
