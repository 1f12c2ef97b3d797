// sweep: any mask (separable, or 2D) on frames of any pixel type (u8, u16, f16, f32), 1, 3 or 4 channels, and
// a batch in one launch. Kernels: kernels/sweep.cuh (separable), sweep.cu (2D, the launch),
// sweep_fixed_<type>.cu (the separable one compiled for each radius).
#include "kernels/sweep.hpp"

#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

using Code = Problem::Code;

kernels::SweepLaunch launchOf(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  const Tile t = v.tileFor(p);
  kernels::SweepLaunch l{};
  l.image = image;
  l.border = p.border;
  l.combine = p.filter.combine;
  l.filterAlpha = p.filterAlpha;
  l.tileValues = t.w;
  l.tileRows = t.h;
  l.twoD = !p.filter.mask.separable();
  setFloatOutput(l, p, image);
  return l;
}

// Everything, for frames `image` describes: the checks every variant makes, shared memory, and the
// error bound of fp32 sums for integer outputs. No height or batch is too large for its grid
// (kernels/sweep.cu, geometryOf): its y extent is the segments that make two or three waves (at
// most three times the blocks the GPU holds, each segment as many rows as it takes), and its z
// extent at most 65535 frames, each block looping over every 65535th frame of a larger batch.
Problem whyNotImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  if (Problem why = commonWhyNot(v, p, image.width, image.height)) return why;
  if (Problem why = sharedWhyNot(v, kernels::sweepSharedBytes(launchOf(v, p, image), radiusOf(p)))) return why;
  return fp32SumsWhyNot(v, p, image.type);
}

Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  return whyNotImage(v, p, ImageDesc::rgba8(w, h));
}

kernels::SweepMask maskOf(const FilterParams& p) {
  kernels::SweepMask m{};
  const Mask& mask = p.filter.mask;
  m.radius = mask.radius();
  std::copy(mask.row().begin(), mask.row().end(), m.row);
  std::copy(mask.col().begin(), mask.col().end(), m.col);
  return m;
}

// Launches the separable kernel or the 2D one, as the mask is.
void launch(const kernels::SweepLaunch& l, const FilterParams& p, Prepared& pp) {
  if (l.twoD)
    kernels::sweep2d(l, pp.mask2d());
  else
    kernels::sweep(l, maskOf(p));
}

void runFrames(const Variant& v, const FilterParams& p, const ImageDesc& image, const void* in, void* out,
               Workspace& ws, cudaStream_t s) {
  Prepared& pp = prepared(v, p, image, ws);
  kernels::SweepLaunch l = launchOf(v, p, image);
  l.in = in;
  l.out = out;
  l.stream = s;
  launch(l, p, pp);
}

void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  if (in.width != out.width || in.height != out.height)
    throw std::invalid_argument("sweep: input and output sizes differ");
  const ImageDesc image = ImageDesc::rgba8(in.width, in.height, in.pitch);
  Prepared& pp = prepared(v, p, image, ws);
  kernels::SweepLaunch l = launchOf(v, p, image);
  l.in = in.data;
  l.out = out.data;
  l.outPitch = out.pitch;
  l.stream = s;
  launch(l, p, pp);
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeSweep(launchOf(v, p, ImageDesc::rgba8(w, h)), radiusOf(p));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelSweep(launchOf(v, p, ImageDesc::rgba8(w, h)), radiusOf(p));
}
LaunchDescription describeImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  return kernels::describeSweep(launchOf(v, p, image), radiusOf(p));
}
WorkModel workModelImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  return kernels::modelSweep(launchOf(v, p, image), radiusOf(p));
}

}  // namespace

Variant sweepVariant() {
  return {
      .name = "sweep",
      .description =
          "any pixel type (u8 u16 f16 f32), 1/3/4 channels, a batch in one launch: each block sweeps down a strip; "
          "separable masks: the next step's rows copied (cp.async) while a step computes, the row factor into a ring "
          "of fp32 row sums in shared memory and the column factor down it, 8 values a job; 2D masks from a ring of "
          "input rows, windows in registers",
      .maxRadius = kernels::kSweepMaxRadius,
      .tiles = {{256, 8}, {256, 16}, {512, 8}},
      .tileMeaning = "values across (pixels x channels) x rows a step (256 threads)",
      .takes = MaskTakes::Any,
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
