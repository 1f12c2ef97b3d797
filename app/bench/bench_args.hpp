// The benchmark programs' argument helpers: comma-separated lists and whole numbers.
#pragma once

#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace convlive::bench {

// "a,b,,c" -> {a, b, c}
inline std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// The whole of s as an int of at least `minimum`; nullopt otherwise.
inline std::optional<int> parseInt(const std::string& s, int minimum) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(s, &used);
    if (used == s.size() && v >= minimum) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace convlive::bench
