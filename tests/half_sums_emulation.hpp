// stream's fp16 sums emulated on the host, step for step as the kernel takes them and as
// convlive/precision.hpp's planHalfSums bounds them: each fp16 operation rounded to nearest once
// (HMUL2, HFMA2, HADD2), bytes centred on 128, the offset added back, saturated to [0, 1].
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "convlive/mask.hpp"
#include "convlive/precision.hpp"

namespace convlive::testcases {

// x rounded to the nearest fp16 value, ties to even, subnormals kept (no overflow: the callers'
// values are bounded far below 65504).
inline double roundToHalf(double x) {
  if (x == 0) return 0;
  int e = 0;
  std::frexp(x, &e);                                          // |x| = f 2^e, f in [0.5, 1)
  const double ulp = std::ldexp(1.0, std::max(e - 11, -24));  // subnormals: 2^-24
  return std::nearbyint(x / ulp) * ulp;                       // ties to even
}

// The weights as the kernel holds them: fp16(row[t]), fp16(col[t] / 255 in float), and the offset.
struct HalfSumsWeights {
  std::vector<double> row, col;
  double offset = 0;
  HalfSumsWeights(const Mask& mask, const HalfSumsPlan& plan) {
    for (float w : mask.row()) row.push_back(roundToHalf(w));
    for (float w : mask.col()) col.push_back(roundToHalf(w / 255.f));
    offset = roundToHalf(plan.offset);
  }
};

// One channel of one output from its (2r+1)^2 window of bytes, window[s][t] = the byte at column
// tap t of row tap s: the saturated sum in [0, 1] (255 times it, rounded to even, is the byte).
template <class Window>
double halfSumsOutput(const HalfSumsWeights& k, bool absolute, Window window) {
  const int taps = static_cast<int>(k.row.size());
  double acc = 0;
  for (int s = 0; s < taps; ++s) {
    double h = roundToHalf(k.row[0] * (window(s, 0) - 128));
    for (int t = 1; t < taps; ++t) h = roundToHalf(k.row[t] * (window(s, t) - 128) + h);
    acc = s == 0 ? roundToHalf(k.col[0] * h) : roundToHalf(k.col[s] * h + acc);
  }
  double fin = roundToHalf(acc + k.offset);
  if (absolute) fin = std::fabs(fin);
  return std::clamp(fin, 0.0, 1.0);
}
inline int halfSumsByte(double fin) { return static_cast<int>(std::nearbyint(255.0 * fin)); }

}  // namespace convlive::testcases
