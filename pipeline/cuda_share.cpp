#define GST_USE_UNSTABLE_API  // GstCuda in 1.22 is "unstable API"; its headers warn without this
#include "cuda_share.hpp"

#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <cstring>
#include <mutex>

namespace convlive {
namespace {

// The nvcodec plugin's decoders (their ranks may be none: they are listed whatever the rank).
GList* nvdecFactories() {
  GList* out = nullptr;
  GList* features = gst_registry_get_feature_list_by_plugin(gst_registry_get(), "nvcodec");
  for (GList* f = features; f; f = f->next) {
    if (!GST_IS_ELEMENT_FACTORY(f->data)) continue;
    auto* factory = GST_ELEMENT_FACTORY(f->data);
    const char* klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
    if (klass && std::strstr(klass, "Decoder") && std::strstr(klass, "Video"))
      out = g_list_append(out, gst_object_ref(factory));
  }
  gst_plugin_feature_list_free(features);
  return out;
}

struct Shared {
  GstCudaContext* context = nullptr;  // never released: it wraps the primary context for the process
  std::string why;
};

const Shared& shared() {
  static Shared s;
  static std::once_flag once;
  std::call_once(once, [] {
    if (!gst_cuda_load_library()) {
      s.why = "GStreamer's CUDA library cannot load the NVIDIA driver (libcuda)";
      return;
    }
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
      cudaGetLastError();
      s.why = "no CUDA device";
      return;
    }
    // The runtime made its primary context current on this thread: wrap that one.
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUcontext ctx = nullptr;
    CUdevice dev = 0;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess || !fn || reinterpret_cast<CUresult (*)(CUcontext*)>(fn)(&ctx) != 0 ||
        !ctx || CuDeviceGet(&dev, device) != CUDA_SUCCESS) {
      cudaGetLastError();
      s.why = "the CUDA runtime's context could not be handed to GStreamer";
      return;
    }
    s.context = gst_cuda_context_new_wrapped(ctx, dev);
    if (!s.context) s.why = "GStreamer could not wrap the CUDA runtime's context";
  });
  return s;
}

GValueArray* onAutoplugFactories(GstElement*, GstPad*, GstCaps* caps, gpointer) {
  // decodebin's own answer: every decoder, parser, demuxer... (rank marginal and up) for these caps.
  GList* all = gst_element_factory_list_get_elements(GST_ELEMENT_FACTORY_TYPE_DECODABLE, GST_RANK_MARGINAL);
  GList* usual = gst_element_factory_list_filter(all, caps, GST_PAD_SINK, gst_caps_is_fixed(caps));
  gst_plugin_feature_list_free(all);
  usual = g_list_sort(usual, gst_plugin_feature_rank_compare_func);
  GList* nv = nvdecFactories();
  GList* nvFit = gst_element_factory_list_filter(nv, caps, GST_PAD_SINK, gst_caps_is_fixed(caps));
  gst_plugin_feature_list_free(nv);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS  // decodebin's signal takes a GValueArray
      GValueArray* out = g_value_array_new(0);
  GValue v = G_VALUE_INIT;
  g_value_init(&v, G_TYPE_OBJECT);
  for (GList* list : {nvFit, usual})
    for (GList* f = list; f; f = f->next) {
      if (list == usual && g_list_find(nvFit, f->data)) continue;
      g_value_set_object(&v, f->data);
      g_value_array_append(out, &v);
    }
  G_GNUC_END_IGNORE_DEPRECATIONS
  g_value_unset(&v);
  gst_plugin_feature_list_free(nvFit);
  gst_plugin_feature_list_free(usual);
  return out;
}

}  // namespace

bool nvdecAvailable(std::string& why) {
  GList* nv = nvdecFactories();
  const bool any = nv != nullptr;
  gst_plugin_feature_list_free(nv);
  if (!any) {
    why = "GStreamer's NVDEC decoders (nvcodec, in gstreamer1.0-plugins-bad) are not installed or found no NVDEC";
    return false;
  }
  if (!shared().context) {
    why = shared().why;
    return false;
  }
  return true;
}

bool shareCudaContext(GstElement* pipeline, std::string& why) {
  if (!shared().context) {
    why = shared().why;
    return false;
  }
  GstContext* context = gst_context_new_cuda_context(shared().context);
  gst_element_set_context(pipeline, context);
  gst_context_unref(context);
  return true;
}

bool inSharedCudaContext(GstBuffer* buffer) {
  if (!shared().context || gst_buffer_n_memory(buffer) != 1) return false;
  GstMemory* mem = gst_buffer_peek_memory(buffer, 0);
  return gst_is_cuda_memory(mem) && GST_CUDA_MEMORY_CAST(mem)->context == shared().context;
}

GstMapFlags cudaMapFlags() { return GstMapFlags(GST_MAP_READ | GST_MAP_CUDA); }

void preferNvdec(GstElement* uridecodebin) {
  g_signal_connect(uridecodebin, "autoplug-factories", G_CALLBACK(onAutoplugFactories), nullptr);
}

}  // namespace convlive
