// What the variants share (internal to convlive_cuda): the workspace they keep between launches
// and the preparation cache in it, the checks every variant makes, and the kernels' launch
// parameters. Each variant's own file (cuda/variants/<name>.cpp) builds on these.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/precision.hpp"
#include "convlive/problem.hpp"
#include "convlive/resources.hpp"
#include "convlive/variants.hpp"
#include "kernels/launch.hpp"

namespace convlive {

class FftConvolver;  // fft.hpp

namespace detail {

// What a variant derives from its parameters for one frame size (Variant::prepare): whyNot's
// answer at once, the rest on first use (each variant asks only for what its kernel takes).
class Prepared {
 public:
  Prepared(const Variant& v, const FilterParams& p, const ImageDesc& image)
      : variant_(&v), params_(p), image_(image), why_(v.whyNot(p, image)) {}
  bool matches(const Variant& v, const FilterParams& p, const ImageDesc& image) const {
    // The frames' shape and type, not their pitch or count: what whyNot and the mask's forms depend on.
    return variant_ == &v && image_.width == image.width && image_.height == image.height &&
           image_.type == image.type && image_.channels == image.channels && image_.alpha == image.alpha &&
           sameComputation(params_, p);
  }
  const Problem& why() const { return why_; }

  const kernels::MaskSep& sep() {  // separable masks: the factors as the kernels take them
    if (!sep_) {
      const Mask& m = params_.filter.mask;
      sep_.emplace();
      sep_->radius = m.radius();
      std::copy(m.row().begin(), m.row().end(), sep_->row);
      std::copy(m.col().begin(), m.col().end(), sep_->col);
    }
    return *sep_;
  }
  const kernels::Mask2D& mask2d() {  // 17 KiB: on the heap, passed by value to the kernels
    if (!mask2d_) {
      const Mask& m = params_.filter.mask;
      mask2d_ = std::make_unique<kernels::Mask2D>();
      mask2d_->radius = m.radius();
      std::copy(m.weights().begin(), m.weights().end(), mask2d_->w);
    }
    return *mask2d_;
  }
  const HalfSumsPlan& halfSums() {  // stream
    if (!halfSums_) halfSums_ = planHalfSums(params_.filter.mask);
    return *halfSums_;
  }
  const kernels::MaskTerms& terms() {  // masks of low rank (tensorstream): their terms as the kernel takes them
    if (!terms_) {
      const Mask& m = params_.filter.mask;
      // The variant's whyNot took the mask: it has 1..4 terms. Their factors as the error plan
      // counts them (one of each times n where fp16 then holds them exactly, the sums times 1 / n).
      const HalfTerms half = halfTermsOf(*m.lowRankForBytes());
      terms_ = std::make_unique<kernels::MaskTerms>();
      terms_->radius = m.radius();
      terms_->terms = static_cast<int>(half.terms.size());
      terms_->outScale = static_cast<float>(1.0 / half.divisor);
      for (int t = 0; t < terms_->terms; ++t) {
        std::copy(half.terms[t].row.begin(), half.terms[t].row.end(), terms_->row[t]);
        std::copy(half.terms[t].col.begin(), half.terms[t].col.end(), terms_->col[t]);
      }
    }
    return *terms_;
  }
  // tensorstream, masks of low rank and gradient magnitudes (centreAtStore: as planHalfTerms takes it)
  const HalfWeightsPlan& halfTerms(bool centreAtStore = false) {
    std::optional<HalfWeightsPlan>& plan = halfTerms_[centreAtStore ? 1 : 0];
    if (!plan)
      plan = params_.filter.combine == Combine::Magnitude
                 ? planHalfMagnitude(params_.filter.mask)
                 : planHalfTerms(*params_.filter.mask.lowRankForBytes(), params_.filter.mask.radius(),
                                 params_.filter.combine, centreAtStore);
    return *plan;
  }
  const HalfWeightsPlan& halfSeparable() {  // tensorstream
    if (!halfSeparable_) halfSeparable_ = planHalfSeparable(params_.filter.mask, params_.filter.combine);
    return *halfSeparable_;
  }
  const std::vector<unsigned>& tensorStreamFragments() {  // tensorstream: its weights, where read from memory
    if (!fragments_) fragments_ = kernels::tensorStreamFragments(sep());
    return *fragments_;
  }
  const HalfWeightsPlan& halfWeights() {  // tensor2d (1.2 ms on the host for a 65 x 65 mask)
    if (!halfWeights_) halfWeights_ = planHalfWeights(params_.filter.mask, params_.filter.combine);
    return *halfWeights_;
  }

 private:
  const Variant* variant_;
  FilterParams params_;
  ImageDesc image_;
  Problem why_;
  std::optional<kernels::MaskSep> sep_;
  std::unique_ptr<kernels::Mask2D> mask2d_;
  std::optional<HalfSumsPlan> halfSums_;
  std::unique_ptr<kernels::MaskTerms> terms_;
  std::optional<HalfWeightsPlan> halfSeparable_, halfWeights_, halfTerms_[2];
  std::optional<std::vector<unsigned>> fragments_;
};

// A device copy of a small host table (a mask's weights, weight fragments), copied again only when
// the table changes. Stream-ordered: kernels already queued on the stream read the old table
// before the copy lands. A pageable source is staged before the call returns, so `host_` may
// change after.
template <class T>
class MirroredTable {
 public:
  const T* upload(const std::vector<T>& table, cudaStream_t s) {
    if (host_ != table) {
      device_.reserve(table.size() * sizeof(T));
      host_ = table;
      CL_CUDA(cudaMemcpyAsync(device_.get(), host_.data(), table.size() * sizeof(T), cudaMemcpyHostToDevice, s));
    }
    return device_.as<T>();
  }

 private:
  DeviceBuffer device_;
  std::vector<T> host_;  // what device_ holds
};

// The masks v's table entry says it takes (Variant::takes): a variant that needs a separable mask
// names tiled-coop for the others; one that runs one mask names separable (or tiled-coop, where
// the mask need not be separable) for a gradient magnitude; a LowRank one (tensorstream) takes the
// magnitude of a separable mask and names tiled-coop for the others.
Problem maskWhyNot(const Variant& v, const FilterParams& p);
// Whether v's masks of any rank (Variant::anyRankRadius) include m: radius 1 up to it.
bool takesAnyRank(const Variant& v, const Mask& m);
// Whether one-mask variant v runs the gradient magnitude of m (Variant::magnitudeRadius).
bool takesMagnitude(const Variant& v, const Mask& m);
// Checks every variant shares: the masks it takes, the frame, the radius, the tile, the device.
// The whole whyNot of the variants that need nothing more.
Problem commonWhyNot(const Variant& v, const FilterParams& p, int width, int height);
// The same with the radius up to maxRadius instead of the variant's (frames it takes further).
Problem commonWhyNot(const Variant& v, const FilterParams& p, int width, int height, int maxRadius);
// Whether `bytes` of shared memory a block fit the device's opt-in limit.
Problem sharedWhyNot(const Variant& v, std::size_t bytes);
// The tensor-core variants: fp16 mma.sync m16n8k16 needs compute capability 8.0, and the mask must
// fit the fp16 error budget (`planWhy`, from convlive/precision.hpp).
Problem tensorCoreWhyNot(const Variant& v, const std::string& planWhy, const char* instead);
// The separable tensor-core variants: one separable mask, fp16 factors within the error budget.
Problem tensorSeparableWhyNot(const Variant& v, const FilterParams& p, int width, int height);

// A grid's y and z extents are at most 65535 blocks (x: 2^31 - 1). A batch never meets the z
// limit: the u8x4 variants run it frame by frame (Variant::runFrames), stream's typed kernel walks
// every frame from its one-dimensional grid, and sweep's z stops at 65535, its blocks looping over
// the frames past it.
constexpr long kMaxGridRows = 65535;
// Rows of the frame one row of v's blocks covers with tile t (for p's radius and mask).
using RowsPerBlock = int (*)(const Variant& v, const FilterParams& p, Tile t);
// The common case: a block covers the tile's height.
inline int tileRows(const Variant&, const FilterParams&, Tile t) { return t.h; }
// A variant that takes p on a width x height RGBA8 frame whatever its size: stream, sweep or
// cpu-simd, the first whose whyNot takes it or refuses it only for want of a device (their grids
// do not grow with the frame: stream's and sweep's blocks walk as many rows as they must), else cpu.
std::string anySizeInstead(const FilterParams& p, int width, int height);
// "<v> takes frames up to <tallest> rows tall <how>; this one is <height>: use <instead>", the fix
// anySizeInstead's variant (`also`: another way out, put before it; "" for none).
Problem tallFrameProblem(const Variant& v, const FilterParams& p, int width, int height, long tallest,
                         const std::string& how, const std::string& also = "");
// For a variant whose grid has a row of blocks for every rowsPerBlock(v, p, tile) rows of the
// frame: empty while that grid fits kMaxGridRows rows of blocks, else tallFrameProblem with the
// tallest frame this tile takes, naming an offered tile that takes this one where there is one.
// `blocks` names the blocks in the message ("segments": a block's walk down its strip).
Problem gridRowsWhyNot(const Variant& v, const FilterParams& p, int width, int height, RowsPerBlock rows = tileRows,
                       const char* blocks = "blocks");
// commonWhyNot, then gridRowsWhyNot for a block a tile high: the whole whyNot of the variants
// that need nothing more (naive, constant).
Problem commonGridWhyNot(const Variant& v, const FilterParams& p, int width, int height);

// The worst-case error of fp32 sums of p's weights on frames of `type`, in units of its values
// (floats: relative to 1), as sweep and the typed stream kernels sum them: each output two short
// sums of 2r + 1 terms, each term's rounding at most half an ulp of its partial sum (separable:
// the row factor, whose errors the column factor carries, then the column factor; 2D: each mask
// row from zero, then the rows); sqrt 2 of it for a gradient magnitude.
double fp32SumsBound(const FilterParams& p, PixelType type);
// Integer frames: within 1 LSB needs that error below half a level (0.45, with margin); past it,
// v refuses them and names cpu.
Problem fp32SumsWhyNot(const Variant& v, const FilterParams& p, PixelType type);

// The kernels' launch parameters for p on a width x height frame, without images (what the
// inspector's figures read).
kernels::Launch launchFor(const Variant& v, const FilterParams& p, int width, int height);
// What run() checks first: the images' shapes, then whyNot's answer for p, kept with the rest
// of p's preparation in ws (the first run with p, or Variant::prepare, made it). Throws
// std::invalid_argument (ProblemError for whyNot's reasons) when p cannot run.
Prepared& prepared(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws);
// The same for frames an ImageDesc describes (the variants that take any image).
Prepared& prepared(const Variant& v, const FilterParams& p, const ImageDesc& image, Workspace& ws);
// The launch description for the kernels (after prepared()).
kernels::Launch launchOf(const Variant& v, const FilterParams& p, ConstImageView in, ImageView out, cudaStream_t s);

// An RGBA8 batch for an RGBA8 kernel that takes one (a frame a grid z: Variant::runRgba8BatchImpl,
// stream's magnitudes): p prepared for its first frame, and the launch over all of its frames.
struct Rgba8Batch {
  Prepared& prepared;
  kernels::Launch launch;
};
Rgba8Batch rgba8BatchOf(const Variant& v, const FilterParams& p, const ImageDesc& image, const void* in, void* out,
                        Workspace& ws, cudaStream_t s);
// Its launch parameters without images (what the inspector's figures read).
kernels::Launch rgba8BatchLaunchFor(const Variant& v, const FilterParams& p, const ImageDesc& image);

inline int radiusOf(const FilterParams& p) { return p.filter.mask.radius(); }

// f32 output from u8 frames (writesOtherType) on a typed launch (stream's, sweep's): its floatOut
// and the output's strides (outputDesc); the launch's defaults otherwise.
template <class Launch>
void setFloatOutput(Launch& l, const FilterParams& p, const ImageDesc& image) {
  if (!writesOtherType(p, image)) return;
  const ImageDesc out = outputDesc(image, *p.outType);
  l.floatOut = true;
  l.outPitch = out.rowPitch();
  l.outFrameStride = out.frameStride();
}

}  // namespace detail

struct Workspace::Impl {
  std::vector<std::unique_ptr<detail::Prepared>> prepared;  // the most recently used last
  std::size_t preparations = 0;
  // The preparation for (v, p, width x height): a kept one, else made now (the oldest of
  // kPrepared goes).
  detail::Prepared& prepare(const Variant& v, const FilterParams& p, const ImageDesc& image) {
    auto it = std::find_if(prepared.begin(), prepared.end(), [&](const auto& e) { return e->matches(v, p, image); });
    if (it != prepared.end()) {
      std::rotate(it, it + 1, prepared.end());
      return *prepared.back();
    }
    auto made = std::make_unique<detail::Prepared>(v, p, image);
    if (prepared.size() >= std::size_t(kPrepared)) prepared.erase(prepared.begin());
    prepared.push_back(std::move(made));
    ++preparations;
    return *prepared.back();
  }

  DeviceBuffer tmp0, tmp1;                    // separable: intermediate planes
  detail::MirroredTable<float> mask;          // naive: the mask in global memory
  detail::MirroredTable<unsigned> fragments;  // tensorstream: its weight fragments, where read from memory
  struct CachedTexture {
    const void* data;
    int width, height;
    std::size_t pitch;
    int mode;
    TextureObject tex;
  };
  std::vector<CachedTexture> textures;  // the few most recent inputs (benchmarks rotate frames)
  std::unique_ptr<FftConvolver> fft;    // fft: its plans, planes and the mask's spectra
};

}  // namespace convlive
