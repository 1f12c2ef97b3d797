#define GST_USE_UNSTABLE_API  // GstCuda in 1.22 is "unstable API"; its headers warn without this
#include "cuda_memory.hpp"

#include <dlfcn.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "convlive/check.hpp"
#include "convlive/colour.hpp"
#include "convlive/resources.hpp"
#include "frame_formats.hpp"
#include "yuv_frames.hpp"

GST_DEBUG_CATEGORY_EXTERN(convlive_filter_debug);  // the element's (convlive_filter.cpp)
#define GST_CAT_DEFAULT convlive_filter_debug

namespace convlive::gstelement {
namespace {

GstCudaContext* cudaContext(gpointer p) { return static_cast<GstCudaContext*>(p); }

// The CUDA device a GstCuda context lives on.
int deviceOf(GstCudaContext* context) {
  guint device = 0;
  g_object_get(context, "cuda-device-id", &device, nullptr);
  return int(device);
}

// The context current on this thread while it lives, so that the runtime API's calls (the variant's
// launches, stream and workspace allocations) go to the pipeline's context.
class ContextCurrent {
 public:
  explicit ContextCurrent(GstCudaContext* c) : pushed_(c && gst_cuda_context_push(c)) {
    if (!pushed_) throw std::runtime_error("could not make the pipeline's CUDA context current");
  }
  ~ContextCurrent() {
    if (pushed_) gst_cuda_context_pop(nullptr);
  }
  ContextCurrent(const ContextCurrent&) = delete;
  ContextCurrent& operator=(const ContextCurrent&) = delete;

 private:
  bool pushed_;
};

// A mapped video frame (GST_MAP_CUDA: device pointers), unmapped when it goes.
class MappedFrame {
 public:
  MappedFrame(const GstVideoInfo& info, GstBuffer* buffer, GstMapFlags flags) {
    GstVideoInfo copy = info;
    mapped_ = gst_video_frame_map(&frame_, &copy, buffer, GstMapFlags(flags | GST_MAP_CUDA));
    if (!mapped_) throw std::runtime_error("could not map a CUDA memory frame on the device");
  }
  ~MappedFrame() {
    if (mapped_) gst_video_frame_unmap(&frame_);
  }
  MappedFrame(const MappedFrame&) = delete;
  MappedFrame& operator=(const MappedFrame&) = delete;
  ImageView view() {
    const FrameRows r = rows();
    return {r.data, r.width, r.height, r.pitch};
  }
  FrameRows rows() { return rowsOf(frame_); }
  YuvView yuvView() { return yuvViewOf(frame_); }

 private:
  GstVideoFrame frame_{};
  bool mapped_ = false;
};

// cuDevicePrimaryCtxRetain and cuDevicePrimaryCtxRelease, from the driver GstCuda's loader has
// loaded (its table has neither; the plugin does not link libcuda, so that it loads without a driver).
struct PrimaryCalls {
  CUresult (*retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*release)(CUdevice) = nullptr;
};

const PrimaryCalls& primaryCalls() {
  static const PrimaryCalls calls = [] {
    PrimaryCalls c;
    if (void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {  // stays loaded: GstCuda holds it
      c.retain = reinterpret_cast<decltype(c.retain)>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
      c.release = reinterpret_cast<decltype(c.release)>(dlsym(lib, "cuDevicePrimaryCtxRelease_v2"));
      dlclose(lib);
    }
    return c;
  }();
  return calls;
}

void releasePrimary(gpointer device, GObject*) { primaryCalls().release(CUdevice(GPOINTER_TO_INT(device))); }

// Device `device`'s primary context (the CUDA runtime's own: the library's, PyTorch's and CuPy's)
// as a GstCudaContext, the same one for every element of the process while any holds it (a new
// reference), or null with the reason. GStreamer 1.22's elements each make a context of their own
// where the pipeline's cached one (one per pipeline, whatever the device) is another device's: in
// a pipeline over two GPUs nearly every branch had its own, and contexts on one GPU take turns on
// it. One per device avoids that.
GstCudaContext* primaryContext(int device, std::string& why) {
  static std::mutex m;
  static auto& known = *new std::map<int, GWeakRef>;  // zero-filled weak references; never destroyed
  std::lock_guard lock(m);
  GWeakRef& ref = known[device];
  if (gpointer held = g_weak_ref_get(&ref)) return cudaContext(held);
  const PrimaryCalls& calls = primaryCalls();
  CUdevice handle = 0;
  CUcontext primary = nullptr;
  if (!calls.retain || !calls.release) {
    why = "the CUDA driver has no cuDevicePrimaryCtxRetain";
    return nullptr;
  }
  if (!gst_cuda_result(CuInit(0)) || !gst_cuda_result(CuDeviceGet(&handle, device)) ||
      calls.retain(&primary, handle) != CUDA_SUCCESS) {
    why = "the primary CUDA context of device " + std::to_string(device) + " could not be taken";
    return nullptr;
  }
  GstCudaContext* context = gst_cuda_context_new_wrapped(primary, handle);
  if (!context) {
    calls.release(handle);
    why = "GstCuda could not wrap the primary CUDA context of device " + std::to_string(device);
    return nullptr;
  }
  // Released after GstCuda's own weak-reference cleanup (which makes the context current).
  g_object_weak_ref(G_OBJECT(context), releasePrimary, GINT_TO_POINTER(int(handle)));
  g_weak_ref_set(&ref, context);
  return context;
}

}  // namespace

struct CudaMemoryPath::Device {
  Stream stream;
  Plan plan;       // for the caps' row stride
  Plan repitched;  // the same filter for the stride the frames' pool gave them (made at the first such frame)
  DeviceBuffer stagedIn, stagedOut;  // one-plane frames whose input and output strides differ, at plan's pitch
  DeviceImage rgbaIn, rgbaOut;       // NV12/I420 frames as RGBA8 around the filter (made at the first such frame)
  int width = 0, height = 0;         // their size
  void ensureRgba(int w, int h) {
    if (w == width && h == height) return;
    rgbaIn = DeviceImage(w, h);
    rgbaOut = DeviceImage(w, h);
    width = w, height = h;
  }
  // The plan for rows `pitch` bytes apart: `plan`, or one made like it (the variant it resolved to,
  // its tile) for that pitch: CUDA pools pitch their rows their own way. Throws ProblemError.
  Plan& planFor(std::size_t pitch) {
    if (pitch == plan.image().rowPitch()) return plan;
    if (!repitched || repitched.image().rowPitch() != pitch) {
      ImageDesc image = plan.image();
      image.pitch = pitch;
      image.batchStride = 0;
      repitched = Plan::make(plan.params(), plan.variant().name, image, plan.options());
    }
    return repitched;
  }
  // out = plan(in) for one-plane frames other than RGBA8 (Plan::run takes one pitch for both sides):
  // in place where the strides agree, else through device frames of the plan's pitch.
  void runFrame(const FrameRows& in, const FrameRows& out, cudaStream_t s) {
    if (in.pitch == out.pitch) {
      planFor(in.pitch).run(in.data, out.data, s);
      return;
    }
    const ImageDesc& image = plan.image();
    stagedIn.reserve(image.span());
    stagedOut.reserve(image.span());
    CL_CUDA(cudaMemcpy2DAsync(stagedIn.get(), image.rowPitch(), in.data, in.pitch, image.rowBytes(),
                              std::size_t(image.height), cudaMemcpyDeviceToDevice, s));
    plan.run(stagedIn.get(), stagedOut.get(), s);
    CL_CUDA(cudaMemcpy2DAsync(out.data, out.pitch, stagedOut.get(), image.rowPitch(), image.rowBytes(),
                              std::size_t(image.height), cudaMemcpyDeviceToDevice, s));
  }
};

const char* cudaMemoryCaps() {
  return GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, CONVLIVE_GST_CUDA_FORMATS);
}

bool hasCudaMemoryFeature(GstCaps* caps) {
  if (!caps || gst_caps_is_empty(caps)) return false;
  GstCapsFeatures* f = gst_caps_get_features(caps, 0);
  return f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

CudaMemoryPath::CudaMemoryPath(GstElement* element) : element_(element) {}
CudaMemoryPath::~CudaMemoryPath() { reset(); }

int CudaMemoryPath::primaryDevice() const {
  if (deviceId_ >= 0) return deviceId_;
  return deviceCount() == 1 ? 0 : -1;
}

void CudaMemoryPath::shareDeviceContext() {
  const int device = primaryDevice();
  if (context_ || device < 0 || !gst_cuda_load_library()) return;  // takeDevice checked the index
  std::string why;
  GstCudaContext* ctx = primaryContext(device, why);
  if (!ctx) {
    GST_WARNING_OBJECT(element_, "%s: a context is found or made when the first frame comes", why.c_str());
    return;
  }
  context_ = ctx;
  GST_INFO_OBJECT(element_, "CUDA memory in the primary CUDA context of device %d (%p), shared with the pipeline",
                  device, gst_cuda_context_get_handle(ctx));
  GstMessage* have = gst_message_new_have_context(GST_OBJECT(element_), gst_context_new_cuda_context(ctx));
  gst_element_post_message(element_, have);
}

void CudaMemoryPath::setContext(GstContext* context) {
  if (primaryDevice() >= 0) return;  // the device's primary context is taken at READY
  auto* ctx = cudaContext(context_);
  gst_cuda_handle_set_context(element_, context, deviceId_, &ctx);  // another device's is not taken
  context_ = ctx;
}

int CudaMemoryPath::contextDevice() const { return context_ ? deviceOf(cudaContext(context_)) : -1; }

std::string CudaMemoryPath::deviceMismatch(GstBuffer* in) const {
  if (deviceId_ < 0 || !in || gst_buffer_n_memory(in) < 1) return "";
  GstMemory* mem = gst_buffer_peek_memory(in, 0);
  if (!gst_is_cuda_memory(mem)) return "";
  const int theirs = deviceOf(GST_CUDA_MEMORY_CAST(mem)->context);
  if (theirs == deviceId_) return "";
  const std::string asked = std::to_string(deviceId_);
  return "cuda-device-id is " + asked + ", but the frames coming in are CUDA memory on device " +
         std::to_string(theirs) + ": set cuda-device-id=" + std::to_string(theirs) +
         " (or -1 to follow the upstream element), or have upstream work on device " + asked +
         " (an nvcodec decoder whose cuda-device-id is " + asked + ", such as nvh264device" + asked +
         "dec: gst-inspect-1.0 shows each one's)";
}

void CudaMemoryPath::adoptNeighbourContext() {
  if (context_ || !gst_cuda_load_library()) return;
  for (const char* pad : {"src", "sink"}) {
    GstPad* self = gst_element_get_static_pad(element_, pad);
    GstQuery* query = gst_query_new_context(GST_CUDA_CONTEXT_TYPE);
    if (self && gst_pad_peer_query(self, query)) {
      GstContext* found = nullptr;
      gst_query_parse_context(query, &found);
      if (found) setContext(found);
    }
    gst_query_unref(query);
    if (self) gst_object_unref(self);
    if (context_) return;
  }
}

bool CudaMemoryPath::answerContextQuery(GstQuery* query) {
  return context_ && gst_cuda_handle_context_query(element_, query, cudaContext(context_));
}

bool CudaMemoryPath::ensureContext(std::string& why) {
  if (context_) return true;
  if (!gst_cuda_load_library()) {
    why =
        "CUDA memory needs the CUDA driver (libcuda), which could not be loaded: "
        "this machine has no NVIDIA driver; use system-memory caps (cudadownload before convlivefilter)";
    return false;
  }
  auto* ctx = cudaContext(context_);
  if (!gst_cuda_ensure_element_context(element_, deviceId_, &ctx) || !ctx) {
    why = deviceId_ < 0 ? "no CUDA context for CUDA memory: no neighbour shares one and none could be made on a device"
                        : "no CUDA context for CUDA memory on device " + std::to_string(deviceId_) +
                              " (cuda-device-id): no neighbour shares one and none could be made there";
    return false;
  }
  context_ = ctx;
  return true;
}

bool CudaMemoryPath::proposeAllocation(GstQuery* query) {
  GstCaps* caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo info;
  if (!caps || !context_ || !gst_video_info_from_caps(&info, caps)) return false;
  if (gst_query_get_n_allocation_pools(query) == 0) {
    GstBufferPool* pool = gst_cuda_buffer_pool_new(cudaContext(context_));
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params(config, caps, guint(info.size), 0, 0);
    if (!gst_buffer_pool_set_config(pool, config)) {
      gst_object_unref(pool);
      return false;
    }
    // The pool may have made the size larger (pitched rows): say what it holds.
    config = gst_buffer_pool_get_config(pool);
    guint size = 0;
    gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
    gst_structure_free(config);
    gst_query_add_allocation_pool(query, pool, size, 0, 0);
    gst_object_unref(pool);
  }
  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  return true;
}

bool CudaMemoryPath::decideAllocation(GstQuery* query) {
  GstCaps* caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo info;
  if (!caps || !context_ || !gst_video_info_from_caps(&info, caps)) return false;
  GstBufferPool* pool = nullptr;
  guint size = guint(info.size), min = 0, max = 0;
  const bool had = gst_query_get_n_allocation_pools(query) > 0;
  if (had) gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
  if (pool && !(GST_IS_CUDA_BUFFER_POOL(pool) && GST_CUDA_BUFFER_POOL(pool)->context == cudaContext(context_))) {
    gst_object_unref(pool);  // another kind of memory, or another context's: ours instead
    pool = nullptr;
  }
  if (!pool) pool = gst_cuda_buffer_pool_new(cudaContext(context_));
  GstStructure* config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params(config, caps, size, min, max);
  gst_buffer_pool_set_config(pool, config);
  config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
  gst_structure_free(config);
  if (had)
    gst_query_set_nth_allocation_pool(query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool(query, pool, size, min, max);
  gst_object_unref(pool);
  return true;
}

std::string CudaMemoryPath::whyNot(GstBuffer* in, GstBuffer* out) const {
  if (!context_) return "no CUDA context";
  for (auto [buffer, side] : {std::pair{in, "input"}, std::pair{out, "output"}}) {
    if (!buffer || gst_buffer_n_memory(buffer) != 1)
      return std::string("the ") + side + " frame is not one block of memory";
    GstMemory* mem = gst_buffer_peek_memory(buffer, 0);
    if (!gst_is_cuda_memory(mem)) return std::string("the ") + side + " frame is not CUDA memory";
    if (GST_CUDA_MEMORY_CAST(mem)->context != cudaContext(context_))
      return std::string("the ") + side + " frame is in another CUDA context than this element's";
  }
  return "";
}

void CudaMemoryPath::prepare(const Plan& plan) {
  ContextCurrent current(cudaContext(context_));
  device_.reset();  // the old stream goes in this context, before the new one is made
  device_ = std::make_unique<Device>();
  device_->plan = plan;
}

void CudaMemoryPath::run(GstBuffer* in, const GstVideoInfo& inInfo, GstBuffer* out, const GstVideoInfo& outInfo) {
  ContextCurrent current(cudaContext(context_));
  if (!device_ || !device_->plan) throw std::logic_error("the CUDA memory path runs before it was prepared");
  MappedFrame from(inInfo, in, GST_MAP_READ);
  MappedFrame to(outInfo, out, GST_MAP_WRITE);
  Device& d = *device_;
  const cudaStream_t s = d.stream.get();
  if (yuvFormatOf(GST_VIDEO_INFO_FORMAT(&inInfo))) {
    const ColourSpec colour = colourSpecOf(inInfo);
    d.ensureRgba(GST_VIDEO_INFO_WIDTH(&inInfo), GST_VIDEO_INFO_HEIGHT(&inInfo));
    yuvToRgba(from.yuvView(), d.rgbaIn.view(), colour, s);
    d.plan.run(d.rgbaIn.view(), d.rgbaOut.view(), s);
    rgbaToYuv(d.rgbaOut.view(), to.yuvView(), colour, s);
  } else if (d.plan.image().isRgba8()) {
    d.plan.run(from.view(), to.view(), s);  // any strides on either side
  } else {
    d.runFrame(from.rows(), to.rows(), s);
  }
  d.stream.synchronize();  // 1.22's CUDA memory has no stream to hand the work on with
}

void CudaMemoryPath::reset() {
  if (device_) {
    try {
      ContextCurrent current(cudaContext(context_));
      device_.reset();
    } catch (const std::exception&) {
      device_.reset();  // the context cannot be made current: the release fails, quietly (RAII)
    }
  }
  if (context_) gst_object_unref(std::exchange(context_, nullptr));
}

}  // namespace convlive::gstelement
