// tensor2d: any 2D mask on the tensor cores. Per mask row, a row of outputs is a product with a
// banded Toeplitz matrix of that row's weights (mma.sync m16n8k16, fp16 in, fp32 sums); the
// weights are fp16, or fp16 high + low parts where fp16 alone would miss 1 LSB. Kernel:
// tensor2dKernel in kernels/tensor.cu.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

// Whether the weights go as fp16 high + low parts (convlive/precision.hpp), as run() passes it.
bool split(const FilterParams& p) { return planHalfWeights(p.filter.mask, p.filter.combine).split(); }

// Past the checks every variant makes: a device with tensor cores, weights within the fp16 error
// budget, the tile (its size depends on the split) within a block's shared memory, and the grid's
// rows of blocks within its limit.
Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const HalfWeightsPlan half = planHalfWeights(p.filter.mask, p.filter.combine);
  if (auto why = tensorCoreWhyNot(v, half.why, "tiled-coop"); why) return why;
  const Tile t = v.tileFor(p);
  if (Problem why =
          sharedWhyNot(v, kernels::tensor2dSharedBytes(t.w, t.h, p.filter.mask.radius(), half.split(), p.filterAlpha)))
    return why;
  return gridRowsWhyNot(v, p, w, h);  // a row of blocks is an output tile high
}

void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  kernels::tensor2d(launchOf(v, p, in, out, s), pp.mask2d(), pp.halfWeights().split());
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeTensor2D(launchFor(v, p, w, h), radiusOf(p), split(p));
}

// An RGBA8 batch in one launch, a frame a grid z: small frames fill the GPU together (frame by
// frame, a 256x256 frame's 16-32 blocks left most of it idle a launch).
void runBatch(const Variant& v, const FilterParams& p, const ImageDesc& image, const void* in, void* out, Workspace& ws,
              cudaStream_t s) {
  const Rgba8Batch b = rgba8BatchOf(v, p, image, in, out, ws, s);
  kernels::tensor2d(b.launch, b.prepared.mask2d(), b.prepared.halfWeights().split());
}
// The batch's launch (grid z); other frames are refused before this is asked.
LaunchDescription describeImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  return kernels::describeTensor2D(rgba8BatchLaunchFor(v, p, image), radiusOf(p), split(p));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelTensor2D(launchFor(v, p, w, h), radiusOf(p), split(p));
}
WorkModel workModelImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  return workModel(v, p, image.width, image.height);  // per pixel, a frame or a batch alike
}

}  // namespace

Variant tensor2dVariant() {
  return {
      .name = "tensor2d",
      .description =
          "any 2D mask on the tensor cores: per mask row a Toeplitz product (mma.sync, fp16 in, fp32 sums), weights "
          "as fp16 or fp16 high + low parts within a 1 LSB error bound",
      .maxRadius = kernels::kMax2DRadius,
      // 64x32 first (the tile a named tensor2d takes): within 6% of the best at every radius on the
      // H200, in less shared memory than 128x32 (so it fits more devices at large radii).
      .tiles = {{64, 32}, {128, 32}, {64, 16}, {128, 16}},
      .tileMeaning = "output tile (8 rows a warp; 4 when alpha is filtered)",
      .takes = MaskTakes::One,
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
      .runRgba8BatchImpl = runBatch,
      .describeImageImpl = describeImage,
      .workModelImageImpl = workModelImage,
  };
}

}  // namespace convlive::detail
