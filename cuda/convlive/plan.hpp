// The library's front door: a Plan is made once from what the user asked for (a FilterSpec, or a
// compiled filter and a variant name), the frames it will filter (an ImageDesc) and a few options,
// and then run on frame after frame. Making it does everything that can fail or take time: the
// spec is validated and compiled, the variant resolved (auto: measured on this GPU once and cached,
// convlive/tuner.hpp), asked whether it can run the filter on such frames, and prepared (masks
// converted, error plans made, scratch planes allocated). When it cannot, making it says why, as a
// Problem. run() only launches.
//
//   convlive::FilterSpec spec;                 // gaussian r=1, auto
//   spec.set("radius", "4");
//   convlive::Plan plan = convlive::Plan::make(spec, convlive::ImageDesc::rgba8(1920, 1080));
//   plan.run(deviceIn, deviceOut, stream);     // asynchronous on `stream`
//
// Every front end (the command line, the pipeline, the viewer, the GStreamer element, the Python
// module, the benchmark) goes through a Plan, so all of them resolve, fall back and refuse alike.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "convlive/image.hpp"
#include "convlive/problem.hpp"
#include "convlive/spec.hpp"
#include "convlive/tuner.hpp"
#include "convlive/variants.hpp"
#include "convlive/work_model.hpp"

namespace convlive {

// Where the buffers given to Plan::run live.
enum class Memory {
  Device,  // device memory: GPU variants only, filtered where it is on the caller's stream
  Host,    // host memory: a CPU variant filters it directly; a GPU variant through the plan's own
           // device frames (upload, filter, download), and run() returns with the result in `out`
  Native,  // the variant's own: device memory for a GPU variant, host memory for a CPU one (ask
           // onGpu()); for callers that keep frames on both sides (the pipeline, the element)
};

struct PlanOptions {
  Memory memory = Memory::Device;
  // The CUDA device to run on; -1: the calling thread's current device. run() makes it current for
  // its launches (and restores the caller's) when it is not.
  int device = -1;
  // Host or native memory and no usable CUDA device: run a CPU variant (cpu-simd, else cpu) in place
  // of a GPU one, with note() saying so. False: such a plan is refused with the reason.
  bool cpuFallback = true;
  // The output's element type where it is not the input's: PixelType::F32 from u8 frames, the
  // filtered values as floats on the input's scale (0..255), neither rounded nor clamped, for
  // callers who go on in float (an ML model's input). Written by sweep, stream, cpu-simd and cpu; auto picks
  // among them. The output frames are laid out as output() says. nullopt: the input's type.
  std::optional<PixelType> outType{};
};

class Plan {
 public:
  // An empty plan: runs nothing, `bool(plan)` is false.
  Plan();
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  // A copy makes the same choice with a workspace of its own: one plan per stream that runs at once.
  Plan(const Plan&);
  Plan& operator=(const Plan&);

  // The plan for `spec` (its variant and tile included) on frames described by `image`. Throws
  // ProblemError saying why it cannot be made (a bad setting, a variant that cannot run this filter
  // on such frames or on this machine, an unknown device), CudaError when CUDA fails while
  // measuring auto's choice or allocating.
  static Plan make(const FilterSpec& spec, const ImageDesc& image, const PlanOptions& options = {});
  // The same from a compiled filter (a mask built in code): `variant` is a name from the variant
  // table or "auto"; params.tile {0,0} is the variant's default (auto: the measured one).
  static Plan make(const FilterParams& params, std::string_view variant, const ImageDesc& image,
                   const PlanOptions& options = {});
  // The same, answering with an empty plan and `why` instead of throwing a ProblemError.
  static Plan make(const FilterSpec& spec, const ImageDesc& image, const PlanOptions& options, Problem& why);
  static Plan make(const FilterParams& params, std::string_view variant, const ImageDesc& image,
                   const PlanOptions& options, Problem& why);

  explicit operator bool() const { return state_ != nullptr; }

  // What was chosen (valid while the plan is not empty).
  const Variant& variant() const;
  Tile tile() const;                   // the tile it runs with ({0,0} when the variant offers none)
  const FilterParams& params() const;  // the compiled filter as it runs (auto's tile filled in)
  const ImageDesc& image() const;
  // The output frames: image() itself, or with options().outType's values laid out as the input in
  // values (outputDesc: a u8 row pitch P becomes 4 P for f32).
  const ImageDesc& output() const;
  const PlanOptions& options() const;
  bool onGpu() const;  // the variant runs on the GPU (false: on the CPU, whatever options().memory)
  // auto's reason ("stream 32x16: 0.028 ms, ahead of tensorstream 64x64 at 0.031 ms"); empty for a
  // named variant.
  const std::string& autoWhy() const;
  // auto's choice as data (the measured time, the runner-up and its time, whether from the cache);
  // nullptr for a named variant.
  const AutoChoice* autoChoice() const;
  // What was put in place of what was asked, when something was ("no CUDA device (...): cpu-simd
  // runs on the CPU instead of stream"); empty otherwise.
  const std::string& note() const;
  // The filter leaves every pixel as it was (one weight of 1 at the centre): callers may pass
  // frames through.
  bool identity() const;
  // One line: "gaussian r=4 border=clamp variant=stream tile=32x16 on 1920x1080 u8x4".
  std::string describe() const;
  // The kernels' launches and work per pixel on these frames (the inspector's figures; where the
  // variant does not describe its kernel for them, its u8x4 kernel's, and the notes say so).
  LaunchDescription launches() const;
  WorkModel workModel() const;

  // Filters `in` into `out` (each image().batch frames, shaped as image() and output() say; they
  // must not overlap). Memory::Device: asynchronous on `stream`. Memory::Host: done on return. Throws
  // std::invalid_argument when a view does not match image(), CudaError when CUDA fails. Not
  // thread-safe: one plan per stream (copy it for another).
  void run(ConstImageView in, ImageView out, cudaStream_t stream = nullptr);
  // The same on pointers to the first frame's first pixel, rows and frames as image() and output()
  // say. The only run for a plan whose output is of another type.
  void run(const void* in, void* out, cudaStream_t stream = nullptr);

 private:
  struct State;
  const State& state() const;  // throws std::logic_error on an empty plan
  std::unique_ptr<State> state_;
};

}  // namespace convlive
