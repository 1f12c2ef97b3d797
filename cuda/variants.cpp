// The variant table and what callers ask of it. Each variant is made in its own file beside its
// kernel (variants/<name>.cpp); what they share is in variants/common.hpp.
#include "convlive/variants.hpp"

#include <algorithm>
#include <stdexcept>

#include "variants/all.hpp"

namespace convlive {

bool sameComputation(const FilterParams& a, const FilterParams& b) {
  // The mask last: the workspace asks this of each kept preparation, which often differ by tile only.
  return a.tile == b.tile && a.border == b.border && a.filterAlpha == b.filterAlpha && a.outType == b.outType &&
         a.filter.combine == b.filter.combine && a.filter.mask.sameWeights(b.filter.mask);
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
    case MaskTakes::LowRank:
      return "low rank";
    case MaskTakes::Any:
      break;
  }
  return "any";
}

// The order is the one `convlive list variants` prints and the tests walk.
const std::vector<Variant>& variants() {
  using namespace detail;
  static const std::vector<Variant> table{
      naiveVariant(), constantVariant(), tiledVariant(),    tiledCoopVariant(), separableVariant(),
      fusedVariant(), streamVariant(),   tensor2dVariant(), tensorSepVariant(), tensorStreamVariant(),
      sweepVariant(), textureVariant(),  fftVariant(),      cpuVariant(),       cpuSimdVariant(),
  };
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

const Variant& cpuChoice(const FilterParams& p, const ImageDesc& image) {
  const Variant& simd = *findVariant("cpu-simd");
  return simd.whyNot(p, image) ? *findVariant("cpu") : simd;
}

namespace {
// The variants `takes` admits that can run p on `image` ("a, b"), and the one to name instead of
// `asker`: on its side (GPU or CPU) where there is one.
struct Takers {
  std::string list;
  const Variant* pick = nullptr;
};
template <class Takes>
Takers takersOf(const Variant& asker, const FilterParams& p, const ImageDesc& image, Takes takes) {
  Takers t;
  for (const Variant& v : variants()) {
    if (!takes(v) || v.whyNot(p, image)) continue;
    t.list += (t.list.empty() ? "" : ", ") + v.name;
    if (!t.pick || (t.pick->onGpu != asker.onGpu && v.onGpu == asker.onGpu)) t.pick = &v;
  }
  return t;
}

// One u8x4 frame into u8x4: the frames whose launch describeLaunch(p, width, height) gives.
bool singleRgba8(const FilterParams& p, const ImageDesc& image) {
  return image.isRgba8() && image.batch == 1 && !writesOtherType(p, image);
}
std::string notDescribed(const ImageDesc& image) {
  return "the u8x4 kernel's figures for one " + std::to_string(image.width) + "x" + std::to_string(image.height) +
         " frame: its launch for " + image.str() + " is not described";
}
}  // namespace

LaunchDescription Variant::describeLaunch(const FilterParams& p, const ImageDesc& image) const {
  if (!singleRgba8(p, image) && describeImageImpl) return describeImageImpl(*this, p, image);
  LaunchDescription d = describeLaunch(p, image.width, image.height);
  if (!singleRgba8(p, image))
    for (PassLaunch& pass : d.passes) pass.note += (pass.note.empty() ? "" : "; ") + notDescribed(image);
  return d;
}

WorkModel Variant::workModel(const FilterParams& p, const ImageDesc& image) const {
  if (!singleRgba8(p, image) && workModelImageImpl) return workModelImageImpl(*this, p, image);
  WorkModel m = workModel(p, image.width, image.height);
  if (!singleRgba8(p, image)) m.notes.push_back(notDescribed(image));
  return m;
}

std::string Variant::imagesTaken() const {
  if (!takesAnyImage()) return "u8x4";
  return images.empty() ? "all" : images;
}

Problem Variant::whyNot(const FilterParams& p, const ImageDesc& image) const {
  if (Problem why = imageProblem(image)) return why;
  if (writesOtherType(p, image) && !writableAs(image.type, *p.outType))
    return problem(Problem::Code::Invalid, "image", outputTypeRefusal(image.type, *p.outType));
  if (writesOtherType(p, image) && !floatOutput) {
    const Takers t = takersOf(*this, p, image, [](const Variant& v) { return v.floatOutput; });
    return problem(Problem::Code::CannotRun, "variant",
                   name + " writes frames of their own type; " + pixelTypeName(*p.outType) + " output from " +
                       pixelTypeName(image.type) + " frames: " +
                       (t.list.empty() ? std::string("no variant takes this filter")
                                       : t.list + (t.list.find(',') == std::string::npos ? " writes it" : " write it")),
                   t.pick ? "variant" : "", t.pick ? t.pick->name : "");
  }
  // A variant that takes any image checks it whole (its whyNot(p, width, height) is for u8x4 frames).
  if (takesAnyImage()) return whyNotImageImpl ? whyNotImageImpl(*this, p, image) : whyNot(p, image.width, image.height);
  if (!image.isRgba8()) {
    const Takers t = takersOf(*this, p, image, [](const Variant& v) { return v.takesAnyImage(); });
    return problem(
        Problem::Code::CannotRun, "variant",
        name + " filters 8-bit RGBA frames (u8x4) only; these are " + std::string(pixelTypeName(image.type)) + "x" +
            std::to_string(image.channels) +
            (t.list.empty() ? std::string(": no variant takes them with this filter")
                            : ": " + t.list + (t.list.find(',') == std::string::npos ? " takes" : " take") + " them"),
        t.pick ? "variant" : "", t.pick ? t.pick->name : "");
  }
  if (Problem why = whyNot(p, image.width, image.height)) return why;
  if (image.rowPitch() % 4 || image.frameStride() % 4)
    return problem(Problem::Code::Invalid, "image",
                   name + " needs RGBA8 rows and frames at multiples of 4 bytes (rows " +
                       std::to_string(image.rowPitch()) + ", frames " + std::to_string(image.frameStride()) +
                       " bytes apart)");
  return {};
}

void Variant::runFrames(const FilterParams& p, const ImageDesc& image, const void* in, void* out, Workspace& ws,
                        cudaStream_t stream) const {
  if (takesAnyImage()) return runFramesImpl(*this, p, image, in, out, ws, stream);
  if (!image.isRgba8()) throw ProblemError(whyNot(p, image));
  if (runRgba8BatchImpl && image.batch > 1) return runRgba8BatchImpl(*this, p, image, in, out, ws, stream);
  const std::size_t stride = image.frameStride(), pitch = image.rowPitch();
  for (int f = 0; f < image.batch; ++f) {
    const std::size_t at = stride * std::size_t(f);
    run(p, ConstImageView(static_cast<const std::uint8_t*>(in) + at, image.width, image.height, pitch),
        ImageView{static_cast<std::uint8_t*>(out) + at, image.width, image.height, pitch}, ws, stream);
  }
}

}  // namespace convlive
