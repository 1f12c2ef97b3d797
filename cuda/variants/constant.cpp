// constant: naive with the mask in the launch's constant bank (passed by value), so every thread
// of a warp reads the same weight through the constant cache at once. Kernel: constantKernel in
// kernels/direct.cu.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  kernels::constant(launchOf(v, p, in, out, s), pp.mask2d());
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeConstant(launchFor(v, p, w, h), radiusOf(p));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelDirect(launchFor(v, p, w, h), radiusOf(p), kernels::DirectVariant::Constant);
}

}  // namespace

Variant constantVariant() {
  return {
      .name = "constant",
      .description = "one thread per pixel; mask in the launch's constant bank, image from global memory",
      .maxRadius = kernels::kMax2DRadius,
      .tiles = {{16, 16}, {32, 8}, {8, 8}, {32, 32}},
      .tileMeaning = "thread block",
      .whyNotImpl = commonGridWhyNot,  // the checks every variant makes, and its grid's rows
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
