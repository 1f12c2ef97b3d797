// The filter the pipeline runs (internal to pipeline/): what was asked (a variant name or auto,
// and the compiled filter) and the Plan made for it at the current frame size, shared by the
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

namespace convlive {

class PipelinePlans {
 public:
  // The plan for width x height frames (sizes below 1 count as 1). Throws as Plan::make does.
  PipelinePlans(const std::string& variant, const FilterParams& params, int width, int height);

  // Any thread: "" when the change was taken (it applies from the next frame boundary), else the
  // reason, and nothing changes. Makes the plan while holding the lock: the pipeline thread's
  // next frame waits for it (auto may take a moment to measure).
  std::string request(const std::string& variant, const FilterParams& params);
  // Any thread: the plan in use (never null).
  std::shared_ptr<const Plan> current() const;

  // Pipeline thread, at a frame boundary: the change request() took last, if any, becomes the
  // filter in use.
  void applyRequest();
  // Pipeline thread: frames are now width x height; true when that differs from the last size.
  bool resize(int width, int height);
  // Pipeline thread: the plan for frames of the size resize() was given, made now if the one in
  // use is for another size. A variant that cannot run at the new size gives way to auto, and
  // `note` says so. Throws ProblemError when no variant can.
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
  };

  mutable std::mutex mutex_;  // guards everything below
  std::string variant_;       // as asked: "auto" or a name from the variant table
  FilterParams params_;
  std::shared_ptr<const Plan> plan_;  // for params_ on frames of width_ x height_ (or the size before the first)
  std::uint64_t generation_ = 1;
  int width_ = 0, height_ = 0;  // of the last frame taken
  std::optional<Change> requested_;
};

}  // namespace convlive
