#include "variants/common.hpp"

#include <stdexcept>

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

}  // namespace detail
}  // namespace convlive
