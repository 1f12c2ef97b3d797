// The .npy weights reader (cuda/weights_file.cpp): any bytes give a grid of at most 129x129 finite
// values, or a problem.
#include <cmath>

#include "convlive/weights_file.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  convlive::WeightGrid g;
  if (!convlive::parseNpy(convlive::fuzz::bytesOf(data, size), "fuzz.npy", g)) {
    if (g.rows < 1 || g.cols < 1 || g.rows > convlive::kMaxMaskSide || g.cols > convlive::kMaxMaskSide ||
        g.values.size() != std::size_t(g.rows) * std::size_t(g.cols))
      __builtin_trap();
    for (float v : g.values)
      if (!std::isfinite(v)) __builtin_trap();
  }
  return 0;
}
