// How tensorstream hands bytes to the tensor cores: each byte v as the fp16 subnormal v * 2^-24
// (its bits are the byte: one PRMT from the packed pixels, no bias to take off), the row factor
// scaled by 2^S and the column factor by 2^(24 - S), so that the products carry the bytes' values
// exactly (powers of two: the scaling rounds nothing the fp16 weights did not). Shared by the
// kernel's launch and the error plan (convlive/precision.hpp), which bounds the intermediate's
// rounding below fp16's normal range at 2^(-1 - S) of a level.
#pragma once

#include <algorithm>
#include <cmath>

namespace convlive {

// The largest |weight| of a factor's n weights.
inline double largestWeight(const float* w, int n) {
  double most = 0;
  for (int i = 0; i < n; ++i) most = std::max(most, std::fabs(double(w[i])));
  return most;
}

// S: 14 where the scaled factors stay below fp16's largest value (the intermediate then 2^-10 of the
// row sums), else the nearest value in 0..24 that keeps both there; -1 when none does.
inline int tensorInputScale(double maxRow, double maxCol) {
  constexpr double kHalfMax = 65504.0;
  auto fits = [&](int s) { return maxRow * double(1 << s) < kHalfMax && maxCol * double(1 << (24 - s)) < kHalfMax; };
  for (int d = 0; d <= 14; ++d) {
    if (fits(14 - d)) return 14 - d;
    if (d > 0 && 14 + d <= 24 && fits(14 + d)) return 14 + d;
  }
  return -1;
}

// f16 frames (the values the inputs as they are, up to 65504): A, the power of two the row factor is
// scaled by (the column factor by 2^-A), the largest that keeps the row sums, at most 65504 x sum
// |row| x 2^A, below 65520, where fp16's rounding of the intermediate would give Inf.
inline int f16IntermediateScale(double rowAbsSum) {
  if (!(rowAbsSum > 0)) return 0;
  return std::clamp(int(std::floor(std::log2(65519.0 / 65504.0 / rowAbsSum))), -24, 24);
}

}  // namespace convlive
