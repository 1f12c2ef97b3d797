// A tile shape: the block or output tile a GPU variant works in, chosen at run time among the
// compiled instances the variant offers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace convlive {

struct Tile {
  int w = 0, h = 0;
  bool operator==(const Tile&) const = default;
  std::string str() const { return std::to_string(w) + "x" + std::to_string(h); }
  static std::optional<Tile> parse(std::string_view text);  // "32x8"
};

}  // namespace convlive
