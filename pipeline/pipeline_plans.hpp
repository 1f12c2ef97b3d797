// The filter the pipeline runs (internal to pipeline/): what was asked (a variant name or auto,
// and the compiled filter) and the Plan made for it for the current frames, shared by the
// slots, each of which runs its own copy on its own stream (convlive/plan.hpp: one plan per
// stream).
//
// request() may be called from any thread: it makes the plan at once (so a bad change is refused
// with its reason and nothing changes) and keeps it until the pipeline thread applies it at a
// frame boundary. A plan is read-only once shared, so readers on any thread may hold one.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "convlive/plan.hpp"
#include "convlive/source.hpp"

namespace convlive {

// What the pipeline's frames are, for the plan: RGBA8 (RGBA and YUV sources: YUV frames are
// converted to RGBA before the filter), or a grey frame as it came (u8x1, u16x1, its row pitch).
ImageDesc filterDescOf(const SourceFrame& frame);

class PipelinePlans {
 public:
  // The plan for frames of `frame` (sizes below 1 count as 1). Throws as Plan::make does.
  PipelinePlans(const std::string& variant, const FilterParams& params, const ImageDesc& frame);

  // Any thread: "" when the change was taken (it applies from the next frame boundary), else the
  // reason, and nothing changes. Makes the plan while holding the lock: the pipeline thread's
  // next frame waits for it (auto may take a moment to measure).
  std::string request(const std::string& variant, const FilterParams& params);
  // Any thread: the plan in use (never null).
  std::shared_ptr<const Plan> current() const;
  // Any thread: "" when the plan in use filters the frames as they come (its image() is theirs);
  // for grey frames whose variant takes none, why not: they are expanded to RGBA8 before the filter.
  std::string expandedWhy() const;

  // Pipeline thread, at a frame boundary: the change request() took last, if any, becomes the
  // filter in use.
  void applyRequest();
  // Pipeline thread: frames are now as `frame` says; true when that differs from the last ones.
  bool resize(const ImageDesc& frame);
  // Pipeline thread: the plan for frames as resize() was given, made now if the one in use is for
  // other frames. A variant that cannot run on them gives way to auto, and `note` says so. Throws
  // ProblemError when no variant can.
  struct ForFrame {
    std::shared_ptr<const Plan> plan;
    std::uint64_t generation = 0;  // changes with every new plan: a slot's copy is stale when it differs
    std::string note;              // "" unless the variant asked for gave way to auto just now
  };
  ForFrame forFrame();

 private:
  struct Change {
    std::string variant;
    FilterParams params;
    std::shared_ptr<const Plan> plan;
    ImageDesc frame;  // what it was made for
    std::string expanded;
  };

  mutable std::mutex mutex_;  // guards everything below
  std::string variant_;       // as asked: "auto" or a name from the variant table
  FilterParams params_;
  std::shared_ptr<const Plan> plan_;  // for params_ on frames as planFrame_ says
  ImageDesc planFrame_;               // the frames plan_ was made for (not its image() when grey frames are expanded)
  std::string expanded_;              // why grey frames are expanded to RGBA8 for plan_ ("" when they are not)
  std::uint64_t generation_ = 1;
  ImageDesc frame_;  // of the last frame taken (or the first expected)
  std::optional<Change> requested_;
};

}  // namespace convlive
