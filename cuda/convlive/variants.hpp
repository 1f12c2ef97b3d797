// The variant table: every convolution strategy behind one contract. The command line, the
// benchmark and the tests all read this table.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convlive/image.hpp"
#include "convlive/mask.hpp"
#include "convlive/problem.hpp"
#include "convlive/tile.hpp"
#include "convlive/work_model.hpp"

namespace convlive {

// What one launch computes.
struct FilterParams {
  Filter filter;
  Border border = Border::Clamp;
  bool filterAlpha = false;  // false (default): output alpha = input alpha
  Tile tile{};               // {0,0}: the variant's default (its first offered tile)
  // The output's element type where it is not the input's (PlanOptions::outType: f32 from u8 frames);
  // nullopt: the input's.
  std::optional<PixelType> outType{};
};
// The same computation: every field but the filter's name (the mask's weights bit for bit).
bool sameComputation(const FilterParams& a, const FilterParams& b);
// Whether p writes frames `image` describes as values of another type (f32 from u8).
inline bool writesOtherType(const FilterParams& p, const ImageDesc& image) {
  return p.outType && *p.outType != image.type;
}

// Scratch a variant keeps between launches: intermediate planes, the uploaded mask, texture
// objects, and what it prepared for the last few (parameters, frame size) it ran (Variant::prepare).
// One per stream: launches on different streams must not share one. Not thread-safe.
class Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  // How many preparations this workspace has made: a run with the parameters, frame size and
  // variant of one of its last kPrepared makes none.
  static constexpr int kPrepared = 4;
  std::size_t preparations() const;
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Which masks a variant takes. Its whyNot refuses the others first, naming a variant that takes
// them; `convlive list variants` prints it. A separable mask is an outer product of a column and a
// row (box, gaussian, sobel, scharr, pitch, a rank-one custom mask); a gradient magnitude (sobel,
// scharr) is two masks. A mask of low rank is a sum of a few separable terms (sharpen, emboss, the
// laplacian, custom masks of low rank: convlive/low_rank.hpp); LowRank takes separable masks, those
// of up to kernels::kTensorStreamMaxTerms (4) terms, and the gradient magnitude of a separable mask
// (its two terms).
enum class MaskTakes { Any, One, Separable, OneSeparable, LowRank };
bool needsSeparable(MaskTakes t);
bool needsOneMask(MaskTakes t);
const char* maskTakesName(MaskTakes t);  // "any", "one", "separable", "one separable", "low rank"

// One convolution strategy, whole: what it is (the table's columns), when it can run, how it
// runs, and what it launches. Each variant's entry is made in its own file beside its kernel
// (cuda/variants/<name>.cpp); the table (variants()) lists them. Read-only once made: the table's
// entries live for the whole program, and a Workspace tells the variants apart by their address.
struct Variant {
  std::string name;
  std::string description;
  bool onGpu = true;                 // images passed to run() are device memory (else host memory)
  int maxRadius = 0;                 // largest mask radius it takes
  std::vector<Tile> tiles;           // offered tile shapes, the default first; empty: no choice
  std::string tileMeaning;           // what the tile is for this variant ("block", "output tile", ...)
  MaskTakes takes = MaskTakes::Any;  // the masks it takes: whyNot refuses the others
  // Separable variants that also take masks of any rank up to this radius (stream: 3x3 and 5x5 ones
  // on single RGBA8 frames); 0: none.
  int anyRankRadius = 0;
  // One-mask variants that also run the gradient magnitude (sobel, scharr) of separable masks up to
  // this radius (stream: 3x3 and 5x5 ones on single RGBA8 frames); 0: none.
  int magnitudeRadius = 0;
  // The frames it takes where that is some of all (runFramesImpl set): "u8x1,3,4 u16x1,4 f16x1,4 f32x1"
  // (8-bit values in 1, 3 or 4 channels, 16-bit in 1 or 4), "u8,u16,f32"; empty: all of them (with
  // runFramesImpl), or u8x4 (without).
  std::string images;

  // The variant's own functions, each given the variant it serves (so none looks itself up).
  // Call them through the members below.
  Problem (*whyNotImpl)(const Variant&, const FilterParams&, int width, int height) = nullptr;
  void (*runImpl)(const Variant&, const FilterParams&, ConstImageView in, ImageView out, Workspace&,
                  cudaStream_t stream) = nullptr;
  LaunchDescription (*describeLaunchImpl)(const Variant&, const FilterParams&, int width, int height) = nullptr;
  WorkModel (*workModelImpl)(const Variant&, const FilterParams&, int width, int height) = nullptr;
  // Variants that take more than one 8-bit RGBA frame at a time (other pixel types, 1 or 3
  // channels, a whole batch in one run) set runFramesImpl, and whyNotImageImpl where their checks
  // depend on the frames' type or channels (it then checks everything, as whyNotImpl does for u8x4
  // frames; nullptr: whyNotImpl's answer for the size). nullptr: u8x4 only, one frame a run().
  Problem (*whyNotImageImpl)(const Variant&, const FilterParams&, const ImageDesc&) = nullptr;
  void (*runFramesImpl)(const Variant&, const FilterParams&, const ImageDesc&, const void* in, void* out, Workspace&,
                        cudaStream_t stream) = nullptr;
  // u8x4-only variants whose kernel takes a batch of u8x4 frames in one launch (tensor2d: a frame a
  // grid z). nullptr: a batch runs frame by frame, one run() each.
  void (*runRgba8BatchImpl)(const Variant&, const FilterParams&, const ImageDesc&, const void* in, void* out,
                            Workspace&, cudaStream_t stream) = nullptr;
  // What it launches for frames `image` describes where that is another kernel than the one for a
  // single u8x4 frame (nullptr: not described; describeLaunch(p, image) then says so).
  LaunchDescription (*describeImageImpl)(const Variant&, const FilterParams&, const ImageDesc&) = nullptr;
  WorkModel (*workModelImageImpl)(const Variant&, const FilterParams&, const ImageDesc&) = nullptr;
  // Takes u8 frames into f32 output (FilterParams::outType): the sums as they are, neither rounded
  // nor clamped.
  bool floatOutput = false;

  // Why these parameters cannot run on this machine for a width x height frame, as a value
  // (convlive/problem.hpp: the setting at fault and, when there is one, the variant to use
  // instead); empty: they can.
  Problem whyNot(const FilterParams& p, int width, int height) const { return whyNotImpl(*this, p, width, height); }
  // Filters in into out (same size, pitch a multiple of 4, not overlapping) on `stream` (GPU
  // variants: asynchronous; cpu: done on return). Throws ProblemError with whyNot's reason
  // when it cannot run, CudaError when CUDA fails.
  void run(const FilterParams& p, ConstImageView in, ImageView out, Workspace& ws, cudaStream_t stream) const {
    runImpl(*this, p, in, out, ws, stream);
  }
  // The inspector's figures for p on a width x height frame (convlive/inspect.hpp reads them),
  // each computed beside the variant's kernel from the shapes its launch uses: its launches (none
  // for the CPU variants; `none` says so) and its work per output pixel. Arithmetic, no device
  // needed (where there is one, the grids sized to it ask it how many blocks it holds: stream's
  // persistent grid, tensorstream's schedule, tensor2d's segments). For parameters
  // whyNot accepts, or refuses only for want of a device; otherwise they may throw
  // std::invalid_argument (a tile or radius with no compiled instance).
  LaunchDescription describeLaunch(const FilterParams& p, int width, int height) const {
    return describeLaunchImpl(*this, p, width, height);
  }
  WorkModel workModel(const FilterParams& p, int width, int height) const {
    return workModelImpl(*this, p, width, height);
  }
  // The same for frames `image` describes (its type, channels and batch): a single u8x4 frame, or a
  // variant with no description of its kernel for them, gives the u8x4 kernel's for the size, and
  // then each pass's note and the model's notes say that it is.
  LaunchDescription describeLaunch(const FilterParams& p, const ImageDesc& image) const;
  WorkModel workModel(const FilterParams& p, const ImageDesc& image) const;

  // Whether it takes frames other than u8x4 (types, channels, batches in one launch).
  bool takesAnyImage() const { return runFramesImpl != nullptr; }
  // The frames it takes, for `convlive list variants`: "u8x4", "all" (u8, u16, f16 and f32 values,
  // 1, 3 or 4 channels, a batch in one run), or the list `images` names.
  std::string imagesTaken() const;
  // whyNot for frames `image` describes: the image's own problems (imageProblem), then whyNot for
  // its size, then, for other frames than u8x4, whether the variant takes them (naming one that
  // does when it does not).
  Problem whyNot(const FilterParams& p, const ImageDesc& image) const;
  // Filters image.batch frames from `in` into `out` (rows and frames as image says, device memory
  // for a GPU variant, host memory for a CPU one): one launch for a variant that takes the batch,
  // frame by frame through run() for a u8x4 one. Throws as run() does.
  void runFrames(const FilterParams& p, const ImageDesc& image, const void* in, void* out, Workspace& ws,
                 cudaStream_t stream) const;

  // What run() derives from p for width x height frames, made now and kept in ws (the CUTLASS
  // initialize / run split): whyNot's answer, the mask in the kernels' form, the fp16 error plans.
  // A run with the same parameters (sameComputation) and size reuses it, so a filter change costs
  // this once, not every frame; run() prepares by itself when nothing matches. Returns whyNot's
  // answer (empty: it can run). No device work.
  Problem prepare(const FilterParams& p, int width, int height, Workspace& ws) const;  // u8x4 frames
  Problem prepare(const FilterParams& p, const ImageDesc& image, Workspace& ws) const;
  // The tiles to run it with: the offered ones, or its one way to run ({0,0}) when it offers none.
  std::vector<Tile> runnableTiles() const { return tiles.empty() ? std::vector<Tile>{Tile{}} : tiles; }
  Tile tileFor(const FilterParams& p) const { return p.tile == Tile{} && !tiles.empty() ? tiles.front() : p.tile; }
  // Empty when `t` is one of the offered tiles; else says which ones there are.
  Problem tileProblem(Tile t) const;
};

const std::vector<Variant>& variants();
const Variant* findVariant(std::string_view name);  // nullptr when unknown
// The variant `name` names; throws ProblemError (setting "variant") naming the others when unknown.
const Variant& variantNamed(std::string_view name);
std::string variantNames();  // "naive, constant, ..." for messages
// Without a GPU variant: cpu-simd, or the cpu reference where cpu-simd refuses p.
const Variant& cpuChoice(const FilterParams& p, int width, int height);
const Variant& cpuChoice(const FilterParams& p, const ImageDesc& image);

// Why `d` cannot be filtered at all (sizes, channels, pitch, batch); empty when it can be.
Problem imageProblem(const ImageDesc& d);

const char* borderName(Border b);
std::optional<Border> parseBorder(std::string_view name);

}  // namespace convlive
