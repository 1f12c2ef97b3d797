// What the element runs for one (filter spec, frame size, format): made once per property change
// or caps change on the streaming thread, never per frame. Compiles the spec (the library's
// validation), resolves the variant (auto: measured once and cached; without a CUDA device: the
// CPU variant, with a note saying so) and asks the variant whether it can run the filter on the
// frame. A plan either runs (`variant` set) or carries the reason it cannot, in words that name
// the element's properties.
#pragma once

#include <string>

#include "convlive/spec.hpp"
#include "convlive/variants.hpp"

namespace convlive::gstelement {

struct FilterPlan {
  const Variant* variant = nullptr;  // null: cannot run, `problem` says why
  FilterParams params;
  bool identity = false;  // the filter leaves every pixel as it was: the element passes frames through
  std::string problem;    // "property 'variant': the mask is not separable ...: set variant=tiled-coop"
  std::string note;       // once per element, as a warning: no CUDA device, the CPU variant runs instead
  std::string autoWhy;    // what auto chose and why (empty for a named variant)
  bool runs() const { return variant != nullptr; }
};

// hasAlpha: the 4th byte is alpha (RGBA, BGRA); false for padding (RGBx, BGRx), which is then
// copied through and never filtered, whatever filter-alpha says.
FilterPlan planFilter(const FilterSpec& spec, int width, int height, bool hasAlpha);

// True when the filter's output equals its input for every frame and border mode: a single weight
// of exactly 1 at the mask's centre, summed as is or as its absolute value.
bool isIdentity(const Filter& filter);

// A library Problem worded for the element: settings named as properties, the fix as "set p=v".
std::string propertyWords(const Problem& p);

}  // namespace convlive::gstelement
