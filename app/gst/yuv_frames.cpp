#include "yuv_frames.hpp"

#include <stdexcept>
#include <string>

namespace convlive::gstelement {

std::optional<YuvFormat> yuvFormatOf(GstVideoFormat format) {
  if (format == GST_VIDEO_FORMAT_NV12) return YuvFormat::NV12;
  if (format == GST_VIDEO_FORMAT_I420) return YuvFormat::I420;
  return std::nullopt;
}

namespace {

ColourMatrix matrixOf(GstVideoColorMatrix m, int height) {
  switch (m) {
    case GST_VIDEO_COLOR_MATRIX_BT601:
    case GST_VIDEO_COLOR_MATRIX_FCC:
      return ColourMatrix::Bt601;
    case GST_VIDEO_COLOR_MATRIX_BT709:
    case GST_VIDEO_COLOR_MATRIX_SMPTE240M:
      return ColourMatrix::Bt709;
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      return ColourMatrix::Bt2020;
    default:
      return height <= 576 ? ColourMatrix::Bt601 : ColourMatrix::Bt709;
  }
}

}  // namespace

ColourSpec colourSpecOf(const GstVideoColorimetry& colorimetry, int height) {
  ColourSpec spec;
  spec.matrix = matrixOf(colorimetry.matrix, height);
  spec.range = colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255 ? ColourRange::Full : ColourRange::Limited;
  return spec;
}

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
