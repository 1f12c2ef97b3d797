// cpu-simd's separable terms (internal): a factor with its zero ends cut off, a term's two factors,
// and the terms a plan's path sums. Shared by the RGBA path (cpu_simd.cpp) and the frames of any
// type (cpu_simd_frames.cpp).
#pragma once

#include <vector>

#include "convlive/cpu_simd.hpp"
#include "convlive/low_rank.hpp"
#include "convlive/mask.hpp"

namespace convlive::simd {

// A separable factor with its zero ends cut off: taps w[0..] apply at offsets first, first+1, ...
// (a pitch mask's column factor is one tap).
template <class T>
struct Factor {
  std::vector<T> w;
  int first = 0;
  explicit Factor(const std::vector<float>& f) {
    const int r = static_cast<int>(f.size() / 2);
    int lo = 0, hi = static_cast<int>(f.size());
    while (lo < hi && f[lo] == 0.f) ++lo;
    while (hi > lo && f[hi - 1] == 0.f) --hi;
    w.assign(f.begin() + lo, f.begin() + hi);
    first = lo - r;
  }
};

// A separable term's factors: a column pass, then a row pass.
template <class T>
struct Term {
  Factor<T> col, row;
  explicit Term(const SeparableTerm& t) : col(t.col), row(t.row) {}
};

// The terms of a plan's path (none in 2D), of the mask or its transpose; a term that is all zero
// adds nothing and is left out.
template <class T>
std::vector<Term<T>> termsOf(CpuSimdPlan::Path path, const Mask& m, bool transposed) {
  std::vector<SeparableTerm> terms;
  if (path == CpuSimdPlan::Path::Separable) terms = {{m.col(), m.row()}};
  if (path == CpuSimdPlan::Path::LowRank) terms = m.lowRank()->terms;
  std::vector<Term<T>> out;
  for (const SeparableTerm& t : terms) {
    Term<T> term(transposed ? t.transposed() : t);
    if (!term.col.w.empty() && !term.row.w.empty()) out.push_back(std::move(term));
  }
  return out;
}

}  // namespace convlive::simd
