// What the variant tests share: the border modes and filter kinds they sweep, the run's random
// seed (CONVLIVE_TEST_SEED replays one), and the filter of a kind at a radius.
#pragma once

#include <cstdlib>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../app/bench/random_masks.hpp"
#include "convlive/mask.hpp"
#include "convlive/variants.hpp"

namespace convlive::testcases {

inline const Border kBorders[] = {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap};
inline const std::vector<std::string> kKinds{"box",   "gaussian", "sharpen", "emboss",  "laplacian",
                                             "sobel", "scharr",   "pitch-h", "pitch-v", "custom"};

// The params of a named filter kind (makeFilter's) at a radius, with a tile and the alpha mode.
inline FilterParams paramsFor(const std::string& kind, int radius, Tile tile = {}, bool filterAlpha = false) {
  FilterOptions o;
  o.radius = radius;
  FilterParams p;
  p.filter = makeFilter(kind, o);
  p.tile = tile;
  p.filterAlpha = filterAlpha;
  return p;
}

inline unsigned seedForRun() {
  static const unsigned seed = [] {
    if (const char* s = std::getenv("CONVLIVE_TEST_SEED")) return static_cast<unsigned>(std::strtoul(s, nullptr, 10));
    return std::random_device{}();
  }();
  return seed;
}

// The filter of `kind` at `radius` (pitch-h/-v: a horizontal/vertical pitch mask of that radius;
// custom: random, not separable, normalised), or nullopt when the kind has no such radius.
inline std::optional<Filter> filterFor(const std::string& kind, int radius, std::mt19937& rng) {
  FilterOptions o;
  o.radius = radius;
  if (kind == "pitch-h" || kind == "pitch-v") {
    if (radius < 1) return std::nullopt;
    o.pitch = radius == 1 ? 1.f : static_cast<float>(radius) - 0.4f;  // radius ceil(pitch)
    o.vertical = kind == "pitch-v";
    return makeFilter("pitch", o);
  }
  if (kind == "custom") {
    const int n = 2 * radius + 1;
    std::uniform_real_distribution<float> d(-0.3f, 1.f);
    std::ostringstream w;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) w << d(rng) << (j + 1 < n ? "," : (i + 1 < n ? ";" : ""));
    o.weights = w.str();
    o.normalize = true;
  }
  try {
    return makeFilter(kind, o);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // scharr past r=1, r=0 for derivative masks
  }
}

// A random custom mask of the given rank (bench::randomRankMask: `rank` outer products of random
// factors of both signs, the weights' absolute sum 2, so outputs below 0 and past 255 reach the clamp).
inline Filter rankFilter(int radius, int rank, std::mt19937& rng, Combine combine = Combine::Identity) {
  Filter filter;
  filter.name = "rank" + std::to_string(rank);
  filter.mask = bench::randomRankMask(radius, rank, rng);
  filter.combine = combine;
  return filter;
}

}  // namespace convlive::testcases
