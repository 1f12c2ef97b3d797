#include "pipeline_plans.hpp"

#include <algorithm>
#include <exception>
#include <utility>

namespace convlive {
namespace {

// The pipeline's plans: device frames for a GPU variant, host frames for a CPU one. A named GPU
// variant without a device is refused (as on the command line); auto runs on the CPU.
PlanOptions pipelinePlanOptions() { return {.memory = Memory::Native, .cpuFallback = false}; }

Plan makePlan(const std::string& variant, const FilterParams& params, int w, int h) {
  return Plan::make(params, variant, ImageDesc::rgba8(w, h), pipelinePlanOptions());
}

}  // namespace

PipelinePlans::PipelinePlans(const std::string& variant, const FilterParams& params, int width, int height)
    : variant_(variant),
      params_(params),
      plan_(std::make_shared<const Plan>(makePlan(variant, params, std::max(width, 1), std::max(height, 1)))),
      width_(width),
      height_(height) {}

std::string PipelinePlans::request(const std::string& variant, const FilterParams& params) {
  std::lock_guard lock(mutex_);
  try {
    requested_ =
        Change{variant, params,
               std::make_shared<const Plan>(makePlan(variant, params, std::max(width_, 1), std::max(height_, 1)))};
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::shared_ptr<const Plan> PipelinePlans::current() const {
  std::lock_guard lock(mutex_);
  return plan_;
}

void PipelinePlans::applyRequest() {
  std::lock_guard lock(mutex_);
  if (!requested_) return;
  variant_ = std::move(requested_->variant);
  params_ = std::move(requested_->params);
  plan_ = std::move(requested_->plan);
  ++generation_;
  requested_.reset();
}

bool PipelinePlans::resize(int width, int height) {
  std::lock_guard lock(mutex_);
  const bool resized = width != width_ || height != height_;
  width_ = width;
  height_ = height;
  return resized;
}

PipelinePlans::ForFrame PipelinePlans::forFrame() {
  std::lock_guard lock(mutex_);
  std::string note;
  const int w = width_, h = height_;
  if (plan_->image().width != w || plan_->image().height != h) {
    Problem why;
    Plan next = Plan::make(params_, variant_, ImageDesc::rgba8(w, h), pipelinePlanOptions(), why);
    if (!next && variant_ != "auto") {
      next = makePlan("auto", params_, w, h);
      note = "variant " + variant_ + " cannot run at " + std::to_string(w) + "x" + std::to_string(h) + " (" +
             why.text() + "); switched to " + next.variant().name;
    }
    if (!next) throw ProblemError(why);
    plan_ = std::make_shared<const Plan>(std::move(next));
    ++generation_;
  }
  return {plan_, generation_, std::move(note)};
}

}  // namespace convlive
