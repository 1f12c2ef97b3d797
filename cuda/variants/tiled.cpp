// tiled: the classic shared-memory tiling. A thread block is the input tile: each thread loads
// its pixels of the tile, apron included (r pixels on each side), into shared memory once; after a
// barrier, each thread whose pixel is an output (not in the apron) sums its taps from shared
// memory, the weights from the launch's constant bank. The apron's threads idle while the others
// compute; for large radii each thread takes several pixels (the tile is coarsened) so that at
// least half of the tile is output. The kernel (tiledKernel) and its launch are in
// kernels/tiled.cu; this file is the host side: when it can run, how it runs, and what the
// inspector says it launches and does.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

// The rows of output a block makes with tile t: its input tile (coarsened for large radii) less
// the apron, as its launch shapes it (read from the launch's description).
int outputRows(const Variant& v, const FilterParams& p, Tile t) {
  FilterParams q = p;
  q.tile = t;
  return kernels::describeTiled(launchFor(v, q, 1, 1), radiusOf(p)).passes.front().outputTile.y;
}

// Past the checks every variant makes: the tile plus apron must fit one block's shared memory, and
// the grid's rows of blocks (one for each block's output rows) the grid's limit.
Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  const Tile t = v.tileFor(p);
  if (Problem why = sharedWhyNot(v, kernels::tiledSharedBytes(t.w, t.h, p.filter.mask.radius()))) return why;
  return gridRowsWhyNot(v, p, w, h, outputRows);
}

// The mask goes by value in the launch's parameters (made once per filter, kept in ws).
void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  kernels::tiled(launchOf(v, p, in, out, s), pp.mask2d());
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeTiled(launchFor(v, p, w, h), radiusOf(p));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelTiled(launchFor(v, p, w, h), radiusOf(p));
}

}  // namespace

Variant tiledVariant() {
  return {
      .name = "tiled",
      .description = "input tile + apron in shared memory; block = input tile, apron threads idle while computing",
      .maxRadius = kernels::kMax2DRadius,
      .tiles = {{32, 8}, {16, 16}, {32, 32}},
      .tileMeaning = "thread block = input tile (coarsened for large radii)",
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
