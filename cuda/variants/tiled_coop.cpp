// tiled-coop: shared-memory tiling where a thread block is the output tile. The threads load the
// tile plus its apron together, in batches, into shared memory, then every thread computes one
// output from there: no thread idles, unlike tiled's apron threads. Kernel: tiledCoopKernel in
// kernels/tiled.cu.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

// Past the checks every variant makes: the tile plus apron must fit one block's shared memory, and
// the grid's rows of blocks (a tile high each) the grid's limit.
Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const Tile t = v.tileFor(p);
  if (Problem why = sharedWhyNot(v, kernels::tiledCoopSharedBytes(t.w, t.h, p.filter.mask.radius()))) return why;
  return gridRowsWhyNot(v, p, w, h);
}

void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  kernels::tiledCoop(launchOf(v, p, in, out, s), pp.mask2d());
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeTiledCoop(launchFor(v, p, w, h), radiusOf(p));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelTiledCoop(launchFor(v, p, w, h), radiusOf(p));
}

}  // namespace

Variant tiledCoopVariant() {
  return {
      .name = "tiled-coop",
      .description = "block = output tile; threads load tile + apron cooperatively in batches, all compute",
      .maxRadius = kernels::kMax2DRadius,
      .tiles = {{16, 16}, {32, 8}, {32, 32}, {64, 4}},
      .tileMeaning = "output tile = thread block",
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
