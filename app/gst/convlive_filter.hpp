// convlivefilter: a GstVideoFilter that runs convlive's filters on one-plane video frames in their
// own type and channel count (frame_formats.hpp: RGBA, BGRA, RGBx, BGRx and RGBA64_LE, the 4th
// channel alpha, filtered when filter-alpha is set, or padding, copied through; RGB and BGR; GRAY8
// and GRAY16_LE: the filter is per channel, so the order of the colour channels does not matter) and
// on NV12/I420 frames (converted to RGBA8 and back around the filter with the matrix and range of
// the caps' colorimetry, yuv_frames.hpp; filter-alpha does not apply to them), in system memory
// (frame_runner.hpp: through pinned memory to the GPU, or the CPU variant) or in CUDA memory
// (cuda_memory.hpp: on the device, untested on a GPU so far). Its properties are the filter
// model's settings (spec_properties.hpp), the read-only active-variant, and cuda-device-id (the GPU
// to filter on, taken at start: -1 follows an nvcodec neighbour's CUDA context or the default
// device; an index past the machine's devices, or CUDA memory from another device than the one
// named, is an element error).
//
// Threading: properties may be set from any thread, also while playing (GST_PARAM_MUTABLE_PLAYING);
// they are kept under the object lock and take effect at the next frame, where the streaming thread
// turns them into a convlive::Plan once per change. A value the library refuses is not taken (a
// warning names the property and the problem; the old value stays). A combination that cannot run
// (a variant that cannot take the mask, a tile with auto) stops the stream with an element error
// naming the property to change. Without a CUDA device the CPU variant runs, said once as a warning.
#pragma once

#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_CONVLIVE_FILTER (gst_convlive_filter_get_type())
G_DECLARE_FINAL_TYPE(GstConvliveFilter, gst_convlive_filter, GST, CONVLIVE_FILTER, GstVideoFilter)

// Registers the element `convlivefilter` with the plugin.
gboolean gst_convlive_filter_register(GstPlugin* plugin);

G_END_DECLS
