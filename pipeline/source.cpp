// Source: a SourceGraph (what to play) read by an AppsinkReader (how frames come out), with the
// file's integrity checked at its end. GStreamer's set-up and the element and pattern lists too.
#include "convlive/source.hpp"

#include <cstring>
#include <mutex>

#include "appsink_reader.hpp"
#include "cuda_share.hpp"
#include "gst_ptr.hpp"
#include "source_graph.hpp"

namespace convlive {

namespace {

// Decoders' ranks: where gstreamer1.0-plugins-bad's nvcodec is installed and an NVIDIA driver is
// present, decodebin would pick its NVDEC decoders for every graph (they outrank the software
// ones), including those that want RGBA in system memory (the viewer), where they may not even
// start (seen on the H200 machine: their NVRTC kernels failed to compile, and a file source then
// never delivered). So ranks keep autoplugging off them, and the graphs that can take their frames
// in GPU memory (--decoder auto or nvdec, cuda_share.hpp) ask for them by name. A launch line that
// names one still gets it. GST_PLUGIN_FEATURE_RANK, when set, is the user's choice and is left be.
void keepAutoplugOffNvdec() {
  if (g_getenv("GST_PLUGIN_FEATURE_RANK")) return;
  GList* features = gst_registry_get_feature_list_by_plugin(gst_registry_get(), "nvcodec");
  for (GList* f = features; f; f = f->next) {
    auto* feature = GST_PLUGIN_FEATURE(f->data);
    if (!GST_IS_ELEMENT_FACTORY(feature)) continue;
    const char* klass = gst_element_factory_get_metadata(GST_ELEMENT_FACTORY(feature), GST_ELEMENT_METADATA_KLASS);
    if (klass && std::strstr(klass, "Decoder")) gst_plugin_feature_set_rank(feature, GST_RANK_NONE);
  }
  gst_plugin_feature_list_free(features);
}

}  // namespace

void initGStreamer() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    GError* raw = nullptr;
    if (!gst_init_check(nullptr, nullptr, &raw)) {
      gst::ErrorPtr e(raw);
      failure = std::string("GStreamer cannot start: ") + (e ? e->message : "unknown reason");
      return;
    }
    keepAutoplugOffNvdec();
  });
  if (!failure.empty()) throw SourceError(failure);
}

bool hasElement(const char* factory) {
  initGStreamer();
  GstElementFactory* f = gst_element_factory_find(factory);
  if (f) gst_object_unref(f);
  return f != nullptr;
}

std::vector<std::string> testPatterns() {
  initGStreamer();
  std::vector<std::string> out{"moving"};
  gst::ElementPtr src = gst::owned(gst_element_factory_make("videotestsrc", nullptr));
  if (!src) return out;
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(src.get()), "pattern");
  if (spec && G_IS_PARAM_SPEC_ENUM(spec)) {
    GEnumClass* e = G_PARAM_SPEC_ENUM(spec)->enum_class;
    for (guint i = 0; i < e->n_values; ++i) out.emplace_back(e->values[i].value_nick);
  }
  return out;
}

const char* decoderName(Decoder d) {
  switch (d) {
    case Decoder::Auto:
      return "auto";
    case Decoder::Nvdec:
      return "nvdec";
    case Decoder::Cpu:
      return "cpu";
  }
  return "?";
}

namespace {

// Whether the graph asks for NVDEC (auto: quietly, where it is present). Throws SourceError where
// --decoder nvdec cannot be had.
bool wantsNvdec(const SourceSpec& spec, const SourceOptions& o) {
  const bool decodes = spec.kind == SourceSpec::Kind::File || spec.kind == SourceSpec::Kind::Uri ||
                       spec.kind == SourceSpec::Kind::Launch;
  if (o.decoder == Decoder::Cpu || !decodes) return false;
  std::string why;
  if (o.decoder == Decoder::Auto) return o.acceptYuv && nvdecAvailable(why);
  if (!nvdecAvailable(why)) throw SourceError("--decoder nvdec: " + why + "; use --decoder cpu");
  if (!o.acceptYuv)
    throw SourceError("--decoder nvdec keeps NV12/I420 frames on the GPU: leave --input-format at auto or yuv");
  return true;
}

}  // namespace

struct Source::Impl {
  // Declared in this order so the reader goes first and the graph (which stops the pipeline) last.
  SourceGraph graph;
  AppsinkReader reader;
  bool truncationReported = false;

  Impl(const SourceSpec& spec, const SourceOptions& options, bool nvdec)
      : graph(spec, FrameFormats{options.acceptYuv, options.acceptGrey}, nvdec), reader(graph, options) {}

  // A file that ends well before what its container declares was cut short: said once.
  void checkComplete() {
    if (truncationReported || !graph.fileCheck()) return;
    const SourceInfo& info = reader.info();
    // With audio beside the video the container's duration may be the audio's, which often runs on
    // after the last frame: only the byte count can tell a cut then.
    const double duration = graph.hasStream("audio") ? -1 : info.durationSeconds;
    const std::string why = graph.fileCheck()->truncation(graph.spec(), reader.framesPulled(), reader.positionSeconds(),
                                                          info.fps, duration);
    if (why.empty()) return;
    truncationReported = true;
    throw SourceError(why);
  }
};

Source::Source(const SourceSpec& spec, const SourceOptions& options) {
  initGStreamer();
  std::string note;
  const bool nvdec = wantsNvdec(spec, options);
  try {
    impl_ = std::make_unique<Impl>(spec, options, nvdec);
    impl_->reader.open();
  } catch (const SourceError& e) {
    // auto: a stream NVDEC cannot open is decoded on the CPU instead (not after a cancel).
    impl_.reset();
    if (!nvdec || options.decoder != Decoder::Auto || (options.cancel && options.cancel->load())) throw;
    note = std::string("NVDEC could not open it (") + e.what() + "); decoded on the CPU";
    impl_ = std::make_unique<Impl>(spec, options, false);
    impl_->reader.open();
  }
  if (options.decoder == Decoder::Nvdec && !impl_->reader.info().framesOnDevice)
    note = "no NVDEC decoder takes this stream: its frames come in host memory";
  impl_->reader.setDecoderNote(note);
}

Source::~Source() = default;

Source::Pull Source::pull(SourceFrame& frame, std::chrono::milliseconds timeout) {
  const Pull r = impl_->reader.pull(frame, timeout);
  if (r == Pull::EndOfStream) impl_->checkComplete();
  return r;
}

void Source::setPaused(bool paused) { impl_->reader.setPaused(paused); }
void Source::seek(double seconds) { impl_->reader.seek(seconds); }
double Source::positionSeconds() const { return impl_->reader.positionSeconds(); }
const SourceInfo& Source::info() const { return impl_->reader.info(); }
bool Source::eos() const { return impl_->reader.eos(); }

}  // namespace convlive
