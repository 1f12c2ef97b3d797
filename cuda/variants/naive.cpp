// naive: one thread per output pixel, every tap and every weight read from global memory. The
// starting point the others are measured against. Kernel: naiveKernel in kernels/direct.cu.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  prepared(v, p, in, out, ws);
  const auto l = launchOf(v, p, in, out, s);
  kernels::naive(l, ws.impl().mask.upload(p.filter.mask.weights(), s), p.filter.mask.radius());
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeNaive(launchFor(v, p, w, h), radiusOf(p));
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelDirect(launchFor(v, p, w, h), radiusOf(p), kernels::DirectVariant::Naive);
}

}  // namespace

Variant naiveVariant() {
  return {
      .name = "naive",
      .description = "one thread per pixel; image and mask read from global memory",
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
