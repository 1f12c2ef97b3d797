// cpu-simd: the fast CPU path, all cores with SIMD (Highway, the instruction set chosen at run
// time), for machines without a GPU. Its code: cpu_simd.cpp and cpu_simd_kernels.cpp; its work
// model: cpu_model.cpp.
#include "convlive/cpu_simd.hpp"

#include <sstream>

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

// Frames of any description (a batch's frames in one parallel loop); done on return.
Problem whyNotImage(const Variant& v, const FilterParams& p, const ImageDesc& image) {
  if (auto why = commonWhyNot(v, p, image.width, image.height); why) return why;
  return cpuSimdImageWhyNot(p.filter, image, p.outType);
}
void runFrames(const Variant& v, const FilterParams& p, const ImageDesc& image, const void* in, void* out,
               Workspace& ws, cudaStream_t) {
  prepared(v, p, image, ws);
  cpuSimdFrames(p.filter, p.border, p.filterAlpha, image, in, outputDesc(image, p.outType.value_or(image.type)), out);
}

LaunchDescription describe(const Variant&, const FilterParams&, int, int) {
  return {{}, "runs on the CPU: no kernel launch"};
}
// cpu_model's figures, with a low-rank mask's k column and row passes in place of its 2D sum.
WorkModel workModel(const Variant&, const FilterParams& p, int, int) {
  WorkModel m = cpuSimdModel(p.filter);
  const CpuSimdPlan plan = planCpuSimd(p.filter);
  if (plan.path != CpuSimdPlan::Path::LowRank) return m;
  const LowRank& lr = *p.filter.mask.lowRankForBytes();  // as planCpuSimd takes it
  const double masks = p.filter.combine == Combine::Magnitude ? 2 : 1;
  const double columnTaps = static_cast<double>(lr.columnTaps()), rowTaps = static_cast<double>(lr.rowTaps());
  // Column passes: 8-bit pixels into float rows (in the cache); row passes: float4 values of them.
  m.globalReads = (columnTaps + rowTaps) * masks;
  m.globalBytes = (4 * columnTaps + 16 * rowTaps) * masks;
  m.apron = (columnTaps + rowTaps) / (2.0 * lr.rank());
  m.flops = 2 * 4 * (columnTaps + rowTaps) * masks;
  std::ostringstream note;
  note.precision(2);
  note << "low rank: " << lr.rank() << " separable terms ("
       << (lr.source == LowRank::Source::Svd ? "SVD" : "the builder's factors") << "), " << lr.taps()
       << " taps an output against " << p.filter.mask.size() * p.filter.mask.size() << " in 2D; error bound "
       << (plan.precision == CpuSimdPlan::Precision::Double ? plan.doubleBound : plan.floatBound)
       << " levels (truncation " << lr.truncation << ")";
  m.notes.insert(m.notes.begin(), note.str());
  return m;
}

}  // namespace

Variant cpuSimdVariant() {
  return {
      .name = "cpu-simd",
      .description =
          "all CPU cores with SIMD (Highway: AVX-512, AVX2 or SSE4, chosen at run time): separable masks as a column "
          "then a row pass, masks of low rank as k such pairs, others in 2D, float sums (double where float's error "
          "bound passes 1 LSB); every pixel type, 1, 3 or 4 channels and batches; f32 output from u8 frames",
      .onGpu = false,
      .maxRadius = Mask::kMaxRadius,
      .whyNotImpl = whyNot,
      .runImpl = run,
      .describeLaunchImpl = describe,
      .workModelImpl = workModel,
      .whyNotImageImpl = whyNotImage,
      .runFramesImpl = runFrames,
      .floatOutput = true,
  };
}

}  // namespace convlive::detail
