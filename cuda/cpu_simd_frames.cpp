// cpu-simd on frames of any description (convlive/image.hpp): u8, u16, f16 and f32 values, 1, 3 or
// 4 channels, rows any pitch apart, a batch of frames. One u8x4 frame with 4-byte rows takes the
// tuned RGBA path (cpu_simd.cpp); every other frame goes through a window of rows widened to the
// sums' type, the same SIMD sums (cpu_simd_kernels.hpp) on all cores, and a store that rounds once
// to the frame's type as the reference does.
#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "convlive/cpu_simd.hpp"
#include "convlive/half.hpp"
#include "convlive/problem.hpp"
#include "cpu_simd_kernels.hpp"
#include "cpu_simd_terms.hpp"
#include "typed_values.hpp"

namespace convlive {
namespace {

double typeTop(PixelType t) { return t == PixelType::U8 ? 255.0 : t == PixelType::U16 ? 65535.0 : 1.0; }
// Half an ulp of float at values up to v: the most one rounding of a partial sum that large moves it.
double halfUlpUpTo(double v) { return v > 0 ? std::ldexp(1.0, int(std::ceil(std::log2(v))) - 25) : 0; }

// The sums' worst-case error, in the type's levels (floats: relative to the largest input), with
// unit roundoff 2^-24 (float) or 2^-53 (double: halfUlp scaled by 2^-29), for the order these sums
// take: a separable term, its column factor's taps, then its row factor's over those sums; terms
// added in order; 2D, each mask row's taps, then the rows added (every tap an FMA, one rounding).
// Terms (low rank) also count the decomposition's truncation (convlive/low_rank.hpp: 8-bit levels,
// so top / 255 of it).
double separableBound(double col, double row, double n, double top, int shift) {
  return std::ldexp(n * halfUlpUpTo(top * col) * row + n * halfUlpUpTo(top * col * row), shift);
}
double twoDBound(const Mask& m, double top, int shift) {
  const auto& w = m.weights();
  const double n = m.size();
  double e = 0;
  for (int dy = 0; dy < m.size(); ++dy) {
    double row = 0;
    for (int dx = 0; dx < m.size(); ++dx) row += std::fabs(double(w[std::size_t(dy) * m.size() + dx]));
    e += n * halfUlpUpTo(top * row);
  }
  return std::ldexp(e + n * halfUlpUpTo(top * absoluteSum(w)), shift);
}
double termsBound(const LowRank& lr, const Mask& m, double top, int shift) {
  double e = 0, magnitude = 0;
  for (const SeparableTerm& t : lr.terms) {
    const double col = absoluteSum(t.col), row = absoluteSum(t.row);
    e += separableBound(col, row, m.size(), top, shift);
    magnitude += col * row;
  }
  return e + std::ldexp((lr.rank() - 1) * halfUlpUpTo(top * magnitude), shift) + lr.truncation * top / 255.0;
}

// How the frames are summed: the path (by terms, or 2D) and float or double.
struct FramesPlan {
  CpuSimdPlan::Path path = CpuSimdPlan::Path::Direct;
  bool useDouble = false;
  double bound = 0;    // the chosen sums' bound, in the type's levels (floats: relative)
  bool bytes = false;  // u8 outputs: Mask::lowRankForBytes' terms (the laplacian from r = 8: two), else lowRank's
};

// The budget for the sums' error: integers 0.45 of a level (the 1 LSB contract), f32 half of
// 1e-5 x sum|w| (its contract, relative to the largest input); f16 always takes double, whose result
// rounds once.
FramesPlan planFrames(const Filter& f, PixelType type) {
  using Path = CpuSimdPlan::Path;
  const Mask& m = f.mask;
  const double top = typeTop(type), gain = f.combine == Combine::Magnitude ? std::sqrt(2.0) : 1.0;
  const double budget = type == PixelType::F32 ? 0.5e-5 * absoluteSum(m.weights()) : 0.45;
  // 8-bit outputs take the fewest terms within the truncation budget, which is in 8-bit levels;
  // wider types the builder's near-exact ones.
  const bool bytes = type == PixelType::U8;
  const std::optional<LowRank>& lowRank = bytes ? m.lowRankForBytes() : m.lowRank();
  const auto bound = [&](Path path, int shift) {
    if (path == Path::Separable)
      return gain * separableBound(absoluteSum(m.col()), absoluteSum(m.row()), m.size(), top, shift);
    if (path == Path::LowRank) return gain * termsBound(*lowRank, m, top, shift);
    return gain * twoDBound(m, top, shift);
  };
  std::vector<Path> paths;
  if (m.separable())
    paths = {Path::Separable};
  else if (lowRank && lowRankPays(*lowRank, m))
    paths = {Path::LowRank, Path::Direct};
  else
    paths = {Path::Direct};
  // Float before double; by terms before 2D.
  for (int shift : {0, -29})
    for (Path path : paths) {
      if (shift == 0 && type == PixelType::F16) continue;
      if (const double b = bound(path, shift); b <= budget || (shift < 0 && path == paths.back()))
        return {path, shift < 0, b, bytes};
    }
  return {};
}

using simd::Factor;
using simd::Term;

// One thread's buffers, kept between calls.
template <class T>
struct Scratch {
  std::vector<T> window, zeroRow, columns, a, b, tmp;
  std::vector<bool> windowValid;
  std::vector<const T*> rows;
  std::vector<T> weights;
};
template <class T>
tbb::enumerable_thread_specific<Scratch<T>>& scratchOf() {
  static tbb::enumerable_thread_specific<Scratch<T>> scratch;
  return scratch;
}
template <class U>
void grow(std::vector<U>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}

// What every band of a call shares: the frames, the filter in T, the layout (the output's: od).
template <class T>
struct Job {
  const Filter& filter;
  Border border;
  bool filterAlpha;
  const ImageDesc& d;
  const ImageDesc& od;
  const unsigned char* in;
  unsigned char* out;
  int r, C;
  bool byTerms, magnitude;
  std::vector<Term<T>> termsA, termsB;  // by terms: the mask's (A) and its transpose's (B)
  std::vector<T> mask, maskT;           // 2D
  Job(const FramesPlan& plan, const Filter& f, Border b, bool alpha, const ImageDesc& desc, const void* i,
      const ImageDesc& outDesc, void* o)
      : filter(f),
        border(b),
        filterAlpha(alpha),
        d(desc),
        od(outDesc),
        in(static_cast<const unsigned char*>(i)),
        out(static_cast<unsigned char*>(o)),
        r(f.mask.radius()),
        C(desc.channels),
        byTerms(plan.path != CpuSimdPlan::Path::Direct),
        magnitude(f.combine == Combine::Magnitude) {
    if (byTerms) {
      termsA = simd::termsOf<T>(plan.path, f.mask, false, plan.bytes);  // the terms its bound counts
      if (magnitude) termsB = simd::termsOf<T>(plan.path, f.mask, true, plan.bytes);
    } else {
      mask.assign(f.mask.weights().begin(), f.mask.weights().end());
      const Mask t = f.mask.transposed();
      if (magnitude) maskT.assign(t.weights().begin(), t.weights().end());
    }
  }
  const unsigned char* inRow(int frame, int y) const { return in + frame * d.frameStride() + y * d.rowPitch(); }
  unsigned char* outRow(int frame, int y) const { return out + frame * od.frameStride() + y * od.rowPitch(); }
};

// Output rows y0..y1-1 of one frame, four at a time: each input row the band reads widened once into
// a window (columns -r..w+r-1, the border applied), then the column passes, the row passes or the 2D
// sums, and the store (of XO values: X's, or f32 from u8).
template <class X, class T, class XO = X>
class Band {
 public:
  static constexpr int kBlock = 4;
  Band(const Job<T>& job, Scratch<T>& s, int frame, int y0)
      : job_(job),
        s_(s),
        frame_(frame),
        first_(y0 - job.r),
        slots_(std::size_t(2 * job.r + kBlock)),
        n_(std::size_t(job.C) * job.d.width),
        span_(std::size_t(job.C) * (job.d.width + 2 * job.r)),
        stride_((span_ + 2 * simd::kSlack + 15) / 16 * 16) {
    grow(s.window, stride_ * slots_);
    s.windowValid.assign(slots_, false);
    s.zeroRow.assign(stride_, T(0));
    grow(s.columns, stride_ * kBlock * std::max<std::size_t>(1, job.termsA.size() + job.termsB.size()));
    grow(s.a, n_ + simd::kSlack);
    grow(s.b, n_ + simd::kSlack);
    grow(s.tmp, n_ + simd::kSlack);
  }

  void run(int y0, int y1) {
    for (int v = y0 - job_.r; v < y0 + job_.r; ++v) load(v);
    for (int y = y0; y < y1; y += kBlock) {
      const int m = std::min(kBlock, y1 - y);
      for (int j = 0; j < m; ++j) load(y + j + job_.r);
      for (std::size_t t = 0; t < job_.termsA.size(); ++t) columns(y, m, job_.termsA[t].col, column(int(t) * kBlock));
      for (std::size_t t = 0; t < job_.termsB.size(); ++t)
        columns(y, m, job_.termsB[t].col, column(int(job_.termsA.size() + t) * kBlock));
      for (int j = 0; j < m; ++j) row(y + j, j);
    }
  }

 private:
  std::size_t slotOf(int v) const { return static_cast<std::size_t>(v - first_) % slots_; }
  // Column -r of input row v in the window (nullptr: a row outside the frame that reads zero).
  const T* windowRow(int v) const {
    const std::size_t s = slotOf(v);
    return s_.windowValid[s] ? s_.window.data() + s * stride_ : nullptr;
  }
  T* column(int i) { return s_.columns.data() + std::size_t(i) * stride_; }

  void load(int v) {
    const std::size_t s = slotOf(v);
    const int sy = borderIndex(v, job_.d.height, job_.border);
    s_.windowValid[s] = sy >= 0;
    if (sy < 0) return;
    T* p = s_.window.data() + s * stride_;
    const unsigned char* src = job_.inRow(frame_, sy);
    const int r = job_.r, w = job_.d.width, C = job_.C;
    widenRow(src, p + std::size_t(r) * C);
    const auto outside = [&](int x) {
      const int sx = borderIndex(x, w, job_.border);
      T* dst = p + std::size_t(x + r) * C;
      for (int c = 0; c < C; ++c) dst[c] = sx < 0 ? T(0) : p[std::size_t(sx + r) * C + c];
    };
    for (int x = -r; x < 0; ++x) outside(x);
    for (int x = w; x < w + r; ++x) outside(x);
    std::fill(p + span_, p + stride_, T(0));  // the slack the sums read past the row
  }

  // The frame's row (n_ values) as T: SIMD for u8 and u16 into float, element by element otherwise.
  void widenRow(const unsigned char* src, T* dst) const {
    if constexpr (std::is_same_v<X, std::uint8_t>) {
      simd::widen(src, dst, n_);
    } else if constexpr (std::is_same_v<X, std::uint16_t> && std::is_same_v<T, float>) {
      if (reinterpret_cast<std::uintptr_t>(src) % alignof(std::uint16_t) == 0)
        return simd::widen(reinterpret_cast<const std::uint16_t*>(src), dst, n_);
      for (std::size_t i = 0; i < n_; ++i) dst[i] = T(typed::load<X>(src + i * sizeof(X)));
    } else {
      for (std::size_t i = 0; i < n_; ++i) dst[i] = T(typed::load<X>(src + i * sizeof(X)));
    }
  }

  // The column pass of output rows y..y+m-1 into out (stride_ apart), apron included.
  void columns(int y, int m, const Factor<T>& f, T* out) {
    simd::windowColumns([this](int v) { return windowRow(v); }, s_.zeroRow.data(), y, m, f, out, stride_, span_,
                        s_.rows, s_.weights);
  }

  // acc = the gathered taps' sum over n values.
  void sum(T* acc, std::size_t n) {
    simd::accumulate(s_.rows.data(), s_.weights.data(), s_.rows.size(), acc, n);
    s_.rows.clear();
    s_.weights.clear();
  }

  void rowPass(const T* column, const Factor<T>& f, T* acc) {
    for (std::size_t t = 0; t < f.w.size(); ++t) {
      s_.rows.push_back(column + std::size_t(job_.r + f.first + static_cast<int>(t)) * job_.C);
      s_.weights.push_back(f.w[t]);
    }
    sum(acc, n_);
  }

  // Output row j of the block from its terms' column rows (those from column(first * kBlock) on):
  // the first term's row pass into acc, each other's made apart and added, in order.
  void rowPasses(const std::vector<Term<T>>& terms, std::size_t first, int j, T* acc) {
    if (terms.empty()) std::fill(acc, acc + n_, T(0));
    for (std::size_t t = 0; t < terms.size(); ++t) {
      rowPass(column(int(first + t) * kBlock + j), terms[t].row, t == 0 ? acc : s_.tmp.data());
      if (t > 0) simd::add(s_.tmp.data(), acc, n_);
    }
  }

  // 2D: each mask row's taps summed, then the rows added in order.
  void direct(int y, const std::vector<T>& mask, T* acc) {
    const int r = job_.r, n = 2 * r + 1;
    std::fill(acc, acc + n_, T(0));
    for (int dy = -r; dy <= r; ++dy) {
      const T* c = windowRow(y + dy);
      if (!c) continue;
      for (int dx = -r; dx <= r; ++dx)
        if (const T w = mask[std::size_t(dy + r) * n + dx + r]; w != T(0)) {
          s_.rows.push_back(c + std::size_t(r + dx) * job_.C);
          s_.weights.push_back(w);
        }
      if (s_.rows.empty()) continue;
      sum(s_.tmp.data(), n_);
      simd::add(s_.tmp.data(), acc, n_);
    }
  }

  void row(int y, int j) {
    if (job_.byTerms) {
      rowPasses(job_.termsA, 0, j, s_.a.data());
      if (job_.magnitude) rowPasses(job_.termsB, job_.termsA.size(), j, s_.b.data());
    } else {
      direct(y, job_.mask, s_.a.data());
      if (job_.magnitude) direct(y, job_.maskT, s_.b.data());
    }
    const bool copyFourth = job_.d.copiesFourth(job_.filterAlpha);
    const unsigned char* src = job_.inRow(frame_, y);
    unsigned char* dst = job_.outRow(frame_, y);
    const T* a = s_.a.data();
    const T* b = job_.magnitude ? s_.b.data() : a;
    const Combine combine = job_.filter.combine;
    if constexpr (!std::is_same_v<X, XO>) {  // f32 from u8: the sums as they are, a copied 4th converted
      if constexpr (std::is_same_v<T, float>)
        if (!copyFourth && combine == Combine::Identity) return void(std::memcpy(dst, a, n_ * sizeof(float)));
      for (std::size_t i = 0; i < n_; ++i) {
        if (copyFourth && i % 4 == 3)
          typed::store<XO>(dst + i * sizeof(XO), typed::load<X>(src + i * sizeof(X)), 0.0, Combine::Identity);
        else
          typed::store<XO>(dst + i * sizeof(XO), a[i], b[i], combine);
      }
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      // SIMD stores where they round as store() does: u8 through the RGBA path's finish (its 4th
      // value copied where copyFourth), u16 and f32 without a gradient magnitude.
      if constexpr (std::is_same_v<X, std::uint8_t>) return simd::finish(a, b, combine, !copyFourth, src, dst, n_);
      if constexpr (std::is_same_v<X, std::uint16_t>)
        if (!copyFourth && combine != Combine::Magnitude &&
            reinterpret_cast<std::uintptr_t>(dst) % alignof(std::uint16_t) == 0)
          return simd::finishU16(a, combine == Combine::Abs, reinterpret_cast<std::uint16_t*>(dst), n_);
      if constexpr (std::is_same_v<X, float>)
        if (!copyFourth && combine == Combine::Identity) return void(std::memcpy(dst, a, n_ * sizeof(float)));
    }
    for (std::size_t i = 0; i < n_; ++i) {
      if (copyFourth && i % 4 == 3)
        std::memcpy(dst + i * sizeof(X), src + i * sizeof(X), sizeof(X));
      else
        typed::store<X>(dst + i * sizeof(X), a[i], b[i], combine);
    }
  }

  const Job<T>& job_;
  Scratch<T>& s_;
  int frame_, first_;
  std::size_t slots_, n_, span_, stride_;
};

template <class X, class T, class XO = X>
void runFrames(const FramesPlan& plan, const Filter& f, Border border, bool filterAlpha, const ImageDesc& d,
               const void* in, const ImageDesc& od, void* out) {
  const Job<T> job(plan, f, border, filterAlpha, d, in, od, out);
  auto& scratch = scratchOf<T>();
  simd::forEachBand(d.batch, d.height,
                    [&](int frame, int y0, int y1) { Band<X, T, XO>(job, scratch.local(), frame, y0).run(y0, y1); });
}

// XO's output (X's, or f32 from u8: the sums' budget f32's, relative to the inputs as f32 frames').
template <class X, class XO = X>
void runType(const Filter& f, Border border, bool filterAlpha, const ImageDesc& d, const void* in, const ImageDesc& od,
             void* out) {
  const FramesPlan plan = planFrames(f, od.type);
  if (plan.useDouble)
    runFrames<X, double, XO>(plan, f, border, filterAlpha, d, in, od, out);
  else
    runFrames<X, float, XO>(plan, f, border, filterAlpha, d, in, od, out);
}

// u8x4 frames with rows 4 bytes apart take the tuned RGBA path, frame by frame.
bool rgbaPath(const ImageDesc& d) { return d.isRgba8() && d.rowPitch() % 4 == 0 && d.frameStride() % 4 == 0; }

}  // namespace

Problem cpuSimdImageWhyNot(const Filter& filter, const ImageDesc& image, std::optional<PixelType> outType) {
  // f32 from u8: f32's budget, which double sums always meet (planFrames ends with them).
  if (outType && *outType != image.type)
    return writableAs(image.type, *outType)
               ? Problem{}
               : problem(Problem::Code::Invalid, "image", "cpu-simd: " + outputTypeRefusal(image.type, *outType));
  if (rgbaPath(image)) return cpuSimdWhyNot(filter);
  // Integers: the sums within the 1 LSB budget, double ones at the most (floats keep theirs
  // relative to the inputs).
  if (image.type != PixelType::U8 && image.type != PixelType::U16) return {};
  if (const double bound = planFrames(filter, image.type).bound; bound > 0.45) {
    std::ostringstream s;
    s.precision(3);
    s << "cpu-simd: the weights are too large for a 1 LSB bound on " << pixelTypeName(image.type)
      << " values even with double sums (worst case " << bound << " levels)";
    return problem(Problem::Code::CannotRun, "variant", s.str(), "variant", "cpu");
  }
  return {};
}

void cpuSimdFrames(const Filter& filter, Border border, bool filterAlpha, const ImageDesc& d, const void* in,
                   const ImageDesc& od, void* out) {
  if (d.width < 1 || d.height < 1 || d.batch < 1) return;
  if (od.type != d.type) {
    if (!writableAs(d.type, od.type)) throw std::invalid_argument("cpu-simd: " + outputTypeRefusal(d.type, od.type));
    return runType<std::uint8_t, float>(filter, border, filterAlpha, d, in, od, out);
  }
  if (Problem why = cpuSimdImageWhyNot(filter, d, od.type)) throw ProblemError(why);
  if (rgbaPath(d) && od == d) {
    // The RGBA path, every frame's bands in one loop; padding in the 4th byte is copied as kept
    // alpha is.
    return simd::rgbaFrames(filter, border, filterAlpha && d.alpha,
                            ConstImageView{static_cast<const std::uint8_t*>(in), d.width, d.height, d.rowPitch()},
                            ImageView{static_cast<std::uint8_t*>(out), d.width, d.height, d.rowPitch()}, d.batch,
                            d.frameStride(), d.frameStride());
  }
  switch (d.type) {
    case PixelType::U8:
      return runType<std::uint8_t>(filter, border, filterAlpha, d, in, od, out);
    case PixelType::U16:
      return runType<std::uint16_t>(filter, border, filterAlpha, d, in, od, out);
    case PixelType::F16:
      return runType<typed::Half>(filter, border, filterAlpha, d, in, od, out);
    case PixelType::F32:
      return runType<float>(filter, border, filterAlpha, d, in, od, out);
  }
}

void cpuSimdFrames(const Filter& filter, Border border, bool filterAlpha, const ImageDesc& d, const void* in,
                   void* out) {
  cpuSimdFrames(filter, border, filterAlpha, d, in, d, out);
}

}  // namespace convlive
