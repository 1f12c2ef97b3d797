// The GStreamer element convlivefilter, driven through real pipelines (appsrc ! convlivefilter !
// appsink) with the plugin found on GST_PLUGIN_PATH (ctest sets it to the build's app/gst).
// Built twice: convlive_tests_gst_element_cpu (label cpu) runs the cpu-simd variant;
// convlive_tests_gst_element_gpu (CONVLIVE_GST_GPU, label gpu) runs GPU variants through the
// element's pinned upload/download path and skips, with the reason, without a CUDA device.
//
// Every output frame lands in a buffer from the test's own pool, poisoned on each acquire with
// 0xcd or 0x32 by turns and padded on the right (an odd stride), so an unwritten pixel cannot pass
// and the element must honour strides; each frame is filtered twice (both poisons). Input frames
// are random (CONVLIVE_TEST_SEED replays a run), of odd sizes, with padded and odd input strides.
// The expected output is the library's reference filter of the input frame, within 1 LSB; for NV12
// and I420 frames, the reference chain YUV -> RGBA -> filter -> YUV (tolerances at those tests).
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#ifdef CONVLIVE_GST_GPU
#define GST_USE_UNSTABLE_API
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"
#include "filter_cases.hpp"
#include "process_memory.hpp"
#include "test_colour_common.hpp"

// ---- A buffer pool that poisons every buffer it hands out ---------------------------------------

struct PoisonPool {
  GstVideoBufferPool parent;
};
struct PoisonPoolClass {
  GstVideoBufferPoolClass parent_class;
};
G_DEFINE_TYPE(PoisonPool, poison_pool, GST_TYPE_VIDEO_BUFFER_POOL)

namespace {

GQuark poisonQuark() { return g_quark_from_static_string("convlive-test-poison"); }

// 0xcd and 0x32 by turns, over the whole process (the value is kept on the buffer as qdata).
std::uint8_t nextPoison() {
  static std::atomic<unsigned> n{0};
  return (n++ % 2) ? 0x32 : 0xcd;
}

}  // namespace

static GstFlowReturn poison_pool_acquire(GstBufferPool* pool, GstBuffer** buffer, GstBufferPoolAcquireParams* params) {
  const GstFlowReturn r = GST_BUFFER_POOL_CLASS(poison_pool_parent_class)->acquire_buffer(pool, buffer, params);
  if (r != GST_FLOW_OK) return r;
  const std::uint8_t poison = nextPoison();
  GstMapInfo map;
  if (gst_buffer_map(*buffer, &map, GST_MAP_WRITE)) {
    std::memset(map.data, poison, map.size);
    gst_buffer_unmap(*buffer, &map);
  }
  gst_mini_object_set_qdata(GST_MINI_OBJECT(*buffer), poisonQuark(), GUINT_TO_POINTER(poison + 1u), nullptr);
  return r;
}
static void poison_pool_class_init(PoisonPoolClass* klass) {
  GST_BUFFER_POOL_CLASS(klass)->acquire_buffer = poison_pool_acquire;
}
static void poison_pool_init(PoisonPool*) {}

namespace {

using namespace convlive;

#ifdef CONVLIVE_GST_GPU
constexpr bool kGpu = true;
const char* const kVariant = "tiled-coop";  // runs every filter kind at the radii used here
#else
constexpr bool kGpu = false;
const char* const kVariant = "cpu-simd";
#endif

constexpr int kPadRight = 3;  // pixels of padding the output pool puts at the end of each row

using Props = std::vector<std::pair<std::string, std::string>>;

// The plugin from this build (CONVLIVE_GST_PLUGIN_DIR) first on GST_PLUGIN_PATH, and a registry of
// the tests' own, so that the user's registry is left alone.
bool ensureGst() {
  static const bool ok = [] {
    const char* old = g_getenv("GST_PLUGIN_PATH");
    const std::string path = std::string(CONVLIVE_GST_PLUGIN_DIR) + (old && *old ? std::string(":") + old : "");
    g_setenv("GST_PLUGIN_PATH", path.c_str(), TRUE);
    g_setenv("GST_REGISTRY", CONVLIVE_GST_REGISTRY, FALSE);
    return bool(gst_init_check(nullptr, nullptr, nullptr));
  }();
  return ok;
}

// A width x height frame of one-plane pixels (4 bytes unless said), rows `stride` bytes apart (the
// padding random too).
struct Frame {
  int width = 0, height = 0;
  std::size_t stride = 0;
  std::vector<std::uint8_t> bytes;
  ConstImageView view() const { return {bytes.data(), width, height, stride}; }
};

Frame randomFrame(int w, int h, std::size_t stride, std::mt19937& rng) {
  Frame f{w, h, stride, std::vector<std::uint8_t>(stride * std::size_t(h))};
  for (auto& b : f.bytes) b = static_cast<std::uint8_t>(rng() >> 24);
  return f;
}

// GStreamer's default row stride for w x h frames of `format` (what a buffer without a video meta has).
std::size_t defaultStride(const std::string& format, int w, int h) {
  GstVideoInfo vi;
  if (!gst_video_info_set_format(&vi, gst_video_format_from_string(format.c_str()), guint(w), guint(h))) return 0;
  return std::size_t(GST_VIDEO_INFO_PLANE_STRIDE(&vi, 0));
}

// The pixels of f packed (stride 4 * width), for the reference.
HostImage packed(const Frame& f) {
  HostImage img(f.width, f.height);
  for (int y = 0; y < f.height; ++y)
    std::memcpy(img.pixels().data() + std::size_t(y) * img.pitch(), f.bytes.data() + std::size_t(y) * f.stride,
                img.pitch());
  return img;
}

// The reference filter of `in` for the element's properties on a frame of `format`.
HostImage expected(const Props& props, const Frame& in, const std::string& format) {
  FilterSpec spec;
  for (const auto& [k, v] : props)
    if (k != "variant" && k != "tile")
      if (Problem p = spec.set(k, v)) throw ProblemError(p);
  const FilterParams p = spec.params();
  const bool hasAlpha = format == "RGBA" || format == "BGRA";
  HostImage want(in.width, in.height);
  referenceFilter(p.filter, p.border, p.filterAlpha && hasAlpha, packed(in).view(), want.view());
  return want;
}

struct Output {
  std::vector<std::uint8_t> pixels;  // packed (rows width x pixel bytes long)
  std::string format;
  int width = 0, height = 0;
  std::size_t stride = 0;
  int poison = -1;               // the pool's poison in this buffer; -1: not from the test's pool
  bool paddingUntouched = true;  // the row padding still holds the poison
  const GstBuffer* buffer = nullptr;
  const void* memory = nullptr;  // the first memory's data (passthrough: the input's)
};

// At most 1 apart in every byte; else where and by how much.
testing::AssertionResult within1(const std::vector<std::uint8_t>& got, const HostImage& want) {
  if (got.size() != want.pixels().size())
    return testing::AssertionFailure() << "size " << got.size() << ", want " << want.pixels().size();
  int bad = 0;
  std::string first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::abs(int(got[i]) - int(want.pixels()[i])) <= 1) continue;
    if (bad++ == 0) {
      const std::size_t px = i / 4;
      first = "(" + std::to_string(px % std::size_t(want.width())) + "," +
              std::to_string(px / std::size_t(want.width())) + ") channel " + std::to_string(i % 4) + ": got " +
              std::to_string(got[i]) + ", want " + std::to_string(want.pixels()[i]);
    }
  }
  if (!bad) return testing::AssertionSuccess();
  return testing::AssertionFailure() << bad << " bytes differ by more than 1, first at " << first;
}

// appsrc ! convlivefilter ! appsink, the output pool the test's (see the top of the file).
class Harness {
 public:
  // `middle`: what goes between appsrc and appsink, with the element named f.
  explicit Harness(const Props& props, bool testPool = true, const std::string& middle = "convlivefilter name=f") {
    GError* err = nullptr;
    const std::string launch =
        "appsrc name=src format=time emit-signals=false ! " + middle + " ! appsink name=sink sync=false";
    pipeline_ = gst_parse_launch(launch.c_str(), &err);
    if (err) {
      error_ = err->message;
      g_error_free(err);
    }
    if (!pipeline_) return;
    src_ = gst_bin_get_by_name(GST_BIN(pipeline_), "src");
    filter_ = gst_bin_get_by_name(GST_BIN(pipeline_), "f");
    sink_ = gst_bin_get_by_name(GST_BIN(pipeline_), "sink");
    bus_ = gst_element_get_bus(pipeline_);
    for (const auto& [k, v] : props) set(k, v);
    if (testPool) {
      GstPad* pad = gst_element_get_static_pad(sink_, "sink");
      gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, answerAllocation, nullptr, nullptr);
      gst_object_unref(pad);
    }
  }
  ~Harness() {
    if (!pipeline_) return;
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    for (GstObject* o :
         {GST_OBJECT(src_), GST_OBJECT(filter_), GST_OBJECT(sink_), GST_OBJECT(bus_), GST_OBJECT(pipeline_)})
      gst_object_unref(o);
  }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  bool ok() const { return pipeline_ && filter_; }
  GstElement* filter() const { return filter_; }
  GstElement* pipeline() const { return pipeline_; }

  // As gst-launch sets properties: from text.
  void set(const std::string& name, const std::string& value) {
    gst_util_set_object_arg(G_OBJECT(filter_), name.c_str(), value.c_str());
  }
  // The property as text: strings as they are, enums by their nick, others as GStreamer writes them.
  std::string get(const std::string& name) const {
    GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(filter_), name.c_str());
    if (!ps) return "<no property " + name + ">";
    GValue v = G_VALUE_INIT;
    g_value_init(&v, ps->value_type);
    g_object_get_property(G_OBJECT(filter_), name.c_str(), &v);
    std::string text;
    if (G_VALUE_HOLDS_STRING(&v)) {
      text = g_value_get_string(&v) ? g_value_get_string(&v) : "";
    } else if (G_VALUE_HOLDS_ENUM(&v)) {
      GEnumValue* e = g_enum_get_value(G_PARAM_SPEC_ENUM(ps)->enum_class, g_value_get_enum(&v));
      text = e ? e->value_nick : "?";
    } else {
      gchar* s = gst_value_serialize(&v);
      text = s ? s : "";
      g_free(s);
    }
    g_value_unset(&v);
    return text;
  }

  // colorimetry: the caps field as text ("bt709", "1:3:5:1"); none by default (GStreamer then fills
  // in its default for the frame size).
  void play(const std::string& format, int w, int h, const char* feature = nullptr, const char* colorimetry = nullptr) {
    GstCaps* caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, format.c_str(), "width", G_TYPE_INT, w,
                                        "height", G_TYPE_INT, h, "framerate", GST_TYPE_FRACTION, 30, 1, nullptr);
    if (colorimetry) gst_caps_set_simple(caps, "colorimetry", G_TYPE_STRING, colorimetry, nullptr);
    if (feature) gst_caps_set_features(caps, 0, gst_caps_features_new(feature, nullptr));
    g_object_set(src_, "caps", caps, nullptr);
    gst_caps_unref(caps);
    gst_element_set_state(pipeline_, GST_STATE_PLAYING);
    format_ = format;
  }

  // Pushes a copy of `in` (with a video meta when its stride is not the default one); returns the
  // filtered frame, or nullopt when none came (the bus then says why: errors()).
  std::optional<Output> filter(const Frame& in, GstBuffer** sent = nullptr) {
    GstBuffer* buf = gst_buffer_new_allocate(nullptr, in.bytes.size(), nullptr);
    gst_buffer_fill(buf, 0, in.bytes.data(), in.bytes.size());
    if (in.stride != defaultStride(format_, in.width, in.height)) {
      gsize offset[GST_VIDEO_MAX_PLANES] = {0};
      gint stride[GST_VIDEO_MAX_PLANES] = {gint(in.stride)};
      gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, gst_video_format_from_string(format_.c_str()),
                                     guint(in.width), guint(in.height), 1, offset, stride);
    }
    GstSample* sample = pushAndPull(buf, sent);
    if (!sample) return std::nullopt;
    Output out = read(sample);
    gst_sample_unref(sample);
    return out;
  }

  // Pushes `buf` (taken) with the next timestamp; returns the sample that came out (the caller
  // unrefs it), or null when none came. sent: a reference to the buffer pushed.
  GstSample* pushAndPull(GstBuffer* buf, GstBuffer** sent = nullptr) {
    GST_BUFFER_PTS(buf) = pts_;
    GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
    pts_ += GST_SECOND / 30;
    if (sent) *sent = gst_buffer_ref(buf);
    if (gst_app_src_push_buffer(GST_APP_SRC(src_), buf) != GST_FLOW_OK) return nullptr;
    return gst_app_sink_try_pull_sample(GST_APP_SINK(sink_), 10 * GST_SECOND);
  }

  // The bus's error and warning texts so far (with their debug details), oldest first.
  std::vector<std::string> messages(GstMessageType type) {
    std::vector<std::string> texts;
    std::vector<GstMessage*> others;
    while (GstMessage* m = gst_bus_pop(bus_)) {
      if (GST_MESSAGE_TYPE(m) == type) {
        GError* e = nullptr;
        gchar* debug = nullptr;
        if (type == GST_MESSAGE_ERROR)
          gst_message_parse_error(m, &e, &debug);
        else
          gst_message_parse_warning(m, &e, &debug);
        texts.push_back(std::string(e ? e->message : "") + (debug ? std::string(" | ") + debug : ""));
        if (e) g_error_free(e);
        g_free(debug);
      }
      gst_message_unref(m);
    }
    return texts;
  }
  std::vector<std::string> errors() { return messages(GST_MESSAGE_ERROR); }
  std::vector<std::string> warnings() { return messages(GST_MESSAGE_WARNING); }
  const std::string& launchError() const { return error_; }

 private:
  // The sink pad's allocation query, answered with a poisoning pool whose rows are padded.
  static GstPadProbeReturn answerAllocation(GstPad*, GstPadProbeInfo* info, gpointer) {
    GstQuery* q = GST_PAD_PROBE_INFO_QUERY(info);
    if (GST_QUERY_TYPE(q) != GST_QUERY_ALLOCATION) return GST_PAD_PROBE_OK;
    GstCaps* caps = nullptr;
    gst_query_parse_allocation(q, &caps, nullptr);
    GstVideoInfo vi;
    if (!caps || !gst_video_info_from_caps(&vi, caps)) return GST_PAD_PROBE_OK;
    GstBufferPool* pool = GST_BUFFER_POOL(g_object_new(poison_pool_get_type(), nullptr));
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, guint(vi.size), 2, 0);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
    GstVideoAlignment align;
    gst_video_alignment_reset(&align);
    align.padding_right = kPadRight;
    gst_buffer_pool_config_set_video_alignment(config, &align);
    gst_buffer_pool_set_config(pool, config);
    config = gst_buffer_pool_get_config(pool);
    guint size = 0;
    gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
    gst_structure_free(config);
    gst_query_add_allocation_pool(q, pool, size, 2, 0);
    gst_query_add_allocation_meta(q, GST_VIDEO_META_API_TYPE, nullptr);
    gst_object_unref(pool);
    return GST_PAD_PROBE_HANDLED;
  }

  static Output read(GstSample* sample) {
    Output out;
    GstBuffer* buf = gst_sample_get_buffer(sample);
    GstVideoInfo vi;
    gst_video_info_from_caps(&vi, gst_sample_get_caps(sample));
    out.format = GST_VIDEO_INFO_NAME(&vi);
    out.buffer = buf;
    out.memory = gst_buffer_n_memory(buf) ? static_cast<const void*>(gst_buffer_peek_memory(buf, 0)) : nullptr;
    if (gpointer p = gst_mini_object_get_qdata(GST_MINI_OBJECT(buf), poisonQuark()))
      out.poison = int(GPOINTER_TO_UINT(p) - 1u);
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &vi, buf, GST_MAP_READ)) return out;
    out.width = GST_VIDEO_FRAME_WIDTH(&frame);
    out.height = GST_VIDEO_FRAME_HEIGHT(&frame);
    out.stride = std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0));
    const auto* data = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
    const auto pixelBytes = std::size_t(GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, 0));
    const std::size_t row = std::size_t(out.width) * pixelBytes;
    out.pixels.resize(row * std::size_t(out.height));
    for (int y = 0; y < out.height; ++y) {
      const std::uint8_t* r = data + std::size_t(y) * out.stride;
      std::memcpy(out.pixels.data() + row * std::size_t(y), r, row);
      if (out.poison >= 0)
        for (std::size_t x = row; x < out.stride && x < row + kPadRight * pixelBytes; ++x)
          out.paddingUntouched = out.paddingUntouched && r[x] == out.poison;
    }
    gst_video_frame_unmap(&frame);
    return out;
  }

  GstElement* pipeline_ = nullptr;
  GstElement *src_ = nullptr, *filter_ = nullptr, *sink_ = nullptr;
  GstBus* bus_ = nullptr;
  std::string error_, format_;
  GstClockTime pts_ = 0;
};

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "\n") + x;
  return s;
}

std::string describeProps(const Props& props) {
  std::string s;
  for (const auto& [k, v] : props) s += " " + k + "=" + v;
  return s;
}

bool anyContains(const std::vector<std::string>& texts, std::initializer_list<const char*> words) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& t) {
    return std::all_of(words.begin(), words.end(), [&](const char* w) { return t.find(w) != std::string::npos; });
  });
}

// ---- One-plane formats in their own type: grey, RGB, 16 bits -----------------------------------
//
// GRAY8 (u8x1), GRAY16_LE (u16x1), RGB and BGR (u8x3) and RGBA64_LE (u16x4 with alpha) are filtered
// as they are, with no conversion to RGBA: the expected output is convlive::referenceFrames of the
// input described the same way, within 1 LSB of the type. The CPU build names the cpu variant
// (cpu-simd takes u8x4 only); the GPU build sweep for separable masks and auto for the others.

struct PackedFormat {
  std::string name;
  PixelType type;
  int channels;
  bool alpha;
};

const std::vector<PackedFormat>& packedFormats() {
  static const std::vector<PackedFormat> formats{
      {"GRAY8", PixelType::U8, 1, false}, {"GRAY16_LE", PixelType::U16, 1, false}, {"RGB", PixelType::U8, 3, false},
      {"BGR", PixelType::U8, 3, false},   {"RGBA64_LE", PixelType::U16, 4, true},
  };
  return formats;
}

const PackedFormat& packedFormat(const std::string& name) {
  for (const PackedFormat& f : packedFormats())
    if (f.name == name) return f;
  throw std::invalid_argument("not a one-plane format of these tests: " + name);
}

// w x h packed frames of `f`.
ImageDesc packedDesc(const PackedFormat& f, int w, int h) {
  ImageDesc d;
  d.width = w;
  d.height = h;
  d.type = f.type;
  d.channels = f.channels;
  d.alpha = f.alpha;
  return d;
}

// The variant the one-plane tests name: one that takes such frames with the mask.
std::string packedVariant(bool separable) { return kGpu ? (separable ? "sweep" : "auto") : "cpu"; }

// referenceFrames of `in` (rows in.stride apart) for the element's properties, packed.
std::vector<std::uint8_t> expectedFrames(const Props& props, const Frame& in, const PackedFormat& f) {
  FilterSpec spec;
  for (const auto& [k, v] : props)
    if (k != "variant" && k != "tile")
      if (Problem p = spec.set(k, v)) throw ProblemError(p);
  const FilterParams p = spec.params();
  const ImageDesc d = packedDesc(f, in.width, in.height);
  std::vector<std::uint8_t> packedIn(d.span()), want(d.span());
  for (int y = 0; y < in.height; ++y)
    std::memcpy(packedIn.data() + std::size_t(y) * d.rowPitch(), in.bytes.data() + std::size_t(y) * in.stride,
                d.rowBytes());
  referenceFrames(p.filter, p.border, p.filterAlpha, d, packedIn.data(), want.data());
  return want;
}

// Every u8 or u16 value of `got` within 1 of `want` (both packed frames of d); else where and by how much.
testing::AssertionResult within1Lsb(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
                                    const ImageDesc& d) {
  if (got.size() != want.size())
    return testing::AssertionFailure() << "size " << got.size() << ", want " << want.size();
  const std::size_t valueBytes = pixelTypeBytes(d.type);
  const auto valueAt = [&](const std::vector<std::uint8_t>& b, std::size_t i) {
    if (valueBytes == 1) return int(b[i]);
    std::uint16_t v;
    std::memcpy(&v, &b[i], 2);
    return int(v);
  };
  long bad = 0;
  std::string first;
  for (std::size_t i = 0; i + valueBytes <= got.size(); i += valueBytes) {
    const int g = valueAt(got, i), w = valueAt(want, i);
    if (std::abs(g - w) <= 1) continue;
    if (bad++ == 0) {
      const std::size_t value = i / valueBytes, px = value / std::size_t(d.channels);
      first = "(" + std::to_string(px % std::size_t(d.width)) + "," + std::to_string(px / std::size_t(d.width)) +
              ") channel " + std::to_string(value % std::size_t(d.channels)) + ": got " + std::to_string(g) +
              ", want " + std::to_string(w);
    }
  }
  if (!bad) return testing::AssertionSuccess();
  return testing::AssertionFailure() << bad << " values of " << d.str() << " differ by more than 1, first at " << first;
}

class GstElementTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ensureGst()) << "gst_init failed";
    if (kGpu && !deviceInfo().available)
      GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << "): the GPU path of convlivefilter needs one";
    GstElementFactory* f = gst_element_factory_find("convlivefilter");
    ASSERT_NE(f, nullptr) << "convlivefilter not found: GST_PLUGIN_PATH (set by ctest to the build's app/gst) is '"
                          << (g_getenv("GST_PLUGIN_PATH") ? g_getenv("GST_PLUGIN_PATH") : "") << "'";
    gst_object_unref(f);
  }
  std::mt19937 rng{testcases::seedForRun()};

  // Filters `in` twice (two poisons) and checks both against the reference.
  void expectFiltered(Harness& h, const Props& props, const Frame& in, const std::string& format) {
    const HostImage want = expected(props, in, format);
    int poisons = 0;
    for (int run = 0; run < 2; ++run) {
      SCOPED_TRACE("run " + std::to_string(run));
      const auto out = h.filter(in);
      ASSERT_TRUE(out) << "no frame came out: " << joined(h.errors());
      EXPECT_EQ(out->format, format);
      ASSERT_EQ(out->width, in.width);
      ASSERT_EQ(out->height, in.height);
      ASSERT_GE(out->poison, 0) << "the output buffer is not from the test's poisoned pool";
      EXPECT_EQ(out->stride, std::size_t(in.width + kPadRight) * 4) << "the pool's padded stride";
      EXPECT_TRUE(out->paddingUntouched) << "the element wrote into the row padding";
      EXPECT_TRUE(within1(out->pixels, want));
      poisons |= 1 << (out->poison == 0xcd ? 0 : 1);
    }
    EXPECT_EQ(poisons, 3) << "both poisons were to be seen";
  }

  // The same for one-plane frames of `f` (rows in.stride apart) against referenceFrames.
  void expectPackedFiltered(Harness& h, const Props& props, const Frame& in, const PackedFormat& f) {
    const ImageDesc d = packedDesc(f, in.width, in.height);
    const std::vector<std::uint8_t> want = expectedFrames(props, in, f);
    int poisons = 0;
    for (int run = 0; run < 2; ++run) {
      SCOPED_TRACE("run " + std::to_string(run));
      const auto out = h.filter(in);
      ASSERT_TRUE(out) << "no frame came out: " << joined(h.errors());
      EXPECT_EQ(out->format, f.name);
      ASSERT_EQ(out->width, in.width);
      ASSERT_EQ(out->height, in.height);
      ASSERT_GE(out->poison, 0) << "the output buffer is not from the test's poisoned pool";
      EXPECT_EQ(out->stride, std::size_t(GST_ROUND_UP_4(std::size_t(in.width + kPadRight) * d.pixelBytes())))
          << "the pool's padded stride";
      EXPECT_TRUE(out->paddingUntouched) << "the element wrote into the row padding";
      EXPECT_TRUE(within1Lsb(out->pixels, want, d));
      poisons |= 1 << (out->poison == 0xcd ? 0 : 1);
    }
    EXPECT_EQ(poisons, 3) << "both poisons were to be seen";
  }
};

Props withVariant(Props p) {
  p.insert(p.begin(), {"variant", kVariant});
  return p;
}

// ---- Caps and output against the reference ---------------------------------------------------

class GstElementFormats : public GstElementTest, public testing::WithParamInterface<std::string> {};

TEST_P(GstElementFormats, NegotiatesAndMatchesTheReference) {
  const std::string format = GetParam();
  struct Case {
    Props props;
    int w, h;
    int extraStride;  // bytes past 4 * width
  };
  const std::vector<Case> cases{
      {{{"mask", "gaussian"}, {"radius", "2"}, {"border", "clamp"}}, 37, 23, 12},
      {{{"mask", "box"}, {"radius", "3"}, {"border", "zero"}}, 37, 23, 6},  // a stride no multiple of 4
      {{{"mask", "sobel"}, {"radius", "1"}, {"border", "mirror"}}, 37, 23, 0},
      {{{"mask", "emboss"}, {"radius", "2"}, {"border", "wrap"}, {"filter-alpha", "true"}}, 29, 17, 20},
      {{{"mask", "laplacian"}, {"radius", "2"}, {"border", "clamp"}}, 5, 3, 4},  // smaller than the mask
      {{{"mask", "sharpen"}, {"radius", "3"}, {"sigma", "1.5"}, {"border", "mirror"}}, 1, 1, 0},
      {{{"mask", "custom"}, {"weights", "1,-2,0.5;3,1,2;0,1,-1"}, {"normalize", "true"}, {"border", "zero"}},
       31,
       19,
       3},
      {{{"mask", "pitch"}, {"pitch", "2.5"}, {"direction", "vertical"}, {"border", "wrap"}}, 33, 21, 0},
      {{{"mask", "gaussian"}, {"radius", "8"}, {"border", "wrap"}, {"filter-alpha", "true"}}, 37, 23, 8},
  };
  for (const Case& c : cases) {
    const Props props = withVariant(c.props);
    std::string what =
        format + " " + std::to_string(c.w) + "x" + std::to_string(c.h) + " stride +" + std::to_string(c.extraStride);
    for (const auto& [k, v] : props) what += " " + k + "=" + v;
    SCOPED_TRACE(what);
    Harness h(props);
    ASSERT_TRUE(h.ok()) << h.launchError();
    h.play(format, c.w, c.h);
    const Frame in = randomFrame(c.w, c.h, std::size_t(c.w) * 4 + std::size_t(c.extraStride), rng);
    expectFiltered(h, props, in, format);
    EXPECT_EQ(h.get("active-variant"), kVariant);
    EXPECT_TRUE(h.errors().empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, GstElementFormats, testing::Values("RGBA", "BGRA", "RGBx", "BGRx"));

class GstElementPackedFormats : public GstElementTest, public testing::WithParamInterface<std::string> {};

TEST_P(GstElementPackedFormats, AreFilteredInTheirOwnTypeAndMatchTheReference) {
  const PackedFormat& f = packedFormat(GetParam());
  struct Case {
    Props props;
    bool separable;  // GPU build: sweep runs it (else auto)
    int w, h;
    int extraValues;  // values of the type past each row's pixels (a video meta then gives the stride)
  };
  const std::vector<Case> cases{
      {{{"mask", "gaussian"}, {"radius", "2"}, {"border", "clamp"}}, true, 37, 23, 5},
      {{{"mask", "box"}, {"radius", "3"}, {"border", "zero"}}, true, 29, 17, 0},  // packed rows: no default stride
      {{{"mask", "sobel"}, {"radius", "1"}, {"border", "mirror"}}, false, 37, 23, 3},
      {{{"mask", "emboss"}, {"radius", "2"}, {"border", "wrap"}, {"filter-alpha", "true"}}, false, 31, 19, 7},
      {{{"mask", "laplacian"}, {"radius", "2"}, {"border", "clamp"}}, false, 5, 3, 1},  // smaller than the mask
      {{{"mask", "sharpen"}, {"radius", "3"}, {"sigma", "1.5"}, {"border", "mirror"}}, false, 1, 1, 0},
      {{{"mask", "custom"}, {"weights", "1,-2,0.5;3,1,2;0,1,-1"}, {"normalize", "true"}, {"border", "zero"}},
       false,
       31,
       19,
       2},
      {{{"mask", "pitch"}, {"pitch", "2.5"}, {"direction", "vertical"}, {"border", "wrap"}}, true, 33, 21, 0},
      {{{"mask", "gaussian"}, {"radius", "8"}, {"border", "wrap"}, {"filter-alpha", "true"}}, true, 37, 23, 4},
  };
  for (const Case& c : cases) {
    Props props = c.props;
    props.insert(props.begin(), {"variant", packedVariant(c.separable)});
    const ImageDesc d = packedDesc(f, c.w, c.h);
    const std::size_t stride = d.rowBytes() + std::size_t(c.extraValues) * pixelTypeBytes(f.type);
    SCOPED_TRACE(f.name + " " + std::to_string(c.w) + "x" + std::to_string(c.h) + " stride " + std::to_string(stride) +
                 describeProps(props));
    Harness h(props);
    ASSERT_TRUE(h.ok()) << h.launchError();
    h.play(f.name, c.w, c.h);
    expectPackedFiltered(h, props, randomFrame(c.w, c.h, stride, rng), f);
    if (!kGpu || c.separable)
      EXPECT_EQ(h.get("active-variant"), packedVariant(c.separable));
    else
      EXPECT_NE(h.get("active-variant"), "");
    EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, GstElementPackedFormats,
                         testing::Values("GRAY8", "GRAY16_LE", "RGB", "BGR", "RGBA64_LE"));

// videotestsrc ! <caps> [! <filter>] ! appsink: the first frame's pixels, packed; empty when none
// came (`error` then says why).
std::vector<std::uint8_t> firstTestSrcFrame(const std::string& caps, const std::string& filter, std::string& error) {
  const std::string launch = "videotestsrc num-buffers=1 pattern=zone-plate kx2=20 ky2=20 kt2=1 ! " + caps +
                             (filter.empty() ? "" : " ! " + filter) + " ! appsink name=sink sync=false";
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(launch.c_str(), &err);
  if (err) {
    error = err->message;
    g_error_free(err);
    if (pipeline) gst_object_unref(pipeline);
    return {};
  }
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  std::vector<std::uint8_t> pixels;
  if (GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND)) {
    GstVideoInfo vi;
    GstVideoFrame frame;
    if (gst_video_info_from_caps(&vi, gst_sample_get_caps(sample)) &&
        gst_video_frame_map(&frame, &vi, gst_sample_get_buffer(sample), GST_MAP_READ)) {
      const std::size_t row = std::size_t(GST_VIDEO_FRAME_WIDTH(&frame)) * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, 0);
      const auto* data = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
      for (int y = 0; y < GST_VIDEO_FRAME_HEIGHT(&frame); ++y) {
        const std::uint8_t* r = data + std::size_t(y) * std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0));
        pixels.insert(pixels.end(), r, r + row);
      }
      gst_video_frame_unmap(&frame);
    }
    gst_sample_unref(sample);
  } else {
    GstBus* bus = gst_element_get_bus(pipeline);
    while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
      GError* e = nullptr;
      gchar* debug = nullptr;
      gst_message_parse_error(m, &e, &debug);
      error += std::string(e ? e->message : "") + (debug ? std::string(" | ") + debug : "") + "\n";
      if (e) g_error_free(e);
      g_free(debug);
      gst_message_unref(m);
    }
    gst_object_unref(bus);
    if (error.empty()) error = "no frame within 10 s";
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  return pixels;
}

// A mono machine-vision pipeline: grey frames from videotestsrc (a zone plate) straight into the
// pitch-inspection filter, no videoconvert, against the reference on the same frame.
TEST_F(GstElementTest, AGreyPipelineRunsThePitchInspectionFilter) {
  struct Case {
    std::string format;
    Props props;
  };
  const std::vector<Case> cases{
      {"GRAY8", {{"mask", "pitch"}, {"pitch", "2.5"}, {"direction", "horizontal"}, {"border", "mirror"}}},
      {"GRAY8", {{"mask", "pitch"}, {"pitch", "3"}, {"direction", "vertical"}, {"border", "clamp"}}},
      {"GRAY16_LE", {{"mask", "pitch"}, {"pitch", "1.5"}, {"direction", "horizontal"}, {"border", "wrap"}}},
  };
  for (const Case& c : cases) {
    Props props = c.props;
    props.insert(props.begin(), {"variant", packedVariant(true)});
    SCOPED_TRACE(c.format + describeProps(props));
    const std::string caps = "video/x-raw,format=" + c.format + ",width=37,height=23";
    std::string filter = "convlivefilter";
    for (const auto& [k, v] : props) filter += " " + k + "=" + v;
    std::string error;
    const std::vector<std::uint8_t> input = firstTestSrcFrame(caps, "", error);
    ASSERT_FALSE(input.empty()) << error;
    const std::vector<std::uint8_t> output = firstTestSrcFrame(caps, filter, error);
    ASSERT_FALSE(output.empty()) << error;
    const PackedFormat& f = packedFormat(c.format);
    const ImageDesc d = packedDesc(f, 37, 23);
    ASSERT_EQ(input.size(), d.span());
    const std::vector<std::uint8_t> want = expectedFrames(props, Frame{37, 23, d.rowBytes(), input}, f);
    EXPECT_TRUE(within1Lsb(output, want, d));
    EXPECT_NE(output, input) << "the frame came out as it went in";
  }
}

TEST_F(GstElementTest, AVariantThatTakesOnlyRgba8IsAnElementErrorOnGreyFrames) {
  const char* rgbaOnly = "tiled-coop";  // on the CPU side every variant takes grey frames
  Harness h({{"variant", rgbaOnly}, {"mask", "gaussian"}, {"radius", "2"}});
  ASSERT_TRUE(h.ok());
  h.play("GRAY8", 37, 23);
  EXPECT_FALSE(h.filter(randomFrame(37, 23, 40, rng)));
  const auto errors = h.errors();
  EXPECT_TRUE(anyContains(errors, {"property 'variant'", "u8x1", "set variant="})) << "errors:\n" << joined(errors);
  EXPECT_EQ(h.get("active-variant"), "");
}

TEST_F(GstElementTest, TheFormatMayChangeBetweenOnePlaneFormatsMidStream) {
  const Props props{{"variant", packedVariant(true)}, {"mask", "gaussian"}, {"radius", "2"}, {"border", "mirror"}};
  Harness h(props);
  ASSERT_TRUE(h.ok());
  h.play("GRAY8", 37, 23);
  expectPackedFiltered(h, props, randomFrame(37, 23, 41, rng), packedFormat("GRAY8"));
  h.play("RGBA", 37, 23);  // the same size, the RGBA8 path
  expectFiltered(h, props, randomFrame(37, 23, 37 * 4, rng), "RGBA");
  h.play("GRAY16_LE", 13, 9);
  expectPackedFiltered(h, props, randomFrame(13, 9, 13 * 2 + 6, rng), packedFormat("GRAY16_LE"));
  h.play("RGB", 13, 9);  // the same size, another type and channel count
  expectPackedFiltered(h, props, randomFrame(13, 9, 13 * 3, rng), packedFormat("RGB"));
  EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
}

TEST_F(GstElementTest, TheIdentityPassesGreyFramesThrough) {
  Harness h({{"variant", packedVariant(true)}, {"mask", "custom"}, {"weights", "1"}});
  ASSERT_TRUE(h.ok());
  h.play("GRAY8", 37, 23);
  const Frame in = randomFrame(37, 23, 40, rng);
  GstBuffer* sent = nullptr;
  const auto out = h.filter(in, &sent);
  ASSERT_TRUE(out) << joined(h.errors());
  EXPECT_TRUE(gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(h.filter())));
  EXPECT_EQ(out->memory, static_cast<const void*>(gst_buffer_peek_memory(sent, 0)))
      << "the identity filter copied the frame instead of passing it through";
  gst_buffer_unref(sent);
}

TEST_F(GstElementTest, BothPadsTakeTheOnePlaneFormats) {
  GstElementFactory* f = gst_element_factory_find("convlivefilter");
  ASSERT_NE(f, nullptr);
  for (const GList* l = gst_element_factory_get_static_pad_templates(f); l; l = l->next) {
    auto* t = static_cast<GstStaticPadTemplate*>(l->data);
    GstCaps* caps = gst_static_pad_template_get_caps(t);
    for (const PackedFormat& format : packedFormats()) {
      // In CUDA memory only those GstCuda's allocator lays out (app/gst/frame_formats.hpp).
      const bool cudaToo = format.name == "RGB" || format.name == "BGR";
      for (const bool cuda : {false, true}) {
        const std::string want =
            std::string(cuda ? "video/x-raw(memory:CUDAMemory)" : "video/x-raw") + ", format=" + format.name;
        SCOPED_TRACE(std::string(t->name_template) + ": " + want);
        GstCaps* one = gst_caps_from_string(want.c_str());
        ASSERT_NE(one, nullptr);
        EXPECT_EQ(bool(gst_caps_can_intersect(caps, one)), !cuda || cudaToo);
        gst_caps_unref(one);
      }
    }
    gst_caps_unref(caps);
  }
  gst_object_unref(f);
}

// What gst-inspect-1.0 prints for the element: every format in its pad templates.
TEST_F(GstElementTest, GstInspectListsTheFormats) {
  gchar* program = g_find_program_in_path("gst-inspect-1.0");
  if (!program) GTEST_SKIP() << "gst-inspect-1.0 is not installed (gstreamer1.0-tools)";
  // The child inherits GST_PLUGIN_PATH and GST_REGISTRY as ensureGst() set them.
  gchar* argv[] = {program, const_cast<gchar*>("convlivefilter"), nullptr};
  gchar* out = nullptr;
  gint status = 0;
  GError* err = nullptr;
  const bool ran =
      g_spawn_sync(nullptr, argv, nullptr, G_SPAWN_DEFAULT, nullptr, nullptr, &out, nullptr, &status, &err);
  g_free(program);
  ASSERT_TRUE(ran) << (err ? err->message : "");
  const std::string text = out ? out : "";
  g_free(out);
  ASSERT_TRUE(g_spawn_check_wait_status(status, nullptr)) << text;
  const std::size_t templates = text.find("Pad Templates:");
  ASSERT_NE(templates, std::string::npos) << text;
  const std::string pads = text.substr(templates);
  for (const char* format : {"RGBA", "BGRx", "RGB", "BGR", "GRAY8", "GRAY16_LE", "RGBA64_LE", "NV12", "I420"})
    EXPECT_TRUE(pads.find(std::string("(string)") + format + ",") != std::string::npos ||
                pads.find(std::string("(string)") + format + " }") != std::string::npos)
        << format << " in\n"
        << pads;
  EXPECT_NE(pads.find("memory:CUDAMemory"), std::string::npos) << pads;
  // cuda-device-id, with its range and default, among the properties.
  const std::size_t device = text.find("cuda-device-id");
  ASSERT_NE(device, std::string::npos) << text;
  EXPECT_NE(text.find("Range: -1 - 2147483647 Default: -1", device), std::string::npos) << text.substr(device, 600);
}

TEST_F(GstElementTest, RefusesFormatsItDoesNotTake) {
  // Formats of the element's families that it does not take (big-endian, another byte order), and the
  // grey and 16-bit ones in CUDA memory (GstCuda cannot allocate them).
  for (const auto& [format, feature] :
       std::vector<std::pair<const char*, const char*>>{{"YUY2", nullptr},
                                                        {"ARGB", nullptr},
                                                        {"GRAY16_BE", nullptr},
                                                        {"RGBA64_BE", nullptr},
                                                        {"BGR16", nullptr},
                                                        {"GRAY8", "memory:CUDAMemory"},
                                                        {"GRAY16_LE", "memory:CUDAMemory"},
                                                        {"RGBA64_LE", "memory:CUDAMemory"}}) {
    SCOPED_TRACE(std::string(format) + (feature ? std::string(" in ") + feature : ""));
    Harness h(withVariant({}), !feature);
    ASSERT_TRUE(h.ok());
    h.play(format, 16, 8, feature);
    Frame in = randomFrame(16, 8, 16 * 4, rng);
    EXPECT_FALSE(h.filter(in)) << "a frame came out of caps convlivefilter does not take";
    EXPECT_TRUE(anyContains(h.errors(), {"not-negotiated"})) << "expected a not-negotiated error";
  }
}

TEST_F(GstElementTest, TheFrameSizeMayChangeMidStream) {
  const Props props = withVariant({{"mask", "gaussian"}, {"radius", "3"}});
  Harness h(props);
  ASSERT_TRUE(h.ok());
  h.play("RGBA", 37, 23);
  expectFiltered(h, props, randomFrame(37, 23, 37 * 4, rng), "RGBA");
  h.play("RGBA", 13, 41);
  expectFiltered(h, props, randomFrame(13, 41, 13 * 4 + 8, rng), "RGBA");
}

// ---- Properties while playing -----------------------------------------------------------------

TEST_F(GstElementTest, APropertyChangeTakesEffectAtTheNextFrame) {
  Props props = withVariant({{"mask", "gaussian"}, {"radius", "1"}});
  Harness h(props);
  ASSERT_TRUE(h.ok());
  h.play("BGRA", 37, 23);
  const Frame in = randomFrame(37, 23, 37 * 4 + 4, rng);
  expectFiltered(h, props, in, "BGRA");
  for (const Props& change : {Props{{"radius", "4"}}, Props{{"mask", "sobel"}, {"radius", "2"}, {"border", "zero"}},
                              Props{{"mask", "custom"}, {"weights", "0,1,0;1,-4,1;0,1,0"}},
                              Props{{"filter-alpha", "true"}, {"mask", "box"}}}) {
    for (const auto& [k, v] : change) {
      h.set(k, v);
      props.emplace_back(k, v);
    }
    std::string what;
    for (const auto& [k, v] : change) what += k + "=" + v + " ";
    SCOPED_TRACE("after " + what);
    expectFiltered(h, props, in, "BGRA");
  }
  EXPECT_TRUE(h.errors().empty());
}

TEST_F(GstElementTest, BadValuesAreRefusedAndTheOldValueKept) {
  const Props props = withVariant({{"mask", "custom"}, {"weights", "1,2,1"}, {"normalize", "true"}, {"radius", "2"}});
  Harness h(props);
  ASSERT_TRUE(h.ok());
  h.play("RGBA", 37, 23);
  const Frame in = randomFrame(37, 23, 37 * 4, rng);
  expectFiltered(h, props, in, "RGBA");
  struct Bad {
    const char* name;
    const char* value;
    const char* words;  // in the warning besides the name
  };
  for (const Bad& b : {Bad{"weights", "1,,2", "1,,2"}, Bad{"weights", "", "empty"}, Bad{"tile", "32by8", "WxH"},
                       Bad{"sigma", "0.05", "out of range"}, Bad{"row-weights", "1,2", "odd"}}) {
    SCOPED_TRACE(std::string(b.name) + "=" + b.value);
    const std::string before = h.get(b.name);
    h.set(b.name, b.value);
    EXPECT_EQ(h.get(b.name), before) << "the refused value replaced the old one";
    const auto warnings = h.warnings();
    EXPECT_TRUE(anyContains(warnings, {b.name, b.words})) << "warnings:\n" << joined(warnings);
  }
  // GObject's own range check (radius 1..64, from the setting) refuses this one before the element sees it.
  const std::string radius = h.get("radius");
  g_object_set(h.filter(), "radius", 999, nullptr);
  EXPECT_EQ(h.get("radius"), radius);
  // The stream goes on with the settings it had.
  expectFiltered(h, props, in, "RGBA");
  EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
}

// ---- Passthrough -------------------------------------------------------------------------------

TEST_F(GstElementTest, TheIdentityPassesFramesThrough) {
  Props props = withVariant({{"mask", "custom"}, {"weights", "0,0,0;0,1,0;0,0,0"}, {"border", "zero"}});
  Harness h(props);
  ASSERT_TRUE(h.ok());
  h.play("RGBx", 37, 23);
  const Frame in = randomFrame(37, 23, 37 * 4, rng);
  GstBuffer* sent = nullptr;
  auto out = h.filter(in, &sent);
  ASSERT_TRUE(out) << joined(h.errors());
  EXPECT_TRUE(gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(h.filter())));
  EXPECT_EQ(out->memory, static_cast<const void*>(gst_buffer_peek_memory(sent, 0)))
      << "the identity filter copied the frame instead of passing it through";
  EXPECT_EQ(out->pixels, packed(in).pixels());
  gst_buffer_unref(sent);

  // A real mask: filtering again, into the poisoned pool.
  h.set("weights", "1,2,1;2,4,2;1,2,1");
  h.set("normalize", "true");
  props.emplace_back("weights", "1,2,1;2,4,2;1,2,1");
  props.emplace_back("normalize", "true");
  expectFiltered(h, props, in, "RGBx");
  EXPECT_FALSE(gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(h.filter())));

  // A 1x1 identity again.
  h.set("weights", "1");
  out = h.filter(in, &sent);
  ASSERT_TRUE(out) << joined(h.errors());
  EXPECT_TRUE(gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(h.filter())));
  EXPECT_EQ(out->memory, static_cast<const void*>(gst_buffer_peek_memory(sent, 0)));
  gst_buffer_unref(sent);
}

// ---- Errors ----------------------------------------------------------------------------------------

TEST_F(GstElementTest, AVariantThatCannotRunTheMaskIsAnElementError) {
  Harness h({{"mask", "emboss"}, {"variant", "separable"}});
  ASSERT_TRUE(h.ok());
  h.play("RGBA", 37, 23);
  EXPECT_FALSE(h.filter(randomFrame(37, 23, 37 * 4, rng)));
  const auto errors = h.errors();
  EXPECT_TRUE(anyContains(errors, {"property 'variant'", "not separable", "set variant=tiled-coop"})) << "errors:\n"
                                                                                                      << joined(errors);
  EXPECT_EQ(h.get("active-variant"), "");
}

TEST_F(GstElementTest, SettingsThatDoNotGoTogetherAreAnElementError) {
  Harness h({{"mask", "gaussian"}, {"variant", "auto"}, {"tile", "32x8"}});
  ASSERT_TRUE(h.ok());
  h.play("RGBA", 37, 23);
  EXPECT_FALSE(h.filter(randomFrame(37, 23, 37 * 4, rng)));
  const auto errors = h.errors();
  EXPECT_TRUE(anyContains(errors, {"property 'tile'", "auto"})) << "errors:\n" << joined(errors);
}

TEST_F(GstElementTest, AChangeThatCannotRunWhilePlayingKeepsTheRunningFilter) {
  const Props props = withVariant({{"mask", "emboss"}, {"radius", "1"}});
  Harness h(props);
  ASSERT_TRUE(h.ok());
  h.play("RGBA", 37, 23);
  const Frame in = randomFrame(37, 23, 37 * 4, rng);
  expectFiltered(h, props, in, "RGBA");
  h.set("variant", "separable");  // a value on its own, but separable cannot take emboss
  expectFiltered(h, props, in, "RGBA");
  const auto warnings = h.warnings();
  EXPECT_TRUE(anyContains(
      warnings, {"cannot run", "not separable", std::string("still filtering with ").append(kVariant).c_str()}))
      << "warnings:\n"
      << joined(warnings);
  EXPECT_TRUE(h.errors().empty());
  h.set("mask", "gaussian");  // now separable can run it (here without a device: on the CPU)
  Props now = props;
  now.emplace_back("mask", "gaussian");
  expectFiltered(h, now, in, "RGBA");
}

// ---- Without a CUDA device ---------------------------------------------------------------------

// The element's log lines at `level` and above, while it lives.
class ElementLog {
 public:
  explicit ElementLog(GstDebugLevel level = GST_LEVEL_WARNING) : level_(level) {
    gst_debug_set_threshold_for_name("convlivefilter", level);
    gst_debug_add_log_function(record, this, nullptr);
  }
  ~ElementLog() { gst_debug_remove_log_function_by_data(this); }
  ElementLog(const ElementLog&) = delete;
  ElementLog& operator=(const ElementLog&) = delete;
  int count(const std::string& words) {
    std::lock_guard lock(mutex_);
    return int(std::count_if(lines_.begin(), lines_.end(),
                             [&](const std::string& l) { return l.find(words) != std::string::npos; }));
  }

 private:
  static void record(GstDebugCategory* category, GstDebugLevel level, const gchar*, const gchar*, gint, GObject*,
                     GstDebugMessage* message, gpointer self) {
    auto* log = static_cast<ElementLog*>(self);
    if (level > log->level_ || std::string(gst_debug_category_get_name(category)) != "convlivefilter") return;
    std::lock_guard lock(log->mutex_);
    log->lines_.emplace_back(gst_debug_message_get(message));
  }
  GstDebugLevel level_;
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

// ---- CUDA memory -------------------------------------------------------------------------------

TEST_F(GstElementTest, BothPadsTakeCudaMemoryAndSystemMemory) {
  GstElementFactory* f = gst_element_factory_find("convlivefilter");
  ASSERT_NE(f, nullptr);
  for (const GList* l = gst_element_factory_get_static_pad_templates(f); l; l = l->next) {
    auto* t = static_cast<GstStaticPadTemplate*>(l->data);
    SCOPED_TRACE(t->name_template);
    GstCaps* caps = gst_static_pad_template_get_caps(t);
    ASSERT_EQ(gst_caps_get_size(caps), 2u);
    EXPECT_TRUE(gst_caps_features_contains(gst_caps_get_features(caps, 0), "memory:CUDAMemory"));
    EXPECT_TRUE(gst_caps_features_is_equal(gst_caps_get_features(caps, 1), GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY));
    for (guint i = 0; i < 2; ++i) {
      GstCaps* rgba =
          gst_caps_from_string(i == 0 ? "video/x-raw(memory:CUDAMemory), format=BGRx" : "video/x-raw, format=BGRx");
      EXPECT_TRUE(gst_caps_can_intersect(caps, rgba));
      gst_caps_unref(rgba);
    }
    gst_caps_unref(caps);
  }
  gst_object_unref(f);
}

#ifndef CONVLIVE_GST_GPU
TEST_F(GstElementTest, CudaMemoryWithoutADeviceIsAnElementError) {
  if (deviceInfo().available) GTEST_SKIP() << "there is a CUDA device here";
  Harness h(withVariant({}), false);
  ASSERT_TRUE(h.ok());
  h.play("RGBA", 16, 8, "memory:CUDAMemory");
  EXPECT_FALSE(h.filter(randomFrame(16, 8, 16 * 4, rng)));
  const auto errors = h.errors();
  EXPECT_TRUE(anyContains(errors, {"cannot take CUDA memory", "system-memory caps"})) << "errors:\n" << joined(errors);
}
#endif

#ifdef CONVLIVE_GST_GPU
// cudaupload ! convlivefilter ! cudadownload: the frames stay in CUDA memory through the element.
TEST_F(GstElementTest, CudaMemoryIsFilteredOnTheDevice) {
  for (const char* needed : {"cudaupload", "cudadownload"})
    if (GstElementFactory* f = gst_element_factory_find(needed))
      gst_object_unref(f);
    else
      GTEST_SKIP() << needed << " is missing (gstreamer1.0-plugins-bad's nvcodec, which needs the NVIDIA driver)";
  for (const char* variant : {"tiled-coop", "auto"}) {
    for (const char* format : {"RGBA", "BGRx"}) {
      SCOPED_TRACE(std::string(variant) + " " + format);
      ElementLog log(GST_LEVEL_INFO);
      const Props props{{"variant", variant}, {"mask", "gaussian"}, {"radius", "3"}, {"border", "mirror"}};
      Harness h(props, false,
                "cudaupload ! video/x-raw(memory:CUDAMemory) ! convlivefilter name=f ! cudadownload ! video/x-raw");
      ASSERT_TRUE(h.ok()) << h.launchError();
      h.play(format, 37, 23);
      const Frame in = randomFrame(37, 23, 37 * 4 + 12, rng);
      const HostImage want = expected(props, in, format);
      for (int run = 0; run < 2; ++run) {
        const auto out = h.filter(in);
        ASSERT_TRUE(out) << joined(h.errors());
        EXPECT_TRUE(within1(out->pixels, want));
      }
      EXPECT_GE(log.count("on the device"), 1) << "the frames went through system memory";
      EXPECT_EQ(log.count("through system memory"), 0);
      EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
    }
  }
}
#endif

#ifdef CONVLIVE_GST_GPU
// cudaupload ! convlivefilter ! cudadownload with RGB and BGR: filtered as u8x3 in CUDA memory (sweep).
TEST_F(GstElementTest, RgbInCudaMemoryIsFilteredOnTheDevice) {
  for (const char* needed : {"cudaupload", "cudadownload"})
    if (GstElementFactory* f = gst_element_factory_find(needed))
      gst_object_unref(f);
    else
      GTEST_SKIP() << needed << " is missing (gstreamer1.0-plugins-bad's nvcodec, which needs the NVIDIA driver)";
  const Props props{{"variant", "sweep"}, {"mask", "gaussian"}, {"radius", "3"}, {"border", "mirror"}};
  for (const char* format : {"RGB", "BGR"}) {
    SCOPED_TRACE(format);
    const PackedFormat& f = packedFormat(format);
    ElementLog log(GST_LEVEL_INFO);
    Harness h(props, false,
              "cudaupload ! video/x-raw(memory:CUDAMemory) ! convlivefilter name=f ! cudadownload ! video/x-raw");
    ASSERT_TRUE(h.ok()) << h.launchError();
    h.play(format, 37, 23);
    const Frame in = randomFrame(37, 23, 37 * 3 + 5, rng);
    const std::vector<std::uint8_t> want = expectedFrames(props, in, f);
    for (int run = 0; run < 2; ++run) {
      const auto out = h.filter(in);
      ASSERT_TRUE(out) << joined(h.errors());
      EXPECT_EQ(out->format, format);
      EXPECT_TRUE(within1Lsb(out->pixels, want, packedDesc(f, 37, 23)));
    }
    EXPECT_EQ(h.get("active-variant"), "sweep");
    EXPECT_GE(log.count("on the device"), 1) << "the frames went through system memory";
    EXPECT_EQ(log.count("through system memory"), 0);
    EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
  }
}
#endif

#ifndef CONVLIVE_GST_GPU
TEST_F(GstElementTest, RgbInCudaMemoryWithoutADeviceIsAnElementError) {
  if (deviceInfo().available) GTEST_SKIP() << "there is a CUDA device here";
  Harness h({{"variant", "cpu"}}, false);
  ASSERT_TRUE(h.ok());
  h.play("RGB", 16, 8, "memory:CUDAMemory");
  EXPECT_FALSE(h.filter(randomFrame(16, 8, 16 * 3, rng)));
  const auto errors = h.errors();
  EXPECT_TRUE(anyContains(errors, {"cannot take CUDA memory", "system-memory caps"})) << "errors:\n" << joined(errors);
}
#endif

#ifndef CONVLIVE_GST_GPU
TEST_F(GstElementTest, WithoutADeviceAGpuVariantRunsOnTheCpuAndSaysSoOnce) {
  if (deviceInfo().available) GTEST_SKIP() << "there is a CUDA device here: the fallback is not used";
  for (const char* variant : {"naive", "auto", "tensorstream"}) {
    SCOPED_TRACE(variant);
    ElementLog log;
    const Props props{{"variant", variant}, {"mask", "gaussian"}, {"radius", "2"}};
    Harness h(props);
    ASSERT_TRUE(h.ok());
    h.play("RGBA", 37, 23);
    const Frame in = randomFrame(37, 23, 37 * 4, rng);
    expectFiltered(h, props, in, "RGBA");
    h.set("radius", "3");  // a new plan, the same news: not said again
    Props now = props;
    now.emplace_back("radius", "3");
    expectFiltered(h, now, in, "RGBA");
    EXPECT_EQ(h.get("active-variant"), "cpu-simd");
    EXPECT_EQ(log.count("no CUDA device"), 1) << "the fallback is to be said once per element";
    EXPECT_EQ(log.count(std::string("runs on the CPU") + (std::string(variant) == "auto" ? "" : " instead of ")), 1);
    EXPECT_TRUE(h.errors().empty());
  }
}
#endif

// ---- GPU: every GPU variant through the element ------------------------------------------------

#ifdef CONVLIVE_GST_GPU
TEST_F(GstElementTest, EveryGpuVariantThatCanRunMatchesTheReference) {
  for (const Variant& v : variants()) {
    if (!v.onGpu) continue;
    for (const Props& filter : {Props{{"mask", "gaussian"}, {"radius", "3"}, {"border", "mirror"}},
                                Props{{"mask", "sobel"}, {"radius", "1"}, {"border", "clamp"}},
                                Props{{"mask", "emboss"}, {"radius", "2"}, {"border", "zero"}}}) {
      FilterSpec spec;
      for (const auto& [k, val] : filter) spec.set(k, val);
      const FilterParams p = spec.params();
      if (v.whyNot(p, 37, 23)) continue;  // refusals are the variant tests' business
      Props props = filter;
      props.insert(props.begin(), {"variant", v.name});
      SCOPED_TRACE(v.name + " " + spec.describe());
      Harness h(props);
      ASSERT_TRUE(h.ok());
      h.play("RGBA", 37, 23);
      expectFiltered(h, props, randomFrame(37, 23, 37 * 4 + 12, rng), "RGBA");
      EXPECT_EQ(h.get("active-variant"), v.name);
    }
  }
}
#endif

// ---- What gst-inspect shows ---------------------------------------------------------------------

TEST_F(GstElementTest, EverySettingIsAPropertyWithABlurbARangeAndADefault) {
  GstElement* e = gst_element_factory_make("convlivefilter", nullptr);
  ASSERT_NE(e, nullptr);
  GObjectClass* klass = G_OBJECT_GET_CLASS(e);
  for (const Setting& s : specSettings()) {
    SCOPED_TRACE(s.name);
    GParamSpec* ps = g_object_class_find_property(klass, s.name.c_str());
    ASSERT_NE(ps, nullptr) << "no property " << s.name;
    const std::string blurb = g_param_spec_get_blurb(ps) ? g_param_spec_get_blurb(ps) : "";
    EXPECT_EQ(blurb.rfind(s.help, 0), 0u) << "the blurb is the setting's help";
    EXPECT_TRUE(ps->flags & G_PARAM_READWRITE);
    EXPECT_TRUE(ps->flags & GST_PARAM_MUTABLE_PLAYING);
    // The default, read back as the setting's text.
    GValue v = G_VALUE_INIT;
    g_value_init(&v, ps->value_type);
    g_object_get_property(G_OBJECT(e), s.name.c_str(), &v);
    EXPECT_TRUE(g_param_value_defaults(ps, &v)) << "the property's value is not its declared default";
    const std::string def = s.defaultText();
    switch (s.type) {
      case Setting::Type::Int: {
        auto* pi = G_PARAM_SPEC_INT(ps);
        EXPECT_EQ(pi->minimum, int(s.min));
        EXPECT_EQ(pi->maximum, int(s.max));
        EXPECT_EQ(std::to_string(pi->default_value), def);
        break;
      }
      case Setting::Type::Float: {
        auto* pd = G_PARAM_SPEC_DOUBLE(ps);
        EXPECT_EQ(pd->maximum, s.max);
        EXPECT_EQ(pd->minimum, s.name == "sigma" ? 0.0 : s.min) << "sigma's 0 stands for auto";
        if (def == "auto")
          EXPECT_EQ(pd->default_value, 0.0);
        else
          EXPECT_DOUBLE_EQ(pd->default_value, std::stod(def));
        break;
      }
      case Setting::Type::Flag:
        EXPECT_EQ(G_PARAM_SPEC_BOOLEAN(ps)->default_value ? "true" : "false", def);
        break;
      case Setting::Type::Choice: {
        ASSERT_TRUE(G_IS_PARAM_SPEC_ENUM(ps));
        GEnumClass* ec = G_PARAM_SPEC_ENUM(ps)->enum_class;
        std::vector<std::string> nicks;
        for (guint i = 0; i < ec->n_values; ++i) nicks.emplace_back(ec->values[i].value_nick);
        EXPECT_EQ(nicks, s.choices) << "gst-inspect lists the setting's choices";
        EXPECT_EQ(g_enum_get_value(ec, G_PARAM_SPEC_ENUM(ps)->default_value)->value_nick, def);
        break;
      }
      case Setting::Type::Text:
        EXPECT_EQ(std::string(G_PARAM_SPEC_STRING(ps)->default_value), def);
        break;
    }
    g_value_unset(&v);
  }
  // The variant enum: auto and every table entry.
  GParamSpec* variant = g_object_class_find_property(klass, "variant");
  ASSERT_NE(variant, nullptr);
  GEnumClass* ec = G_PARAM_SPEC_ENUM(variant)->enum_class;
  EXPECT_EQ(ec->n_values, variants().size() + 1);
  // Every property, those of the base classes too, has a blurb.
  guint n = 0;
  GParamSpec** all = g_object_class_list_properties(klass, &n);
  for (guint i = 0; i < n; ++i) {
    const char* blurb = g_param_spec_get_blurb(all[i]);
    EXPECT_TRUE(blurb && *blurb) << g_param_spec_get_name(all[i]) << " has no blurb";
  }
  g_free(all);
  gst_object_unref(e);
}

TEST_F(GstElementTest, ThePluginIsFoundOnThePluginPath) {
  GstPlugin* plugin = gst_registry_find_plugin(gst_registry_get(), "convlive");
  ASSERT_NE(plugin, nullptr);
  const std::string file = gst_plugin_get_filename(plugin) ? gst_plugin_get_filename(plugin) : "";
  EXPECT_NE(file.find("libgstconvlive.so"), std::string::npos) << file;
  gst_object_unref(plugin);
  GstElementFactory* f = gst_element_factory_find("convlivefilter");
  ASSERT_NE(f, nullptr);
  EXPECT_STREQ(gst_element_factory_get_metadata(f, GST_ELEMENT_METADATA_KLASS), "Filter/Effect/Video");
  gst_object_unref(f);
}

// ---- NV12 and I420 ------------------------------------------------------------------------------
//
// The expected output is the chain the element stands for, all of it on the CPU reference:
// referenceYuvToRgba -> referenceFilter -> referenceRgbaToYuv, with the matrix and range the caps
// say. Tolerance per plane (Y, and U/V or UV): 1 level for the CPU variant, 2 for GPU variants.
// Why: the variant is within 1 LSB of the reference in RGBA; the way back to YUV does not grow
// that (Y' weights sum to 1 and the scales are at most 255/255; |delta (B' - Y')| <= 2 (1 - Kb)
// |delta| for Cb, likewise Cr; the chroma means do not add), so 1 level after rounding. The CPU
// variant converts with the reference itself; the GPU converts in float and may round a value
// near a half the other way (1 level, tests/test_colour_gpu.cpp), once on each side of the filter:
// 2 levels. That holds for masks whose weights are positive and sum to 1 (gaussian, box); masks
// that amplify (sobel, sharpen) run on the CPU variant only, where the conversion is exact.

namespace ct = convlive::colourtest;

constexpr int kYuvTolerance = kGpu ? 2 : 1;

// A random YUV frame with each plane's rows `extra` bytes longer than their samples (the padding
// random too).
ct::YuvBuffer randomYuv(YuvFormat format, int w, int h, std::size_t extra, std::mt19937& rng) {
  ct::YuvBuffer f(format, w, h, ct::Padding{extra, 0, 1, "padded"});
  ct::fillRandom(f.bytes, rng);
  return f;
}

// A GstBuffer holding a copy of `in`, with a video meta giving its plane offsets and strides.
GstBuffer* bufferOf(const ct::YuvBuffer& in) {
  const YuvLayout& l = in.layout;
  GstBuffer* buf = gst_buffer_new_allocate(nullptr, in.bytes.size(), nullptr);
  gst_buffer_fill(buf, 0, in.bytes.data(), in.bytes.size());
  gsize offset[GST_VIDEO_MAX_PLANES] = {0};
  gint stride[GST_VIDEO_MAX_PLANES] = {0};
  const int planes = yuvPlaneCount(l.format);
  for (int p = 0; p < planes; ++p) {
    offset[p] = l.offsets[p];
    stride[p] = gint(l.pitches[p]);
  }
  gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE,
                                 l.format == YuvFormat::NV12 ? GST_VIDEO_FORMAT_NV12 : GST_VIDEO_FORMAT_I420,
                                 guint(l.width), guint(l.height), guint(planes), offset, stride);
  return buf;
}

// The chain reference (see above) of `in` for the element's properties.
ct::YuvBuffer expectedYuv(const Props& props, const ct::YuvBuffer& in, ColourSpec colour) {
  FilterSpec spec;
  for (const auto& [k, v] : props)
    if (k != "variant" && k != "tile")
      if (Problem p = spec.set(k, v)) throw ProblemError(p);
  const FilterParams p = spec.params();
  const YuvLayout& l = in.layout;
  HostImage rgba(l.width, l.height), filtered(l.width, l.height);
  referenceYuvToRgba(in.view(), rgba.view(), colour);
  referenceFilter(p.filter, p.border, false, rgba.view(), filtered.view());
  ct::YuvBuffer want(l.format, l.width, l.height);
  referenceRgbaToYuv(filtered.view(), want.view(), colour);
  return want;
}

struct YuvOutput {
  std::string format;
  ct::YuvBuffer frame;         // the planes, packed
  int poison = -1;             // the pool's poison in this buffer; -1: not from the test's pool
  std::string paddingWritten;  // where the element wrote into a plane's row padding; empty: nowhere
  const void* memory = nullptr;
};

std::optional<YuvOutput> readYuv(GstSample* sample) {
  GstBuffer* buf = gst_sample_get_buffer(sample);
  GstVideoInfo vi;
  if (!gst_video_info_from_caps(&vi, gst_sample_get_caps(sample))) return std::nullopt;
  const auto format = parseYuvFormat(GST_VIDEO_INFO_NAME(&vi));
  if (!format) return std::nullopt;
  YuvOutput out{GST_VIDEO_INFO_NAME(&vi),
                ct::YuvBuffer(*format, GST_VIDEO_INFO_WIDTH(&vi), GST_VIDEO_INFO_HEIGHT(&vi))};
  out.memory = gst_buffer_n_memory(buf) ? static_cast<const void*>(gst_buffer_peek_memory(buf, 0)) : nullptr;
  if (gpointer p = gst_mini_object_get_qdata(GST_MINI_OBJECT(buf), poisonQuark()))
    out.poison = int(GPOINTER_TO_UINT(p) - 1u);
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &vi, buf, GST_MAP_READ)) return std::nullopt;
  const YuvView to = out.frame.view();
  for (int p = 0; p < yuvPlaneCount(*format); ++p) {
    const auto* data = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    const auto stride = std::size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p));
    const std::size_t row = yuvRowBytes(*format, to.width, p);
    for (int y = 0; y < yuvPlaneRows(to.height, p); ++y) {
      const std::uint8_t* r = data + std::size_t(y) * stride;
      std::memcpy(to.planes[p] + std::size_t(y) * to.pitches[p], r, row);
      for (std::size_t x = row; out.poison >= 0 && x < stride && out.paddingWritten.empty(); ++x)
        if (r[x] != out.poison)
          out.paddingWritten =
              "plane " + std::to_string(p) + " row " + std::to_string(y) + " byte " + std::to_string(x);
    }
  }
  gst_video_frame_unmap(&frame);
  return out;
}

// Filters `in` twice (two poisons) and checks both against the chain reference with `colour`.
// Returns the last output.
std::optional<YuvOutput> expectYuvFiltered(Harness& h, const Props& props, const ct::YuvBuffer& in, ColourSpec colour) {
  const ct::YuvBuffer want = expectedYuv(props, in, colour);
  const std::string format(yuvFormatName(in.layout.format));
  int poisons = 0;
  std::optional<YuvOutput> out;
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    GstSample* sample = h.pushAndPull(bufferOf(in));
    EXPECT_NE(sample, nullptr) << "no frame came out: " << joined(h.errors());
    if (!sample) return std::nullopt;
    out = readYuv(sample);
    gst_sample_unref(sample);
    EXPECT_TRUE(out) << "the output is not an NV12/I420 frame";
    if (!out) return std::nullopt;
    EXPECT_EQ(out->format, format);
    EXPECT_GE(out->poison, 0) << "the output buffer is not from the test's poisoned pool";
    EXPECT_EQ(out->paddingWritten, "") << "the element wrote into the row padding";
    EXPECT_TRUE(ct::within(ct::compareYuv(out->frame.view(), want.view(), kYuvTolerance), kYuvTolerance));
    poisons |= 1 << (out->poison == 0xcd ? 0 : 1);
  }
  EXPECT_EQ(poisons, 3) << "both poisons were to be seen";
  return out;
}

TEST_F(GstElementTest, BothPadsTakeNv12AndI420) {
  GstElementFactory* f = gst_element_factory_find("convlivefilter");
  ASSERT_NE(f, nullptr);
  for (const GList* l = gst_element_factory_get_static_pad_templates(f); l; l = l->next) {
    auto* t = static_cast<GstStaticPadTemplate*>(l->data);
    GstCaps* caps = gst_static_pad_template_get_caps(t);
    for (const char* want :
         {"video/x-raw, format=NV12", "video/x-raw, format=I420", "video/x-raw(memory:CUDAMemory), format=NV12",
          "video/x-raw(memory:CUDAMemory), format=I420"}) {
      SCOPED_TRACE(std::string(t->name_template) + ": " + want);
      GstCaps* yuv = gst_caps_from_string(want);
      EXPECT_TRUE(gst_caps_can_intersect(caps, yuv));
      gst_caps_unref(yuv);
    }
    gst_caps_unref(caps);
  }
  gst_object_unref(f);
}

TEST_F(GstElementTest, Nv12AndI420MatchTheChainReference) {
  struct Case {
    Props props;
    int w, h;
    std::size_t extraStride;  // bytes past each plane's row
    bool gpuToo;              // a mask within the GPU's tolerance (see above)
  };
  const std::vector<Case> cases{
      {{{"mask", "gaussian"}, {"radius", "2"}, {"border", "clamp"}}, 37, 23, 5, true},
      {{{"mask", "box"}, {"radius", "3"}, {"border", "zero"}, {"filter-alpha", "true"}}, 29, 17, 0, true},
      {{{"mask", "gaussian"}, {"radius", "8"}, {"border", "wrap"}}, 5, 3, 1, true},  // smaller than the mask
      {{{"mask", "box"}, {"radius", "1"}, {"border", "mirror"}}, 1, 1, 2, true},
      {{{"mask", "sobel"}, {"radius", "1"}, {"border", "mirror"}}, 37, 23, 3, false},
      {{{"mask", "sharpen"}, {"radius", "2"}, {"border", "clamp"}}, 31, 19, 8, false},
  };
  for (YuvFormat format : {YuvFormat::NV12, YuvFormat::I420}) {
    for (const Case& c : cases) {
      if (kGpu && !c.gpuToo) continue;
      const Props props = withVariant(c.props);
      SCOPED_TRACE(std::string(yuvFormatName(format)) + " " + std::to_string(c.w) + "x" + std::to_string(c.h) +
                   " stride +" + std::to_string(c.extraStride) + describeProps(props));
      Harness h(props);
      ASSERT_TRUE(h.ok()) << h.launchError();
      h.play(std::string(yuvFormatName(format)), c.w, c.h);
      // No colorimetry in the caps: GStreamer's default for SD sizes, BT.601 limited range.
      expectYuvFiltered(h, props, randomYuv(format, c.w, c.h, c.extraStride, rng),
                        {ColourMatrix::Bt601, ColourRange::Limited});
      EXPECT_EQ(h.get("active-variant"), kVariant);
      EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
    }
  }
}

TEST_F(GstElementTest, YuvIsConvertedWithTheCapsColorimetry) {
  struct Case {
    GstVideoColorimetry caps;
    ColourSpec spec;
  };
  const std::vector<Case> cases{
      {{GST_VIDEO_COLOR_RANGE_0_255, GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_TRANSFER_BT709,
        GST_VIDEO_COLOR_PRIMARIES_BT709},
       {ColourMatrix::Bt709, ColourRange::Full}},
      {{GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_MATRIX_BT2020, GST_VIDEO_TRANSFER_BT2020_10,
        GST_VIDEO_COLOR_PRIMARIES_BT2020},
       {ColourMatrix::Bt2020, ColourRange::Limited}},
      {{GST_VIDEO_COLOR_RANGE_0_255, GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_TRANSFER_BT709,
        GST_VIDEO_COLOR_PRIMARIES_SMPTE170M},
       {ColourMatrix::Bt601, ColourRange::Full}},
  };
  const Props props = withVariant({{"mask", "gaussian"}, {"radius", "3"}, {"border", "mirror"}});
  for (YuvFormat format : {YuvFormat::NV12, YuvFormat::I420}) {
    for (const Case& c : cases) {
      gchar* text = gst_video_colorimetry_to_string(&c.caps);
      ASSERT_NE(text, nullptr);
      const std::string colorimetry = text;
      g_free(text);
      SCOPED_TRACE(std::string(yuvFormatName(format)) + " colorimetry=" + colorimetry + " (" + describe(c.spec) + ")");
      Harness h(props);
      ASSERT_TRUE(h.ok());
      h.play(std::string(yuvFormatName(format)), 37, 23, nullptr, colorimetry.c_str());
      const ct::YuvBuffer in = randomYuv(format, 37, 23, 7, rng);
      const auto out = expectYuvFiltered(h, props, in, c.spec);
      ASSERT_TRUE(out);
      // The default (BT.601 limited) would have given another frame: the caps' colorimetry was used.
      const ct::YuvBuffer byDefault = expectedYuv(props, in, {ColourMatrix::Bt601, ColourRange::Limited});
      EXPECT_GT(ct::compareYuv(out->frame.view(), byDefault.view(), kYuvTolerance).beyond, 0);
      EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
    }
  }
}

TEST_F(GstElementTest, TheIdentityPassesYuvFramesThrough) {
  for (YuvFormat format : {YuvFormat::NV12, YuvFormat::I420}) {
    SCOPED_TRACE(std::string(yuvFormatName(format)));
    Harness h(withVariant({{"mask", "custom"}, {"weights", "1"}}));
    ASSERT_TRUE(h.ok());
    h.play(std::string(yuvFormatName(format)), 37, 23);
    const ct::YuvBuffer in = randomYuv(format, 37, 23, 4, rng);
    GstBuffer* sent = nullptr;
    GstSample* sample = h.pushAndPull(bufferOf(in), &sent);
    ASSERT_NE(sample, nullptr) << joined(h.errors());
    const auto out = readYuv(sample);
    gst_sample_unref(sample);
    ASSERT_TRUE(out);
    EXPECT_TRUE(gst_base_transform_is_passthrough(GST_BASE_TRANSFORM(h.filter())));
    EXPECT_EQ(out->memory, static_cast<const void*>(gst_buffer_peek_memory(sent, 0)))
        << "the identity filter copied the frame instead of passing it through";
    EXPECT_TRUE(ct::within(ct::compareYuv(out->frame.view(), in.view(), 0), 0));
    gst_buffer_unref(sent);
  }
}

TEST_F(GstElementTest, TheFormatMayChangeBetweenYuvAndRgbaMidStream) {
  const Props props = withVariant({{"mask", "gaussian"}, {"radius", "2"}});
  const ColourSpec sd{ColourMatrix::Bt601, ColourRange::Limited};
  Harness h(props);
  ASSERT_TRUE(h.ok());
  h.play("NV12", 37, 23);
  expectYuvFiltered(h, props, randomYuv(YuvFormat::NV12, 37, 23, 0, rng), sd);
  h.play("I420", 37, 23);  // the same size, another format
  expectYuvFiltered(h, props, randomYuv(YuvFormat::I420, 37, 23, 3, rng), sd);
  h.play("RGBA", 13, 9);
  expectFiltered(h, props, randomFrame(13, 9, 13 * 4, rng), "RGBA");
  h.play("NV12", 13, 9);
  expectYuvFiltered(h, props, randomYuv(YuvFormat::NV12, 13, 9, 1, rng), sd);
  EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
}

#ifdef CONVLIVE_GST_GPU
// cudaupload ! convlivefilter ! cudadownload with NV12/I420: converted, filtered and converted back
// on the device, in CUDA memory.
TEST_F(GstElementTest, YuvInCudaMemoryIsFilteredOnTheDevice) {
  for (const char* needed : {"cudaupload", "cudadownload"})
    if (GstElementFactory* f = gst_element_factory_find(needed))
      gst_object_unref(f);
    else
      GTEST_SKIP() << needed << " is missing (gstreamer1.0-plugins-bad's nvcodec, which needs the NVIDIA driver)";
  const Props props{{"variant", "tiled-coop"}, {"mask", "gaussian"}, {"radius", "3"}, {"border", "mirror"}};
  for (YuvFormat format : {YuvFormat::NV12, YuvFormat::I420}) {
    SCOPED_TRACE(std::string(yuvFormatName(format)));
    ElementLog log(GST_LEVEL_INFO);
    Harness h(props, false,
              "cudaupload ! video/x-raw(memory:CUDAMemory) ! convlivefilter name=f ! cudadownload ! video/x-raw");
    ASSERT_TRUE(h.ok()) << h.launchError();
    h.play(std::string(yuvFormatName(format)), 37, 23, nullptr, "bt709");
    const ct::YuvBuffer in = randomYuv(format, 37, 23, 5, rng);
    const ct::YuvBuffer want = expectedYuv(props, in, {ColourMatrix::Bt709, ColourRange::Limited});
    for (int run = 0; run < 2; ++run) {
      GstSample* sample = h.pushAndPull(bufferOf(in));
      ASSERT_NE(sample, nullptr) << joined(h.errors());
      const auto out = readYuv(sample);
      gst_sample_unref(sample);
      ASSERT_TRUE(out);
      EXPECT_TRUE(ct::within(ct::compareYuv(out->frame.view(), want.view(), kYuvTolerance), kYuvTolerance));
    }
    EXPECT_GE(log.count("on the device"), 1) << "the frames went through system memory";
    EXPECT_EQ(log.count("through system memory"), 0);
    EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
  }
}
#endif

#ifndef CONVLIVE_GST_GPU
TEST_F(GstElementTest, YuvInCudaMemoryWithoutADeviceIsAnElementError) {
  if (deviceInfo().available) GTEST_SKIP() << "there is a CUDA device here";
  Harness h(withVariant({}), false);
  ASSERT_TRUE(h.ok());
  h.play("NV12", 16, 8, "memory:CUDAMemory");
  EXPECT_EQ(h.pushAndPull(bufferOf(randomYuv(YuvFormat::NV12, 16, 8, 0, rng))), nullptr);
  const auto errors = h.errors();
  EXPECT_TRUE(anyContains(errors, {"cannot take CUDA memory", "system-memory caps"})) << "errors:\n" << joined(errors);
}
#endif

// ---- The device: cuda-device-id ----------------------------------------------------------------

TEST_F(GstElementTest, CudaDeviceIdIsAnIntFromMinusOneThatDefaultsToMinusOne) {
  Harness h(withVariant({}));
  ASSERT_TRUE(h.ok());
  GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(h.filter()), "cuda-device-id");
  ASSERT_NE(ps, nullptr) << "no cuda-device-id property";
  ASSERT_EQ(ps->value_type, G_TYPE_INT);
  const auto* ints = G_PARAM_SPEC_INT(ps);
  EXPECT_EQ(ints->minimum, -1);
  EXPECT_EQ(ints->maximum, G_MAXINT);
  EXPECT_EQ(ints->default_value, -1);
  EXPECT_TRUE(ps->flags & G_PARAM_READWRITE);
  EXPECT_TRUE(ps->flags & GST_PARAM_MUTABLE_READY) << "taken at start, as GStreamer's CUDA elements take theirs";
  EXPECT_NE(std::string(g_param_spec_get_blurb(ps)).find("-1"), std::string::npos) << "the blurb says what -1 is";
  EXPECT_EQ(h.get("cuda-device-id"), "-1");
  h.set("cuda-device-id", "1");
  EXPECT_EQ(h.get("cuda-device-id"), "1");
  h.set("cuda-device-id", "-1");
  EXPECT_EQ(h.get("cuda-device-id"), "-1");
}

// An index past the machine's devices (any index where there is none) stops the element at start,
// naming the devices there are.
TEST_F(GstElementTest, ACudaDeviceIdPastTheDevicesIsAnElementError) {
  const int past = std::max(deviceCount(), 1);  // without a device 0 means the default: the CPU runs
  Harness h(withVariant({}));
  ASSERT_TRUE(h.ok());
  h.set("cuda-device-id", std::to_string(past));
  h.play("RGBA", 16, 8);  // start() refuses, posting the error while the pipeline goes to PAUSED
  std::vector<std::string> errors = h.errors();
  for (int i = 0; i < 50 && errors.empty(); ++i) {
    g_usleep(100 * 1000);
    errors = h.errors();
  }
  const std::string asked = "cuda-device-id=" + std::to_string(past) + ": this machine has ";
  if (deviceCount() == 0)
    EXPECT_TRUE(anyContains(errors, {asked.c_str(), "no CUDA device", "set cuda-device-id=-1"})) << joined(errors);
  else
    EXPECT_TRUE(anyContains(errors, {asked.c_str(), describeDevices().c_str(), "convlive list devices"}))
        << joined(errors);
}

#ifndef CONVLIVE_GST_GPU
TEST_F(GstElementTest, WithoutADeviceCudaDeviceIdZeroRunsTheCpuVariant) {
  if (deviceInfo().available) GTEST_SKIP() << "there is a CUDA device here";
  const Props props{{"variant", "auto"}, {"mask", "box"}, {"radius", "2"}};
  Harness h(props);
  ASSERT_TRUE(h.ok());
  h.set("cuda-device-id", "0");
  h.play("RGBA", 37, 23);
  expectFiltered(h, props, randomFrame(37, 23, 37 * 4, rng), "RGBA");
  EXPECT_EQ(h.get("active-variant"), "cpu-simd");
  EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
}
#endif

#ifdef CONVLIVE_GST_GPU
// The second device, where the machine has one.
#define NEEDS_TWO_DEVICES()                                                                                 \
  if (deviceCount() < 2)                                                                                    \
  GTEST_SKIP() << "this machine has " << deviceCount() << " CUDA device" << (deviceCount() == 1 ? "" : "s") \
               << "; the second-device test needs 2"

TEST_F(GstElementTest, CudaDeviceIdOneFiltersSystemMemoryOnTheSecondDevice) {
  NEEDS_TWO_DEVICES();
  for (const char* variant : {kVariant, "auto"}) {
    SCOPED_TRACE(variant);
    ElementLog log(GST_LEVEL_INFO);
    const Props props{{"variant", variant}, {"mask", "gaussian"}, {"radius", "3"}};
    Harness h(props);
    ASSERT_TRUE(h.ok());
    h.set("cuda-device-id", "1");
    h.play("RGBA", 37, 23);
    expectFiltered(h, props, randomFrame(37, 23, 37 * 4 + 8, rng), "RGBA");
    EXPECT_GE(log.count("on CUDA device 1"), 1) << "the plan was not made for device 1";
    EXPECT_EQ(log.count("on CUDA device 0"), 0);
    EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
  }
}

bool haveCudaUploadAndDownload() {
  for (const char* needed : {"cudaupload", "cudadownload"}) {
    GstElementFactory* f = gst_element_factory_find(needed);
    if (!f) return false;
    gst_object_unref(f);
  }
  return true;
}

// cudaupload on device 1 ! convlivefilter (-1: the neighbour's context) ! cudadownload: the element
// shares the upstream context and filters on device 1 in CUDA memory.
TEST_F(GstElementTest, MinusOneSharesTheNeighboursContextOnTheSecondDevice) {
  NEEDS_TWO_DEVICES();
  if (!haveCudaUploadAndDownload()) GTEST_SKIP() << "cudaupload or cudadownload is missing (nvcodec)";
  for (const char* id : {"-1", "1"}) {
    SCOPED_TRACE(std::string("cuda-device-id=") + id);
    ElementLog log(GST_LEVEL_INFO);
    const Props props{{"variant", "tiled-coop"}, {"mask", "gaussian"}, {"radius", "3"}, {"cuda-device-id", id}};
    Harness h(props, false,
              "cudaupload cuda-device-id=1 ! video/x-raw(memory:CUDAMemory) ! convlivefilter name=f ! "
              "cudadownload cuda-device-id=1 ! video/x-raw");
    ASSERT_TRUE(h.ok()) << h.launchError();
    h.play("RGBA", 37, 23);
    const Frame in = randomFrame(37, 23, 37 * 4, rng);
    const HostImage want = expected({{"mask", "gaussian"}, {"radius", "3"}}, in, "RGBA");
    for (int run = 0; run < 2; ++run) {
      const auto out = h.filter(in);
      ASSERT_TRUE(out) << joined(h.errors());
      EXPECT_TRUE(within1(out->pixels, want));
    }
    EXPECT_GE(log.count("on the device"), 1) << "the frames went through system memory";
    EXPECT_GE(log.count("on CUDA device 1"), 1) << "the plan was not made on the context's device";
    EXPECT_TRUE(h.errors().empty()) << joined(h.errors());
  }
}

// Plays a gst-launch line to its end: "" when it reached EOS within `seconds`, else what happened.
// `kept`: where the ended pipeline goes for the caller to look into (then set to NULL and unref);
// without it the pipeline is stopped and freed here.
std::string playToEnd(const std::string& launch, int seconds, GstElement** kept = nullptr) {
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(launch.c_str(), &err);
  if (!pipeline || err) {
    const std::string why = err ? err->message : "gst_parse_launch failed";
    if (err) g_error_free(err);
    if (pipeline) gst_object_unref(pipeline);
    return "the line does not parse: " + why;
  }
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* end = gst_bus_timed_pop_filtered(bus, GstClockTime(seconds) * GST_SECOND,
                                               GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  std::string why;
  if (!end)
    why = "no EOS within " + std::to_string(seconds) + " s";
  else if (GST_MESSAGE_TYPE(end) != GST_MESSAGE_EOS)
    why = "the pipeline ended in an error";
  if (end) gst_message_unref(end);
  gst_object_unref(bus);
  if (kept) {
    *kept = pipeline;
  } else {
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
  return why;
}

// The GstCudaContext `element` answers the context query with on its src pad (a new reference; null
// where it has none).
GstCudaContext* cudaContextOf(GstElement* element) {
  GstPad* pad = gst_element_get_static_pad(element, "src");
  GstQuery* q = gst_query_new_context(GST_CUDA_CONTEXT_TYPE);
  GstCudaContext* ctx = nullptr;
  if (pad && gst_pad_query(pad, q)) {
    GstContext* c = nullptr;
    gst_query_parse_context(q, &c);
    if (c) gst_structure_get(gst_context_get_structure(c), GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &ctx, nullptr);
  }
  gst_query_unref(q);
  if (pad) gst_object_unref(pad);
  return ctx;
}

// Device `device`'s primary context, the CUDA runtime's (through GstCuda's driver table).
CUcontext primaryContextOf(int device) {
  const DeviceScope scope(device);
  if (cudaFree(nullptr) != cudaSuccess) return nullptr;
  CUcontext current = nullptr;
  if (!gst_cuda_load_library() || CuCtxPopCurrent(&current) != CUDA_SUCCESS) return nullptr;
  CuCtxPushCurrent(current);
  return current;
}

// Two pipelines of one process (the way an application runs a pipeline per camera), each
// cudaupload ! convlivefilter ! cudadownload: every element works in device 0's primary context,
// one GstCudaContext, the uploader too (it starts after the element and finds its context). Before,
// each pipeline made a context of its own, and contexts on one GPU take turns on it.
TEST_F(GstElementTest, PipelinesOfAProcessShareTheDevicesPrimaryContext) {
  if (!haveCudaUploadAndDownload()) GTEST_SKIP() << "cudaupload or cudadownload is missing (nvcodec)";
  std::vector<const char*> ids = {"0"};
  if (deviceCount() == 1) ids.push_back("-1");  // the only device
  for (const char* id : ids) {
    SCOPED_TRACE(std::string("cuda-device-id=") + id);
    ElementLog log(GST_LEVEL_INFO);
    const Props props{{"variant", "tiled-coop"}, {"mask", "gaussian"}, {"radius", "2"}, {"cuda-device-id", id}};
    const char* middle =
        "cudaupload name=up ! video/x-raw(memory:CUDAMemory) ! convlivefilter name=f ! cudadownload ! video/x-raw";
    Harness a(props, false, middle), b(props, false, middle);
    ASSERT_TRUE(a.ok() && b.ok()) << a.launchError() << b.launchError();
    a.play("RGBA", 37, 23);
    b.play("RGBA", 37, 23);
    const Frame in = randomFrame(37, 23, 37 * 4, rng);
    const HostImage want = expected({{"mask", "gaussian"}, {"radius", "2"}}, in, "RGBA");
    for (Harness* h : {&a, &b}) {
      const auto out = h->filter(in);
      ASSERT_TRUE(out) << joined(h->errors());
      EXPECT_TRUE(within1(out->pixels, want));
      EXPECT_TRUE(h->errors().empty()) << joined(h->errors());
    }
    EXPECT_EQ(log.count("filtered on the device"), 2) << "a frame went through system memory";
    GstCudaContext* ca = cudaContextOf(a.filter());
    GstCudaContext* cb = cudaContextOf(b.filter());
    GstElement* up = gst_bin_get_by_name(GST_BIN(a.pipeline()), "up");
    GstCudaContext* cu = cudaContextOf(up);
    ASSERT_TRUE(ca && cb && cu);
    EXPECT_EQ(ca, cb) << "the two pipelines' elements work in two contexts";
    EXPECT_EQ(cu, ca) << "cudaupload did not take the element's context";
    EXPECT_EQ(gst_cuda_context_get_handle(ca), primaryContextOf(0)) << "not the device's primary context";
    for (GstObject* o : {GST_OBJECT(ca), GST_OBJECT(cb), GST_OBJECT(cu), GST_OBJECT(up)}) gst_object_unref(o);
  }
}

// One pipeline over two GPUs, branches alternating between them (as the multi-stream benchmark
// runs them): the elements on a device share its primary context, and every frame is filtered in
// CUDA memory. With GStreamer's one cached context per pipeline, each branch made its own.
TEST_F(GstElementTest, BranchesOnTwoDevicesShareOneContextPerDevice) {
  NEEDS_TWO_DEVICES();
  if (!haveCudaUploadAndDownload()) GTEST_SKIP() << "cudaupload or cudadownload is missing (nvcodec)";
  ElementLog log(GST_LEVEL_INFO);
  constexpr int kBranches = 6;
  std::string launch;
  for (int b = 0; b < kBranches; ++b) {
    const std::string k = std::to_string(b % 2);
    launch +=
        "videotestsrc num-buffers=4 ! video/x-raw,format=RGBA,width=67,height=31 ! cudaupload cuda-device-id=" + k +
        " ! video/x-raw(memory:CUDAMemory) ! convlivefilter name=f" + std::to_string(b) +
        " variant=tiled-coop mask=gaussian radius=2 cuda-device-id=" + k + " ! cudadownload cuda-device-id=" + k +
        " ! fakesink sync=false ";
  }
  GstElement* pipeline = nullptr;
  ASSERT_EQ(playToEnd(launch, 30, &pipeline), "");
  EXPECT_EQ(log.count("filtered on the device"), kBranches);
  EXPECT_EQ(log.count("through system memory"), 0);
  GstCudaContext* first[2] = {nullptr, nullptr};
  for (int b = 0; b < kBranches; ++b) {
    GstElement* f = gst_bin_get_by_name(GST_BIN(pipeline), ("f" + std::to_string(b)).c_str());
    GstCudaContext* c = cudaContextOf(f);
    ASSERT_NE(c, nullptr);
    guint device = 99;
    g_object_get(c, "cuda-device-id", &device, nullptr);
    EXPECT_EQ(device, guint(b % 2));
    if (!first[b % 2])
      first[b % 2] = GST_CUDA_CONTEXT(gst_object_ref(c));
    else
      EXPECT_EQ(c, first[b % 2]) << "branch " << b << " works in a context of its own";
    gst_object_unref(c);
    gst_object_unref(f);
  }
  for (GstCudaContext* c : first) gst_object_unref(c);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// The element started and stopped 100 times in one process, in system and in CUDA memory: resident
// memory and GPU memory in use flat after the first ten (no stream, plan, pool or context left
// behind).
TEST_F(GstElementTest, StartedAndStoppedAHundredTimesLeavesNothingBehind) {
  const bool cuda = haveCudaUploadAndDownload();
  double rss10 = 0, gpu10 = 0;
  for (int i = 0; i < 100; ++i) {
    const std::string middle = i % 2 == 0 || !cuda ? "convlivefilter mask=gaussian radius=2"
                                                   : "cudaupload ! convlivefilter mask=sobel radius=1 ! cudadownload";
    const std::string launch = "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=96,height=54 ! " + middle +
                               " ! fakesink sync=false";
    ASSERT_EQ(playToEnd(launch, 20), "") << "run " << i;
    if (i == 9) rss10 = process_memory::residentMb(), gpu10 = process_memory::gpuUsedMb();
  }
  const double rss = process_memory::residentMb(), gpu = process_memory::gpuUsedMb();
  std::printf("element started 100 times: resident %.0f -> %.0f MB, GPU in use %.0f -> %.0f MB\n", rss10, rss, gpu10,
              gpu);
  EXPECT_LE(rss - rss10, 32.0) << "resident memory grew";
  EXPECT_LE(gpu - gpu10, 32.0) << "GPU memory grew";
}

// cudaupload on device 0 ! convlivefilter cuda-device-id=1: CUDA memory of another device than the
// one asked for is an element error saying what to change (not a silent copy through the host).
TEST_F(GstElementTest, CudaMemoryFromAnotherDeviceThanCudaDeviceIdIsAnElementError) {
  NEEDS_TWO_DEVICES();
  if (!haveCudaUploadAndDownload()) GTEST_SKIP() << "cudaupload or cudadownload is missing (nvcodec)";
  Harness h({{"variant", "tiled-coop"}, {"cuda-device-id", "1"}}, false,
            "cudaupload cuda-device-id=0 ! video/x-raw(memory:CUDAMemory) ! convlivefilter name=f ! "
            "cudadownload cuda-device-id=1 ! video/x-raw");
  ASSERT_TRUE(h.ok()) << h.launchError();
  h.play("RGBA", 16, 8);
  EXPECT_FALSE(h.filter(randomFrame(16, 8, 16 * 4, rng)));
  const auto errors = h.errors();
  EXPECT_TRUE(anyContains(
      errors, {"cuda-device-id is 1, but the frames coming in are CUDA memory on device 0", "set cuda-device-id=0"}))
      << joined(errors);
}
#endif

}  // namespace
