#include "convlive/cpu_simd.hpp"

#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "convlive/problem.hpp"
#include "cpu_simd_kernels.hpp"
#include "cpu_simd_terms.hpp"

namespace convlive {
namespace {

std::size_t nonZero(const std::vector<float>& w) {
  return static_cast<std::size_t>(std::count_if(w.begin(), w.end(), [](float x) { return x != 0.f; }));
}

double combineScale(const Filter& f) { return f.combine == Combine::Magnitude ? std::sqrt(2.0) : 1.0; }

// The worst-case output error of cpu-simd's separable or 2D sums with unit roundoff u
// (convlive/cpu_simd.hpp).
double errorBound(const Filter& f, double u) {
  const Mask& m = f.mask;
  const double scale = 255.0 * combineScale(f);
  if (m.separable()) {
    const double gc = gammaBound(nonZero(m.col()), u), gr = gammaBound(nonZero(m.row()), u);
    return (gc + gr * (1.0 + gc)) * scale * absoluteSum(m.col()) * absoluteSum(m.row());
  }
  return gammaBound(nonZero(m.weights()), u) * scale * absoluteSum(m.weights());
}

constexpr double kFloatRoundoff = 0x1p-24, kDoubleRoundoff = 0x1p-53;

// Rows start on cache lines, so that the column pass's loads never straddle two.
template <class T>
struct LineAligned {
  using value_type = T;
  LineAligned() = default;
  template <class U>
  LineAligned(const LineAligned<U>&) {}  // NOLINT: rebinding, as allocators do
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  bool operator==(const LineAligned&) const { return true; }
};
template <class T>
using Buffer = std::vector<T, LineAligned<T>>;

// One thread's buffers, kept between calls (allocations and page faults cost more than the
// filter at small radii).
template <class T>
struct Scratch {
  Buffer<T> window;               // widened input rows of one tile, a ring of TileFilter::slots_
  std::vector<bool> windowValid;  // false: a row outside the frame that reads zero
  Buffer<T> zeroRow;              // what such a row reads (never written)
  Buffer<T> columns;              // the column passes of up to four output rows, apron included, a term each
  Buffer<T> a, b;                 // the sums of one output row; b: the transposed mask (magnitude)
  Buffer<T> term;                 // one term's row sums, before they are added to a or b (window path)
  Buffer<float> af, bf;           // double sums rounded to float, as the reference does
  std::vector<const T*> rows;     // the taps of one accumulate call
  std::vector<const std::uint8_t*> byteRows;  // the same for the column pass from 8-bit rows
  Buffer<std::uint8_t> zeroBytes;             // an 8-bit row that reads zero
  std::vector<T> weights;
};

template <class T>
tbb::enumerable_thread_specific<Scratch<T>>& scratchOf() {
  static tbb::enumerable_thread_specific<Scratch<T>> scratch;
  return scratch;
}

using simd::Factor;
using simd::Term;

template <class T>
std::vector<T> as(const std::vector<float>& w) {
  return {w.begin(), w.end()};
}

template <class T>
std::vector<Term<T>> termsOf(const CpuSimdPlan& plan, const Mask& m, bool transposed) {
  return simd::termsOf<T>(plan.path, m, transposed, true);
}

// What every band of one call shares, read-only: the filter, the border and the weights in T.
// (Bands are whole rows: strips of columns, to keep the rows in L1, measured slower.)
template <class T>
struct Job {
  const Filter& filter;
  Border border;
  bool filterAlpha;
  int r;
  bool byTerms, magnitude;
  std::vector<Term<T>> termsA, termsB;  // separable or low rank: the mask's (A) and its transpose's (B)
  std::vector<T> mask, maskT;           // 2D: the mask and its transpose

  Job(const CpuSimdPlan& plan, const Filter& f, Border b, bool alpha)
      : filter(f),
        border(b),
        filterAlpha(alpha),
        r(f.mask.radius()),
        byTerms(plan.path != CpuSimdPlan::Path::Direct),
        magnitude(f.combine == Combine::Magnitude) {
    if (byTerms) {
      termsA = termsOf<T>(plan, f.mask, false);
      if (magnitude) termsB = termsOf<T>(plan, f.mask, true);
    } else {
      mask = as<T>(f.mask.weights());
      if (magnitude) maskT = as<T>(f.mask.transposed().weights());
    }
  }
};

// Filters one tile: output rows y0..y1-1, columns x0..x1-1, four at a time. By terms (separable or
// low rank), each term's column pass makes four rows of column sums, then each output row is the
// terms' row passes over them, added in order. Column passes in float read the frame's 8-bit rows;
// the 2D sums and double sums read a window: each input row the tile reads (columns x0-r..x1+r-1,
// the border mode applied), widened once.
template <class T>
class TileFilter {
 public:
  static constexpr int kBlock = 4;  // output rows a column pass makes at once

  TileFilter(const Job<T>& job, Scratch<T>& s, ConstImageView in, ImageView out, int y0, int x0, int x1)
      : job_(job),
        s_(s),
        in_(in),
        out_(out),
        first_(y0 - job.r),
        slots_(2 * job.r + kBlock),
        x0_(x0),
        x1_(x1),
        span_(4 * std::size_t(x1 - x0 + 2 * job.r)),
        lead_((4 * std::size_t(job.r) + 15) / 16 * 16),
        stride_((std::max(span_, lead_ + span_ - 4 * job.r) + 2 * simd::kSlack + 15) / 16 * 16) {
    const std::size_t n = 4 * std::size_t(x1 - x0) + simd::kSlack;
    grow(s.window, stride_ * slots_);
    s.windowValid.assign(slots_, false);
    grow(s.zeroRow, stride_);
    if (fromBytes_) grow(s.zeroBytes, 4 * std::size_t(in.width));
    grow(s.columns, stride_ * kBlock * std::max<std::size_t>(1, job.termsA.size() + job.termsB.size()));
    grow(s.a, n);
    if (job.magnitude) grow(s.b, n);
    if (!fromBytes_) grow(s.term, n);
    if constexpr (std::is_same_v<T, double>) {
      grow(s.af, n);
      if (job.magnitude) grow(s.bf, n);
    }
  }

  void run(int y0, int y1) {
    if (!fromBytes_)
      for (int v = y0 - job_.r; v < y0 + job_.r; ++v) load(v);
    for (int y = y0; y < y1; y += kBlock) {
      const int m = std::min(kBlock, y1 - y);
      if (!fromBytes_)
        for (int j = 0; j < m; ++j) load(y + j + job_.r);
      for (std::size_t t = 0; t < job_.termsA.size(); ++t) columns(y, m, job_.termsA[t].col, column(t * kBlock));
      for (std::size_t t = 0; t < job_.termsB.size(); ++t)
        columns(y, m, job_.termsB[t].col, column((job_.termsA.size() + t) * kBlock));
      for (int j = 0; j < m; ++j) filterRow(y + j, j);
    }
  }

 private:
  template <class U>
  static void grow(Buffer<U>& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
  }
  std::size_t slotOf(int v) const { return static_cast<std::size_t>(v - first_) % slots_; }
  // Column x0 - r of row v in the window, or nullptr when the row reads zero.
  const T* windowRow(int v) const {
    const std::size_t s = slotOf(v);
    return s_.windowValid[s] ? s_.window.data() + s * stride_ : nullptr;
  }
  T* column(std::size_t i) { return s_.columns.data() + i * stride_; }

  void load(int v) {
    const std::size_t s = slotOf(v);
    const int sy = borderIndex(v, in_.height, job_.border);
    s_.windowValid[s] = sy >= 0;
    if (sy < 0) return;
    T* p = s_.window.data() + s * stride_;
    const std::uint8_t* src = in_.row(sy);
    const int r = job_.r, w = in_.width, from = x0_ - r, to = x1_ + r;
    const int inFrom = std::max(from, 0), inTo = std::min(to, w);
    simd::widen(src + 4 * inFrom, p + 4 * (inFrom - from), 4 * std::size_t(inTo - inFrom));
    const auto outside = [&](int x) {
      T* d = p + 4 * (x - from);
      const int sx = borderIndex(x, w, job_.border);
      for (int c = 0; c < 4; ++c) d[c] = sx < 0 ? T(0) : T(src[4 * sx + c]);
    };
    for (int x = from; x < inFrom; ++x) outside(x);
    for (int x = std::max(inTo, from); x < to; ++x) outside(x);
  }

  void addTap(const T* row, T weight) {
    if (weight == T(0) || !row) return;
    s_.rows.push_back(row);
    s_.weights.push_back(weight);
  }
  // acc = the taps' sum; add: acc += it (the sum made first, then added).
  void sum(T* acc, std::size_t n, bool add = false) {
    simd::accumulate(s_.rows.data(), s_.weights.data(), s_.rows.size(), add ? s_.term.data() : acc, n);
    if (add) simd::add(s_.term.data(), acc, n);
    s_.rows.clear();
    s_.weights.clear();
  }

  // The column pass of output rows y..y+m-1 into out[0..m) (stride_ apart), apron included.
  void columns(int y, int m, const Factor<T>& f, T* out) {
    if constexpr (std::is_same_v<T, float>) {
      if (fromBytes_) return columnsFromBytes(y, m, f, out);
    }
    simd::windowColumns([this](int v) { return windowRow(v); }, s_.zeroRow.data(), y, m, f, out, stride_, span_,
                        s_.rows, s_.weights);
  }

  // Float sums by terms over whole rows: the column pass reads the frame's 8-bit rows
  // (four output rows at a time, always four: a band's last block makes up to three rows more than
  // it uses), then the border mode fills the r columns either side from the sums.
  void columnsFromBytes(int y, int m, const Factor<T>& f, T* out) {
    const std::size_t n = 4 * std::size_t(in_.width);
    for (std::size_t k = 0; k < f.w.size() + kBlock - 1; ++k) {
      const int sy = borderIndex(y + f.first + static_cast<int>(k), in_.height, job_.border);
      s_.byteRows.push_back(sy < 0 ? s_.zeroBytes.data() : in_.row(sy));
    }
    T* acc[kBlock] = {out + lead_, out + stride_ + lead_, out + 2 * stride_ + lead_, out + 3 * stride_ + lead_};
    simd::accumulateFour(s_.byteRows.data(), f.w.data(), f.w.size(), acc, n);
    s_.byteRows.clear();
    for (int j = 0; j < m; ++j) padColumns(out + j * stride_);
  }

  // Fills the r pixels either side of a column row (pixel x at p + lead_ + 4x) as the border reads.
  void padColumns(T* row) const {
    const int r = job_.r, w = in_.width;
    T* p = row + lead_;
    const auto fill = [&](int x) {
      T* d = p + 4 * x;
      const int sx = borderIndex(x, w, job_.border);
      for (int c = 0; c < 4; ++c) d[c] = sx < 0 ? T(0) : p[4 * sx + c];
    };
    for (int x = -r; x < 0; ++x) fill(x);
    for (int x = w; x < w + r; ++x) fill(x);
  }

  // The row pass of one column row into acc (add: added to it).
  void rowPass(const T* column, const Factor<T>& f, T* acc, bool add) {
    if constexpr (std::is_same_v<T, float>) {
      if (fromBytes_)
        return simd::rowPass(column + lead_, f.first, f.w.data(), f.w.size(), acc, 4 * std::size_t(x1_ - x0_), add);
    }
    for (std::size_t t = 0; t < f.w.size(); ++t) addTap(column + 4 * (job_.r + f.first + static_cast<int>(t)), f.w[t]);
    sum(acc, 4 * std::size_t(x1_ - x0_), add);
  }

  // Output row j of the block from its terms' column rows (those from column(first * kBlock) on):
  // the first term's row pass into acc, each other's added in order.
  void rowPasses(const std::vector<Term<T>>& terms, std::size_t first, int j, T* acc) {
    if (terms.empty()) std::fill(acc, acc + 4 * std::size_t(x1_ - x0_), T(0));  // a mask of no weight
    for (std::size_t t = 0; t < terms.size(); ++t) rowPass(column((first + t) * kBlock + j), terms[t].row, acc, t > 0);
  }

  void directRow(int y, const std::vector<T>& mask, T* acc) {
    const int r = job_.r, n = 2 * r + 1;
    for (int dy = -r; dy <= r; ++dy)
      if (const T* c = windowRow(y + dy))
        for (int dx = -r; dx <= r; ++dx) addTap(c + 4 * (r + dx), mask[(dy + r) * n + dx + r]);
    sum(acc, 4 * std::size_t(x1_ - x0_));
  }

  // Output row y, the j-th of its block.
  void filterRow(int y, int j) {
    if (job_.byTerms) {
      rowPasses(job_.termsA, 0, j, s_.a.data());
      if (job_.magnitude) rowPasses(job_.termsB, job_.termsA.size(), j, s_.b.data());
    } else {
      directRow(y, job_.mask, s_.a.data());
      if (job_.magnitude) directRow(y, job_.maskT, s_.b.data());
    }
    const std::size_t n = 4 * std::size_t(x1_ - x0_);
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
    simd::finish(a, b, job_.filter.combine, job_.filterAlpha, in_.row(y) + 4 * x0_, out_.row(y) + 4 * x0_, n);
  }

  const Job<T>& job_;
  Scratch<T>& s_;
  ConstImageView in_;  // the frame
  ImageView out_;
  int first_;  // the first input row the tile reads (y0 - r)
  std::size_t slots_;
  int x0_, x1_;
  std::size_t span_;    // values in a window row: 4 * (x1 - x0 + 2r)
  std::size_t lead_;    // fromBytes_: where pixel 0 of a column row is (4r rounded up to a cache line)
  std::size_t stride_;  // a row with its slack, rounded up to a cache line
  // Separable or low-rank float sums over whole rows: the column passes read the frame's 8-bit rows
  // (no window).
  bool fromBytes_ = std::is_same_v<T, float> && job_.byTerms && x0_ == 0 && x1_ == in_.width;
};

// `frames` frames (their first in and out, the next ones inStride and outStride bytes on), every
// frame's bands in one parallel loop (forEachBand: a loop a frame ran 16384 8x8 frames 15x as long,
// 1024 32x32 frames 4x; convlive-cpu-bench --batches, 2 cores).
template <class T>
void runTiles(const CpuSimdPlan& plan, const Filter& f, Border border, bool filterAlpha, ConstImageView in,
              ImageView out, int frames, std::size_t inStride, std::size_t outStride) {
  const Job<T> job(plan, f, border, filterAlpha);
  auto& scratch = scratchOf<T>();
  simd::forEachBand(frames, in.height, [&](int frame, int y0, int y1) {
    const ConstImageView fin(in.data + inStride * std::size_t(frame), in.width, in.height, in.pitch);
    const ImageView fout{out.data + outStride * std::size_t(frame), out.width, out.height, out.pitch};
    TileFilter<T>(job, scratch.local(), fin, fout, y0, 0, in.width).run(y0, y1);
  });
}

std::string lsb(double bound) {
  std::ostringstream s;
  s.precision(3);
  s << bound;
  return s.str();
}

}  // namespace

bool lowRankPays(const LowRank& lowRank, const Mask& mask) {
  const int k = lowRank.rank(), r = mask.radius();
  if (r < 2 || k < 1 || k > r + 1) return false;  // k = 0: all zero, the 2D sum writes zeros at no cost
  const double taps = static_cast<double>(lowRank.taps() + kTermOverheadTaps * std::size_t(k));
  return taps < kDirectTapCost * static_cast<double>(nonZero(mask.weights()));
}

CpuSimdPlan planCpuSimd(const Filter& filter) {
  using Path = CpuSimdPlan::Path;
  using Precision = CpuSimdPlan::Precision;
  const Mask& m = filter.mask;
  CpuSimdPlan p;
  p.path = m.separable() ? Path::Separable : Path::Direct;
  p.terms = m.separable() ? 1 : 0;
  p.floatBound = errorBound(filter, kFloatRoundoff);
  p.doubleBound = errorBound(filter, kDoubleRoundoff);
  const auto within = [](double bound) { return bound <= kCpuSimdErrorBudget; };
  if (!m.separable())
    if (const auto& lr = m.lowRankForBytes(); lr && lowRankPays(*lr, m)) {  // 8-bit outputs
      const double lrFloat = combineScale(filter) * lr->errorBound(kFloatRoundoff);
      const double lrDouble = combineScale(filter) * lr->errorBound(kDoubleRoundoff);
      // Float before double (half the time), then low rank before 2D (fewer taps).
      if (within(lrFloat) || (!within(p.floatBound) && within(lrDouble))) {
        p.path = Path::LowRank;
        p.terms = lr->rank();
        p.floatBound = lrFloat;
        p.doubleBound = lrDouble;
      }
    }
  if (within(p.floatBound))
    p.precision = Precision::Float;
  else if (within(p.doubleBound))
    p.precision = Precision::Double;
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
  simd::rgbaFrames(filter, border, filterAlpha, in, out, 1, 0, 0);
}

namespace simd {
void rgbaFrames(const Filter& filter, Border border, bool filterAlpha, ConstImageView in, ImageView out, int frames,
                std::size_t inStride, std::size_t outStride) {
  if (in.width != out.width || in.height != out.height)
    throw std::invalid_argument("cpu-simd: input and output sizes differ");
  if (in.pitch % 4 || out.pitch % 4 || in.pitch < std::size_t(in.width) * 4 || out.pitch < std::size_t(out.width) * 4)
    throw std::invalid_argument("cpu-simd: row pitch must be a multiple of 4 bytes and hold a whole row");
  if (in.width < 1 || in.height < 1 || frames < 1) return;
  const CpuSimdPlan plan = planCpuSimd(filter);
  switch (plan.precision) {
    case CpuSimdPlan::Precision::Float:
      return runTiles<float>(plan, filter, border, filterAlpha, in, out, frames, inStride, outStride);
    case CpuSimdPlan::Precision::Double:
      return runTiles<double>(plan, filter, border, filterAlpha, in, out, frames, inStride, outStride);
    case CpuSimdPlan::Precision::Refused:
      throw ProblemError(cpuSimdWhyNot(filter));
  }
}
}  // namespace simd

const char* cpuSimdTarget() { return simd::targetName(); }

}  // namespace convlive
