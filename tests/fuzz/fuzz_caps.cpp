// Caps as GStreamer parses them from text (a launch line's caps filter, a neighbour's caps) through
// convlive's readers of them: the colours of YUV frames (pipeline/colorimetry.cpp: colourSpecOf, and
// colorimetryOf back) and the element's layout of one-plane frames (app/gst/frame_formats.cpp:
// packedDescOf). Any caps GStreamer takes give a matrix and range convlive knows and a layout whose
// rows fit their pitch; none crashes.
#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>

#include "colorimetry.hpp"
#include "frame_formats.hpp"
#include "fuzz_input.hpp"

namespace {

void check(const GstCaps* one) {
  GstVideoInfo info;
  if (!gst_caps_is_fixed(one) || !gst_video_info_from_caps(&info, one)) return;
  const convlive::ColourSpec spec = convlive::colourSpecOf(info);
  const int matrix = int(spec.matrix), range = int(spec.range);
  if (matrix < 0 || matrix > int(convlive::ColourMatrix::Bt2020) || range < 0 ||
      range > int(convlive::ColourRange::Full))
    __builtin_trap();
  const GstVideoColorimetry back = convlive::colorimetryOf(spec);
  if (back.matrix == GST_VIDEO_COLOR_MATRIX_UNKNOWN) __builtin_trap();
  if (const auto desc = convlive::gstelement::packedDescOf(info)) {
    if (desc->width != int(GST_VIDEO_INFO_WIDTH(&info)) || desc->height != int(GST_VIDEO_INFO_HEIGHT(&info)))
      __builtin_trap();
    if (desc->rowPitch() < desc->rowBytes()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool started = [] {
    gst_init(nullptr, nullptr);
    return true;
  }();
  (void)started;
  const std::string text(convlive::fuzz::bytesOf(data, size));
  if (text.find('\0') != std::string::npos) return 0;
  GstCaps* caps = gst_caps_from_string(text.c_str());
  if (!caps) return 0;
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstCaps* one = gst_caps_copy_nth(caps, i);
    check(one);
    gst_caps_unref(one);
  }
  gst_caps_unref(caps);
  return 0;
}
