#include "controller.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "convlive/pipeline.hpp"
#include "words.hpp"

namespace convlive {

FilterController::FilterController(Pipeline& pipeline, const FilterSpec& initial) : pipeline_(pipeline) {
  const std::string why = apply(initial);
  if (!why.empty()) throw std::invalid_argument(why);
}

void FilterController::frameSize(int& w, int& h) const {
  const Timings t = pipeline_.timings();
  w = t.width;
  h = t.height;
  if (w <= 0 || h <= 0) {
    const SourceInfo si = pipeline_.sourceInfo();
    w = si.nativeWidth > 0 ? si.nativeWidth : 1280;
    h = si.nativeHeight > 0 ? si.nativeHeight : 720;
  }
}

std::string FilterController::apply(const FilterSpec& next) {
  try {
    FilterParams p;
    if (const Problem why = next.compile(p)) return message_ = forPanel(why);
    if (const Variant* v = findVariant(next.variant)) {
      int w, h;
      frameSize(w, h);
      if (const Problem why = v->whyNot(p, w, h)) return message_ = forPanel(why);
    }
    message_ = pipeline_.setFilter(next.variant, p);
    if (message_.empty()) {
      applied_ = next;
      appliedParams_ = std::move(p);
    }
  } catch (const std::exception& e) {
    message_ = forPanel(e);
  }
  return message_;
}

std::string FilterController::set(const std::string& setting, const std::string& value) {
  FilterSpec next = applied_;
  if (const Problem why = next.set(setting, value)) return message_ = forPanel(why);
  return apply(next);
}

Problem FilterController::whyNot(const Variant& v) const {
  int w, h;
  frameSize(w, h);
  return whyNot(v, w, h);
}

Problem FilterController::whyNot(const Variant& v, int w, int h) const {
  const Tile& t = appliedParams_.tile;
  if (t == Tile{} || std::find(v.tiles.begin(), v.tiles.end(), t) != v.tiles.end())
    return v.whyNot(appliedParams_, w, h);
  FilterParams p = appliedParams_;  // another variant's tile: ask about this one's default
  p.tile = {};
  return v.whyNot(p, w, h);
}

std::string FilterController::autoChoice() const { return applied_.variant == "auto" ? pipeline_.autoChoice() : ""; }
std::string FilterController::greyExpandedWhy() const { return pipeline_.greyExpandedWhy(); }
const Variant* FilterController::running() const { return findVariant(pipeline_.variantName()); }

Tile FilterController::runningTile() const {
  const Variant* v = running();
  if (!v) return {};
  // A tile the pipeline has taken for this variant: it applies from the next frame (the pipeline
  // runs on its own thread, so its params may still be the last frame's).
  if (!(applied_.tile == Tile{}) && applied_.variant == v->name) return applied_.tile;
  return v->tileFor(pipeline_.filterParams());  // auto may have picked a measured tile
}

std::string FilterController::cycleVariant(int dir) {
  int w, h;
  frameSize(w, h);
  std::vector<std::string> names{"auto"};
  for (const Variant& v : variants())
    if (!whyNot(v, w, h)) names.push_back(v.name);
  auto it = std::find(names.begin(), names.end(), applied_.variant);
  const int n = int(names.size());
  int i = it == names.end() ? 0 : int(it - names.begin());
  FilterSpec next = applied_;
  next.tile = {};  // tiles differ between variants: take the new one's default
  for (int tries = 0; tries < n; ++tries) {
    i = ((i + dir) % n + n) % n;
    next.variant = names[std::size_t(i)];
    if (apply(next).empty()) return "";
  }
  return message_;
}

std::string FilterController::cycleMask(int dir) {
  const auto& kinds = filterKinds();
  const int n = int(kinds.size());
  auto it = std::find(kinds.begin(), kinds.end(), applied_.mask);
  int i = it == kinds.end() ? 0 : int(it - kinds.begin());
  FilterSpec next = applied_;
  for (int tries = 0; tries < n; ++tries) {
    i = ((i + dir) % n + n) % n;
    next.mask = kinds[std::size_t(i)];
    if (next.mask == "custom") continue;  // needs weights: chosen in the panel
    if (next.mask == "scharr") next.radius = 1;
    if (apply(next).empty()) return "";
  }
  return message_;
}

std::string FilterController::cycleTile(int dir) {
  const Variant* v = running();
  if (!v || v->tiles.size() < 2) {
    message_ = "variant " + (v ? v->name : std::string("?")) + " offers no tile choice";
    return message_;
  }
  const Tile current = runningTile();
  auto it = std::find(v->tiles.begin(), v->tiles.end(), current);
  const int n = int(v->tiles.size());
  int i = it == v->tiles.end() ? 0 : int(it - v->tiles.begin());
  FilterSpec next = applied_;
  next.variant = v->name;  // a tile belongs to a variant: pin it (auto might pick another)
  for (int tries = 0; tries < n; ++tries) {
    i = ((i + dir) % n + n) % n;
    next.tile = v->tiles[std::size_t(i)];
    if (apply(next).empty()) return "";
  }
  return message_;
}

std::string FilterController::changeRadius(int delta) {
  FilterSpec next = applied_;
  next.radius = std::clamp(applied_.radius + delta, 1, Mask::kMaxRadius);
  if (next.radius == applied_.radius) {
    message_ =
        "radius " + std::to_string(applied_.radius) + " is the " + (delta > 0 ? "largest" : "smallest") + " there is";
    return message_;
  }
  if (next.mask == "pitch") {  // the pitch sets that mask's radius
    next.pitch = std::clamp(applied_.pitch + float(delta), 1.f, 64.f);
  }
  return apply(next);
}

}  // namespace convlive
