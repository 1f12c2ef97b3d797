// separable: the classic two passes for masks that factor as a column times a row. The row pass
// stages each block's rows plus a halo in shared memory and writes float sums to an intermediate
// plane; the column pass does the same vertically and writes bytes. Kernels: the row and column
// passes in kernels/separable.cu.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

// Past the checks every variant makes: the block's shared memory (twice, for a gradient
// magnitude's two masks) must fit, and the row pass's rows of blocks (a tile high each; the column
// pass's blocks cover 4 tiles' rows) the grid's limit.
Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const Tile t = v.tileFor(p);
  const std::size_t planes = p.filter.combine == Combine::Magnitude ? 2 : 1;
  if (Problem why = sharedWhyNot(v, kernels::separableSharedBytes(t.w, t.h, p.filter.mask.radius()) * planes))
    return why;
  return gridRowsWhyNot(v, p, w, h);
}

// The intermediate planes live in the workspace, grown to the frame when it is larger.
void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  const kernels::MaskSep& m = prepared(v, p, in, out, ws).sep();
  const auto l = launchOf(v, p, in, out, s);
  auto& w = ws.impl();
  const std::size_t plane = std::size_t(in.width) * in.height * sizeof(float4);
  w.tmp0.reserve(plane);
  if (p.filter.combine == Combine::Magnitude) w.tmp1.reserve(plane);
  kernels::separable(l, m, w.tmp0.as<float4>(), w.tmp1.as<float4>());
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeSeparable(launchFor(v, p, w, h), radiusOf(p));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelSeparable(launchFor(v, p, w, h), radiusOf(p));
}

}  // namespace

Variant separableVariant() {
  return {
      .name = "separable",
      .description = "row pass then column pass through shared memory, 4 outputs per thread, float intermediate",
      .maxRadius = kernels::kMaxSepRadius,
      .tiles = {{32, 4}, {16, 8}, {32, 8}},
      .tileMeaning = "thread block of both passes",
      .takes = MaskTakes::Separable,
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
