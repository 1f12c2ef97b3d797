// cpu-simd's separable terms (internal): a factor with its zero ends cut off, a term's two factors,
// and the terms a plan's path sums. Shared by the RGBA path (cpu_simd.cpp) and the frames of any
// type (cpu_simd_frames.cpp).
#pragma once

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "convlive/cpu_simd.hpp"
#include "convlive/low_rank.hpp"
#include "convlive/mask.hpp"
#include "cpu_simd_kernels.hpp"

namespace convlive::simd {

// band(frame, y0, y1) over rows y0..y1-1 of each of `frames` frames of `height` rows, every frame's
// bands in one parallel loop: enough bands over the call (4 a core) that a core slowed by other work
// does not hold it up, at least one a frame (a loop a frame cost more than small frames' filtering).
// Each band reads 2r rows beyond its own.
template <class Band>
void forEachBand(int frames, int height, Band band) {
  const int cores = std::max(1, tbb::this_task_arena::max_concurrency());
  const int per = std::max(1, std::min(height, (4 * cores + frames - 1) / frames));
  tbb::parallel_for(std::int64_t(0), std::int64_t(frames) * per, [&](std::int64_t task) {
    const int frame = static_cast<int>(task / per), b = static_cast<int>(task % per);
    const int y0 = static_cast<int>(std::int64_t(height) * b / per);
    const int y1 = static_cast<int>(std::int64_t(height) * (b + 1) / per);
    if (y0 < y1) band(frame, y0, y1);
  });
}

// cpuSimdFilter on `frames` u8x4 frames: in and out the first, the next ones inStride and outStride
// bytes on; all frames' bands in one parallel loop (the u8x4 path of cpuSimdFrames).
void rgbaFrames(const Filter& filter, Border border, bool filterAlpha, ConstImageView in, ImageView out, int frames,
                std::size_t inStride, std::size_t outStride);

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
// adds nothing and is left out. bytes: the terms for 8-bit outputs (Mask::lowRankForBytes, as the
// u8x4 plan counts them), else Mask::lowRank's.
template <class T>
std::vector<Term<T>> termsOf(CpuSimdPlan::Path path, const Mask& m, bool transposed, bool bytes) {
  std::vector<SeparableTerm> terms;
  if (path == CpuSimdPlan::Path::Separable) terms = {{m.col(), m.row()}};
  if (path == CpuSimdPlan::Path::LowRank) terms = (bytes ? m.lowRankForBytes() : m.lowRank())->terms;
  std::vector<Term<T>> out;
  for (const SeparableTerm& t : terms) {
    Term<T> term(transposed ? t.transposed() : t);
    if (!term.col.w.empty() && !term.row.w.empty()) out.push_back(std::move(term));
  }
  return out;
}

// The column pass of output rows y..y+m-1 (m <= 4) from a window of widened input rows: rowOf(v)
// is input row v (nullptr: a row that reads zero), `zero` a row of zeros; output row j at
// out + j * stride, n values; four rows in one accumulateFour where there are four, else row by row
// over the taps that read something. rows and weights: the caller's scratch, left empty.
template <class T, class RowOf>
void windowColumns(RowOf rowOf, const T* zero, int y, int m, const Factor<T>& f, T* out, std::size_t stride,
                   std::size_t n, std::vector<const T*>& rows, std::vector<T>& weights) {
  const std::size_t taps = f.w.size();
  if (m == 4 && taps > 0) {
    for (std::size_t k = 0; k < taps + 3; ++k) {
      const T* row = rowOf(y + f.first + static_cast<int>(k));
      rows.push_back(row ? row : zero);
    }
    T* acc[4] = {out, out + stride, out + 2 * stride, out + 3 * stride};
    accumulateFour(rows.data(), f.w.data(), taps, acc, n);
    rows.clear();
    return;
  }
  for (int j = 0; j < m; ++j) {
    for (std::size_t t = 0; t < taps; ++t)
      if (const T* row = rowOf(y + j + f.first + static_cast<int>(t)); row && f.w[t] != T(0)) {
        rows.push_back(row);
        weights.push_back(f.w[t]);
      }
    accumulate(rows.data(), weights.data(), rows.size(), out + std::size_t(j) * stride, n);
    rows.clear();
    weights.clear();
  }
}

}  // namespace convlive::simd
