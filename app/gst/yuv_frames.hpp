// NV12 and I420 frames as the element sees them: GStreamer's formats, colorimetry and mapped planes
// in the colour library's terms (convlive/colour.hpp). Pure functions, any thread.
//
// (pipeline/colorimetry.hpp does the same for the pipeline; the element keeps its own few lines so
// that the plugin does not link the pipeline library.)
#pragma once

#include <gst/video/video.h>

#include <optional>

#include "convlive/colour.hpp"

namespace convlive::gstelement {

// NV12 and I420; nullopt for every other format (the RGBA family).
std::optional<YuvFormat> yuvFormatOf(GstVideoFormat format);

// The matrix and range to read and write frames of these caps with. BT.601, BT.709 and BT.2020 as
// the caps say (FCC as BT.601, SMPTE 240M as BT.709: their near twins); an unknown matrix (caps
// without colorimetry that GStreamer did not fill in) is BT.601 up to 576 lines (SD) and BT.709
// above (HD), as GStreamer's own default. Range 0_255 is full; anything else limited (16-235).
ColourSpec colourSpecOf(const GstVideoColorimetry& colorimetry, int height);

// The planes of a mapped NV12/I420 frame (host or, mapped with GST_MAP_CUDA, device pointers);
// valid while the frame stays mapped. Throws std::invalid_argument for other formats.
YuvView yuvViewOf(GstVideoFrame& frame);

}  // namespace convlive::gstelement
