// Owning pointers for GStreamer and GLib objects (internal to pipeline/): convlive::Handle with
// each type's release.
#pragma once

#include <gst/gst.h>

#include <string>

#include "convlive/handle.hpp"

namespace convlive::gst {

// Caps, samples and messages are mini objects: one release for all of them (gst_caps_unref and
// the like are inline functions, one per translation unit, so their addresses cannot name a type).
template <class T>
void unrefMiniObject(T* object) noexcept {
  gst_mini_object_unref(GST_MINI_OBJECT_CAST(object));
}

using ElementPtr = Handle<GstElement*, &gst_object_unref>;
using PadPtr = Handle<GstPad*, &gst_object_unref>;
using BusPtr = Handle<GstBus*, &gst_object_unref>;
using CapsPtr = Handle<GstCaps*, &unrefMiniObject<GstCaps>>;
using SamplePtr = Handle<GstSample*, &unrefMiniObject<GstSample>>;
using MessagePtr = Handle<GstMessage*, &unrefMiniObject<GstMessage>>;
using ErrorPtr = Handle<GError*, &g_error_free>;
using CharPtr = Handle<gchar*, &g_free>;

inline std::string str(const gchar* s) { return s ? s : ""; }

// Takes ownership of a newly made element, sinking its floating reference (null stays null).
inline ElementPtr owned(GstElement* element) {
  return ElementPtr(element ? GST_ELEMENT(gst_object_ref_sink(element)) : nullptr);
}

}  // namespace convlive::gst
