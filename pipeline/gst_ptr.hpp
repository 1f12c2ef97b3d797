// Owning pointers for GStreamer and GLib objects (internal to pipeline/).
#pragma once

#include <gst/gst.h>

#include <memory>
#include <string>

namespace convlive::gst {

struct ObjectUnref {
  void operator()(gpointer p) const {
    if (p) gst_object_unref(p);
  }
};
struct CapsUnref {
  void operator()(GstCaps* c) const {
    if (c) gst_caps_unref(c);
  }
};
struct SampleUnref {
  void operator()(GstSample* s) const {
    if (s) gst_sample_unref(s);
  }
};
struct MessageUnref {
  void operator()(GstMessage* m) const {
    if (m) gst_message_unref(m);
  }
};
struct ErrorFree {
  void operator()(GError* e) const {
    if (e) g_error_free(e);
  }
};
struct GFree {
  void operator()(gpointer p) const { g_free(p); }
};

using ElementPtr = std::unique_ptr<GstElement, ObjectUnref>;
using PadPtr = std::unique_ptr<GstPad, ObjectUnref>;
using BusPtr = std::unique_ptr<GstBus, ObjectUnref>;
using CapsPtr = std::unique_ptr<GstCaps, CapsUnref>;
using SamplePtr = std::unique_ptr<GstSample, SampleUnref>;
using MessagePtr = std::unique_ptr<GstMessage, MessageUnref>;
using ErrorPtr = std::unique_ptr<GError, ErrorFree>;
using CharPtr = std::unique_ptr<gchar, GFree>;

inline std::string str(const gchar* s) { return s ? s : ""; }

// Takes ownership of a newly made element, sinking its floating reference (null stays null).
inline ElementPtr owned(GstElement* element) {
  return ElementPtr(element ? GST_ELEMENT(gst_object_ref_sink(element)) : nullptr);
}

}  // namespace convlive::gst
