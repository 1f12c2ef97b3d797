// cpu-simd: the fast CPU path, all cores with SIMD (Highway, the instruction set chosen at run
// time), for machines without a GPU. Its code: cpu_simd.cpp and cpu_simd_kernels.cpp; its work
// model: cpu_model.cpp.
#include "convlive/cpu_simd.hpp"

#include "cpu_model.hpp"
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

// Past the checks every variant makes: what cpu-simd's own sums can take (convlive/cpu_simd.hpp).
Problem whyNot(const Variant& v, const FilterParams& p, int w, int h) {
  if (auto why = commonWhyNot(v, p, w, h); why) return why;
  return cpuSimdWhyNot(p.filter);
}

// Host images; done on return.
void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t) {
  prepared(v, p, in, out, ws);
  cpuSimdFilter(p.filter, p.border, p.filterAlpha, in, out);
}

LaunchDescription describe(const Variant&, const FilterParams&, int, int) {
  return {{}, "runs on the CPU: no kernel launch"};
}
WorkModel workModel(const Variant&, const FilterParams& p, int, int) { return cpuSimdModel(p.filter); }

}  // namespace

Variant cpuSimdVariant() {
  return {
      .name = "cpu-simd",
      .description =
          "all CPU cores with SIMD (Highway: AVX-512, AVX2 or SSE4, chosen at run time): separable masks as a column "
          "then a row pass, others in 2D, float sums (double where float's error bound passes 1 LSB)",
      .onGpu = false,
      .maxRadius = Mask::kMaxRadius,
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
  };
}

}  // namespace convlive::detail
