// The benchmark programs' argument helpers: comma-separated lists, whole numbers, output folders.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <exception>
#include <filesystem>
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

// Takes "--device N" (or "--device=N") out of args: N, -1 where absent; "" or why the value is
// not a device index in `error`.
inline int takeDeviceOption(std::vector<std::string>& args, std::string& error) {
  int device = -1;
  for (std::size_t i = 0; i < args.size();) {
    std::string value;
    std::size_t take = 0;
    if (args[i] == "--device") {
      if (i + 1 >= args.size()) {
        error = "--device needs a device index (convlive list devices lists them)";
        return -1;
      }
      value = args[i + 1], take = 2;
    } else if (args[i].rfind("--device=", 0) == 0) {
      value = args[i].substr(9), take = 1;
    } else {
      ++i;
      continue;
    }
    const auto v = parseInt(value, 0);
    if (!v) {
      error = "--device '" + value + "' is not a device index (0, 1, ...: convlive list devices lists them)";
      return -1;
    }
    device = *v;
    args.erase(args.begin() + std::ptrdiff_t(i), args.begin() + std::ptrdiff_t(i + take));
  }
  return device;
}

// Makes the folder `dir` (and its parents) where missing. Empty when it is a folder this program can
// write in; otherwise why not, in words. The benchmarks check their output folders before timing
// anything, so a mistyped or read-only path costs a second, not the run and its results.
inline std::string prepareFolder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec, statEc;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, statEc))
    return "'" + dir + "' is not a folder and cannot be made one" + (ec ? " (" + ec.message() + ")" : std::string());
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return "the folder '" + dir + "' is not writable";
  return {};
}

}  // namespace convlive::bench
