// cpu: the CPU reference every variant is tested against (double accumulation, multithreaded),
// run as a variant for machines without a GPU. Its code: reference.cpp; its work model:
// cpu_model.cpp.
#include "convlive/reference.hpp"
#include "cpu_model.hpp"
#include "variants/all.hpp"
#include "variants/common.hpp"

namespace convlive::detail {
namespace {

// Host images; done on return.
void run(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t) {
  prepared(v, p, in, out, ws);
  referenceFilter(p.filter, p.border, p.filterAlpha, in, out);
}

// Host frames of any description (a batch frame by frame); done on return.
void runFrames(const Variant& v, const FilterParams& p, const ImageDesc& image, const void* in, void* out,
               Workspace& ws, cudaStream_t) {
  prepared(v, p, image, ws);
  referenceFrames(p.filter, p.border, p.filterAlpha, image, in, outputDesc(image, p.outType.value_or(image.type)), out);
}

LaunchDescription describe(const Variant&, const FilterParams&, int, int) {
  return {{}, "runs on the CPU: no kernel launch"};
}
WorkModel workModel(const Variant&, const FilterParams& p, int, int) { return cpuReferenceModel(p.filter); }

}  // namespace

Variant cpuVariant() {
  return {
      .name = "cpu",
      .description = "the CPU reference: double accumulation, multithreaded (separable masks in two passes)",
      .onGpu = false,
      .maxRadius = Mask::kMaxRadius,
      .whyNotImpl = commonWhyNot,  // nothing past the checks every variant makes
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
      .runFramesImpl = runFrames,
      .floatOutput = true,
  };
}

}  // namespace convlive::detail
