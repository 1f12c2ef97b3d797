// The plugin `convlive`: one element, convlivefilter (convlive_filter.hpp). The project states no
// licence, so the descriptor says "unknown" (one of the names GStreamer accepts).
#include <gst/gst.h>

#include "convlive_filter.hpp"

#ifndef PACKAGE
#define PACKAGE "convlive"
#endif

static gboolean plugin_init(GstPlugin* plugin) { return gst_convlive_filter_register(plugin); }

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, convlive,
                  "Real-time 2D convolution (blur, sharpen, edges, custom masks) on CUDA or the CPU", plugin_init,
                  "1.0", "unknown", "convlive", "convlive")
