#include "variants/common.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "convlive/reference.hpp"
#include "fft.hpp"

namespace convlive {

Workspace::Workspace() : impl_(std::make_unique<Impl>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;
std::size_t Workspace::preparations() const { return impl_->preparations; }

Problem Variant::prepare(const FilterParams& p, int width, int height, Workspace& ws) const {
  return prepare(p, ImageDesc::rgba8(width, height), ws);
}
Problem Variant::prepare(const FilterParams& p, const ImageDesc& image, Workspace& ws) const {
  return ws.impl().prepare(*this, p, image).why();
}

namespace detail {

using kernels::kMaxSepRadius;
using Code = Problem::Code;

// A separable variant's masks of any rank (Variant::anyRankRadius): radius 1 to that, so not the
// 1x1 all-zero mask (not separable, and no 3x3 kernel takes it).
bool takesAnyRank(const Variant& v, const Mask& m) { return m.radius() >= 1 && m.radius() <= v.anyRankRadius; }

// A one-mask variant's gradient magnitudes (Variant::magnitudeRadius): of separable masks, radius 1
// to that.
bool takesMagnitude(const Variant& v, const Mask& m) {
  return m.separable() && m.radius() >= 1 && m.radius() <= v.magnitudeRadius;
}

Problem maskWhyNot(const Variant& v, const FilterParams& p) {
  if (needsSeparable(v.takes) && !p.filter.mask.separable() && !takesAnyRank(v, p.filter.mask))
    return problem(Code::CannotRun, "variant",
                   "the mask is not separable (not an outer product of a column and a row): it needs a 2D variant" +
                       (v.anyRankRadius > 0 ? " (" + v.name + " takes masks of any rank up to radius " +
                                                  std::to_string(v.anyRankRadius) + ")"
                                            : std::string()),
                   "variant", "tiled-coop");
  if (needsOneMask(v.takes) && p.filter.combine == Combine::Magnitude && !takesMagnitude(v, p.filter.mask))
    return problem(Code::CannotRun, "variant",
                   v.name + " runs one mask; gradient magnitude (sobel, scharr) needs two" +
                       (v.magnitudeRadius > 0 ? " (" + v.name + " runs those of separable masks up to radius " +
                                                    std::to_string(v.magnitudeRadius) + ")"
                                              : std::string()),
                   "variant", needsSeparable(v.takes) && p.filter.mask.separable() ? "separable" : "tiled-coop");
  // A gradient magnitude as two terms: the mask and its transpose, each separable.
  if (v.takes == MaskTakes::LowRank && p.filter.combine == Combine::Magnitude && !p.filter.mask.separable())
    return problem(Code::CannotRun, "variant",
                   v.name +
                       " runs the gradient magnitude of a separable mask (sobel, scharr) as two terms; this mask "
                       "is not separable: it needs a 2D variant",
                   "variant", "tiled-coop");
  // A mask of low rank: its terms (made once a mask) only within the variant's radius, where the
  // radius check below would not refuse it first.
  if (v.takes == MaskTakes::LowRank && !p.filter.mask.separable() && p.filter.mask.radius() <= v.maxRadius) {
    const std::optional<LowRank>& lowRank = p.filter.mask.lowRankForBytes();  // tensorstream: 8-bit data
    const int most = kernels::kTensorStreamMaxTerms;
    if (!lowRank || lowRank->rank() > most || lowRank->rank() < 1) {
      const std::string what = !lowRank ? "of full rank (no fewer separable terms hold it within 1/8 level)"
                               : lowRank->rank() < 1 ? "all zeros"
                                                     : "of rank " + std::to_string(lowRank->rank()) + " (" +
                                                           std::to_string(lowRank->rank()) + " separable terms)";
      return problem(Code::CannotRun, "variant",
                     v.name + " takes separable masks and masks of low rank, up to " + std::to_string(most) +
                         " separable terms; this mask is not separable and is " + what + ": it needs a 2D variant",
                     "variant", "tensor2d");
    }
  }
  return {};
}

namespace {
// The largest value a frame of this type holds, for the error bound (floats: relative).
double typeMax(PixelType t) { return t == PixelType::U8 ? 255.0 : t == PixelType::U16 ? 65535.0 : 1.0; }
// Half an ulp of fp32 at values up to v (in [2^(k-1), 2^k]: 2^(k-25)): the most one rounding of a
// partial sum that large moves it.
double halfUlpUpTo(double v) { return v > 0 ? std::ldexp(1.0, int(std::ceil(std::log2(v))) - 25) : 0; }
}  // namespace

double fp32SumsBound(const FilterParams& p, PixelType type) {
  const Mask& m = p.filter.mask;
  const double n = 2 * m.radius() + 1, top = typeMax(type);
  double e = 0;
  if (m.separable()) {
    const double row = absoluteSum(m.row()), col = absoluteSum(m.col());
    e = n * halfUlpUpTo(top * row) * col + n * halfUlpUpTo(top * row * col);
    // A gradient magnitude's gy takes the factors the other way round: its row sums are col's; two
    // roundings more of the output (stream: each factor over its outer weight, the scale at the store).
    if (p.filter.combine == Combine::Magnitude)
      e = std::max(e, n * halfUlpUpTo(top * col) * row + n * halfUlpUpTo(top * row * col)) +
          2 * halfUlpUpTo(top * row * col);
  } else {
    const auto& w = m.weights();
    const int taps = int(n);
    for (int dy = 0; dy < taps; ++dy) {
      double row = 0;  // this mask row's absolute sum
      for (int dx = 0; dx < taps; ++dx) row += std::fabs(double(w[dy * taps + dx]));
      e += n * halfUlpUpTo(top * row);
    }
    e += n * halfUlpUpTo(top * absoluteSum(w));
  }
  return e * (p.filter.combine == Combine::Magnitude ? std::sqrt(2.0) : 1.0);
}

Problem fp32SumsWhyNot(const Variant& v, const FilterParams& p, PixelType type) {
  if (p.outType == PixelType::F32 && type != PixelType::F32) {  // f32 output's contract: f32Bound
    const double e = fp32SumsBound(p, type), most = f32Bound(p.filter.mask, typeMax(type));
    if (e <= most) return {};
    char text[240];
    std::snprintf(text, sizeof text,
                  "%s: fp32 sums of these weights on %s values may err by %.3g, past f32 output's bound %.3g "
                  "(1e-5 x sum|w| x %g)",
                  v.name.c_str(), pixelTypeName(type), e, most, typeMax(type));
    return problem(Code::CannotRun, "variant", text, "variant", "cpu");
  }
  if (type != PixelType::U8 && type != PixelType::U16) return {};
  const double e = fp32SumsBound(p, type);
  if (e <= 0.45) return {};
  char text[220];
  std::snprintf(text, sizeof text,
                "%s: fp32 sums of these weights on %s values may err by %.2f levels (their absolute sum is too "
                "large for 1 LSB)",
                v.name.c_str(), pixelTypeName(type), e);
  return problem(Code::CannotRun, "variant", text, "variant", "cpu");
}

Problem commonWhyNot(const Variant& v, const FilterParams& p, int width, int height) {
  return commonWhyNot(v, p, width, height, v.maxRadius);
}

Problem commonWhyNot(const Variant& v, const FilterParams& p, int width, int height, int maxRadius) {
  if (Problem why = maskWhyNot(v, p)) return why;
  if (width < 1 || height < 1)
    return problem(Code::Invalid, "",
                   "the frame is " + std::to_string(width) + "x" + std::to_string(height) +
                       ": width and height must be at least 1");
  const int r = p.filter.mask.radius();
  if (r > maxRadius)
    return problem(
        Code::CannotRun, "radius",
        v.name + " takes radius up to " + std::to_string(maxRadius) + " (asked for " + std::to_string(r) + ")",
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
                 v.name + " needs " + std::to_string((bytes + 1023) / 1024) +
                     " KiB of shared memory for this tile and radius; the device " + "gives a block " +
                     std::to_string(deviceInfo().sharedPerBlockOptin / 1024) + " KiB: use a smaller tile or radius");
}

std::string anySizeInstead(const FilterParams& p, int width, int height) {
  for (const char* name : {"stream", "sweep", "cpu-simd"}) {
    FilterParams q = p;
    q.tile = Tile{};  // its own default tile, not the refusing variant's
    if (const Variant* v = findVariant(name))
      if (const Problem why = v->whyNot(q, width, height); !why || why.code == Code::NoDevice) return name;
  }
  return "cpu";
}

Problem tallFrameProblem(const Variant& v, const FilterParams& p, int width, int height, long tallest,
                         const std::string& how, const std::string& also) {
  const std::string instead = anySizeInstead(p, width, height);
  return problem(Code::CannotRun, "variant",
                 v.name + " takes frames up to " + std::to_string(tallest) + " rows tall " + how + "; this one is " +
                     std::to_string(height) + ": use " + (also.empty() ? "" : also + " or ") + instead,
                 "variant", instead);
}

Problem gridRowsWhyNot(const Variant& v, const FilterParams& p, int width, int height, RowsPerBlock rows,
                       const char* blocks) {
  const Tile t = v.tileFor(p);
  const int n = rows(v, p, t);
  if ((long(height) + n - 1) / n <= kMaxGridRows) return {};
  // An offered tile whose blocks cover enough rows, where it takes the filter otherwise.
  std::string also;
  for (const Tile& o : v.tiles) {
    FilterParams q = p;
    q.tile = o;
    const long most = kMaxGridRows * rows(v, q, o);
    if (o == t || most < height) continue;
    if (const Problem why = v.whyNot(q, width, height); why && why.code != Code::NoDevice) continue;
    also = "tile " + o.str() + " (up to " + std::to_string(most) + " rows)";
    break;
  }
  return tallFrameProblem(v, p, width, height, kMaxGridRows * n,
                          (v.tiles.empty() ? "" : "with tile " + t.str() + " ") + "(" + std::to_string(kMaxGridRows) +
                              " " + blocks + " of " + std::to_string(n) + " rows)",
                          also);
}

Problem commonGridWhyNot(const Variant& v, const FilterParams& p, int width, int height) {
  if (Problem why = commonWhyNot(v, p, width, height)) return why;
  return gridRowsWhyNot(v, p, width, height);
}

Problem tensorCoreWhyNot(const Variant& v, const std::string& planWhy, const char* instead) {
  if (deviceInfo().major < 8)
    return problem(Code::CannotRun, "variant",
                   v.name + " needs compute capability 8.0 or newer (this device is " +
                       std::to_string(deviceInfo().major) + "." + std::to_string(deviceInfo().minor) + ")",
                   "variant", instead);
  if (!planWhy.empty()) return problem(Code::CannotRun, "variant", v.name + ": " + planWhy, "variant", instead);
  return {};
}

Problem tensorSeparableWhyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  return tensorCoreWhyNot(v, planHalfSeparable(p.filter.mask, p.filter.combine).why, "fused");
}

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

Prepared& prepared(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws) {
  if (in.width != out.width || in.height != out.height)
    throw std::invalid_argument(v.name + ": input and output sizes differ");
  if (in.pitch % 4 || out.pitch % 4 || in.pitch < std::size_t(in.width) * 4 || out.pitch < std::size_t(out.width) * 4)
    throw std::invalid_argument(v.name + ": row pitch must be a multiple of 4 bytes and hold a whole row");
  Prepared& pp = ws.impl().prepare(v, p, ImageDesc::rgba8(in.width, in.height));
  if (pp.why()) throw ProblemError(pp.why());
  return pp;
}

Prepared& prepared(const Variant& v, const FilterParams& p, const ImageDesc& image, Workspace& ws) {
  Prepared& pp = ws.impl().prepare(v, p, image);
  if (pp.why()) throw ProblemError(pp.why());
  return pp;
}

kernels::Launch launchOf(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, cudaStream_t s) {
  kernels::Launch l = launchFor(v, p, in.width, in.height);
  l.in = reinterpret_cast<const uchar4*>(in.data);
  l.inPitch = in.pitch;
  l.out = reinterpret_cast<uchar4*>(out.data);
  l.outPitch = out.pitch;
  l.stream = s;
  return l;
}

kernels::Launch rgba8BatchLaunchFor(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  kernels::Launch l = launchFor(v, p, image.width, image.height);
  l.inPitch = l.outPitch = image.rowPitch();
  l.frames = image.batch;
  l.inFrameStride = l.outFrameStride = image.frameStride();
  return l;
}

Rgba8Batch rgba8BatchOf(const Variant& v, const FilterParams& p, const ImageDesc& image, const void* in, void* out,
                        Workspace& ws, cudaStream_t s) {
  const std::size_t pitch = image.rowPitch();
  Prepared& pp = prepared(v, p, ConstImageView(static_cast<const std::uint8_t*>(in), image.width, image.height, pitch),
                          ImageView{static_cast<std::uint8_t*>(out), image.width, image.height, pitch}, ws);
  kernels::Launch l = rgba8BatchLaunchFor(v, p, image);
  l.in = static_cast<const uchar4*>(in);
  l.out = static_cast<uchar4*>(out);
  l.stream = s;
  return {pp, l};
}

}  // namespace detail
}  // namespace convlive
