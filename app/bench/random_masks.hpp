// Random masks of a chosen rank, for the CPU benchmark and the low-rank tests: the sum of `rank`
// outer products of random factors in [-1, 1], scaled to an absolute sum of 2 (a difference of
// blurs or an oriented derivative is of this kind). Rounded to float, so of rank `rank` up to that
// rounding.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "convlive/mask.hpp"

namespace convlive::bench {

inline Mask randomRankMask(int radius, int rank, std::mt19937& rng) {
  const int n = 2 * radius + 1;
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> w(std::size_t(n) * n, 0.0);
  for (int t = 0; t < rank; ++t) {
    std::vector<double> col(n), row(n);
    for (auto& v : col) v = d(rng);
    for (auto& v : row) v = d(rng);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) w[std::size_t(i) * n + j] += col[i] * row[j];
  }
  double sum = 0;
  for (double v : w) sum += std::fabs(v);
  std::vector<float> f(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) f[i] = static_cast<float>(2.0 * w[i] / sum);
  return Mask(radius, std::move(f));
}

}  // namespace convlive::bench
