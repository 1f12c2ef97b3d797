// NV12 and I420 frames as the element sees them: GStreamer's formats, colorimetry and mapped planes
// in the colour library's terms (convlive/colour.hpp). Pure functions, any thread.
//
// The formats and colours come from pipeline/colorimetry.hpp (yuvFormatOf, colourSpecOf), whose
// source the plugin compiles in (it does not link the pipeline library).
#pragma once

#include <gst/video/video.h>

#include "colorimetry.hpp"
#include "convlive/colour.hpp"

namespace convlive::gstelement {

// The planes of a mapped NV12/I420 frame (host or, mapped with GST_MAP_CUDA, device pointers);
// valid while the frame stays mapped. Throws std::invalid_argument for other formats.
YuvView yuvViewOf(GstVideoFrame& frame);

}  // namespace convlive::gstelement
