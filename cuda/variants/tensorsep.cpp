// tensorsep: a separable mask on the tensor cores, a row then a column Toeplitz product per tile
// (mma.sync, fp16 factors, the intermediate in shared memory as fp16 high + low parts). Kernel:
// tensorSepKernel in kernels/tensor.cu.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

// Past the separable tensor-core checks: the tile within a block's shared memory, and the grid's
// rows of blocks within its limit.
Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = tensorSeparableWhyNot(v, p, w, h); why) return why;
  const Tile t = v.tileFor(p);
  if (Problem why = sharedWhyNot(v, kernels::tensorSepSharedBytes(t.w, t.h, p.filter.mask.radius()))) return why;
  return gridRowsWhyNot(v, p, w, h);  // a row of blocks is an output tile high
}

void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  const kernels::MaskSep& m = prepared(v, p, in, out, ws).sep();
  kernels::tensorSep(launchOf(v, p, in, out, s), m);
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeTensorSep(launchFor(v, p, w, h), radiusOf(p));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelTensorSep(launchFor(v, p, w, h), radiusOf(p));
}

}  // namespace

Variant tensorSepVariant() {
  return {
      .name = "tensorsep",
      .description =
          "separable on the tensor cores: a row then a column Toeplitz product per tile (mma.sync, fp16 factors, the "
          "intermediate as fp16 high + low parts), within a 1 LSB error bound",
      .maxRadius = kernels::kMax2DRadius,
      .tiles = {{32, 32}, {64, 32}, {64, 16}, {128, 16}},
      .tileMeaning = "output tile (256 threads)",
      .takes = MaskTakes::OneSeparable,
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
