// GStreamer's colorimetry and formats in the colour library's terms (internal to pipeline/, and for
// anything else that holds a GstVideoInfo: the GStreamer element may use it too).
#pragma once

#include <gst/video/video.h>

#include <optional>

#include "convlive/colour.hpp"

namespace convlive {

// NV12 and I420; nullopt for every other format.
std::optional<YuvFormat> yuvFormatOf(GstVideoFormat format);

// The matrix and range a YUV frame of these caps is to be read with. GStreamer fills a missing
// colorimetry from the frame size when it parses caps; where the matrix is still unknown (or one we
// do not model), this does the same: BT.601 up to 576 lines, BT.709 above (FCC reads as BT.601 and
// SMPTE 240M as BT.709, their near twins). An unknown range is limited, as GStreamer assumes for YUV.
ColourSpec colourSpecOf(const GstVideoInfo& info);

// Caps colorimetry for frames written with `spec`: its matrix and range, with the transfer and
// primaries that go with the matrix (BT.709 transfer; BT.709, SMPTE 170M or BT.2020 primaries).
GstVideoColorimetry colorimetryOf(ColourSpec spec);

// The planes of a mapped YUV video frame (NV12 or I420) as a view; throws std::invalid_argument for
// other formats.
ConstYuvView yuvViewOf(const GstVideoFrame& frame);

}  // namespace convlive
