#include "convlive/cpu_simd.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "convlive/problem.hpp"
#include "cpu_simd_kernels.hpp"

namespace convlive {
namespace {

double gammaOf(std::size_t n, double unitRoundoff) {
  const double nu = static_cast<double>(n) * unitRoundoff;
  return nu < 1.0 ? nu / (1.0 - nu) : std::numeric_limits<double>::infinity();
}

std::size_t nonZero(const std::vector<float>& w) {
  return static_cast<std::size_t>(std::count_if(w.begin(), w.end(), [](float x) { return x != 0.f; }));
}

double absSum(const std::vector<float>& w) {
  double s = 0.0;
  for (float x : w) s += std::fabs(static_cast<double>(x));
  return s;
}

// The worst-case output error of cpu-simd's sums with unit roundoff u (convlive/cpu_simd.hpp).
double errorBound(const Filter& f, double u) {
  const Mask& m = f.mask;
  const double scale = 255.0 * (f.combine == Combine::Magnitude ? std::sqrt(2.0) : 1.0);
  if (m.separable()) {
    const double gc = gammaOf(nonZero(m.col()), u), gr = gammaOf(nonZero(m.row()), u);
    return (gc + gr * (1.0 + gc)) * scale * absSum(m.col()) * absSum(m.row());
  }
  return gammaOf(nonZero(m.weights()), u) * scale * absSum(m.weights());
}

// One thread's buffers, kept between calls (allocations and page faults cost more than the
// filter at small radii).
template <class T>
struct Scratch {
  std::vector<T> window;           // 2r+1 widened input rows, a ring; each padded by the border mode
  std::vector<bool> windowValid;   // false: a row outside the frame that reads zero
  std::vector<T> column, columnB;  // the column pass of one output row (padded); B: the transposed mask
  std::vector<T> a, b;             // the sums of one output row; b: the transposed mask (magnitude)
  std::vector<float> af, bf;       // double sums rounded to float, as the reference does
  std::vector<const T*> rows;      // the taps of one accumulate call
  std::vector<T> weights;
};

template <class T>
tbb::enumerable_thread_specific<Scratch<T>>& scratchOf() {
  static tbb::enumerable_thread_specific<Scratch<T>> scratch;
  return scratch;
}

template <class T>
std::vector<T> as(const std::vector<float>& w) {
  return {w.begin(), w.end()};
}

// What every band of one call shares, read-only: the frame, the border, the weights in T.
template <class T>
struct Job {
  const Filter& filter;
  Border border;
  bool filterAlpha;
  ConstImageView in;
  ImageView out;
  int r;
  std::size_t stride;  // elements per padded row: 4 * (width + 2r) + slack, rounded up
  bool separable, magnitude;
  std::vector<T> col, row, mask, maskT;  // separable factors, or the 2D mask and its transpose

  Job(const Filter& f, Border b, bool alpha, ConstImageView i, ImageView o)
      : filter(f),
        border(b),
        filterAlpha(alpha),
        in(i),
        out(o),
        r(f.mask.radius()),
        stride((4 * std::size_t(i.width + 2 * r) + simd::kSlack + 15) / 16 * 16),
        separable(f.mask.separable()),
        magnitude(f.combine == Combine::Magnitude) {
    if (separable) {
      col = as<T>(f.mask.col());
      row = as<T>(f.mask.row());
    } else {
      mask = as<T>(f.mask.weights());
      if (magnitude) maskT = as<T>(f.mask.transposed().weights());
    }
  }
};

// Filters the output rows y0..y1-1: widens each input row the band reads once into the window,
// then makes each output row from the window.
template <class T>
class Band {
 public:
  Band(const Job<T>& job, Scratch<T>& s, int y0) : job_(job), s_(s), first_(y0 - job.r), slots_(2 * job.r + 1) {
    const std::size_t n = 4 * std::size_t(job.in.width) + simd::kSlack;
    grow(s.window, job.stride * slots_);
    s.windowValid.assign(slots_, false);
    grow(s.column, job.stride);
    grow(s.a, n);
    if (job.magnitude) {
      grow(s.columnB, job.stride);
      grow(s.b, n);
    }
    if constexpr (std::is_same_v<T, double>) {
      grow(s.af, n);
      if (job.magnitude) grow(s.bf, n);
    }
  }

  void run(int y0, int y1) {
    for (int v = y0 - job_.r; v < y0 + job_.r; ++v) load(v);
    for (int y = y0; y < y1; ++y) {
      load(y + job_.r);
      filterRow(y);
    }
  }

 private:
  template <class U>
  static void grow(std::vector<U>& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
  }
  std::size_t slotOf(int v) const { return static_cast<std::size_t>(v - first_) % slots_; }
  // Pixel 0 of row v in the window, or nullptr when the row reads zero.
  const T* centre(int v) const {
    const std::size_t s = slotOf(v);
    return s_.windowValid[s] ? s_.window.data() + s * job_.stride + 4 * job_.r : nullptr;
  }

  void load(int v) {
    const std::size_t s = slotOf(v);
    const int sy = borderIndex(v, job_.in.height, job_.border);
    s_.windowValid[s] = sy >= 0;
    if (sy < 0) return;
    T* p = s_.window.data() + s * job_.stride;
    simd::widen(job_.in.row(sy), p + 4 * job_.r, 4 * std::size_t(job_.in.width));
    pad(p);
  }

  // Fills the r pixels either side of a padded row (pixel x at p + 4 * (r + x)) as the border reads.
  void pad(T* p) const {
    const int r = job_.r, w = job_.in.width;
    const auto fill = [&](int x) {
      T* d = p + 4 * (r + x);
      const int sx = borderIndex(x, w, job_.border);
      if (sx < 0)
        std::fill(d, d + 4, T(0));
      else
        std::copy(p + 4 * (r + sx), p + 4 * (r + sx) + 4, d);
    };
    for (int x = -r; x < 0; ++x) fill(x);
    for (int x = w; x < w + r; ++x) fill(x);
  }

  void addTap(const T* row, T weight) {
    if (weight == T(0) || !row) return;
    s_.rows.push_back(row);
    s_.weights.push_back(weight);
  }
  void sum(T* acc) {
    simd::accumulate(s_.rows.data(), s_.weights.data(), s_.rows.size(), acc, 4 * std::size_t(job_.in.width));
    s_.rows.clear();
    s_.weights.clear();
  }

  // Separable: the column pass into `column` (padded), then the row pass into acc.
  void separableRow(int y, const std::vector<T>& col, const std::vector<T>& row, std::vector<T>& column, T* acc) {
    const int r = job_.r;
    for (int t = -r; t <= r; ++t) addTap(centre(y + t), col[t + r]);
    sum(column.data() + 4 * r);
    pad(column.data());
    for (int t = -r; t <= r; ++t) addTap(column.data() + 4 * (r + t), row[t + r]);
    sum(acc);
  }

  void directRow(int y, const std::vector<T>& mask, T* acc) {
    const int r = job_.r, n = 2 * r + 1;
    for (int dy = -r; dy <= r; ++dy)
      if (const T* c = centre(y + dy))
        for (int dx = -r; dx <= r; ++dx) addTap(c + 4 * dx, mask[(dy + r) * n + dx + r]);
    sum(acc);
  }

  void filterRow(int y) {
    if (job_.separable) {
      separableRow(y, job_.col, job_.row, s_.column, s_.a.data());
      if (job_.magnitude) separableRow(y, job_.row, job_.col, s_.columnB, s_.b.data());  // the transpose
    } else {
      directRow(y, job_.mask, s_.a.data());
      if (job_.magnitude) directRow(y, job_.maskT, s_.b.data());
    }
    const std::size_t n = 4 * std::size_t(job_.in.width);
    const float *a, *b = nullptr;
    if constexpr (std::is_same_v<T, double>) {
      simd::narrow(s_.a.data(), s_.af.data(), n);
      if (job_.magnitude) simd::narrow(s_.b.data(), s_.bf.data(), n);
      a = s_.af.data();
      if (job_.magnitude) b = s_.bf.data();
    } else {
      a = s_.a.data();
      if (job_.magnitude) b = s_.b.data();
    }
    simd::finish(a, b, job_.filter.combine, job_.filterAlpha, job_.in.row(y), job_.out.row(y), n);
  }

  const Job<T>& job_;
  Scratch<T>& s_;
  int first_;  // the first input row the band reads (y0 - r)
  std::size_t slots_;
};

template <class T>
void runBands(const Filter& f, Border border, bool filterAlpha, ConstImageView in, ImageView out) {
  const Job<T> job(f, border, filterAlpha, in, out);
  // A few bands a core, so that a core slowed by other work does not hold up the frame; each band
  // widens 2r rows beyond its own.
  const int bands = std::min(in.height, 4 * std::max(1, tbb::this_task_arena::max_concurrency()));
  auto& scratch = scratchOf<T>();
  tbb::parallel_for(0, bands, [&](int i) {
    const int y0 = static_cast<int>(std::int64_t(in.height) * i / bands);
    const int y1 = static_cast<int>(std::int64_t(in.height) * (i + 1) / bands);
    Band<T>(job, scratch.local(), y0).run(y0, y1);
  });
}

std::string lsb(double bound) {
  std::ostringstream s;
  s.precision(3);
  s << bound;
  return s.str();
}

}  // namespace

CpuSimdPlan planCpuSimd(const Filter& filter) {
  CpuSimdPlan p;
  p.floatBound = errorBound(filter, std::ldexp(1.0, -24));
  p.doubleBound = errorBound(filter, std::ldexp(1.0, -53));
  if (p.floatBound <= kCpuSimdErrorBudget)
    p.precision = CpuSimdPlan::Precision::Float;
  else if (p.doubleBound <= kCpuSimdErrorBudget)
    p.precision = CpuSimdPlan::Precision::Double;
  else
    p.why =
        "the weights are too large for a 1 LSB bound even with double sums (worst case " + lsb(p.doubleBound) + " LSB)";
  return p;
}

Problem cpuSimdWhyNot(const Filter& filter) {
  const CpuSimdPlan p = planCpuSimd(filter);
  if (p.precision != CpuSimdPlan::Precision::Refused) return {};
  return problem(Problem::Code::CannotRun, "variant", "cpu-simd: " + p.why, "variant", "cpu");
}

void cpuSimdFilter(const Filter& filter, Border border, bool filterAlpha, ConstImageView in, ImageView out) {
  if (in.width != out.width || in.height != out.height)
    throw std::invalid_argument("cpu-simd: input and output sizes differ");
  if (in.pitch % 4 || out.pitch % 4 || in.pitch < std::size_t(in.width) * 4 || out.pitch < std::size_t(out.width) * 4)
    throw std::invalid_argument("cpu-simd: row pitch must be a multiple of 4 bytes and hold a whole row");
  if (in.width < 1 || in.height < 1) return;
  switch (planCpuSimd(filter).precision) {
    case CpuSimdPlan::Precision::Float:
      return runBands<float>(filter, border, filterAlpha, in, out);
    case CpuSimdPlan::Precision::Double:
      return runBands<double>(filter, border, filterAlpha, in, out);
    case CpuSimdPlan::Precision::Refused:
      throw ProblemError(cpuSimdWhyNot(filter));
  }
}

const char* cpuSimdTarget() { return simd::targetName(); }

}  // namespace convlive
