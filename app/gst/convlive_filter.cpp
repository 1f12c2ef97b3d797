#include "convlive_filter.hpp"

#include <gst/video/video.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>

#include "convlive/plan.hpp"
#include "convlive/resources.hpp"
#include "cuda_memory.hpp"
#include "frame_formats.hpp"
#include "frame_runner.hpp"
#include "spec_properties.hpp"
#include "yuv_frames.hpp"

GST_DEBUG_CATEGORY(convlive_filter_debug);  // cuda_memory.cpp logs in it too
#define GST_CAT_DEFAULT convlive_filter_debug

namespace convlive::gstelement {

// The element's C++ side, owned by the GObject instance.
struct ElementState {
  explicit ElementState(GstElement* element) : cuda(element) {}

  // Under the object lock: what the user set (any thread), and which variant runs (for reads).
  FilterSpec spec;
  std::uint64_t generation = 1;  // bumped by every accepted property change
  std::string active;
  int deviceId = -1;  // cuda-device-id: -1, the neighbour's context or the default device

  // Set at start from deviceId: the device a plan runs on (-1 where cuda-device-id is -1 or there
  // is no CUDA device, where the CPU variant runs).
  int device = -1;

  // The streaming thread's alone.
  std::uint64_t applied = 0;  // the generation `plan` was made from
  bool capsChanged = true;
  int width = 0, height = 0;
  ImageDesc frames;              // the frames as the library filters them (frame_formats.hpp; YUV: RGBA8)
  std::optional<YuvFormat> yuv;  // NV12/I420 frames (converted to RGBA8 and back around the filter)
  ColourSpec colour;             // their matrix and range, from the caps' colorimetry
  bool cudaCaps = false;         // the frames are CUDA memory (video/x-raw(memory:CUDAMemory))
  int cudaPathSaid = 0;          // CUDA memory: which way the frames went was logged (1: device, 2: host) for this plan
  Plan plan;                     // empty: cannot run, `problem` says why
  std::string problem;           // "property 'variant': the mask is not separable ...: set variant=tiled-coop"
  FrameRunner runner;            // frames in system memory
  CudaMemoryPath cuda;           // frames in CUDA memory
  bool saidNoDevice = false;
};

}  // namespace convlive::gstelement

struct _GstConvliveFilter {
  GstVideoFilter parent;
  convlive::gstelement::ElementState* state;
};

G_DEFINE_TYPE(GstConvliveFilter, gst_convlive_filter, GST_TYPE_VIDEO_FILTER)

namespace {

using namespace convlive;
using namespace convlive::gstelement;

// One-plane formats are filtered in their own type and channel count (frame_formats.hpp: the RGBA8
// family, RGB and BGR, GRAY8, GRAY16_LE, RGBA64_LE); the filter is per channel, so the order of
// the colour channels does not matter. NV12 and I420 are converted to RGBA8 (alpha 255) before the
// filter and back after it. In CUDA memory first (no host copy where the neighbours can), then in
// system memory.
GstCaps* templateCaps() {
  GstCaps* caps = gst_caps_from_string(cudaMemoryCaps());
  gst_caps_append(caps, gst_caps_from_string(GST_VIDEO_CAPS_MAKE(CONVLIVE_GST_SYSTEM_FORMATS)));
  return caps;
}

// Property ids: 1 + the setting's index in specSettings(), then active-variant and cuda-device-id.
guint activeVariantId() { return guint(specSettings().size()) + 1; }
guint deviceIdProperty() { return activeVariantId() + 1; }

ElementState& stateOf(gpointer self) { return *GST_CONVLIVE_FILTER(self)->state; }

// What the whole spec says about this one setting's value ("1,,2" as weights parses only when
// compiled). Conflicts with other settings are not its own: gst-launch sets properties one at a time
// (tile=32x8 before variant=tiled), so those wait for the next frame's plan.
Problem ownProblem(const FilterSpec& spec, const std::string& setting) {
  Problem why = spec.validate();
  if (why.setting != setting || why.code == Problem::Code::Conflict || why.code == Problem::Code::CannotRun) return {};
  return why;
}

void setProperty(GObject* object, guint id, const GValue* value, GParamSpec* pspec) {
  const auto& settings = specSettings();
  if (id == deviceIdProperty()) {  // taken at the next start (GST_PARAM_MUTABLE_READY)
    GST_OBJECT_LOCK(object);
    stateOf(object).deviceId = g_value_get_int(value);
    GST_OBJECT_UNLOCK(object);
    return;
  }
  if (id == 0 || id > settings.size()) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    return;
  }
  const Setting& s = settings[id - 1];
  const std::string text = textOf(s, *value);
  ElementState& st = stateOf(object);
  GST_OBJECT_LOCK(object);
  FilterSpec candidate = st.spec;
  GST_OBJECT_UNLOCK(object);
  Problem why = candidate.set(s.name, text);
  if (!why) why = ownProblem(candidate, s.name);
  std::string kept;
  GST_OBJECT_LOCK(object);
  if (!why) why = st.spec.set(s.name, text);  // on the spec as it is now: another thread may have set another
  if (why)
    kept = st.spec.get(s.name);
  else
    ++st.generation;
  GST_OBJECT_UNLOCK(object);
  if (!why) {
    GST_DEBUG_OBJECT(object, "%s=%s (applied at the next frame)", s.name.c_str(), text.c_str());
    return;
  }
  const std::string message = "cannot set " + s.name + " to \"" + text + "\": " + propertyWords(why) + " (" + s.name +
                              " stays \"" + kept + "\")";
  GST_WARNING_OBJECT(object, "%s", message.c_str());
  // In a bin the warning goes on the bus; before that (gst-launch sets properties while it parses)
  // nobody would hear it there, so it goes where GObject's own refusals go.
  if (GST_OBJECT_PARENT(object))
    GST_ELEMENT_WARNING(object, LIBRARY, SETTINGS, ("%s", message.c_str()), (nullptr));
  else
    g_warning("convlivefilter: %s", message.c_str());
}

void getProperty(GObject* object, guint id, GValue* value, GParamSpec* pspec) {
  const auto& settings = specSettings();
  ElementState& st = stateOf(object);
  if (id == activeVariantId()) {
    GST_OBJECT_LOCK(object);
    g_value_set_string(value, st.active.c_str());
    GST_OBJECT_UNLOCK(object);
    return;
  }
  if (id == deviceIdProperty()) {
    GST_OBJECT_LOCK(object);
    g_value_set_int(value, st.deviceId);
    GST_OBJECT_UNLOCK(object);
    return;
  }
  if (id == 0 || id > settings.size()) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    return;
  }
  const Setting& s = settings[id - 1];
  GST_OBJECT_LOCK(object);
  const std::string text = st.spec.get(s.name);
  GST_OBJECT_UNLOCK(object);
  storeText(s, text, *value);
}

// What a plan needs on the frames that come: device work in the pipeline's CUDA context for CUDA
// memory, and the host runner's buffers in any case: CUDA memory from another context is filtered
// through system memory (on the H200 a frame from cudaupload failed on an unprepared runner).
void prepareFor(ElementState& st, const Plan& plan) {
  if (st.cudaCaps && plan.onGpu()) st.cuda.prepare(plan);
  st.runner.prepare(plan, st.yuv);
}

// The plan for `spec` on the negotiated frames, or the reason it cannot run in the element's words.
// Frames reach a GPU plan in device memory (the runner's device frames or CUDA memory), a CPU plan
// in host memory (Memory::Native); without a CUDA device the CPU runs in place of a GPU variant,
// with a warning.
Plan makePlan(const ElementState& st, const FilterSpec& spec, std::string& problem) {
  // RGBA8 frames go through the view overload, which takes any stride: planned packed, as always.
  // Others are planned for the caps' stride (FrameRunner copies a frame with another one).
  ImageDesc image = st.frames;
  if (image.isRgba8()) image.pitch = 0;
  // CUDA memory is filtered in the context's device (a neighbour's, or the one cuda-device-id named).
  const int device = st.cudaCaps && st.cuda.contextDevice() >= 0 ? st.cuda.contextDevice() : st.device;
  try {
    Problem why;
    Plan plan = Plan::make(spec, image, {.memory = Memory::Native, .device = device, .cpuFallback = true}, why);
    if (why) problem = propertyWords(why);
    return plan;
  } catch (const std::exception& e) {
    problem = "choosing variant " + spec.variant + " failed: " + e.what();
  }
  return {};
}

// Streaming thread: turns a property or caps change into a plan, once per change. A change that
// cannot run while an earlier filter runs on frames of the same size is not taken (a warning says
// why, the earlier filter goes on); with nothing running yet, the next frame posts the error.
void refreshPlan(GstConvliveFilter* self) {
  ElementState& st = *self->state;
  FilterSpec spec;
  std::uint64_t generation;
  GST_OBJECT_LOCK(self);
  generation = st.generation;
  if (generation == st.applied && !st.capsChanged) {
    GST_OBJECT_UNLOCK(self);
    return;
  }
  spec = st.spec;
  GST_OBJECT_UNLOCK(self);

  std::string problem;
  Plan next = makePlan(st, spec, problem);
  if (next && !next.note().empty() && !st.saidNoDevice) {
    GST_WARNING_OBJECT(self, "%s", next.note().c_str());
    st.saidNoDevice = true;
  }
  if (next) {
    try {
      prepareFor(st, next);
    } catch (const std::exception& e) {
      problem = "preparing " + next.variant().name + " for " + std::to_string(st.width) + "x" +
                std::to_string(st.height) + " frames failed: " + e.what();
      next = Plan();
    }
  }
  const bool keepRunning = !next && st.plan && !st.capsChanged;
  if (keepRunning) {
    const std::string message = "the new settings (" + spec.describe() + ") cannot run: " + problem +
                                "; still filtering with " + st.plan.variant().name + " as before";
    GST_WARNING_OBJECT(self, "%s", message.c_str());
    GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("%s", message.c_str()), (nullptr));
    try {
      prepareFor(st, st.plan);  // a failed prepare may have cleared it
    } catch (const std::exception& e) {
      st.plan = Plan();
      st.problem = std::string("preparing the previous filter again failed: ") + e.what();
    }
  } else {
    st.plan = std::move(next);
    st.problem = problem;
    if (st.plan) {
      const int device = st.plan.options().device >= 0 ? st.plan.options().device : currentDevice();
      const std::string where = st.plan.onGpu() ? "CUDA device " + std::to_string(device) : "the CPU";
      GST_INFO_OBJECT(self, "%s on %dx%d with %s on %s%s%s", spec.describe().c_str(), st.width, st.height,
                      st.plan.variant().name.c_str(), where.c_str(), st.plan.autoWhy().empty() ? "" : ": ",
                      st.plan.autoWhy().c_str());
    }
  }
  st.applied = generation;
  st.capsChanged = false;
  st.cudaPathSaid = 0;
  GST_OBJECT_LOCK(self);
  st.active = st.plan ? st.plan.variant().name : "";
  GST_OBJECT_UNLOCK(self);

  GstBaseTransform* trans = GST_BASE_TRANSFORM(self);
  const bool passthrough = st.plan && st.plan.identity();
  if (passthrough != bool(gst_base_transform_is_passthrough(trans))) {
    GST_DEBUG_OBJECT(self, "passthrough %s", passthrough ? "on: the filter is the identity" : "off");
    gst_base_transform_set_passthrough(trans, passthrough);
    gst_base_transform_reconfigure_src(trans);  // an output pool is wanted again (or no longer)
  }
}

void beforeTransform(GstBaseTransform* trans, GstBuffer* buffer) {
  auto* parent = GST_BASE_TRANSFORM_CLASS(gst_convlive_filter_parent_class);
  if (parent->before_transform) parent->before_transform(trans, buffer);
  refreshPlan(GST_CONVLIVE_FILTER(trans));
}

gboolean setInfo(GstVideoFilter* filter, GstCaps* incaps, GstVideoInfo* in, GstCaps*, GstVideoInfo*) {
  ElementState& st = stateOf(filter);
  st.cudaCaps = hasCudaMemoryFeature(incaps);
  std::string why;
  if (st.cudaCaps && !st.cuda.ensureContext(why)) {
    GST_ELEMENT_ERROR(filter, RESOURCE, NOT_FOUND, ("cannot take CUDA memory: %s", why.c_str()), (nullptr));
    return FALSE;
  }
  st.width = GST_VIDEO_INFO_WIDTH(in);
  st.height = GST_VIDEO_INFO_HEIGHT(in);
  st.yuv = yuvFormatOf(GST_VIDEO_INFO_FORMAT(in));
  const std::optional<ImageDesc> frames = packedDescOf(*in);
  if (!st.yuv && !frames) {  // the pad templates let no other format through
    GST_ELEMENT_ERROR(filter, CORE, NEGOTIATION, ("convlivefilter does not take %s frames", GST_VIDEO_INFO_NAME(in)),
                      (nullptr));
    return FALSE;
  }
  if (frames) {
    st.frames = *frames;
  } else {  // NV12/I420: filtered as RGBA8 whose alpha (255) is padding: filter-alpha does not apply
    st.frames = ImageDesc::rgba8(st.width, st.height);
    st.frames.alpha = false;
  }
  st.colour = colourSpecOf(*in);
  st.capsChanged = true;
  GST_DEBUG_OBJECT(filter, "caps: %s %dx%d in %s memory, filtered as %s%s%s", GST_VIDEO_INFO_NAME(in), st.width,
                   st.height, st.cudaCaps ? "CUDA" : "system", st.frames.str().c_str(),
                   st.yuv ? ", converted with " : "", st.yuv ? describe(st.colour).c_str() : "");
  return TRUE;
}

GstFlowReturn transformFrame(GstVideoFilter* filter, GstVideoFrame* in, GstVideoFrame* out) {
  ElementState& st = stateOf(filter);
  if (!st.plan) {
    GST_ELEMENT_ERROR(filter, LIBRARY, SETTINGS, ("cannot filter: %s", st.problem.c_str()), (nullptr));
    return GST_FLOW_ERROR;
  }
  try {
    if (st.yuv)
      st.runner.runYuv(st.plan, st.colour, yuvViewOf(*in), yuvViewOf(*out));
    else
      st.runner.run(st.plan, rowsOf(*in), rowsOf(*out));
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(filter, RESOURCE, FAILED, ("%s failed on a frame: %s", st.plan.variant().name.c_str(), e.what()),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

// CUDA memory with a GPU variant: filtered on the device. Everything else through GstVideoFilter,
// which maps the frames into system memory (CUDA memory too, by a copy) and calls transformFrame.
GstFlowReturn transform(GstBaseTransform* trans, GstBuffer* in, GstBuffer* out) {
  ElementState& st = stateOf(trans);
  auto* parent = GST_BASE_TRANSFORM_CLASS(gst_convlive_filter_parent_class);
  if (!st.cudaCaps || !st.plan) return parent->transform(trans, in, out);
  if (const std::string wrong = st.cuda.deviceMismatch(in); !wrong.empty()) {
    GST_ELEMENT_ERROR(trans, RESOURCE, SETTINGS, ("%s", wrong.c_str()), (nullptr));
    return GST_FLOW_ERROR;
  }
  const std::string why = st.plan.onGpu() ? st.cuda.whyNot(in, out) : "a CPU variant";
  if (!why.empty()) {
    if (st.cudaPathSaid != 2)
      GST_INFO_OBJECT(trans, "CUDA memory frames filtered through system memory (%s)", why.c_str());
    st.cudaPathSaid = 2;
    return parent->transform(trans, in, out);
  }
  if (st.cudaPathSaid != 1)
    GST_INFO_OBJECT(trans, "CUDA memory frames filtered on the device with %s", st.plan.variant().name.c_str());
  st.cudaPathSaid = 1;
  GstVideoFilter* filter = GST_VIDEO_FILTER(trans);
  try {
    st.cuda.run(in, filter->in_info, out, filter->out_info);
  } catch (const std::exception& e) {
    GST_ELEMENT_ERROR(trans, RESOURCE, FAILED,
                      ("%s failed on a CUDA memory frame: %s", st.plan.variant().name.c_str(), e.what()), (nullptr));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

gboolean proposeAllocation(GstBaseTransform* trans, GstQuery* decide, GstQuery* query) {
  auto* parent = GST_BASE_TRANSFORM_CLASS(gst_convlive_filter_parent_class);
  GstCaps* caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  if (gst_base_transform_is_passthrough(trans) || !hasCudaMemoryFeature(caps))
    return parent->propose_allocation(trans, decide, query);
  ElementState& st = stateOf(trans);
  std::string why;
  return st.cuda.ensureContext(why) && st.cuda.proposeAllocation(query);
}

gboolean decideAllocation(GstBaseTransform* trans, GstQuery* query) {
  auto* parent = GST_BASE_TRANSFORM_CLASS(gst_convlive_filter_parent_class);
  GstCaps* caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  if (hasCudaMemoryFeature(caps) && !stateOf(trans).cuda.decideAllocation(query)) return FALSE;
  return parent->decide_allocation(trans, query);
}

gboolean query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* q) {
  if (GST_QUERY_TYPE(q) == GST_QUERY_CONTEXT && stateOf(trans).cuda.answerContextQuery(q)) return TRUE;
  return GST_BASE_TRANSFORM_CLASS(gst_convlive_filter_parent_class)->query(trans, direction, q);
}

void setContext(GstElement* element, GstContext* context) {
  stateOf(element).cuda.setContext(context);
  GST_ELEMENT_CLASS(gst_convlive_filter_parent_class)->set_context(element, context);
}

// cuda-device-id checked against the devices there are and taken (an element error naming them
// where it is past them).
bool takeDevice(GstElement* element) {
  ElementState& st = stateOf(element);
  GST_OBJECT_LOCK(element);
  const int asked = st.deviceId;
  GST_OBJECT_UNLOCK(element);
  const int count = deviceCount();
  // Without a device, 0 (the default device) is where the CPU variant runs, as with -1.
  if (asked >= count && !(count == 0 && asked == 0)) {
    const std::string message =
        "cuda-device-id=" + std::to_string(asked) + ": this machine has " + describeDevices() +
        (count ? "; set cuda-device-id to one of them, or -1 (`convlive list devices` lists them)"
               : "; set cuda-device-id=-1, and the CPU variant filters");
    GST_ELEMENT_ERROR(element, RESOURCE, SETTINGS, ("%s", message.c_str()), (nullptr));
    return false;
  }
  st.device = count == 0 ? -1 : asked;
  st.cuda.setDevice(st.device);
  return true;
}

// Going to READY, before the elements upstream (a bin changes state from the sinks up): the
// device's primary CUDA context is taken and posted, so that an upstream decoder finds it when it
// opens (CudaMemoryPath::shareDeviceContext).
GstStateChangeReturn changeState(GstElement* element, GstStateChange transition) {
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    if (!takeDevice(element)) return GST_STATE_CHANGE_FAILURE;
    stateOf(element).cuda.shareDeviceContext();
  }
  return GST_ELEMENT_CLASS(gst_convlive_filter_parent_class)->change_state(element, transition);
}

// Going to PAUSED: the device again (stop let the context go), then a neighbour's CUDA context if
// the device's primary one is not taken (see adoptNeighbourContext).
gboolean start(GstBaseTransform* trans) {
  ElementState& st = stateOf(trans);
  if (!takeDevice(GST_ELEMENT(trans))) return FALSE;
  st.cuda.shareDeviceContext();
  st.cuda.adoptNeighbourContext();
  return TRUE;
}

// Going to READY: the CUDA resources go; the next start plans again.
gboolean stop(GstBaseTransform* trans) {
  ElementState& st = stateOf(trans);
  st.runner.reset();
  st.cuda.reset();
  st.plan = Plan();
  st.problem.clear();
  st.applied = 0;
  st.capsChanged = true;
  GST_OBJECT_LOCK(trans);
  st.active.clear();
  GST_OBJECT_UNLOCK(trans);
  return TRUE;
}

void finalize(GObject* object) {
  delete std::exchange(GST_CONVLIVE_FILTER(object)->state, nullptr);
  G_OBJECT_CLASS(gst_convlive_filter_parent_class)->finalize(object);
}

}  // namespace

static void gst_convlive_filter_class_init(GstConvliveFilterClass* klass) {
  GObjectClass* object = G_OBJECT_CLASS(klass);
  GstElementClass* element = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans = GST_BASE_TRANSFORM_CLASS(klass);
  GstVideoFilterClass* video = GST_VIDEO_FILTER_CLASS(klass);
  object->set_property = setProperty;
  object->get_property = getProperty;
  object->finalize = finalize;

  const auto& settings = specSettings();
  for (std::size_t i = 0; i < settings.size(); ++i)
    g_object_class_install_property(object, guint(i + 1),
                                    paramSpecFor(settings[i], GParamFlags(GST_PARAM_MUTABLE_PLAYING)));
  g_object_class_install_property(
      object, activeVariantId(),
      g_param_spec_string("active-variant", "Active variant",
                          "the variant filtering now: auto resolved, the CPU variant where there is no CUDA device; "
                          "empty before the first frame and after an error",
                          "", G_PARAM_READABLE));
  g_object_class_install_property(
      object, deviceIdProperty(),
      g_param_spec_int("cuda-device-id", "CUDA device id",
                       "the CUDA device to filter on (convlive list devices), in its primary CUDA context, which the "
                       "element shares with its neighbours; -1: the only device on a machine of one, else the CUDA "
                       "context of an nvcodec neighbour. CUDA memory from another device than a device named here "
                       "is an element error. Taken when the element starts",
                       -1, G_MAXINT, -1, GParamFlags(G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY)));

  gst_element_class_set_static_metadata(
      element, "convlive filter", "Filter/Effect/Video",
      "2D convolution on video: box, gaussian and sharpen, emboss, laplacian, sobel and scharr edges, pitch "
      "inspection and custom masks, with convlive's CUDA kernel variants or its CPU variants",
      "convlive");
  GstCaps* caps = templateCaps();
  gst_element_class_add_pad_template(element, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template(element, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref(caps);

  element->set_context = setContext;
  element->change_state = changeState;
  trans->before_transform = beforeTransform;
  trans->transform = transform;
  trans->propose_allocation = proposeAllocation;
  trans->decide_allocation = decideAllocation;
  trans->query = query;
  trans->start = start;
  trans->stop = stop;
  video->set_info = setInfo;
  video->transform_frame = transformFrame;
}

static void gst_convlive_filter_init(GstConvliveFilter* self) {
  self->state = new convlive::gstelement::ElementState(GST_ELEMENT(self));
}

gboolean gst_convlive_filter_register(GstPlugin* plugin) {
  GST_DEBUG_CATEGORY_INIT(convlive_filter_debug, "convlivefilter", 0, "convlive's convolution element");
  return gst_element_register(plugin, "convlivefilter", GST_RANK_NONE, GST_TYPE_CONVLIVE_FILTER);
}
