// stream: separable masks of radius up to 4 at close to the memory floor. Each warp walks down a
// strip of the frame, rows arriving through a cp.async ring, the row taps by warp shuffles and the
// column window in registers; no block-wide barrier. Kernel: kernels/stream.cu.
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

// fp16 sums (two channels an instruction) where the mask's error bound keeps 1 LSB, else fp32.
void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t s) {
  Prepared& pp = prepared(v, p, in, out, ws);
  const HalfSumsPlan& plan = pp.halfSums();
  kernels::stream(launchOf(v, p, in, out, s), pp.sep(), {plan.fits, plan.offset});
}

LaunchDescription describe(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::describeStream(launchFor(v, p, w, h), radiusOf(p), planHalfSums(p.filter.mask).fits);
}
WorkModel workModel(const Variant& v, const FilterParams& p, int w, int h) {
  return kernels::modelStream(launchFor(v, p, w, h), radiusOf(p), planHalfSums(p.filter.mask).fits);
}

}  // namespace

Variant streamVariant() {
  return {
      .name = "stream",
      .description =
          "separable, r <= 4: each warp walks down a strip; rows stream in through a cp.async ring, row taps by warp "
          "shuffles, the column window in registers; no block barrier; fp16 sums (two channels an instruction) where "
          "their error bound keeps 1 LSB, else fp32",
      .maxRadius = kernels::kStreamMaxRadius,
      .tiles = {{32, 16}, {32, 8}, {32, 32}, {32, 4}},
      .tileMeaning = "warp (32 lanes) x output rows it walks",
      .takes = MaskTakes::OneSeparable,
      .whyNotImpl = commonWhyNot,  // nothing past the checks every variant makes
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
