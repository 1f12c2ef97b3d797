// The weights text parser (cuda/weights_file.cpp): any bytes give a grid whose values are finite
// and whose size is rows x cols, or a problem; and the one-vector form ("1,2,1") on the same bytes.
#include <cmath>

#include "convlive/weights_file.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = convlive::fuzz::bytesOf(data, size);
  convlive::WeightGrid g;
  if (!convlive::parseWeightsText(text, "fuzz.txt", g)) {
    if (g.rows < 1 || g.cols < 1 || g.values.size() != std::size_t(g.rows) * std::size_t(g.cols)) __builtin_trap();
    for (float v : g.values)
      if (!std::isfinite(v)) __builtin_trap();
    (void)convlive::gridShapeProblem(g.rows, g.cols, "the weights");
  }
  std::vector<float> v;
  if (!convlive::parseWeightVector(text, v) && (v.empty() || v.size() % 2 == 0)) __builtin_trap();
  return 0;
}
