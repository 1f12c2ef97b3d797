// tensorstream: separable masks up to r = 32 on the tensor cores, masks of low rank (up to 4
// separable terms: sharpen, emboss, the laplacian, custom masks of low rank) and the gradient
// magnitude of a separable mask (sobel, scharr; up to r = 16) in the same pass. Each
// warp walks down a 16-pixel strip, 16 rows a step, its input arriving through a cp.async ring in
// shared memory; the row product's result is the column product's operand in the same registers.
// Kernels: kernels/tensor_stream.cuh (tensor_stream.cu, tensor_stream_terms.cu, tensor_stream_magnitude.cu)
// for RGBA8 frames; kernels/tensor_stream_typed.cuh for u8x1 and u8x3 frames (grey, RGB, BGR) and their
// batches, separable masks, masks of low rank and gradient magnitudes, in one launch, and for u16
// and f16 frames of 1 and 4 channels (separable masks to r = 16, the factors as fp16 high + low
// parts: planU16Separable, planF16Separable).
#include <algorithm>
#include <sstream>
#include <string>

#include "convlive/reference.hpp"
#include "convlive/tensor_inputs.hpp"
#include "kernels/schedules.hpp"
#include "kernels/tensor_stream_typed.hpp"
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

using Code = Problem::Code;

// A gradient magnitude runs as two terms, the separable mask and its transpose (maskWhyNot refused
// the others), each in sums of its own.
bool magnitude(const FilterParams& p) { return p.filter.combine == Combine::Magnitude; }
// A mask that is not separable runs as its terms (maskWhyNot took it: 1..4 of them).
bool asTerms(const FilterParams& p) { return !p.filter.mask.separable() && !magnitude(p); }
int termsOf(const FilterParams& p) {
  return magnitude(p) ? 2 : asTerms(p) ? p.filter.mask.lowRankForBytes()->rank() : 1;
}
// Whether the kernel adds the mask's centre-only term at the store instead of as products: the
// RGBA8 kernel's (tensor_stream_terms.cu); the typed kernel runs every term as products.
bool centreAtStore(const FilterParams& p, bool rgba8) {
  return rgba8 && asTerms(p) && p.filter.mask.lowRankForBytes()->hasCentreOnlyTerm() &&
         kernels::tensorStreamCentreAtStore(p.filter.mask.radius(), termsOf(p), p.filterAlpha);
}
// The error plan of the kernel for RGBA8 frames (rgba8), or for u8x1 and u8x3 ones.
HalfWeightsPlan planOf(const FilterParams& p, bool rgba8 = true) {
  if (magnitude(p)) return planHalfMagnitude(p.filter.mask);
  return asTerms(p) ? planHalfTerms(*p.filter.mask.lowRankForBytes(), p.filter.mask.radius(), p.filter.combine,
                                    centreAtStore(p, rgba8))
                    : planHalfSeparable(p.filter.mask, p.filter.combine);
}
// The intermediate as fp16 high + low parts (convlive/precision.hpp), as run() passes it.
bool splitIntermediate(const FilterParams& p, bool rgba8 = true) { return !planOf(p, rgba8).halfIntermediate; }
// Every sum lies in the byte range (Identity only), as run() passes it.
bool sumsInByteRange(const FilterParams& p) {
  return p.filter.combine == Combine::Identity && planOf(p).sumsInByteRange;
}

// 16-bit frames (u16 and f16, 1 or 4 channels) and f32 grey ones: their own kernel instances and
// error plans, the factors as fp16 high + low parts (split factors).
bool splitsFactors(const ImageDesc& image) { return kernels::tensorStreamTypedSplitsFactors(image.type); }
// Their error plan (separable masks only).
HalfWeightsPlan splitFactorsPlan(const FilterParams& p, PixelType type) {
  const int maxRadius = kernels::kTensorStreamU16MaxRadius;
  if (type == PixelType::U16) return planU16Separable(p.filter.mask, p.filter.combine, maxRadius);
  if (type == PixelType::F16) return planF16Separable(p.filter.mask, p.filter.combine, maxRadius);
  return planF32Separable(p.filter.mask, p.filter.combine, maxRadius);
}

// Past the separable tensor-core checks: the factors' scale, the frame's size in tiles, and the
// block's shared memory.
// Its inputs are fp16 subnormals with the factors scaled by 2^S and 2^(24 - S)
// (convlive/tensor_inputs.hpp): both largest weights of a factor pair must fit fp16 so scaled.
Problem scaleWhyNot(const std::vector<float>& rowFactor, const std::vector<float>& colFactor, const char* which,
                    const char* instead) {
  if (const double row = largestWeight(rowFactor), col = largestWeight(colFactor); tensorInputScale(row, col) < 0) {
    std::ostringstream s;
    s << "tensorstream scales the factors by 2^S and 2^(24 - S) for its fp16 inputs, and no S keeps both largest "
         "weights ("
      << row << " and " << col << ")" << which << " within fp16's range (their product must stay below about 256)";
    return problem(Code::CannotRun, "mask", s.str(), "variant", instead);
  }
  return {};
}

Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (magnitude(p)) {
    if (auto why = commonWhyNot(v, p, w, h); why) return why;
    if (const int r = p.filter.mask.radius(); r > kernels::kTensorStreamMaxMagnitudeRadius)
      return problem(
          Code::CannotRun, "radius",
          "tensorstream runs a gradient magnitude up to r = " +
              std::to_string(kernels::kTensorStreamMaxMagnitudeRadius) +
              " (past it its two sets of sums would not fit the registers); this one is r = " + std::to_string(r),
          "variant", "separable");
    if (auto why = tensorCoreWhyNot(v, planOf(p).why, "separable"); why) return why;
    if (auto why = scaleWhyNot(p.filter.mask.row(), p.filter.mask.col(), "", "separable"); why) return why;
  } else if (!asTerms(p)) {
    if (auto why = tensorSeparableWhyNot(v, p, w, h); why) return why;
    if (auto why = scaleWhyNot(p.filter.mask.row(), p.filter.mask.col(), "", "tensorsep"); why) return why;
  } else {
    // A mask of low rank (maskWhyNot, in commonWhyNot, took its rank): each term's error added.
    if (auto why = commonWhyNot(v, p, w, h); why) return why;
    if (auto why = tensorCoreWhyNot(v, planOf(p).why, "tensor2d"); why) return why;
    for (const SeparableTerm& t : halfTermsOf(*p.filter.mask.lowRankForBytes()).terms)  // as the kernel takes them
      if (auto why = scaleWhyNot(t.row, t.col, " of a term", "tensor2d"); why) return why;
  }
  // Its grid's table of block columns (kernels/schedules.hpp), with room for the edge columns' entries.
  const Tile t = v.tileFor(p);
  if (constexpr int most = kernels::StripSchedule::kMaxEntries - 64; (w + t.w - 1) / t.w > most)
    return problem(Code::CannotRun, "tile",
                   "tensorstream takes frames up to " + std::to_string(most) + " tiles wide (" +
                       std::to_string(most * t.w) + " pixels with " + t.str() + "); this one is " + std::to_string(w) +
                       ": use a wider tile or another variant",
                   "variant", "fused");
  // Its grid's rows are the tile's segments (a warp's walk down its strip).
  if (Problem why = gridRowsWhyNot(v, p, w, h, tileRows, "segments")) return why;
  return sharedWhyNot(v, kernels::tensorStreamSharedBytes(t.w, p.filter.mask.radius(), p.filterAlpha, termsOf(p)));
}

// l's frames (one, or an RGBA8 batch in one launch). The weight fragments, where the kernel reads
// them from memory, are mirrored on the device once per mask.
void runLaunch(const FilterParams& p, const kernels::Launch& l, Prepared& pp, Workspace& ws) {
  if (magnitude(p)) {
    kernels::tensorStreamMagnitude(l, pp.sep(), !pp.halfTerms().halfIntermediate);
    return;
  }
  if (asTerms(p)) {
    kernels::tensorStreamTerms(l, pp.terms(), !pp.halfTerms(centreAtStore(p, true)).halfIntermediate);
    return;
  }
  const HalfWeightsPlan& plan = pp.halfSeparable();
  const std::vector<unsigned>& fragments = pp.tensorStreamFragments();
  const unsigned* fragmentsDevice = fragments.empty() ? nullptr : ws.impl().fragments.upload(fragments, l.stream);
  kernels::tensorStream(l, pp.sep(), fragmentsDevice, !plan.halfIntermediate,
                        p.filter.combine == Combine::Identity && plan.sumsInByteRange);
}

void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  runLaunch(p, launchOf(v, p, in, out, s), prepared(v, p, in, out, ws), ws);
}

// Where the factors are written n times over (convlive/precision.hpp halfTermsOf), so saying.
std::string divisorNote(const FilterParams& p) {
  const int n = halfTermsOf(*p.filter.mask.lowRankForBytes()).divisor;
  if (n == 1) return "";
  return "factors written " + std::to_string(n) + " times over (integers fp16 holds exactly), the sums times 1/" +
         std::to_string(n) + " at the store";
}

// RGBA8 frames, `frames` of them in one launch (grid z).
LaunchDescription describeFrames(const Variant& v, const FilterParams& p, int w, int h, int frames) {
  kernels::Launch l = launchFor(v, p, w, h);
  l.frames = frames;
  if (magnitude(p)) return kernels::describeTensorStreamMagnitude(l, radiusOf(p), splitIntermediate(p));
  if (asTerms(p)) {
    LaunchDescription d = kernels::describeTensorStreamTerms(l, radiusOf(p), termsOf(p), splitIntermediate(p),
                                                             p.filter.mask.lowRankForBytes()->hasCentreOnlyTerm());
    if (const std::string note = divisorNote(p); !note.empty())
      for (PassLaunch& pass : d.passes) pass.note += (pass.note.empty() ? "" : "; ") + note;
    return d;
  }
  return kernels::describeTensorStream(l, radiusOf(p), splitIntermediate(p), sumsInByteRange(p));
}
LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return describeFrames(v, p, w, h, 1);
}
// A mask of low rank's model says its terms, where they come from and the error plan's bound.
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  if (magnitude(p)) {
    WorkModel m = kernels::modelTensorStreamMagnitude(launchFor(v, p, w, h), radiusOf(p), splitIntermediate(p));
    const HalfWeightsPlan plan = planOf(p);
    std::ostringstream note;
    note.precision(2);
    note << "gradient magnitude: error bound " << (plan.halfIntermediate ? plan.halfIntermediateBound : plan.bound)
         << " levels";
    m.notes.insert(m.notes.begin(), note.str());
    return m;
  }
  if (!asTerms(p)) return kernels::modelTensorStream(launchFor(v, p, w, h), radiusOf(p), splitIntermediate(p));
  WorkModel m = kernels::modelTensorStreamTerms(launchFor(v, p, w, h), radiusOf(p), termsOf(p), splitIntermediate(p),
                                                p.filter.mask.lowRankForBytes()->hasCentreOnlyTerm());
  const LowRank& lr = *p.filter.mask.lowRankForBytes();
  const HalfWeightsPlan plan = planOf(p);
  std::ostringstream note;
  note.precision(2);
  note << "low rank: " << lr.rank() << " separable terms ("
       << (lr.source == LowRank::Source::Svd ? "SVD" : "the builder's factors") << "); error bound "
       << (plan.halfIntermediate ? plan.halfIntermediateBound : plan.bound) << " levels (truncation " << lr.truncation
       << ")";
  if (centreAtStore(p, true)) note << "; its centre-only term added at the store, not as products";
  if (const std::string divisor = divisorNote(p); !divisor.empty()) note << "; " << divisor;
  m.notes.insert(m.notes.begin(), note.str());
  return m;
}

// RGBA8 frames and their batches (one launch, a frame a grid z), rows 4 bytes apart; u8x1 and u8x3
// frames (a batch in one launch): separable masks, masks of low rank and gradient magnitudes on the
// typed kernel, with the RGBA8 kernel's error plans (the same byte values) and the same checks past
// them; u16 and f16 frames of 1 and 4 channels and f32 grey frames: separable masks within
// planU16Separable, planF16Separable and planF32Separable (a kept 4th channel copied).
Problem whyNotImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  if (image.isRgba8()) {
    if (Problem why = whyNot(v, p, image.width, image.height)) return why;
    if (image.rowPitch() % 4 || image.frameStride() % 4)
      return problem(Code::CannotRun, "image",
                     "tensorstream needs RGBA8 rows and frames at multiples of 4 bytes (rows " +
                         std::to_string(image.rowPitch()) + ", frames " + std::to_string(image.frameStride()) +
                         " bytes apart); stream takes these",
                     "variant", "stream");
    return {};
  }
  const std::string what = image.typeName();
  if (!kernels::tensorStreamTypedTakes(image.type, image.channels))
    return problem(
        Code::CannotRun, "variant",
        "tensorstream filters u8x4 (RGBA8), u8x1, u8x3, u16x1, u16x4, f16x1, f16x4 and f32x1 frames; these are " +
            what + ": sweep takes them",
        "variant", "sweep");
  if (splitsFactors(image)) {
    // What the numerics refuse first, whatever the device (a 2D mask is no 8-bit mask of low rank here).
    const HalfWeightsPlan plan = splitFactorsPlan(p, image.type);
    if (!plan.why.empty())
      return problem(Code::CannotRun, "variant", v.name + " on " + what + " frames: " + plan.why, "variant", "sweep");
    if (auto why = commonWhyNot(v, p, image.width, image.height); why) return why;
    if (auto why = tensorCoreWhyNot(v, "", "sweep"); why) return why;
  } else if (magnitude(p)) {
    if (auto why = commonWhyNot(v, p, image.width, image.height); why) return why;
    if (const int r = p.filter.mask.radius(); r > kernels::kTensorStreamMaxMagnitudeRadius)
      return problem(Code::CannotRun, "radius",
                     "tensorstream runs a gradient magnitude up to r = " +
                         std::to_string(kernels::kTensorStreamMaxMagnitudeRadius) +
                         " (past it its two sets of sums would not fit the registers); this one is r = " +
                         std::to_string(r) + ": sweep takes it",
                     "variant", "sweep");
    if (auto why = tensorCoreWhyNot(v, planOf(p, false).why, "sweep"); why) return why;
    if (auto why = scaleWhyNot(p.filter.mask.row(), p.filter.mask.col(), "", "sweep"); why) return why;
  } else if (asTerms(p)) {
    if (auto why = commonWhyNot(v, p, image.width, image.height); why) return why;
    if (auto why = tensorCoreWhyNot(v, planOf(p, false).why, "sweep"); why) return why;
    for (const SeparableTerm& t : halfTermsOf(*p.filter.mask.lowRankForBytes()).terms)  // as the kernel takes them
      if (auto why = scaleWhyNot(t.row, t.col, " of a term", "sweep"); why) return why;
  } else {
    if (auto why = tensorSeparableWhyNot(v, p, image.width, image.height); why) return why;
    if (auto why = scaleWhyNot(p.filter.mask.row(), p.filter.mask.col(), "", "sweep"); why) return why;
  }
  if (Problem why = gridRowsWhyNot(v, p, image.width, image.height, tileRows, "segments")) return why;
  const Tile t = v.tileFor(p);
  return sharedWhyNot(v, kernels::tensorStreamTypedSharedBytes(image, t.w / 16, radiusOf(p), termsOf(p)));
}

// The typed kernel's launch for u8x1, u8x3 and 16-bit frames (pointers and stream set by the caller).
kernels::TypedTensorStreamLaunch typedLaunchOf(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  kernels::TypedTensorStreamLaunch l{};
  l.image = image;
  l.border = p.border;
  l.absolute = p.filter.combine == Combine::Abs;
  l.copyFourth = image.copiesFourth(p.filterAlpha);
  const Tile t = v.tileFor(p);
  l.warps = t.w / 16;
  l.tileRows = t.h;
  return l;
}

// Typed frames: the typed kernel's launch. RGBA8 batches: the RGBA8 kernel's, a frame a grid z.
LaunchDescription describeImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  if (image.isRgba8()) {
    LaunchDescription d = describeFrames(v, p, image.width, image.height, image.batch);
    if (image.batch > 1)
      for (PassLaunch& pass : d.passes)
        pass.note +=
            (pass.note.empty() ? "" : "; ") + std::string("a frame of the batch a grid z") +
            (image.batch > kernels::kMaxGridZ ? ", a launch per " + std::to_string(kernels::kMaxGridZ) + " frames"
                                              : std::string());
    return d;
  }
  if (splitsFactors(image))
    return kernels::describeTensorStreamTyped(typedLaunchOf(v, p, image), radiusOf(p), 2, false, false, true, false);
  return kernels::describeTensorStreamTyped(typedLaunchOf(v, p, image), radiusOf(p), termsOf(p), asTerms(p),
                                            magnitude(p), splitIntermediate(p, false), sumsInByteRange(p));
}

WorkModel workModelImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  if (image.isRgba8()) return workModel(v, p, image.width, image.height);  // per pixel, a frame or a batch alike
  if (splitsFactors(image)) {
    WorkModel m = kernels::modelTensorStreamTyped(typedLaunchOf(v, p, image), radiusOf(p), 1, false, true);
    std::ostringstream note;
    note.precision(2);
    const HalfWeightsPlan plan = splitFactorsPlan(p, image.type);
    if (image.type == PixelType::U16)
      note << "u16: error bound " << plan.bound << " levels";
    else
      note << image.typeName().substr(0, 3) << ": error bound " << plan.bound
           << " x the largest |value| (the f32 bound " << f32Bound(p.filter.mask, 1.0) << " x it)";
    m.notes.insert(m.notes.begin(), note.str());
    return m;
  }
  return kernels::modelTensorStreamTyped(typedLaunchOf(v, p, image), radiusOf(p), termsOf(p), magnitude(p),
                                         splitIntermediate(p, false));
}

void runFrames(const Variant& v, const FilterParams& p, const ImageDesc& image, const void* in, void* out,
               Workspace& ws, cudaStream_t s) {
  if (image.isRgba8()) {  // the batch in one launch
    Prepared& pp = prepared(v, p, image, ws);
    const std::size_t pitch = image.rowPitch();
    kernels::Launch l =
        launchOf(v, p, ConstImageView(static_cast<const std::uint8_t*>(in), image.width, image.height, pitch),
                 ImageView{static_cast<std::uint8_t*>(out), image.width, image.height, pitch}, s);
    l.frames = image.batch;
    l.inFrameStride = l.outFrameStride = image.frameStride();
    runLaunch(p, l, pp, ws);
    return;
  }
  Prepared& pp = prepared(v, p, image, ws);
  kernels::TypedTensorStreamLaunch l = typedLaunchOf(v, p, image);
  l.in = in;
  l.out = out;
  l.stream = s;
  if (splitsFactors(image)) {  // whyNotImage held the mask to planU16Separable, planF16Separable or planF32Separable
    (image.type == PixelType::U16   ? kernels::tensorStreamTypedU16
     : image.type == PixelType::F16 ? kernels::tensorStreamTypedF16
                                    : kernels::tensorStreamTypedF32)(l, pp.sep());
    return;
  }
  if (magnitude(p)) {
    kernels::tensorStreamTypedMagnitude(l, pp.sep(), !pp.halfTerms().halfIntermediate);
    return;
  }
  if (asTerms(p)) {
    kernels::tensorStreamTypedTerms(l, pp.terms(), !pp.halfTerms().halfIntermediate);
    return;
  }
  const HalfWeightsPlan& plan = pp.halfSeparable();
  kernels::tensorStreamTyped(l, pp.sep(), !plan.halfIntermediate,
                             p.filter.combine == Combine::Identity && plan.sumsInByteRange);
}

}  // namespace

Variant tensorStreamVariant() {
  return {
      .name = "tensorstream",
      .description =
          "separable, r <= 32, on the tensor cores: each warp walks down a 16-pixel strip, 16 rows a step, its input "
          "through a cp.async ring in shared memory; the row product's result is the column product's operand in "
          "registers (fp16 factors, the intermediate as fp16, or fp16 high + low parts where the error bound needs "
          "them), within 1 LSB; masks of low rank (sharpen, emboss, laplacian, up to 4 separable terms) in the same "
          "pass, each term's products summed in the same accumulators; the gradient magnitude of a separable mask "
          "(sobel, scharr, r <= 16) as its two terms in one pass, sqrt(gx^2 + gy^2) at the store; an RGBA8 batch "
          "in one launch (a frame a grid z); u8x1 and u8x3 frames (a batch in one launch): separable masks, masks of "
          "low rank and gradient magnitudes, a warp on four 16-pixel strips of grey (two for a magnitude) or one of "
          "RGB; u16x1 frames (separable masks, r <= 16): the factors as fp16 high + low parts, each value's high and "
          "low bytes as inputs of their own, within 1 LSB of 65535; f16x1 frames (separable masks, r <= 16): the "
          "factors as fp16 high + low parts, the values as they are, within f16's contract (outputs past fp16's range "
          "or near an Inf or NaN made again on the CUDA cores); u16x4 and f16x4 frames likewise, a warp on one "
          "16-pixel strip of four planes (a kept 4th channel copied); f32x1 frames (and channels-first f32 planes; "
          "separable masks, r <= 16): each 16-row step's values scaled by a power of two and split into fp16 high + "
          "low parts (3 row products a chunk), within the f32 bound",
      .maxRadius = kernels::kTensorStreamMaxRadius,
      .tiles = {{64, 64},
                {64, 32},
                {64, 48},
                {64, 128},
                {128, 64},
                {32, 64},
                {64, 256},
                {64, 192},
                {128, 192},
                {128, 128},
                {64, 288},
                {64, 272},
                {64, 80},
                {64, 96},
                {64, 144}},
      .tileMeaning = "block width (16 pixels a warp) x rows each warp walks",
      .takes = MaskTakes::LowRank,
      .images = "u8x1,3,4 u16x1,4 f16x1,4 f32x1",
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
      .whyNotImageImpl = whyNotImage,
      .runFramesImpl = runFrames,
      .describeImageImpl = describeImage,
      .workModelImageImpl = workModelImage,
  };
}

}  // namespace convlive::detail
