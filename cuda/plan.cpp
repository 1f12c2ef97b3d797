#include "convlive/plan.hpp"

#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "convlive/check.hpp"
#include "convlive/resources.hpp"

namespace convlive {

const char* pixelTypeName(PixelType t) {
  switch (t) {
    case PixelType::U8:
      return "u8";
    case PixelType::U16:
      return "u16";
    case PixelType::F16:
      return "f16";
    case PixelType::F32:
      return "f32";
  }
  return "?";
}

std::size_t pixelTypeBytes(PixelType t) {
  switch (t) {
    case PixelType::U8:
      return 1;
    case PixelType::U16:
    case PixelType::F16:
      return 2;
    case PixelType::F32:
      return 4;
  }
  return 0;
}

std::size_t ImageDesc::span() const {
  if (width < 1 || height < 1 || batch < 1) return 0;
  return frameStride() * std::size_t(batch - 1) + rowPitch() * std::size_t(height - 1) + rowBytes();
}

ImageDesc outputDesc(const ImageDesc& in, PixelType outType) {
  ImageDesc d = in;
  d.type = outType;
  const std::size_t from = pixelTypeBytes(in.type), to = pixelTypeBytes(outType);
  d.pitch = in.pitch / from * to;
  d.batchStride = in.batchStride / from * to;
  return d;
}

std::string outputTypeRefusal(PixelType in, PixelType out) {
  return std::string(pixelTypeName(out)) + " output from " + pixelTypeName(in) +
         " frames: the output is of the input's type, or f32 from u8 frames";
}

std::string ImageDesc::typeName() const { return pixelTypeName(type) + std::string("x") + std::to_string(channels); }

std::string ImageDesc::str() const {
  std::string s = std::to_string(width) + "x" + std::to_string(height) + " " + typeName();
  if (channels == 4 && !alpha) s += " (no alpha)";
  if (pitch && pitch != rowBytes()) s += " pitch " + std::to_string(pitch);
  if (batch != 1) s += " batch " + std::to_string(batch);
  return s;
}

namespace {

using Code = Problem::Code;

Problem deviceProblem(int device) {
  if (device < 0) return {};
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  if (device >= count)
    return problem(Code::OutOfRange, "device",
                   std::to_string(device) + " is not a CUDA device here: this machine has " + std::to_string(count) +
                       (count == 1 ? " (device 0)"
                        : count    ? " (0.." + std::to_string(count - 1) + ")"
                                   : ""),
                   "device", count ? "0" : "");
  return {};
}

bool isIdentity(const Filter& filter) {
  if (filter.combine == Combine::Magnitude) return false;
  const Mask& m = filter.mask;
  const int r = m.radius();
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx)
      if (m.at(dy, dx) != (dy == 0 && dx == 0 ? 1.f : 0.f)) return false;
  return true;
}

}  // namespace

Problem imageProblem(const ImageDesc& d) {
  if (d.width < 1 || d.height < 1)
    return problem(Code::Invalid, "image",
                   "the frame is " + std::to_string(d.width) + "x" + std::to_string(d.height) +
                       ": width and height must be at least 1");
  if (d.channels != 1 && d.channels != 3 && d.channels != 4)
    return problem(Code::Invalid, "image",
                   std::to_string(d.channels) + " channels: frames have 1, 3 or 4 interleaved channels");
  if (d.batch < 1)
    return problem(Code::Invalid, "image", "a batch of " + std::to_string(d.batch) + " frames: at least 1");
  if (d.pitch && (d.pitch < d.rowBytes() || d.pitch % pixelTypeBytes(d.type)))
    return problem(Code::Invalid, "image",
                   "row pitch " + std::to_string(d.pitch) + " bytes: a row of " + d.str() + " needs " +
                       std::to_string(d.rowBytes()) + ", and the pitch must be a multiple of the element size");
  if (d.batch > 1 && d.batchStride && d.batchStride < d.rowPitch() * std::size_t(d.height))
    return problem(Code::Invalid, "image",
                   "frames " + std::to_string(d.batchStride) + " bytes apart overlap: a frame spans " +
                       std::to_string(d.rowPitch() * std::size_t(d.height)));
  if (d.batch > 1 && d.batchStride % pixelTypeBytes(d.type))
    return problem(Code::Invalid, "image",
                   "frames " + std::to_string(d.batchStride) + " bytes apart: the stride must be a multiple of the " +
                       std::to_string(pixelTypeBytes(d.type)) + "-byte element");
  return {};
}

namespace {

// The frames on the device for a plan on host memory with a GPU variant: rows at 256-byte multiples
// (the texture variant's rows must meet the texture pitch alignment, and every u8x4 variant's the
// 4-byte one), frames packed.
ImageDesc stagedDesc(const ImageDesc& image) {
  ImageDesc d = image;
  d.pitch = (image.rowBytes() + 255) / 256 * 256;
  d.batchStride = 0;
  return d;
}

}  // namespace

struct Plan::State {
  const Variant* variant = nullptr;
  FilterParams params;
  ImageDesc image, output;
  PlanOptions options;
  std::string autoWhy, note;
  std::optional<AutoChoice> autoChoice;
  bool identity = false;
  Workspace ws;
  // Memory::Host with a GPU variant: the frames on the device (staged), rows 256-byte aligned.
  ImageDesc staged;
  DeviceBuffer stageIn, stageOut;

  State() = default;
  // The workspace and staged frames are freed with the plan's device current (cuFFT plans, texture
  // objects and allocations are that device's), whichever device the caller has current.
  ~State() {
    try {
      const DeviceScope scope(options.device);
      ws = Workspace();
      stageIn = DeviceBuffer();
      stageOut = DeviceBuffer();
    } catch (...) {  // the device cannot be made current: the members go as they are (RAII, quietly)
    }
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  bool staging() const { return variant->onGpu && options.memory == Memory::Host; }
  // The output's staged frames: staged's layout in the output's values.
  ImageDesc stagedOut() const { return outputDesc(staged, output.type); }
  // Allocates what run() needs and prepares the variant: all that can be done before a frame.
  void prepare() {
    const DeviceScope scope(options.device);
    if (staging()) staged = stagedDesc(image);
    // The variant runs on the staged frames where there are some: prepared (and checked) for those.
    if (Problem why = variant->prepare(params, staging() ? staged : image, ws)) throw ProblemError(why);
    if (staging()) {
      stageIn.reserve(staged.span());
      stageOut.reserve(stagedOut().span());
    }
  }
  // Copies frames between host memory laid out as `from` and memory laid out as `to` (the same
  // frames), in stream order.
  // Host frames `in` (laid out as din) through the device frames to `out` (as dout); done on return.
  void runStaged(const ImageDesc& din, const void* in, const ImageDesc& dout, void* out, cudaStream_t stream) {
    copyFrames(staged, stageIn.get(), din, in, cudaMemcpyHostToDevice, stream);
    variant->runFrames(params, staged, stageIn.get(), stageOut.get(), ws, stream);
    copyFrames(dout, out, stagedOut(), stageOut.get(), cudaMemcpyDeviceToHost, stream);
    CL_CUDA(cudaStreamSynchronize(stream));
  }
  static void copyFrames(const ImageDesc& to, void* dst, const ImageDesc& from, const void* src, cudaMemcpyKind kind,
                         cudaStream_t stream) {
    if (to.rowPitch() == from.rowPitch() && to.frameStride() == from.frameStride()) {
      CL_CUDA(cudaMemcpyAsync(dst, src, to.span(), kind, stream));
      return;
    }
    for (int f = 0; f < to.batch; ++f)
      CL_CUDA(cudaMemcpy2DAsync(static_cast<char*>(dst) + to.frameStride() * std::size_t(f), to.rowPitch(),
                                static_cast<const char*>(src) + from.frameStride() * std::size_t(f), from.rowPitch(),
                                to.rowBytes(), std::size_t(to.height), kind, stream));
  }
};

Plan::Plan() = default;
Plan::~Plan() = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

Plan::Plan(const Plan& o) {
  if (!o.state_) return;
  state_ = std::make_unique<State>();
  State& s = *state_;
  s.variant = o.state_->variant;
  s.params = o.state_->params;
  s.image = o.state_->image;
  s.output = o.state_->output;
  s.options = o.state_->options;
  s.autoWhy = o.state_->autoWhy;
  s.autoChoice = o.state_->autoChoice;
  s.note = o.state_->note;
  s.identity = o.state_->identity;
  s.prepare();
}

Plan& Plan::operator=(const Plan& o) {
  if (this != &o) *this = Plan(o);
  return *this;
}

Plan Plan::make(const FilterSpec& spec, const ImageDesc& image, const PlanOptions& options) {
  FilterParams params;
  if (Problem why = spec.compile(params)) throw ProblemError(why);
  return make(params, spec.variant, image, options);
}

Plan Plan::make(const FilterParams& asked, std::string_view name, const ImageDesc& image, const PlanOptions& options) {
  if (Problem why = imageProblem(image)) throw ProblemError(why);
  if (Problem why = deviceProblem(options.device)) throw ProblemError(why);
  if (const std::size_t span = std::max(image.span(), outputDesc(image, options.outType.value_or(image.type)).span());
      span > std::size_t(1) << 40)
    throw ProblemError(problem(Code::OutOfRange, "image",
                               image.str() + " spans " + std::to_string(span >> 30) +
                                   " GiB: past what one plan filters (1 TiB); split the batch"));
  if (options.memory == Memory::Device && !deviceInfo().available)
    throw ProblemError(problem(Code::NoDevice, "", deviceInfo().reason + ": device memory needs a CUDA device"));
  const DeviceScope scope(options.device);
  auto s = std::make_unique<State>();
  s->params = asked;
  s->image = image;
  s->options = options;
  if (image.channels == 4 && !image.alpha) s->params.filterAlpha = false;  // padding is copied, never filtered
  s->params.outType.reset();
  if (options.outType && *options.outType != image.type) {
    if (image.type != PixelType::U8 || *options.outType != PixelType::F32)
      throw ProblemError(problem(Code::Invalid, "image",
                                 std::string(pixelTypeName(*options.outType)) + " output from " +
                                     pixelTypeName(image.type) +
                                     " frames: the output is of the input's type, or f32 "
                                     "from u8 frames (leave outType unset for " +
                                     pixelTypeName(image.type) + ")"));
    s->params.outType = options.outType;
  }
  s->output = outputDesc(image, s->params.outType.value_or(image.type));

  // Host memory with a GPU variant runs on the plan's own device frames (stagedDesc): that is what
  // the variant must take.
  const ImageDesc staged = stagedDesc(image);
  const auto runsOn = [&](const Variant& v) -> const ImageDesc& {
    return v.onGpu && options.memory == Memory::Host ? staged : image;
  };
  if (name == "auto") {
    AutoChoice c = chooseAuto(s->params, options.memory == Memory::Host && deviceInfo().available ? staged : image);
    // A CPU variant filters the caller's frames where they are: it must take them as they are.
    if (!c.variant->onGpu && c.variant->whyNot(s->params, image)) c.variant = &cpuChoice(s->params, image);
    if (s->params.tile == Tile{}) s->params.tile = c.tile;
    s->variant = c.variant;
    s->autoWhy = c.why;
    s->autoChoice = c;
  } else {
    s->variant = &variantNamed(name);
  }

  // A variant that cannot take the filter anywhere (a 2D mask for a separable variant, a radius past
  // its limit) is the caller's to change; only a missing device is worked around, and only where the
  // frames are in host memory.
  Problem why = s->variant->whyNot(s->params, runsOn(*s->variant));
  if (s->variant->onGpu && !deviceInfo().available && (!why || why.code == Code::NoDevice) &&
      options.memory != Memory::Device && options.cpuFallback) {
    const Variant& cpu = cpuChoice(s->params, image);
    s->note =
        "no CUDA device (" + deviceInfo().reason + "): " + cpu.name + " runs on the CPU instead of " + s->variant->name;
    s->params.tile = Tile{};  // the GPU variant's tile means nothing to a CPU variant
    s->variant = &cpu;
    why = s->variant->whyNot(s->params, image);
  } else if (name == "auto" && !s->variant->onGpu && !deviceInfo().available)
    s->note = "no CUDA device (" + deviceInfo().reason + "): " + s->variant->name + " runs on the CPU";
  if (why) throw ProblemError(why);
  if (!s->variant->onGpu && options.memory == Memory::Device && s->params.outType)
    throw ProblemError(problem(Code::CannotRun, "variant",
                               "no GPU variant writes f32 output for this filter (sweep takes masks to r = 32, "
                               "stream separable ones to r = 4, 8 on grey): filter into u8 output, or give host "
                               "memory (cpu-simd and cpu write f32)"));
  if (!s->variant->onGpu && options.memory == Memory::Device)
    throw ProblemError(problem(Code::Conflict, "variant",
                               s->variant->name + " runs on host memory (a CPU variant), and the frames are in device "
                                                  "memory: name a GPU variant, or give host memory",
                               "variant", "auto"));
  s->identity = isIdentity(s->params.filter);
  s->prepare();
  Plan plan;
  plan.state_ = std::move(s);
  return plan;
}

Plan Plan::make(const FilterSpec& spec, const ImageDesc& image, const PlanOptions& options, Problem& why) {
  FilterParams params;
  if ((why = spec.compile(params))) return {};
  return make(params, spec.variant, image, options, why);
}

Plan Plan::make(const FilterParams& params, std::string_view variant, const ImageDesc& image,
                const PlanOptions& options, Problem& why) {
  why = {};
  try {
    return make(params, variant, image, options);
  } catch (const ProblemError& e) {
    why = e.problem();
  }
  return {};
}

const Plan::State& Plan::state() const {
  if (!state_) throw std::logic_error("convlive::Plan: the plan is empty (made by default, moved from, or refused)");
  return *state_;
}

const Variant& Plan::variant() const { return *state().variant; }
Tile Plan::tile() const {
  const State& s = state();
  return s.variant->tiles.empty() ? Tile{} : s.variant->tileFor(s.params);
}
const FilterParams& Plan::params() const { return state().params; }
const ImageDesc& Plan::image() const { return state().image; }
const ImageDesc& Plan::output() const { return state().output; }
const PlanOptions& Plan::options() const { return state().options; }
bool Plan::onGpu() const { return state().variant->onGpu; }
const std::string& Plan::autoWhy() const { return state().autoWhy; }
const AutoChoice* Plan::autoChoice() const {
  const State& s = state();
  return s.autoChoice ? &*s.autoChoice : nullptr;
}
const std::string& Plan::note() const { return state().note; }
bool Plan::identity() const { return state().identity; }

std::string Plan::describe() const {
  const State& s = state();
  std::ostringstream o;
  o << s.params.filter.name << " r=" << s.params.filter.mask.radius() << " border=" << borderName(s.params.border)
    << " variant=" << s.variant->name;
  if (!s.variant->tiles.empty()) o << " tile=" << tile().str();
  o << " on " << s.image.str();
  if (s.output.type != s.image.type) o << " to " << pixelTypeName(s.output.type);
  return o.str();
}

// On the plan's device: a launch sized to the device (persistent grids, tensor2d's segments) is
// sized to that one.
LaunchDescription Plan::launches() const {
  const State& s = state();
  const DeviceScope scope(s.options.device);
  return s.variant->describeLaunch(s.params, s.image);
}
WorkModel Plan::workModel() const {
  const State& s = state();
  const DeviceScope scope(s.options.device);
  return s.variant->workModel(s.params, s.image);
}

void Plan::run(ConstImageView in, ImageView out, cudaStream_t stream) {
  const ImageDesc& d = state().image;
  if (!d.isRgba8() || state().output.type != d.type)
    throw std::invalid_argument(
        "convlive::Plan::run: image views are RGBA8 frames in and out; the plan was made for " + d.str() +
        (state().output.type != d.type ? std::string(" to ") + pixelTypeName(state().output.type) : std::string()) +
        ": pass pointers (run(const void*, void*, stream))");
  for (const auto& [what, w, h, pitch] :
       {std::tuple{"input", in.width, in.height, in.pitch}, std::tuple{"output", out.width, out.height, out.pitch}})
    if (w != d.width || h != d.height || pitch < d.rowBytes())
      throw std::invalid_argument(std::string("convlive::Plan::run: the ") + what + " is " + std::to_string(w) + "x" +
                                  std::to_string(h) + " with rows " + std::to_string(pitch) +
                                  " bytes apart; the plan was made for " + d.str());
  State& s = *state_;
  ImageDesc din = d, dout = d;  // the views' rows may be apart by other pitches than the plan's
  din.pitch = in.pitch;
  dout.pitch = out.pitch;
  din.batchStride = dout.batchStride = d.frameStride();
  const DeviceScope scope(s.options.device);
  if (s.staging()) {
    s.runStaged(din, in.data, dout, out.data, stream);
  } else if (in.pitch == out.pitch) {
    s.variant->runFrames(s.params, din, in.data, out.data, s.ws, stream);
  } else {  // runFrames takes one pitch for both: frame by frame
    for (int f = 0; f < d.batch; ++f) {
      const std::size_t at = d.frameStride() * std::size_t(f);
      s.variant->run(s.params, ConstImageView(in.data + at, d.width, d.height, in.pitch),
                     ImageView{out.data + at, d.width, d.height, out.pitch}, s.ws, stream);
    }
  }
}

void Plan::run(const void* in, void* out, cudaStream_t stream) {
  state();
  State& s = *state_;
  const ImageDesc& d = s.image;
  if (!in || !out) throw std::invalid_argument("convlive::Plan::run: a null frame pointer");
  const char *a = static_cast<const char*>(in), *b = static_cast<const char*>(out);
  if (!s.staging() && a < b + s.output.span() && b < a + d.span())
    throw std::invalid_argument("convlive::Plan::run: the input and output overlap; filter into another buffer");
  for (const auto& [what, p, t] :
       {std::tuple{"input", in, d.type}, std::tuple{"output", static_cast<const void*>(out), s.output.type}}) {
    const std::size_t align = pixelTypeBytes(t);
    if (reinterpret_cast<std::uintptr_t>(p) % align)
      throw std::invalid_argument(std::string("convlive::Plan::run: the ") + what + "'s " + pixelTypeName(t) +
                                  " frames must start at a multiple of " + std::to_string(align) + " bytes");
  }
  const DeviceScope scope(s.options.device);
  if (s.staging())
    s.runStaged(d, in, s.output, out, stream);
  else
    s.variant->runFrames(s.params, d, in, out, s.ws, stream);
}

}  // namespace convlive
