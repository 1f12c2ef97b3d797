#include "convlive/variants.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "convlive/check.hpp"
#include "convlive/cpu_simd.hpp"
#include "convlive/precision.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "convlive/tensor_inputs.hpp"
#include "cpu_model.hpp"
#include "fft.hpp"
#include "kernels/launch.hpp"
#include "kernels/schedules.hpp"

namespace convlive {

bool sameComputation(const FilterParams& a, const FilterParams& b) {
  // The mask last: the workspace asks this of each kept preparation, which often differ by tile only.
  return a.tile == b.tile && a.border == b.border && a.filterAlpha == b.filterAlpha &&
         a.filter.combine == b.filter.combine && a.filter.mask.sameWeights(b.filter.mask);
}

namespace {

// What a variant derives from its parameters for one frame size (Variant::prepare): whyNot's
// answer at once, the rest on first use (each variant asks only for what its kernel takes).
class Prepared {
 public:
  Prepared(const Variant& v, const FilterParams& p, int width, int height)
      : variant_(&v), params_(p), width_(width), height_(height), why_(v.whyNot(p, width, height)) {}
  bool matches(const Variant& v, const FilterParams& p, int width, int height) const {
    return variant_ == &v && width_ == width && height_ == height && sameComputation(params_, p);
  }
  const Problem& why() const { return why_; }

  const kernels::MaskSep& sep() {  // separable masks: the factors as the kernels take them
    if (!sep_) {
      const Mask& m = params_.filter.mask;
      sep_.emplace();
      sep_->radius = m.radius();
      std::copy(m.row().begin(), m.row().end(), sep_->row);
      std::copy(m.col().begin(), m.col().end(), sep_->col);
    }
    return *sep_;
  }
  const kernels::Mask2D& mask2d() {  // 17 KiB: on the heap, passed by value to the kernels
    if (!mask2d_) {
      const Mask& m = params_.filter.mask;
      mask2d_ = std::make_unique<kernels::Mask2D>();
      mask2d_->radius = m.radius();
      std::copy(m.weights().begin(), m.weights().end(), mask2d_->w);
    }
    return *mask2d_;
  }
  const HalfSumsPlan& halfSums() {  // stream
    if (!halfSums_) halfSums_ = planHalfSums(params_.filter.mask);
    return *halfSums_;
  }
  const HalfWeightsPlan& halfSeparable() {  // tensorstream
    if (!halfSeparable_) halfSeparable_ = planHalfSeparable(params_.filter.mask, params_.filter.combine);
    return *halfSeparable_;
  }
  const std::vector<unsigned>& tensorStreamFragments() {  // tensorstream: its weights, where read from memory
    if (!fragments_) fragments_ = kernels::tensorStreamFragments(sep());
    return *fragments_;
  }
  const HalfWeightsPlan& halfWeights() {  // tensor2d (1.2 ms on the host for a 65 x 65 mask)
    if (!halfWeights_) halfWeights_ = planHalfWeights(params_.filter.mask, params_.filter.combine);
    return *halfWeights_;
  }

 private:
  const Variant* variant_;
  FilterParams params_;
  int width_, height_;
  Problem why_;
  std::optional<kernels::MaskSep> sep_;
  std::unique_ptr<kernels::Mask2D> mask2d_;
  std::optional<HalfSumsPlan> halfSums_;
  std::optional<HalfWeightsPlan> halfSeparable_, halfWeights_;
  std::optional<std::vector<unsigned>> fragments_;
};

}  // namespace

// A device copy of a small host table (a mask's weights, weight fragments), copied again only when
// the table changes. Stream-ordered: kernels already queued on the stream read the old table
// before the copy lands. A pageable source is staged before the call returns, so `host_` may
// change after.
template <class T>
class MirroredTable {
 public:
  const T* upload(const std::vector<T>& table, cudaStream_t s) {
    if (host_ != table) {
      device_.reserve(table.size() * sizeof(T));
      host_ = table;
      CL_CUDA(cudaMemcpyAsync(device_.get(), host_.data(), table.size() * sizeof(T), cudaMemcpyHostToDevice, s));
    }
    return device_.as<T>();
  }

 private:
  DeviceBuffer device_;
  std::vector<T> host_;  // what device_ holds
};

struct Workspace::Impl {
  std::vector<std::unique_ptr<Prepared>> prepared;  // the most recently used last
  std::size_t preparations = 0;
  // The preparation for (v, p, width x height): a kept one, else made now (the oldest of
  // kPrepared goes).
  Prepared& prepare(const Variant& v, const FilterParams& p, int width, int height) {
    auto it =
        std::find_if(prepared.begin(), prepared.end(), [&](const auto& e) { return e->matches(v, p, width, height); });
    if (it != prepared.end()) {
      std::rotate(it, it + 1, prepared.end());
      return *prepared.back();
    }
    auto made = std::make_unique<Prepared>(v, p, width, height);
    if (prepared.size() >= std::size_t(kPrepared)) prepared.erase(prepared.begin());
    prepared.push_back(std::move(made));
    ++preparations;
    return *prepared.back();
  }

  DeviceBuffer tmp0, tmp1;            // separable: intermediate planes
  MirroredTable<float> mask;          // naive: the mask in global memory
  MirroredTable<unsigned> fragments;  // tensorstream: its weight fragments, where read from memory
  struct CachedTexture {
    const void* data;
    int width, height;
    std::size_t pitch;
    int mode;
    TextureObject tex;
  };
  std::vector<CachedTexture> textures;  // the few most recent inputs (benchmarks rotate frames)
  std::unique_ptr<FftConvolver> fft;    // fft: its plans, planes and the mask's spectra
};

Workspace::Workspace() : impl_(std::make_unique<Impl>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;
std::size_t Workspace::preparations() const { return impl_->preparations; }

Problem Variant::prepare(const FilterParams& p, int width, int height, Workspace& ws) const {
  return ws.impl().prepare(*this, p, width, height).why();
}

std::optional<Tile> Tile::parse(std::string_view text) {
  const auto x = text.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  try {
    size_t a = 0, b = 0;
    const std::string ws(text.substr(0, x)), hs(text.substr(x + 1));
    Tile t{std::stoi(ws, &a), std::stoi(hs, &b)};
    if (a != ws.size() || b != hs.size() || t.w <= 0 || t.h <= 0) return std::nullopt;
    return t;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

const char* borderName(Border b) {
  switch (b) {
    case Border::Zero:
      return "zero";
    case Border::Clamp:
      return "clamp";
    case Border::Mirror:
      return "mirror";
    case Border::Wrap:
      return "wrap";
  }
  return "?";
}

std::optional<Border> parseBorder(std::string_view name) {
  for (Border b : {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap})
    if (name == borderName(b)) return b;
  if (name == "replicate") return Border::Clamp;
  if (name == "reflect101" || name == "reflect-101") return Border::Mirror;
  return std::nullopt;
}

namespace {

using kernels::kMax2DRadius;
using kernels::kMaxSepRadius;

const Variant& self(std::string_view name) { return *findVariant(name); }

using Code = Problem::Code;

// The masks v's table entry says it takes (Variant::takes): a variant that needs a separable mask
// names tiled-coop for the others; one that runs one mask names separable (or tiled-coop, where
// the mask need not be separable) for a gradient magnitude.
Problem maskWhyNot(const Variant& v, const FilterParams& p) {
  if (needsSeparable(v.takes) && !p.filter.mask.separable())
    return problem(Code::CannotRun, "variant",
                   "the mask is not separable (not an outer product of a column and a row): it needs a 2D variant",
                   "variant", "tiled-coop");
  if (needsOneMask(v.takes) && p.filter.combine == Combine::Magnitude)
    return problem(Code::CannotRun, "variant", v.name + " runs one mask; gradient magnitude (sobel, scharr) needs two",
                   "variant", needsSeparable(v.takes) ? "separable" : "tiled-coop");
  return {};
}

// Checks every variant shares: the masks it takes, the frame, the radius, the tile, the device.
Problem commonWhyNot(const Variant& v, const FilterParams& p, int width, int height) {
  if (Problem why = maskWhyNot(v, p)) return why;
  if (width < 1 || height < 1)
    return problem(Code::Invalid, "",
                   "the frame is " + std::to_string(width) + "x" + std::to_string(height) +
                       ": width and height must be at least 1");
  const int r = p.filter.mask.radius();
  if (r > v.maxRadius)
    return problem(
        Code::CannotRun, "radius",
        v.name + " takes radius up to " + std::to_string(v.maxRadius) + " (asked for " + std::to_string(r) + ")",
        r <= kMaxSepRadius && p.filter.mask.separable() ? "variant" : "",
        r <= kMaxSepRadius && p.filter.mask.separable() ? "separable" : "");
  if (!v.tiles.empty())
    if (Problem why = v.tileProblem(v.tileFor(p))) return why;
  if (v.onGpu && !deviceInfo().available)
    return problem(Code::NoDevice, "variant", deviceInfo().reason, "variant", "cpu-simd");
  return {};
}

Problem sharedWhyNot(const Variant& v, std::size_t bytes) {
  if (bytes <= deviceInfo().sharedPerBlockOptin) return {};
  return problem(Code::CannotRun, "tile",
                 v.name + " needs " + std::to_string(bytes / 1024) +
                     " KiB of shared memory for this tile and radius; the device " + "gives a block " +
                     std::to_string(deviceInfo().sharedPerBlockOptin / 1024) + " KiB: use a smaller tile or radius");
}

Problem directWhyNot(const FilterParams& p, int w, int h, const char* name) {
  return commonWhyNot(self(name), p, w, h);
}
Problem naiveWhyNot(const FilterParams& p, int w, int h) { return directWhyNot(p, w, h, "naive"); }
Problem constantWhyNot(const FilterParams& p, int w, int h) { return directWhyNot(p, w, h, "constant"); }
Problem textureWhyNot(const FilterParams& p, int w, int h) { return directWhyNot(p, w, h, "texture"); }
Problem cpuWhyNot(const FilterParams& p, int w, int h) { return directWhyNot(p, w, h, "cpu"); }
Problem cpuSimdWhyNot(const FilterParams& p, int w, int h) {
  if (auto why = directWhyNot(p, w, h, "cpu-simd"); why) return why;
  return convlive::cpuSimdWhyNot(p.filter);
}

Problem tiledWhyNot(const FilterParams& p, int w, int h) {
  const Variant& v = self("tiled");
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const Tile t = v.tileFor(p);
  return sharedWhyNot(v, kernels::tiledSharedBytes(t.w, t.h, p.filter.mask.radius()));
}
Problem tiledCoopWhyNot(const FilterParams& p, int w, int h) {
  const Variant& v = self("tiled-coop");
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const Tile t = v.tileFor(p);
  return sharedWhyNot(v, kernels::tiledCoopSharedBytes(t.w, t.h, p.filter.mask.radius()));
}
Problem separableVariantWhyNot(const FilterParams& p, int w, int h) {
  const Variant& v = self("separable");
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const Tile t = v.tileFor(p);
  const std::size_t planes = p.filter.combine == Combine::Magnitude ? 2 : 1;
  return sharedWhyNot(v, kernels::separableSharedBytes(t.w, t.h, p.filter.mask.radius()) * planes);
}
// The tensor-core variants: fp16 mma.sync m16n8k16 needs compute capability 8.0, and the mask must
// fit the fp16 error budget (`planWhy`, from convlive/precision.hpp).
Problem tensorCoreWhyNot(const Variant& v, const std::string& planWhy, const char* instead) {
  if (deviceInfo().major < 8)
    return problem(Code::CannotRun, "variant",
                   v.name + " needs compute capability 8.0 or newer (this device is " +
                       std::to_string(deviceInfo().major) + "." + std::to_string(deviceInfo().minor) + ")",
                   "variant", instead);
  if (!planWhy.empty()) return problem(Code::CannotRun, "variant", v.name + ": " + planWhy, "variant", instead);
  return {};
}

Problem fusedWhyNot(const FilterParams& p, int w, int h) {
  const Variant& v = self("fused");
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const Tile t = v.tileFor(p);
  return sharedWhyNot(v, kernels::fusedSharedBytes(t.w, t.h, p.filter.mask.radius()));
}
Problem fftWhyNot(const FilterParams& p, int w, int h) {
  const Variant& v = self("fft");
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const int r = p.filter.mask.radius();
  const char* instead = r <= kMax2DRadius ? "tensor2d" : "cpu-simd";
  if (const std::string& missing = cufftMissing(); !missing.empty())
    return problem(Code::CannotRun, "variant", missing, "variant", instead);
  const FftGeometry g = fftGeometry(w, h, r, p.filterAlpha, p.filter.combine);
  if (double(g.padW) * g.padH * g.channels > 2147483647.0)
    return problem(Code::CannotRun, "variant",
                   "fft: a " + std::to_string(w) + "x" + std::to_string(h) + " frame padded to " +
                       std::to_string(g.padW) + "x" + std::to_string(g.padH) +
                       " is past what one cuFFT plan takes here (2^31 values)",
                   "variant", instead);
  if (const double e = fftErrorEstimate(p.filter.mask, g); e > kFftErrorBudget) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "fft: the float transforms' error with these weights (sum of |w| %.3g) is estimated at %.2f "
                  "levels, over the %.2f budget for 1 LSB",
                  absoluteSum(p.filter.mask.weights()), e, kFftErrorBudget);
    return problem(Code::CannotRun, "variant", text, "variant", r <= kMax2DRadius ? "tiled-coop" : "cpu-simd");
  }
  return {};
}
Problem streamWhyNot(const FilterParams& p, int w, int h) { return directWhyNot(p, w, h, "stream"); }
Problem tensor2dWhyNot(const FilterParams& p, int w, int h) {
  const Variant& v = self("tensor2d");
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const HalfWeightsPlan half = planHalfWeights(p.filter.mask, p.filter.combine);
  if (auto why = tensorCoreWhyNot(v, half.why, "tiled-coop"); why) return why;
  const Tile t = v.tileFor(p);
  return sharedWhyNot(v, kernels::tensor2dSharedBytes(t.w, t.h, p.filter.mask.radius(), half.split()));
}
// The separable tensor-core variants: one separable mask, fp16 factors within the error budget.
Problem tensorSeparableWhyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  return tensorCoreWhyNot(v, planHalfSeparable(p.filter.mask, p.filter.combine).why, "fused");
}
Problem tensorSepWhyNot(const FilterParams& p, int w, int h) {
  const Variant& v = self("tensorsep");
  if (auto why = tensorSeparableWhyNot(v, p, w, h); why) return why;
  const Tile t = v.tileFor(p);
  return sharedWhyNot(v, kernels::tensorSepSharedBytes(t.w, t.h, p.filter.mask.radius()));
}
Problem tensorStreamWhyNot(const FilterParams& p, int w, int h) {
  const Variant& v = self("tensorstream");
  if (auto why = tensorSeparableWhyNot(v, p, w, h); why) return why;
  // Its inputs are fp16 subnormals with the factors scaled by 2^S and 2^(24 - S)
  // (convlive/tensor_inputs.hpp): both largest weights must fit fp16 so scaled.
  if (const double row = largestWeight(p.filter.mask.row()), col = largestWeight(p.filter.mask.col());
      tensorInputScale(row, col) < 0) {
    std::ostringstream s;
    s << "tensorstream scales the factors by 2^S and 2^(24 - S) for its fp16 inputs, and no S keeps both largest "
         "weights ("
      << row << " and " << col << ") within fp16's range (their product must stay below about 256)";
    return problem(Code::CannotRun, "mask", s.str(), "variant", "tensorsep");
  }
  // Its grid's table of block columns (kernels/schedules.hpp), with room for the edge columns' entries.
  const Tile t = v.tileFor(p);
  if (constexpr int most = kernels::StripSchedule::kMaxEntries - 64; (w + t.w - 1) / t.w > most)
    return problem(Code::CannotRun, "tile",
                   "tensorstream takes frames up to " + std::to_string(most) + " tiles wide (" +
                       std::to_string(most * t.w) + " pixels with " + t.str() + "); this one is " + std::to_string(w) +
                       ": use a wider tile or another variant",
                   "variant", "fused");
  // Its grid's rows are the tile's segments: at most 65535 (a grid's y dimension).
  if (constexpr long most = 65535; (long(h) + t.h - 1) / t.h > most)
    return problem(Code::CannotRun, "tile",
                   "tensorstream takes frames up to " + std::to_string(most * t.h) + " rows tall with " + t.str() +
                       " (65535 segments of " + std::to_string(t.h) + " rows); this one is " + std::to_string(h) +
                       ": use a taller tile or another variant",
                   "variant", "fused");
  return sharedWhyNot(v, kernels::tensorStreamSharedBytes(t.w, p.filter.mask.radius(), p.filterAlpha));
}

// The kernels' launch parameters for p on a width x height frame, without images (what the
// inspector's figures read).
kernels::Launch launchFor(const Variant& v, const FilterParams& p, int width, int height) {
  const Tile t = v.tileFor(p);
  kernels::Launch l{};
  l.inPitch = l.outPitch = std::size_t(width) * 4;
  l.width = width;
  l.height = height;
  l.border = p.border;
  l.combine = p.filter.combine;
  l.filterAlpha = p.filterAlpha;
  l.tileW = t.w;
  l.tileH = t.h;
  return l;
}

// What run() checks first: the images' shapes, then whyNot's answer for p, kept with the rest
// of p's preparation in ws (the first run with p, or Variant::prepare, made it). Throws
// std::invalid_argument (ProblemError for whyNot's reasons) when p cannot run.
Prepared& prepared(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws) {
  if (in.width != out.width || in.height != out.height)
    throw std::invalid_argument(v.name + ": input and output sizes differ");
  if (in.pitch % 4 || out.pitch % 4 || in.pitch < std::size_t(in.width) * 4 || out.pitch < std::size_t(out.width) * 4)
    throw std::invalid_argument(v.name + ": row pitch must be a multiple of 4 bytes and hold a whole row");
  Prepared& pp = ws.impl().prepare(v, p, in.width, in.height);
  if (pp.why()) throw ProblemError(pp.why());
  return pp;
}

// The launch description for the kernels (after prepared()).
kernels::Launch launchOf(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, cudaStream_t s) {
  kernels::Launch l = launchFor(v, p, in.width, in.height);
  l.in = reinterpret_cast<const uchar4*>(in.data);
  l.inPitch = in.pitch;
  l.out = reinterpret_cast<uchar4*>(out.data);
  l.outPitch = out.pitch;
  l.stream = s;
  return l;
}

void runCpu(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t) {
  prepared(v, p, in, out, ws);
  referenceFilter(p.filter, p.border, p.filterAlpha, in, out);
}

void runCpuSimd(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws,
                cudaStream_t) {
  prepared(v, p, in, out, ws);
  cpuSimdFilter(p.filter, p.border, p.filterAlpha, in, out);
}

void runNaive(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws,
              cudaStream_t s) {
  prepared(v, p, in, out, ws);
  const auto l = launchOf(v, p, in, out, s);
  kernels::naive(l, ws.impl().mask.upload(p.filter.mask.weights(), s), p.filter.mask.radius());
}

// The 2D variants that take the mask by value: build it, launch `Kernel`.
template <void (*Kernel)(const kernels::Launch&, const kernels::Mask2D&)>
void runWithMask2D(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws,
                   cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  Kernel(launchOf(v, p, in, out, s), pp.mask2d());
}

void runTexture(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws,
                cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  const auto l = launchOf(v, p, in, out, s);
  // Zero and clamp map onto hardware address modes with unnormalized coordinates; wrap needs
  // normalized ones; mirror (reflect-101) has no hardware mode: clamp reads, index computed.
  const bool normalized = p.border == Border::Wrap;
  const int mode = p.border == Border::Zero ? cudaAddressModeBorder
                   : normalized             ? cudaAddressModeWrap
                                            : cudaAddressModeClamp;
  auto& cache = ws.impl().textures;
  auto it = std::find_if(cache.begin(), cache.end(), [&](const auto& c) {
    return c.data == in.data && c.width == in.width && c.height == in.height && c.pitch == in.pitch && c.mode == mode;
  });
  if (it == cache.end()) {
    if (cache.size() >= 8) {
      CL_CUDA(cudaStreamSynchronize(s));  // the oldest may still be read by a queued kernel
      cache.erase(cache.begin());
    }
    cache.push_back({in.data, in.width, in.height, in.pitch, mode, TextureObject(in, mode, normalized)});
    it = cache.end() - 1;
  }
  kernels::texture(l, it->tex.get(), normalized, pp.mask2d());
}

void runSeparable(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws,
                  cudaStream_t s) {
  const kernels::MaskSep& m = prepared(v, p, in, out, ws).sep();
  const auto l = launchOf(v, p, in, out, s);
  auto& w = ws.impl();
  const std::size_t plane = std::size_t(in.width) * in.height * sizeof(float4);
  w.tmp0.reserve(plane);
  if (p.filter.combine == Combine::Magnitude) w.tmp1.reserve(plane);
  kernels::separable(l, m, w.tmp0.as<float4>(), w.tmp1.as<float4>());
}

void runFused(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws,
              cudaStream_t s) {
  const kernels::MaskSep& m = prepared(v, p, in, out, ws).sep();
  kernels::fused(launchOf(v, p, in, out, s), m);
}

void runStream(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws,
               cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  const HalfSumsPlan& plan = pp.halfSums();
  kernels::stream(launchOf(v, p, in, out, s), pp.sep(), {plan.fits, plan.offset});
}

void runTensorStream(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws,
                     cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  const HalfWeightsPlan& plan = pp.halfSeparable();
  const std::vector<unsigned>& fragments = pp.tensorStreamFragments();
  const unsigned* fragmentsDevice = fragments.empty() ? nullptr : ws.impl().fragments.upload(fragments, s);
  kernels::tensorStream(launchOf(v, p, in, out, s), pp.sep(), fragmentsDevice, !plan.halfIntermediate,
                        p.filter.combine == Combine::Identity && plan.sumsInByteRange);
}

void runTensor2D(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws,
                 cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  kernels::tensor2d(launchOf(v, p, in, out, s), pp.mask2d(), pp.halfWeights().split());
}

void runFft(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  prepared(v, p, in, out, ws);
  const auto l = launchOf(v, p, in, out, s);
  auto& fft = ws.impl().fft;
  if (!fft) fft = std::make_unique<FftConvolver>();
  fft->run(l, p.filter.mask);
}

void runTensorSep(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws,
                  cudaStream_t s) {
  const kernels::MaskSep& m = prepared(v, p, in, out, ws).sep();
  kernels::tensorSep(launchOf(v, p, in, out, s), m);
}

// The inspector's figures: each variant's own functions beside its kernel (kernels/launch.hpp,
// cpu_model.hpp), given the launch parameters and the flags its run function passes.
int radiusOf(const FilterParams& p) { return p.filter.mask.radius(); }
bool tensor2dSplit(const FilterParams& p) { return planHalfWeights(p.filter.mask, p.filter.combine).split(); }
bool tensorStreamSplit(const FilterParams& p) {
  return !planHalfSeparable(p.filter.mask, p.filter.combine).halfIntermediate;
}
bool tensorStreamSumsInRange(const FilterParams& p) {
  return p.filter.combine == Combine::Identity && planHalfSeparable(p.filter.mask, p.filter.combine).sumsInByteRange;
}

LaunchDescription naiveLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeNaive(launchFor(self("naive"), p, w, h), radiusOf(p));
}
WorkModel naiveModel(const FilterParams& p, int w, int h) {
  return kernels::modelDirect(launchFor(self("naive"), p, w, h), radiusOf(p), kernels::DirectVariant::Naive);
}
LaunchDescription constantLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeConstant(launchFor(self("constant"), p, w, h), radiusOf(p));
}
WorkModel constantModel(const FilterParams& p, int w, int h) {
  return kernels::modelDirect(launchFor(self("constant"), p, w, h), radiusOf(p), kernels::DirectVariant::Constant);
}
LaunchDescription textureLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeTexture(launchFor(self("texture"), p, w, h), radiusOf(p));
}
WorkModel textureModel(const FilterParams& p, int w, int h) {
  return kernels::modelDirect(launchFor(self("texture"), p, w, h), radiusOf(p), kernels::DirectVariant::Texture);
}
LaunchDescription tiledLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeTiled(launchFor(self("tiled"), p, w, h), radiusOf(p));
}
WorkModel tiledModel(const FilterParams& p, int w, int h) {
  return kernels::modelTiled(launchFor(self("tiled"), p, w, h), radiusOf(p));
}
LaunchDescription tiledCoopLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeTiledCoop(launchFor(self("tiled-coop"), p, w, h), radiusOf(p));
}
WorkModel tiledCoopModel(const FilterParams& p, int w, int h) {
  return kernels::modelTiledCoop(launchFor(self("tiled-coop"), p, w, h), radiusOf(p));
}
LaunchDescription separableLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeSeparable(launchFor(self("separable"), p, w, h), radiusOf(p));
}
WorkModel separableModel(const FilterParams& p, int w, int h) {
  return kernels::modelSeparable(launchFor(self("separable"), p, w, h), radiusOf(p));
}
LaunchDescription fusedLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeFused(launchFor(self("fused"), p, w, h), radiusOf(p));
}
WorkModel fusedModel(const FilterParams& p, int w, int h) {
  return kernels::modelFused(launchFor(self("fused"), p, w, h), radiusOf(p));
}
LaunchDescription streamLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeStream(launchFor(self("stream"), p, w, h), radiusOf(p), planHalfSums(p.filter.mask).fits);
}
WorkModel streamModel(const FilterParams& p, int w, int h) {
  return kernels::modelStream(launchFor(self("stream"), p, w, h), radiusOf(p), planHalfSums(p.filter.mask).fits);
}
LaunchDescription tensor2dLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeTensor2D(launchFor(self("tensor2d"), p, w, h), radiusOf(p), tensor2dSplit(p));
}
WorkModel tensor2dModel(const FilterParams& p, int w, int h) {
  return kernels::modelTensor2D(launchFor(self("tensor2d"), p, w, h), radiusOf(p), tensor2dSplit(p));
}
LaunchDescription tensorSepLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeTensorSep(launchFor(self("tensorsep"), p, w, h), radiusOf(p));
}
WorkModel tensorSepModel(const FilterParams& p, int w, int h) {
  return kernels::modelTensorSep(launchFor(self("tensorsep"), p, w, h), radiusOf(p));
}
LaunchDescription tensorStreamLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeTensorStream(launchFor(self("tensorstream"), p, w, h), radiusOf(p), tensorStreamSplit(p),
                                       tensorStreamSumsInRange(p));
}
WorkModel tensorStreamModel(const FilterParams& p, int w, int h) {
  return kernels::modelTensorStream(launchFor(self("tensorstream"), p, w, h), radiusOf(p), tensorStreamSplit(p));
}
kernels::FftPlanes fftPlanesFor(const FilterParams& p, int w, int h) {
  const FftGeometry g = fftGeometry(w, h, radiusOf(p), p.filterAlpha, p.filter.combine);
  return {nullptr, nullptr, nullptr, nullptr, nullptr, g.padW, g.padH, radiusOf(p), g.channels, g.magnitude};
}
LaunchDescription fftLaunch(const FilterParams& p, int w, int h) {
  return kernels::describeFft(launchFor(self("fft"), p, w, h), fftPlanesFor(p, w, h));
}
WorkModel fftModel(const FilterParams& p, int w, int h) {
  return kernels::modelFft(launchFor(self("fft"), p, w, h), fftPlanesFor(p, w, h));
}
LaunchDescription cpuLaunch(const FilterParams&, int, int) { return {{}, "runs on the CPU: no kernel launch"}; }
WorkModel cpuModel(const FilterParams& p, int, int) { return cpuReferenceModel(p.filter); }
WorkModel cpuSimdWorkModel(const FilterParams& p, int, int) { return cpuSimdModel(p.filter); }

std::vector<Variant> makeTable() {
  const std::vector<Tile> blocks{{16, 16}, {32, 8}, {8, 8}, {32, 32}};
  return {
      {"naive", "one thread per pixel; image and mask read from global memory", true, kMax2DRadius, blocks,
       "thread block", naiveWhyNot, runNaive, naiveLaunch, naiveModel},
      {"constant", "one thread per pixel; mask in the launch's constant bank, image from global memory", true,
       kMax2DRadius, blocks, "thread block", constantWhyNot, runWithMask2D<kernels::constant>, constantLaunch,
       constantModel},
      {"tiled",
       "input tile + apron in shared memory; block = input tile, apron threads idle while computing",
       true,
       kMax2DRadius,
       {{32, 8}, {16, 16}, {32, 32}},
       "thread block = input tile (coarsened for large radii)",
       tiledWhyNot,
       runWithMask2D<kernels::tiled>,
       tiledLaunch,
       tiledModel},
      {"tiled-coop",
       "block = output tile; threads load tile + apron cooperatively in batches, all compute",
       true,
       kMax2DRadius,
       {{16, 16}, {32, 8}, {32, 32}, {64, 4}},
       "output tile = thread block",
       tiledCoopWhyNot,
       runWithMask2D<kernels::tiledCoop>,
       tiledCoopLaunch,
       tiledCoopModel},
      {"separable",
       "row pass then column pass through shared memory, 4 outputs per thread, float intermediate",
       true,
       kMaxSepRadius,
       {{32, 4}, {16, 8}, {32, 8}},
       "thread block of both passes",
       separableVariantWhyNot,
       runSeparable,
       separableLaunch,
       separableModel,
       MaskTakes::Separable},
      {"fused",
       "single-pass separable: tile + apron in shared memory, column then row factor, no intermediate",
       true,
       kMax2DRadius,
       {{64, 32}, {128, 32}, {64, 16}},
       "output tile (256 threads, 4 pixels each per step)",
       fusedWhyNot,
       runFused,
       fusedLaunch,
       fusedModel,
       MaskTakes::OneSeparable},
      {"stream",
       "separable, r <= 4: each warp walks down a strip; rows stream in through a cp.async ring, row taps by warp "
       "shuffles, the column window in registers; no block barrier; fp16 sums (two channels an instruction) where "
       "their error bound keeps 1 LSB, else fp32",
       true,
       kernels::kStreamMaxRadius,
       {{32, 16}, {32, 8}, {32, 32}, {32, 4}},
       "warp (32 lanes) x output rows it walks",
       streamWhyNot,
       runStream,
       streamLaunch,
       streamModel,
       MaskTakes::OneSeparable},
      {"tensor2d",
       "any 2D mask on the tensor cores: per mask row a Toeplitz product (mma.sync, fp16 in, fp32 sums), weights "
       "as fp16 or fp16 high + low parts within a 1 LSB error bound",
       true,
       kMax2DRadius,
       {{64, 16}, {128, 16}, {64, 32}, {128, 32}},
       "output tile (4 rows per warp)",
       tensor2dWhyNot,
       runTensor2D,
       tensor2dLaunch,
       tensor2dModel,
       MaskTakes::One},
      {"tensorsep",
       "separable on the tensor cores: a row then a column Toeplitz product per tile (mma.sync, fp16 factors, the "
       "intermediate as fp16 high + low parts), within a 1 LSB error bound",
       true,
       kMax2DRadius,
       {{32, 32}, {64, 32}, {64, 16}, {128, 16}},
       "output tile (256 threads)",
       tensorSepWhyNot,
       runTensorSep,
       tensorSepLaunch,
       tensorSepModel,
       MaskTakes::OneSeparable},
      {"tensorstream",
       "separable, r <= 32, on the tensor cores: each warp walks down a 16-pixel strip, 16 rows a step, its input "
       "through a cp.async ring in shared memory; the row product's result is the column product's operand in "
       "registers (fp16 factors, the intermediate as fp16, or fp16 high + low parts where the error bound needs "
       "them), within 1 LSB",
       true,
       kernels::kTensorStreamMaxRadius,
       {{64, 64},
        {64, 32},
        {64, 48},
        {64, 128},
        {128, 64},
        {32, 64},
        {64, 256},
        {64, 192},
        {128, 192},
        {64, 288},
        {64, 272},
        {64, 80},
        {64, 96},
        {64, 144}},
       "block width (16 pixels a warp) x rows each warp walks",
       tensorStreamWhyNot,
       runTensorStream,
       tensorStreamLaunch,
       tensorStreamModel,
       MaskTakes::OneSeparable},
      {"texture", "one thread per pixel; image read through a texture object with hardware border addressing", true,
       kMax2DRadius, blocks, "thread block", textureWhyNot, runTexture, textureLaunch, textureModel},
      {"fft",
       "any mask as a product of spectra (cuFFT, float): the frame extended by the border mode into float planes, "
       "each channel's spectrum times the mask's (made once per mask), transformed back; the cost does not grow "
       "with the radius (2D masks to r = 64)",
       true,
       Mask::kMaxRadius,
       {},
       "",
       fftWhyNot,
       runFft,
       fftLaunch,
       fftModel},
      {"cpu",
       "the CPU reference: double accumulation, multithreaded (separable masks in two passes)",
       false,
       Mask::kMaxRadius,
       {},
       "",
       cpuWhyNot,
       runCpu,
       cpuLaunch,
       cpuModel},
      {"cpu-simd",
       "all CPU cores with SIMD (Highway: AVX-512, AVX2 or SSE4, chosen at run time): separable masks as a column "
       "then a row pass, others in 2D, float sums (double where float's error bound passes 1 LSB)",
       false,
       Mask::kMaxRadius,
       {},
       "",
       cpuSimdWhyNot,
       runCpuSimd,
       cpuLaunch,
       cpuSimdWorkModel},
  };
}

}  // namespace

Problem Variant::tileProblem(Tile t) const {
  if (std::find(tiles.begin(), tiles.end(), t) != tiles.end()) return {};
  std::string offered;
  for (const Tile& x : tiles) offered += (offered.empty() ? "" : ", ") + x.str();
  return problem(Problem::Code::Unknown, "tile", name + " has no tile " + t.str() + ": it offers " + offered);
}

bool needsSeparable(MaskTakes t) { return t == MaskTakes::Separable || t == MaskTakes::OneSeparable; }
bool needsOneMask(MaskTakes t) { return t == MaskTakes::One || t == MaskTakes::OneSeparable; }
const char* maskTakesName(MaskTakes t) {
  switch (t) {
    case MaskTakes::One:
      return "one";
    case MaskTakes::Separable:
      return "separable";
    case MaskTakes::OneSeparable:
      return "one separable";
    case MaskTakes::Any:
      break;
  }
  return "any";
}

const std::vector<Variant>& variants() {
  static const std::vector<Variant> table = makeTable();
  return table;
}

const Variant* findVariant(std::string_view name) {
  for (const auto& v : variants())
    if (v.name == name) return &v;
  return nullptr;
}

const Variant& variantNamed(std::string_view name) {
  if (const Variant* v = findVariant(name)) return *v;
  throw ProblemError(problem(Problem::Code::Unknown, "variant",
                             "'" + std::string(name) + "' is not one: use one of " + variantNames() + " or auto"));
}

std::string variantNames() {
  std::string s;
  for (const auto& v : variants()) s += (s.empty() ? "" : ", ") + v.name;
  return s;
}

const Variant& cpuChoice(const FilterParams& p, int width, int height) {
  const Variant& simd = *findVariant("cpu-simd");
  return simd.whyNot(p, width, height) ? *findVariant("cpu") : simd;
}

}  // namespace convlive
