#include "colorimetry.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace convlive {
namespace {

// A colorimetry field as the number it holds: caps may carry any number there ("99:99:99:99"
// parses), and reading such a value through the enum's type is undefined behaviour in C++.
template <class Enum>
int numberOf(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int));
  int n = 0;
  std::memcpy(&n, &field, sizeof n);
  return n;
}

}  // namespace

std::optional<YuvFormat> yuvFormatOf(GstVideoFormat format) {
  if (format == GST_VIDEO_FORMAT_NV12) return YuvFormat::NV12;
  if (format == GST_VIDEO_FORMAT_I420) return YuvFormat::I420;
  return std::nullopt;
}

ColourSpec colourSpecOf(const GstVideoInfo& info) {
  ColourSpec spec;
  switch (numberOf(info.colorimetry.matrix)) {
    case GST_VIDEO_COLOR_MATRIX_BT601:
    case GST_VIDEO_COLOR_MATRIX_FCC:
      spec.matrix = ColourMatrix::Bt601;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT709:
    case GST_VIDEO_COLOR_MATRIX_SMPTE240M:
      spec.matrix = ColourMatrix::Bt709;
      break;
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      spec.matrix = ColourMatrix::Bt2020;
      break;
    default:
      spec.matrix = GST_VIDEO_INFO_HEIGHT(&info) > 576 ? ColourMatrix::Bt709 : ColourMatrix::Bt601;
      break;
  }
  spec.range =
      numberOf(info.colorimetry.range) == GST_VIDEO_COLOR_RANGE_0_255 ? ColourRange::Full : ColourRange::Limited;
  return spec;
}

GstVideoColorimetry colorimetryOf(ColourSpec spec) {
  GstVideoColorimetry c{};
  c.range = spec.range == ColourRange::Full ? GST_VIDEO_COLOR_RANGE_0_255 : GST_VIDEO_COLOR_RANGE_16_235;
  c.transfer = GST_VIDEO_TRANSFER_BT709;
  switch (spec.matrix) {
    case ColourMatrix::Bt601:
      c.matrix = GST_VIDEO_COLOR_MATRIX_BT601;
      c.primaries = GST_VIDEO_COLOR_PRIMARIES_SMPTE170M;
      break;
    case ColourMatrix::Bt709:
      c.matrix = GST_VIDEO_COLOR_MATRIX_BT709;
      c.primaries = GST_VIDEO_COLOR_PRIMARIES_BT709;
      break;
    case ColourMatrix::Bt2020:
      c.matrix = GST_VIDEO_COLOR_MATRIX_BT2020;
      c.primaries = GST_VIDEO_COLOR_PRIMARIES_BT2020;
      break;
  }
  return c;
}

ConstYuvView yuvViewOf(const GstVideoFrame& frame) {
  const std::optional<YuvFormat> format = yuvFormatOf(GST_VIDEO_FRAME_FORMAT(&frame));
  if (!format)
    throw std::invalid_argument(std::string("not an NV12 or I420 frame: ") +
                                gst_video_format_to_string(GST_VIDEO_FRAME_FORMAT(&frame)));
  ConstYuvView v;
  v.format = *format;
  v.width = GST_VIDEO_FRAME_WIDTH(&frame);
  v.height = GST_VIDEO_FRAME_HEIGHT(&frame);
  for (int p = 0; p < yuvPlaneCount(*format); ++p) {
    v.planes[p] = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    v.pitches[p] = std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p));
  }
  return v;
}

}  // namespace convlive
