// The benchmark programs' --tiles: which of a variant's tiles to time, and why a tile named cannot be.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "convlive/tile.hpp"
#include "convlive/variants.hpp"

namespace convlive::bench {

// Whether tile t is timed: every tile where `only` is empty, else those it names.
inline bool timesTile(const std::vector<Tile>& only, const Tile& t) {
  return only.empty() || std::find(only.begin(), only.end(), t) != only.end();
}

// Why `tiles` cannot be timed: the first that no variant of `timed` offers, with their tiles; ""
// where each is a tile of one of them.
inline std::string tilesWhyNot(const std::vector<Tile>& tiles, const std::vector<const Variant*>& timed) {
  for (const Tile& t : tiles) {
    if (std::any_of(timed.begin(), timed.end(),
                    [&](const Variant* v) { return std::find(v->tiles.begin(), v->tiles.end(), t) != v->tiles.end(); }))
      continue;
    std::string offers;
    for (const Variant* v : timed) {  // appended piece by piece (GCC 12's -Wrestrict misreads a + chain here)
      if (!offers.empty()) offers.append("; ");
      offers.append(v->name).append(":");
      for (const Tile& vt : v->tiles) offers.append(" ").append(vt.str());
    }
    std::string why = "tile '";
    why.append(t.str()).append("' is not a tile of the variants timed (").append(offers).append(")");
    return why;
  }
  return {};
}

}  // namespace convlive::bench
