#include "pipeline_plans.hpp"

#include <algorithm>
#include <exception>
#include <utility>

namespace convlive {
namespace {

// The pipeline's plans: device frames for a GPU variant, host frames for a CPU one. A named GPU
// variant without a device is refused (as on the command line); auto runs on the CPU.
PlanOptions pipelinePlanOptions() { return {.memory = Memory::Native, .cpuFallback = false}; }

ImageDesc atLeastOnePixel(ImageDesc d) {
  d.width = std::max(d.width, 1);
  d.height = std::max(d.height, 1);
  if (d.pitch < d.rowBytes()) d.pitch = 0;
  return d;
}

// The plan for `frame`: grey frames as they are where the variant takes them, else (and for every
// other frame) RGBA8 of the same size; `expanded` then says why grey frames were not taken.
Plan makePlan(const std::string& variant, const FilterParams& params, const ImageDesc& frame, Problem& why,
              std::string& expanded) {
  const ImageDesc d = atLeastOnePixel(frame);
  expanded.clear();
  if (!d.isRgba8()) {
    if (Plan grey = Plan::make(params, variant, d, pipelinePlanOptions(), why)) return grey;
    expanded = why.text();
  }
  return Plan::make(params, variant, ImageDesc::rgba8(d.width, d.height), pipelinePlanOptions(), why);
}

Plan makePlan(const std::string& variant, const FilterParams& params, const ImageDesc& frame, std::string& expanded) {
  Problem why;
  Plan plan = makePlan(variant, params, frame, why, expanded);
  if (!plan) throw ProblemError(why);
  return plan;
}

}  // namespace

ImageDesc filterDescOf(const SourceFrame& frame) {
  if (frame.isGrey()) return frame.greyDesc;
  return ImageDesc::rgba8(frame.pixels.width, frame.pixels.height);
}

PipelinePlans::PipelinePlans(const std::string& variant, const FilterParams& params, const ImageDesc& frame)
    : variant_(variant), params_(params), planFrame_(frame), frame_(frame) {
  plan_ = std::make_shared<const Plan>(makePlan(variant, params, frame, expanded_));
}

std::string PipelinePlans::request(const std::string& variant, const FilterParams& params) {
  std::lock_guard lock(mutex_);
  try {
    std::string expanded;
    auto plan = std::make_shared<const Plan>(makePlan(variant, params, frame_, expanded));
    requested_ = Change{variant, params, std::move(plan), frame_, std::move(expanded)};
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::shared_ptr<const Plan> PipelinePlans::current() const {
  std::lock_guard lock(mutex_);
  return plan_;
}

std::string PipelinePlans::expandedWhy() const {
  std::lock_guard lock(mutex_);
  return expanded_;
}

void PipelinePlans::applyRequest() {
  std::lock_guard lock(mutex_);
  if (!requested_) return;
  variant_ = std::move(requested_->variant);
  params_ = std::move(requested_->params);
  plan_ = std::move(requested_->plan);
  planFrame_ = requested_->frame;
  expanded_ = std::move(requested_->expanded);
  ++generation_;
  requested_.reset();
}

bool PipelinePlans::resize(const ImageDesc& frame) {
  std::lock_guard lock(mutex_);
  const bool resized = frame != frame_;
  frame_ = frame;
  return resized;
}

PipelinePlans::ForFrame PipelinePlans::forFrame() {
  std::lock_guard lock(mutex_);
  std::string note;
  if (planFrame_ != frame_) {
    Problem why;
    std::string expanded;
    Plan next = makePlan(variant_, params_, frame_, why, expanded);
    if (!next && variant_ != "auto") {
      next = makePlan("auto", params_, frame_, expanded);
      note = "variant " + variant_ + " cannot run at " + std::to_string(frame_.width) + "x" +
             std::to_string(frame_.height) + " (" + why.text() + "); switched to " + next.variant().name;
    }
    if (!next) throw ProblemError(why);
    plan_ = std::make_shared<const Plan>(std::move(next));
    planFrame_ = frame_;
    expanded_ = std::move(expanded);
    ++generation_;
  }
  return {plan_, generation_, std::move(note)};
}

}  // namespace convlive
