// stream: separable masks of radius up to 4 at close to the memory floor. Each warp walks down a
// strip of the frame, rows arriving through a cp.async ring, the row taps by warp shuffles and the
// column window in registers; no block-wide barrier. Kernels: kernels/stream.cu for single RGBA8
// frames and RGBA8 batches of masks of any rank and gradient magnitudes (a frame a grid z),
// kernels/stream_typed*.cu for every other type, channel count and batch (one launch).
#include "kernels/stream_any_rank.hpp"
#include "kernels/stream_typed.hpp"
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

// 3x3 and 5x5 masks that are not separable (the sizes anyRankRadius admits) run as 2r + 1 row sums
// an input row (kernels/stream_any_rank.hpp).
bool anyRank(const Variant& v, const FilterParams& p) {
  return !p.filter.mask.separable() && takesAnyRank(v, p.filter.mask);
}
// Whether such a mask is mirror-symmetric across both axes (its rows summed over pairs of pixels).
bool symmetric(const FilterParams& p) {
  const Mask& m = p.filter.mask;
  return kernels::streamMaskMirrorSymmetric(m.weights().data(), m.radius());
}
// A mask of any rank whose weights are integers over a divisor sums in integers
// (kernels::streamAnyRankIntegerWeights).
bool integerWeights(const FilterParams& p) {
  const Mask& m = p.filter.mask;
  return kernels::streamAnyRankIntegerWeights(m.weights().data(), m.radius());
}
// The gradient magnitude of a separable 3x3 or 5x5 mask: both sums from one row window
// (kernels/stream_any_rank.hpp).
bool magnitude(const FilterParams& p) { return p.filter.combine == Combine::Magnitude; }

// A gradient magnitude's factors as the kernel takes them: one antisymmetric, one symmetric (sobel,
// scharr; kernels::streamMagnitudeFactorsFit).
bool magnitudeFactorsFit(const FilterParams& p) {
  const Mask& m = p.filter.mask;
  return kernels::streamMagnitudeFactorsFit(m.row().data(), m.col().data(), m.radius());
}

// A gradient magnitude's sums: integers where its factors have an integer form that fits 16 bits
// (kernels::streamMagnitudeIntegerFactors), else fp32.
bool integerMagnitude(const FilterParams& p) {
  const Mask& m = p.filter.mask;
  return m.separable() && kernels::streamMagnitudeIntegerFactors(m.row().data(), m.col().data(), m.radius());
}

// RGBA8 frames: the checks every variant makes (masks of any rank and gradient magnitudes to 5x5
// pass them), and for those fp32 sums within 1 LSB (fp32SumsBound: each mask row's and the whole
// mask's absolute sum times 255; a magnitude's factors in either order, times sqrt 2); a
// magnitude's factors one antisymmetric and one symmetric.
Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (magnitude(p) && !maskWhyNot(v, p) && !magnitudeFactorsFit(p))  // whatever the device
    return problem(Problem::Code::CannotRun, "mask",
                   "stream takes gradient magnitudes whose factors are one antisymmetric (its centre 0) and one "
                   "symmetric, their outer weights not 0 (sobel, scharr); tensorstream takes any separable factors",
                   "variant", "tensorstream");
  if (Problem why = commonWhyNot(v, p, w, h)) return why;
  if (anyRank(v, p) || magnitude(p)) return fp32SumsWhyNot(v, p, PixelType::U8);
  return {};
}

// fp16 sums (two channels an instruction) where the mask's error bound keeps 1 LSB, else fp32.
void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  if (anyRank(v, p)) return kernels::streamAnyRank(launchOf(v, p, in, out, s), pp.mask2d());
  if (magnitude(p)) return kernels::streamMagnitude(launchOf(v, p, in, out, s), pp.sep());
  const HalfSumsPlan& plan = pp.halfSums();
  kernels::stream(launchOf(v, p, in, out, s), pp.sep(), {plan.fits, plan.offset});
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  if (anyRank(v, p))
    return kernels::describeStreamAnyRank(launchFor(v, p, w, h), radiusOf(p), symmetric(p), integerWeights(p));
  if (magnitude(p)) return kernels::describeStreamMagnitude(launchFor(v, p, w, h), radiusOf(p), integerMagnitude(p));
  return kernels::describeStream(launchFor(v, p, w, h), radiusOf(p), planHalfSums(p.filter.mask).fits);
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  if (anyRank(v, p))
    return kernels::modelStreamAnyRank(launchFor(v, p, w, h), radiusOf(p), symmetric(p), integerWeights(p));
  if (magnitude(p)) return kernels::modelStreamMagnitude(launchFor(v, p, w, h), radiusOf(p), integerMagnitude(p));
  return kernels::modelStream(launchFor(v, p, w, h), radiusOf(p), planHalfSums(p.filter.mask).fits);
}

// sums: the mask's fp16 plan (u8 frames into u8 sum in fp16 where it fits: typedStreamHalfSums).
kernels::TypedStreamLaunch typedLaunchOf(const Variant& v, const FilterParams& p, const ImageDesc& image,
                                         const HalfSumsPlan& sums) {
  kernels::TypedStreamLaunch l{};
  l.image = image;
  l.border = p.border;
  l.absolute = p.filter.combine == Combine::Abs;
  l.copyFourth = image.copiesFourth(p.filterAlpha);
  l.tileRows = v.tileFor(p).h;
  setFloatOutput(l, p, image);
  l.halfSums = sums.fits;
  l.halfOffset = sums.offset;
  return l;
}

// Single RGBA8 frames (rows 4-byte aligned) into RGBA8 keep the RGBA8 kernel, its fp16 sums and its
// tuning; everything else, RGBA8 batches and f32 output included, goes to the typed kernel.
bool rgba8Kernel(const FilterParams& p, const ImageDesc& image) {
  return image.isRgba8() && image.batch == 1 && image.rowPitch() % 4 == 0 && !writesOtherType(p, image);
}

// RGBA8 batches of masks of any rank and gradient magnitudes (3x3 and 5x5): the RGBA8 kernel, a frame
// a grid z (rows and frames 4-byte aligned; separable masks' batches take the typed kernel).
bool rgba8Batch(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  return image.isRgba8() && image.batch > 1 && image.rowPitch() % 4 == 0 && image.frameStride() % 4 == 0 &&
         !writesOtherType(p, image) && (anyRank(v, p) || magnitude(p));
}

// The typed kernel past r = 4 holds 2r + 1 rows of a lane's values in registers only where a lane
// has 4 of them: 16- and 32-bit frames of one channel, to r = 8 (the variant's maxRadius, 4, is the
// RGBA8 kernel's and every other frame's).
Problem whyNotImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  if (rgba8Kernel(p, image) || rgba8Batch(v, p, image)) return whyNot(v, p, image.width, image.height);
  if ((anyRank(v, p) || magnitude(p)) && !maskWhyNot(v, p))
    return problem(
        Problem::Code::CannotRun, "variant",
        "stream takes 3x3 and 5x5 masks that are not separable, and 3x3 and 5x5 gradient magnitudes, on RGBA8 "
        "frames (one or a batch, rows and frames 4-byte aligned) written as RGBA8 only; "
        "sweep takes these frames",
        "variant", "sweep");
  const int most = kernels::typedStreamMaxRadius(image.type, image.channels, writesOtherType(p, image)),
            r = radiusOf(p);
  if (r > most && !maskWhyNot(v, p))
    return problem(Problem::Code::CannotRun, "radius",
                   "stream takes radius up to " + std::to_string(most) + " on " + pixelTypeName(image.type) + "x" +
                       std::to_string(image.channels) + " frames (" +
                       std::to_string(kernels::kTypedStreamMaxRadiusGrey) +
                       " on 16- and 32-bit frames of one channel, and 8-bit ones written as f32; asked for " +
                       std::to_string(r) + ")",
                   "variant", "sweep");
  if (Problem why = commonWhyNot(v, p, image.width, image.height, most)) return why;
  if (r < kernels::kTypedStreamMinRadius)
    return problem(Problem::Code::CannotRun, "radius",
                   "stream: radius 0 runs on single RGBA8 frames only; sweep takes these frames", "variant", "sweep");
  return fp32SumsWhyNot(v, p, image.type);
}

// Frames the typed kernel takes (r = 0 only runs on the RGBA8 kernel, whyNotImage says).
bool typedKernel(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  return !rgba8Kernel(p, image) && !rgba8Batch(v, p, image) && radiusOf(p) >= kernels::kTypedStreamMinRadius;
}

// Frames that take the typed kernel: its launch and work; an RGBA8 batch the RGBA8 kernel's with its
// grid z (the RGBA8 kernel's otherwise, as describe and workModel give them).
LaunchDescription describeImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  if (rgba8Batch(v, p, image)) {
    const kernels::Launch l = rgba8BatchLaunchFor(v, p, image);
    return anyRank(v, p) ? kernels::describeStreamAnyRank(l, radiusOf(p), symmetric(p), integerWeights(p))
                         : kernels::describeStreamMagnitude(l, radiusOf(p), integerMagnitude(p));
  }
  if (!typedKernel(v, p, image)) return describe(v, p, image.width, image.height);
  return kernels::describeStreamTyped(typedLaunchOf(v, p, image, planHalfSums(p.filter.mask)), radiusOf(p));
}

WorkModel workModelImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  if (rgba8Batch(v, p, image)) {
    const kernels::Launch l = rgba8BatchLaunchFor(v, p, image);
    return anyRank(v, p) ? kernels::modelStreamAnyRank(l, radiusOf(p), symmetric(p), integerWeights(p))
                         : kernels::modelStreamMagnitude(l, radiusOf(p), integerMagnitude(p));
  }
  if (!typedKernel(v, p, image)) return workModel(v, p, image.width, image.height);
  return kernels::modelStreamTyped(typedLaunchOf(v, p, image, planHalfSums(p.filter.mask)), radiusOf(p));
}

void runFrames(const Variant& v, const FilterParams& p, const ImageDesc& image, const void* in, void* out,
               Workspace& ws, cudaStream_t s) {
  if (rgba8Batch(v, p, image)) {  // one launch, a frame a grid z
    const Rgba8Batch b = rgba8BatchOf(v, p, image, in, out, ws, s);
    if (anyRank(v, p)) return kernels::streamAnyRank(b.launch, b.prepared.mask2d());
    return kernels::streamMagnitude(b.launch, b.prepared.sep());
  }
  if (rgba8Kernel(p, image)) {
    const std::size_t pitch = image.rowPitch();
    run(v, p, ConstImageView(static_cast<const std::uint8_t*>(in), image.width, image.height, pitch),
        ImageView{static_cast<std::uint8_t*>(out), image.width, image.height, pitch}, ws, s);
    return;
  }
  Prepared& pp = prepared(v, p, image, ws);
  kernels::TypedStreamLaunch l = typedLaunchOf(v, p, image, pp.halfSums());
  l.in = in;
  l.out = out;
  l.stream = s;
  kernels::streamTyped(l, pp.sep());
}

}  // namespace

Variant streamVariant() {
  return {
      .name = "stream",
      .description =
          "separable, r <= 4 (16- and 32-bit frames of one channel, and 8-bit ones into f32: r <= 8), any pixel type "
          "and a batch in one launch: "
          "each warp walks down a strip; rows stream in through a cp.async ring, row taps by warp shuffles, the "
          "column window in registers; no block barrier; "
          "8-bit frames into 8 bits (RGBA8 at r <= 4; 1 and 3 channels at r <= 2): fp16 sums (two values an "
          "instruction) where their error bound keeps 1 LSB, else fp32; "
          "RGBA8 frames (one, or a batch in one launch) also take 3x3 and 5x5 masks of any rank (each input row summed "
          "with each mask row, fp32; masks mirror-symmetric across both axes over pairs of pixels, a row sum for each "
          "pair of equal mask rows) and 3x3 and 5x5 gradient magnitudes (sobel, scharr: both row factors from one "
          "window over the pairs of taps their symmetry joins, fp32; at 5x5 factors of integer ratios, as sobel's, "
          "in integers, two values an instruction, exact)",
      .maxRadius = kernels::kStreamMaxRadius,  // 16- and 32-bit grey: kTypedStreamMaxRadiusGrey
      .tiles = {{32, 16}, {32, 8}, {32, 32}, {32, 4}},
      .tileMeaning = "warp (32 lanes) x output rows it walks",
      .takes = MaskTakes::OneSeparable,
      .anyRankRadius = kernels::kStreamAnyRankRadius,
      .magnitudeRadius = kernels::kStreamMagnitudeRadius,
      // Past the checks every variant makes, only the fp32 bound of masks of any rank and magnitudes: both kernels'
      // grids hold as many blocks as the GPU holds (a batch's frames a share each, a frame a grid z), their warps
      // walking every strip and segment of any height.
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
      .whyNotImageImpl = whyNotImage,
      .runFramesImpl = runFrames,
      .describeImageImpl = describeImage,
      .workModelImageImpl = workModelImage,
      .floatOutput = true,
  };
}

}  // namespace convlive::detail
