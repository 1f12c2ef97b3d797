#include "filter_plan.hpp"

#include <exception>

#include "convlive/resources.hpp"
#include "convlive/tuner.hpp"

namespace convlive::gstelement {

bool isIdentity(const Filter& filter) {
  if (filter.combine == Combine::Magnitude) return false;
  const Mask& m = filter.mask;
  const int r = m.radius();
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx)
      if (m.at(dy, dx) != (dy == 0 && dx == 0 ? 1.f : 0.f)) return false;
  return true;
}

std::string propertyWords(const Problem& p) {
  const Wording element{
      [](const std::string& name) { return "property '" + name + "'"; },
      [](const std::string& setting, const std::string& value) { return "set " + setting + "=" + value; }};
  return words(p, element);
}

FilterPlan planFilter(const FilterSpec& spec, int width, int height, bool hasAlpha) {
  FilterPlan plan;
  FilterParams params;
  if (Problem why = spec.compile(params)) {
    plan.problem = propertyWords(why);
    return plan;
  }
  if (!hasAlpha) params.filterAlpha = false;
  const Variant* v = nullptr;
  try {
    v = &resolveVariant(spec.variant, params, width, height, plan.autoWhy);
  } catch (const ProblemError& e) {
    plan.problem = propertyWords(e.problem());
    return plan;
  } catch (const std::exception& e) {
    plan.problem = std::string("choosing variant ") + spec.variant + " failed: " + e.what();
    return plan;
  }
  // A variant that cannot take the filter anywhere (a 2D mask for a separable variant, a radius past
  // its limit) is the user's to change; only the missing device is worked around.
  Problem why = v->whyNot(params, width, height);
  if (!deviceInfo().available && (!why || why.code == Problem::Code::NoDevice)) {
    const Variant& cpu = v->onGpu ? cpuChoice(params, width, height) : *v;
    plan.note = "no CUDA device (" + deviceInfo().reason + "): " + cpu.name + " runs on the CPU" +
                (v->onGpu ? " instead of " + v->name : std::string());
    if (v->onGpu) params.tile = Tile{};  // the GPU variant's tile means nothing to a CPU variant
    v = &cpu;
    why = v->whyNot(params, width, height);
  }
  if (why) {
    plan.problem = propertyWords(why);
    return plan;
  }
  plan.variant = v;
  plan.params = std::move(params);
  plan.identity = isIdentity(plan.params.filter);
  return plan;
}

}  // namespace convlive::gstelement
