// fused: a separable mask in one pass. The block stages its input tile plus apron in shared
// memory, runs the column factor over it into a float tile, then the row factor from there to the
// output: no intermediate plane in global memory. Kernel: fusedKernel in kernels/separable.cu.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

// Past the checks every variant makes: the tiles must fit one block's shared memory, and the
// grid's rows of blocks (an output tile high each) the grid's limit.
Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const Tile t = v.tileFor(p);
  if (Problem why = sharedWhyNot(v, kernels::fusedSharedBytes(t.w, t.h, p.filter.mask.radius()))) return why;
  return gridRowsWhyNot(v, p, w, h);
}

void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  const kernels::MaskSep& m = prepared(v, p, in, out, ws).sep();
  kernels::fused(launchOf(v, p, in, out, s), m);
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeFused(launchFor(v, p, w, h), radiusOf(p));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelFused(launchFor(v, p, w, h), radiusOf(p));
}

}  // namespace

Variant fusedVariant() {
  return {
      .name = "fused",
      .description = "single-pass separable: tile + apron in shared memory, column then row factor, no intermediate",
      .maxRadius = kernels::kMax2DRadius,
      .tiles = {{64, 32}, {128, 32}, {64, 16}},
      .tileMeaning = "output tile (256 threads, 4 pixels each per step)",
      .takes = MaskTakes::OneSeparable,
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
