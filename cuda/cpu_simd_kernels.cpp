// The cpu-simd row kernels, compiled once per instruction set by Highway's foreach_target (this
// file includes itself) and dispatched at run time to the best one this CPU runs.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_simd_kernels.cpp"
#include "cpu_simd_kernels.hpp"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

HWY_BEFORE_NAMESPACE();
namespace convlive::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Four vectors a step: enough independent sums to keep both FMA pipes busy. Add: the sums are
// added to acc's values (one more rounding each) instead of replacing them.
template <class T, bool Add = false>
void accumulateRows(const T* const* rows, const T* weights, std::size_t taps, T* acc, std::size_t n) {
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  if (taps == 0) {
    if (!Add)
      for (std::size_t i = 0; i < n; i += N) hn::StoreU(hn::Zero(d), d, acc + i);
    return;
  }
  for (std::size_t i = 0; i < n; i += 4 * N) {
    const T* p = rows[0] + i;
    auto w = hn::Set(d, weights[0]);
    auto a0 = hn::Mul(w, hn::LoadU(d, p));
    auto a1 = hn::Mul(w, hn::LoadU(d, p + N));
    auto a2 = hn::Mul(w, hn::LoadU(d, p + 2 * N));
    auto a3 = hn::Mul(w, hn::LoadU(d, p + 3 * N));
    for (std::size_t k = 1; k < taps; ++k) {
      p = rows[k] + i;
      w = hn::Set(d, weights[k]);
      a0 = hn::MulAdd(w, hn::LoadU(d, p), a0);
      a1 = hn::MulAdd(w, hn::LoadU(d, p + N), a1);
      a2 = hn::MulAdd(w, hn::LoadU(d, p + 2 * N), a2);
      a3 = hn::MulAdd(w, hn::LoadU(d, p + 3 * N), a3);
    }
    if constexpr (Add) {
      a0 = hn::Add(a0, hn::LoadU(d, acc + i));
      a1 = hn::Add(a1, hn::LoadU(d, acc + i + N));
      a2 = hn::Add(a2, hn::LoadU(d, acc + i + 2 * N));
      a3 = hn::Add(a3, hn::LoadU(d, acc + i + 3 * N));
    }
    hn::StoreU(a0, d, acc + i);
    hn::StoreU(a1, d, acc + i + N);
    hn::StoreU(a2, d, acc + i + 2 * N);
    hn::StoreU(a3, d, acc + i + 3 * N);
  }
}

// Four output rows at once from taps + 3 input rows: each input vector is loaded once for up to
// four sums, so that the loads (the rows come from the L2 cache) stop being the limit.
template <class T>
void accumulateFourRows(const T* const* rows, const T* weights, std::size_t taps, T* const* acc, std::size_t n) {
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  const std::ptrdiff_t nt = static_cast<std::ptrdiff_t>(taps);
  for (std::size_t i = 0; i < n; i += N) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (std::ptrdiff_t k = 0; k < nt + 3; ++k) {
      const auto x = hn::LoadU(d, rows[k] + i);
      if (k < nt) a0 = hn::MulAdd(hn::Set(d, weights[k]), x, a0);
      if (k >= 1 && k - 1 < nt) a1 = hn::MulAdd(hn::Set(d, weights[k - 1]), x, a1);
      if (k >= 2 && k - 2 < nt) a2 = hn::MulAdd(hn::Set(d, weights[k - 2]), x, a2);
      if (k >= 3) a3 = hn::MulAdd(hn::Set(d, weights[k - 3]), x, a3);
    }
    hn::StoreU(a0, d, acc[0] + i);
    hn::StoreU(a1, d, acc[1] + i);
    hn::StoreU(a2, d, acc[2] + i);
    hn::StoreU(a3, d, acc[3] + i);
  }
}

// The same for few taps (r <= 4), the count known at compile time: row pointers and weights held in
// registers, the tap loop unrolled, two vectors a row per step.
template <class T, int K>
void accumulateFourRowsFixed(const T* const* rows, const T* weights, T* const* acc, std::size_t n) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const std::size_t N = hn::Lanes(d);
  const T* p[K + 3];
  for (int k = 0; k < K + 3; ++k) p[k] = rows[k];
  V w[K];
  for (int t = 0; t < K; ++t) w[t] = hn::Set(d, weights[t]);
  T* const o0 = acc[0];
  T* const o1 = acc[1];
  T* const o2 = acc[2];
  T* const o3 = acc[3];
  for (std::size_t i = 0; i < n; i += 2 * N) {
    V a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    V b0 = hn::Zero(d), b1 = hn::Zero(d), b2 = hn::Zero(d), b3 = hn::Zero(d);
    for (int k = 0; k < K + 3; ++k) {
      const V x = hn::LoadU(d, p[k] + i);
      const V y = hn::LoadU(d, p[k] + i + N);
      if (k < K) a0 = hn::MulAdd(w[k], x, a0), b0 = hn::MulAdd(w[k], y, b0);
      if (k >= 1 && k - 1 < K) a1 = hn::MulAdd(w[k - 1], x, a1), b1 = hn::MulAdd(w[k - 1], y, b1);
      if (k >= 2 && k - 2 < K) a2 = hn::MulAdd(w[k - 2], x, a2), b2 = hn::MulAdd(w[k - 2], y, b2);
      if (k >= 3) a3 = hn::MulAdd(w[k - 3], x, a3), b3 = hn::MulAdd(w[k - 3], y, b3);
    }
    hn::StoreU(a0, d, o0 + i);
    hn::StoreU(b0, d, o0 + i + N);
    hn::StoreU(a1, d, o1 + i);
    hn::StoreU(b1, d, o1 + i + N);
    hn::StoreU(a2, d, o2 + i);
    hn::StoreU(b2, d, o2 + i + N);
    hn::StoreU(a3, d, o3 + i);
    hn::StoreU(b3, d, o3 + i + N);
  }
}

template <class T, int K, bool Add>
void accumulateRowsFixed(const T* const* rows, const T* weights, T* acc, std::size_t n) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const std::size_t N = hn::Lanes(d);
  const T* p[K];
  V w[K];
  for (int k = 0; k < K; ++k) p[k] = rows[k], w[k] = hn::Set(d, weights[k]);
  for (std::size_t i = 0; i < n; i += 4 * N) {
    V a0 = hn::Mul(w[0], hn::LoadU(d, p[0] + i));
    V a1 = hn::Mul(w[0], hn::LoadU(d, p[0] + i + N));
    V a2 = hn::Mul(w[0], hn::LoadU(d, p[0] + i + 2 * N));
    V a3 = hn::Mul(w[0], hn::LoadU(d, p[0] + i + 3 * N));
    for (int k = 1; k < K; ++k) {
      a0 = hn::MulAdd(w[k], hn::LoadU(d, p[k] + i), a0);
      a1 = hn::MulAdd(w[k], hn::LoadU(d, p[k] + i + N), a1);
      a2 = hn::MulAdd(w[k], hn::LoadU(d, p[k] + i + 2 * N), a2);
      a3 = hn::MulAdd(w[k], hn::LoadU(d, p[k] + i + 3 * N), a3);
    }
    if constexpr (Add) {
      a0 = hn::Add(a0, hn::LoadU(d, acc + i));
      a1 = hn::Add(a1, hn::LoadU(d, acc + i + N));
      a2 = hn::Add(a2, hn::LoadU(d, acc + i + 2 * N));
      a3 = hn::Add(a3, hn::LoadU(d, acc + i + 3 * N));
    }
    hn::StoreU(a0, d, acc + i);
    hn::StoreU(a1, d, acc + i + N);
    hn::StoreU(a2, d, acc + i + 2 * N);
    hn::StoreU(a3, d, acc + i + 3 * N);
  }
}

// Few taps: the unrolled forms; else the loops.
template <class T>
void accumulateFourAny(const T* const* rows, const T* weights, std::size_t taps, T* const* acc, std::size_t n) {
  switch (taps) {
    case 1:
      return accumulateFourRowsFixed<T, 1>(rows, weights, acc, n);
    case 2:
      return accumulateFourRowsFixed<T, 2>(rows, weights, acc, n);
    case 3:
      return accumulateFourRowsFixed<T, 3>(rows, weights, acc, n);
    case 4:
      return accumulateFourRowsFixed<T, 4>(rows, weights, acc, n);
    case 5:
      return accumulateFourRowsFixed<T, 5>(rows, weights, acc, n);
    case 6:
      return accumulateFourRowsFixed<T, 6>(rows, weights, acc, n);
    case 7:
      return accumulateFourRowsFixed<T, 7>(rows, weights, acc, n);
    case 8:
      return accumulateFourRowsFixed<T, 8>(rows, weights, acc, n);
    case 9:
      return accumulateFourRowsFixed<T, 9>(rows, weights, acc, n);
    default:
      return accumulateFourRows(rows, weights, taps, acc, n);
  }
}

template <class T, bool Add = false>
void accumulateAny(const T* const* rows, const T* weights, std::size_t taps, T* acc, std::size_t n) {
  switch (taps) {
    case 1:
      return accumulateRowsFixed<T, 1, Add>(rows, weights, acc, n);
    case 2:
      return accumulateRowsFixed<T, 2, Add>(rows, weights, acc, n);
    case 3:
      return accumulateRowsFixed<T, 3, Add>(rows, weights, acc, n);
    case 4:
      return accumulateRowsFixed<T, 4, Add>(rows, weights, acc, n);
    case 5:
      return accumulateRowsFixed<T, 5, Add>(rows, weights, acc, n);
    case 6:
      return accumulateRowsFixed<T, 6, Add>(rows, weights, acc, n);
    case 7:
      return accumulateRowsFixed<T, 7, Add>(rows, weights, acc, n);
    case 8:
      return accumulateRowsFixed<T, 8, Add>(rows, weights, acc, n);
    case 9:
      return accumulateRowsFixed<T, 9, Add>(rows, weights, acc, n);
    default:
      return accumulateRows<T, Add>(rows, weights, taps, acc, n);
  }
}

// Four rows of column sums straight from 8-bit rows (no widened copy: the frame is read once,
// while the sums are made). K taps known at compile time (0: `taps` at run time).
template <int K>
void accumulateFourBytesT(const std::uint8_t* const* rows, const float* weights, std::size_t taps, float* const* acc,
                          std::size_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<std::uint8_t, decltype(df)> d8;
  using V = hn::Vec<decltype(df)>;
  const std::size_t N = hn::Lanes(df);
  const std::ptrdiff_t nt = K > 0 ? K : static_cast<std::ptrdiff_t>(taps);
  const auto load = [&](const std::uint8_t* p) { return hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(d8, p))); };
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    V a0 = hn::Zero(df), a1 = hn::Zero(df), a2 = hn::Zero(df), a3 = hn::Zero(df);
    for (std::ptrdiff_t k = 0; k < nt + 3; ++k) {
      const V x = load(rows[k] + i);
      if (k < nt) a0 = hn::MulAdd(hn::Set(df, weights[k]), x, a0);
      if (k >= 1 && k - 1 < nt) a1 = hn::MulAdd(hn::Set(df, weights[k - 1]), x, a1);
      if (k >= 2 && k - 2 < nt) a2 = hn::MulAdd(hn::Set(df, weights[k - 2]), x, a2);
      if (k >= 3) a3 = hn::MulAdd(hn::Set(df, weights[k - 3]), x, a3);
    }
    hn::StoreU(a0, df, acc[0] + i);
    hn::StoreU(a1, df, acc[1] + i);
    hn::StoreU(a2, df, acc[2] + i);
    hn::StoreU(a3, df, acc[3] + i);
  }
  for (; i < n; ++i)  // the last values of a row: no vector may read past it
    for (int j = 0; j < 4; ++j) {
      float a = 0.f;
      for (std::ptrdiff_t t = 0; t < nt; ++t) a = std::fma(weights[t], static_cast<float>(rows[j + t][i]), a);
      acc[j][i] = a;
    }
}

void AccumulateFourBytes(const std::uint8_t* const* rows, const float* weights, std::size_t taps, float* const* acc,
                         std::size_t n) {
  switch (taps) {
    case 1:
      return accumulateFourBytesT<1>(rows, weights, taps, acc, n);
    case 2:
      return accumulateFourBytesT<2>(rows, weights, taps, acc, n);
    case 3:
      return accumulateFourBytesT<3>(rows, weights, taps, acc, n);
    case 4:
      return accumulateFourBytesT<4>(rows, weights, taps, acc, n);
    case 5:
      return accumulateFourBytesT<5>(rows, weights, taps, acc, n);
    case 6:
      return accumulateFourBytesT<6>(rows, weights, taps, acc, n);
    case 7:
      return accumulateFourBytesT<7>(rows, weights, taps, acc, n);
    case 8:
      return accumulateFourBytesT<8>(rows, weights, taps, acc, n);
    case 9:
      return accumulateFourBytesT<9>(rows, weights, taps, acc, n);
    default:
      return accumulateFourBytesT<0>(rows, weights, taps, acc, n);
  }
}

void AccumulateFourF32(const float* const* rows, const float* weights, std::size_t taps, float* const* acc,
                       std::size_t n) {
  accumulateFourAny(rows, weights, taps, acc, n);
}
void AccumulateFourF64(const double* const* rows, const double* weights, std::size_t taps, double* const* acc,
                       std::size_t n) {
  accumulateFourAny(rows, weights, taps, acc, n);
}

void AccumulateF32(const float* const* rows, const float* weights, std::size_t taps, float* acc, std::size_t n) {
  accumulateAny(rows, weights, taps, acc, n);
}
void AccumulateF64(const double* const* rows, const double* weights, std::size_t taps, double* acc, std::size_t n) {
  accumulateRows(rows, weights, taps, acc, n);
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// The 16 floats at p + S (p on a 64-byte boundary) from aligned loads: a shift by whole pixels is
// one lane rotation (valignd) of two neighbouring vectors, where an unaligned load would straddle
// two cache lines.
template <int S>
HWY_INLINE __m512 shiftedLoad(const float* p) {
  constexpr int q = S >= 0 ? S / 16 : -((15 - S) / 16);
  constexpr int rem = S - 16 * q;
  if constexpr (rem == 0) {
    return _mm512_load_ps(p + 16 * q);
  } else {
    const __m512i lo = _mm512_castps_si512(_mm512_load_ps(p + 16 * q));
    const __m512i hi = _mm512_castps_si512(_mm512_load_ps(p + 16 * (q + 1)));
    return _mm512_castsi512_ps(_mm512_alignr_epi32(hi, lo, rem));
  }
}

// sum over t < K of w[t] * (the pixel t - K/2 away), in order of t.
template <int K, int... T>
HWY_INLINE __m512 centredSum(const float* p, const __m512* w, std::integer_sequence<int, T...>) {
  __m512 a = _mm512_mul_ps(w[0], shiftedLoad<-4 * (K / 2)>(p));
  ((a = T == 0 ? a : _mm512_fmadd_ps(w[T], shiftedLoad<4 * (T - K / 2)>(p), a)), ...);
  return a;
}

template <int K, bool Add>
void rowPassCentred(const float* centre, const float* weights, float* acc, std::size_t n) {
  __m512 w[K];
  for (int t = 0; t < K; ++t) w[t] = _mm512_set1_ps(weights[t]);
  constexpr auto taps = std::make_integer_sequence<int, K>{};
  for (std::size_t i = 0; i < n; i += 64) {
    const float* p = centre + i;
    __m512 a0 = centredSum<K>(p, w, taps);
    __m512 a1 = centredSum<K>(p + 16, w, taps);
    __m512 a2 = centredSum<K>(p + 32, w, taps);
    __m512 a3 = centredSum<K>(p + 48, w, taps);
    if constexpr (Add) {
      a0 = _mm512_add_ps(a0, _mm512_loadu_ps(acc + i));
      a1 = _mm512_add_ps(a1, _mm512_loadu_ps(acc + i + 16));
      a2 = _mm512_add_ps(a2, _mm512_loadu_ps(acc + i + 32));
      a3 = _mm512_add_ps(a3, _mm512_loadu_ps(acc + i + 48));
    }
    _mm512_storeu_ps(acc + i, a0);
    _mm512_storeu_ps(acc + i + 16, a1);
    _mm512_storeu_ps(acc + i + 32, a2);
    _mm512_storeu_ps(acc + i + 48, a3);
  }
}
#endif

template <bool Add>
void rowPassAny(const float* centre, int first, const float* weights, std::size_t taps, float* acc, std::size_t n) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if (taps % 2 == 1 && first == -static_cast<int>(taps / 2) && reinterpret_cast<std::uintptr_t>(centre) % 64 == 0) {
    switch (taps) {
      case 1:
        return rowPassCentred<1, Add>(centre, weights, acc, n);
      case 3:
        return rowPassCentred<3, Add>(centre, weights, acc, n);
      case 5:
        return rowPassCentred<5, Add>(centre, weights, acc, n);
      case 7:
        return rowPassCentred<7, Add>(centre, weights, acc, n);
      case 9:
        return rowPassCentred<9, Add>(centre, weights, acc, n);
      case 11:
        return rowPassCentred<11, Add>(centre, weights, acc, n);
      case 13:
        return rowPassCentred<13, Add>(centre, weights, acc, n);
      case 15:
        return rowPassCentred<15, Add>(centre, weights, acc, n);
      case 17:
        return rowPassCentred<17, Add>(centre, weights, acc, n);
      default:
        break;
    }
  }
#endif
  const float* rows[kMaxTaps];
  for (std::size_t t = 0; t < taps; ++t) rows[t] = centre + 4 * (first + static_cast<int>(t));
  accumulateAny<float, Add>(rows, weights, taps, acc, n);
}

void RowPass(const float* centre, int first, const float* weights, std::size_t taps, float* acc, std::size_t n,
             bool add) {
  if (add) return rowPassAny<true>(centre, first, weights, taps, acc, n);
  rowPassAny<false>(centre, first, weights, taps, acc, n);
}

template <class T>
void addRow(const T* in, T* acc, std::size_t n) {
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  for (std::size_t i = 0; i < n; i += N) hn::StoreU(hn::Add(hn::LoadU(d, acc + i), hn::LoadU(d, in + i)), d, acc + i);
}
void AddF32(const float* in, float* acc, std::size_t n) { addRow(in, acc, n); }
void AddF64(const double* in, double* acc, std::size_t n) { addRow(in, acc, n); }

// out[i] = in[i] as float (exact), i in [0, n), for unsigned 8- or 16-bit values.
template <class In>
void widenToFloat(const In* in, float* out, std::size_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<In, decltype(df)> dn;
  const std::size_t N = hn::Lanes(df);
  std::size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(dn, in + i))), df, out + i);
  for (; i < n; ++i) out[i] = in[i];
}
void WidenF32(const std::uint8_t* in, float* out, std::size_t n) { widenToFloat(in, out, n); }
void WidenU16F32(const std::uint16_t* in, float* out, std::size_t n) { widenToFloat(in, out, n); }

// out[i] = the u16 nearest |a[i]| (Abs) or a[i], ties to even, saturated to 0..65535.
void FinishU16(const float* a, bool abs, std::uint16_t* out, std::size_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<std::uint16_t, decltype(df)> d16;
  const std::size_t N = hn::Lanes(df);
  const auto lo = hn::Zero(df), hi = hn::Set(df, 65535.f);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    auto v = hn::LoadU(df, a + i);
    if (abs) v = hn::Abs(v);
    v = hn::Min(hn::Max(hn::Round(v), lo), hi);
    hn::StoreU(hn::DemoteTo(d16, hn::ConvertTo(di, v)), d16, out + i);
  }
  for (; i < n; ++i) {
    const float v = abs ? std::fabs(a[i]) : a[i];
    out[i] = static_cast<std::uint16_t>(std::nearbyint(std::clamp(v, 0.f, 65535.f)));
  }
}

void WidenF64(const std::uint8_t* in, double* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = in[i];
}

void NarrowF64(const double* in, float* out, std::size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const std::size_t N = hn::Lanes(dd);
  std::size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::DemoteTo(df, hn::LoadU(dd, in + i)), df, out + i);
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

template <Combine C>
void finishRow(const float* a, const float* b, bool filterAlpha, const std::uint8_t* in, std::uint8_t* out,
               std::size_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<std::uint8_t, decltype(df)> d8;
  const std::size_t N = hn::Lanes(df);
  const auto lo = hn::Zero(df);
  const auto hi = hn::Set(df, 255.f);
  const auto three = hn::Set(d8, std::uint8_t{3});
  const auto alphaLane = hn::Eq(hn::And(hn::Iota(d8, 0), three), three);  // N is a multiple of 4
  std::size_t i = 0;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // AVX-512: 64 values a step. The conversion rounds (to nearest even, as rintf) and the packs
  // saturate to 0..255, so there is no separate rounding or clamping; the cap keeps the conversion
  // from overflowing. The packs interleave 128-bit blocks; one permutation puts them back in order.
  const __m512 cap = _mm512_set1_ps(65536.f);
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __mmask64 alphaBytes = 0x8888888888888888ull;
  for (; i + 64 <= n; i += 64) {
    __m512i q[4];
    for (int k = 0; k < 4; ++k) {
      __m512 v = _mm512_loadu_ps(a + i + 16 * k);
      if constexpr (C == Combine::Abs) v = _mm512_abs_ps(v);
      if constexpr (C == Combine::Magnitude) {
        const __m512 vb = _mm512_loadu_ps(b + i + 16 * k);
        v = _mm512_sqrt_ps(_mm512_fmadd_ps(v, v, _mm512_mul_ps(vb, vb)));
      }
      q[k] = _mm512_cvtps_epi32(_mm512_min_ps(v, cap));
    }
    const __m512i packed = _mm512_packus_epi16(_mm512_packs_epi32(q[0], q[1]), _mm512_packs_epi32(q[2], q[3]));
    __m512i bytes = _mm512_permutexvar_epi32(order, packed);
    if (!filterAlpha) bytes = _mm512_mask_blend_epi8(alphaBytes, bytes, _mm512_loadu_si512(in + i));
    _mm512_storeu_si512(out + i, bytes);
  }
#endif
  for (; i + N <= n; i += N) {
    auto v = hn::LoadU(df, a + i);
    if constexpr (C == Combine::Abs) v = hn::Abs(v);
    if constexpr (C == Combine::Magnitude) {
      const auto vb = hn::LoadU(df, b + i);
      v = hn::Sqrt(hn::MulAdd(v, v, hn::Mul(vb, vb)));
    }
    v = hn::Min(hn::Max(hn::Round(v), lo), hi);
    auto bytes = hn::DemoteTo(d8, hn::ConvertTo(di, v));
    if (!filterAlpha) bytes = hn::IfThenElse(alphaLane, hn::LoadU(d8, in + i), bytes);
    hn::StoreU(bytes, d8, out + i);
  }
  for (; i < n; ++i)
    out[i] = !filterAlpha && i % 4 == 3 ? in[i]
                                        : saturateToByte(combineValue(a[i], C == Combine::Magnitude ? b[i] : 0.f, C));
}

void Finish(const float* a, const float* b, Combine combine, bool filterAlpha, const std::uint8_t* in,
            std::uint8_t* out, std::size_t n) {
  switch (combine) {
    case Combine::Abs:
      return finishRow<Combine::Abs>(a, b, filterAlpha, in, out, n);
    case Combine::Magnitude:
      return finishRow<Combine::Magnitude>(a, b, filterAlpha, in, out, n);
    case Combine::Identity:
    default:
      return finishRow<Combine::Identity>(a, b, filterAlpha, in, out, n);
  }
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace convlive::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace convlive::simd {

HWY_EXPORT(AccumulateF32);
HWY_EXPORT(AccumulateF64);
HWY_EXPORT(AccumulateFourF32);
HWY_EXPORT(AccumulateFourF64);
HWY_EXPORT(AccumulateFourBytes);
HWY_EXPORT(RowPass);
HWY_EXPORT(AddF32);
HWY_EXPORT(AddF64);
HWY_EXPORT(WidenF32);
HWY_EXPORT(WidenF64);
HWY_EXPORT(WidenU16F32);
HWY_EXPORT(FinishU16);
HWY_EXPORT(NarrowF64);
HWY_EXPORT(Finish);
HWY_EXPORT(TargetName);

void accumulate(const float* const* rows, const float* weights, std::size_t taps, float* acc, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateF32)(rows, weights, taps, acc, n);
}
void accumulate(const double* const* rows, const double* weights, std::size_t taps, double* acc, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateF64)(rows, weights, taps, acc, n);
}
void accumulateFour(const float* const* rows, const float* weights, std::size_t taps, float* const* acc,
                    std::size_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateFourF32)(rows, weights, taps, acc, n);
}
void accumulateFour(const double* const* rows, const double* weights, std::size_t taps, double* const* acc,
                    std::size_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateFourF64)(rows, weights, taps, acc, n);
}
void accumulateFour(const std::uint8_t* const* rows, const float* weights, std::size_t taps, float* const* acc,
                    std::size_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateFourBytes)(rows, weights, taps, acc, n);
}
void rowPass(const float* centre, int first, const float* weights, std::size_t taps, float* acc, std::size_t n,
             bool add) {
  HWY_DYNAMIC_DISPATCH(RowPass)(centre, first, weights, taps, acc, n, add);
}
void add(const float* in, float* acc, std::size_t n) { HWY_DYNAMIC_DISPATCH(AddF32)(in, acc, n); }
void add(const double* in, double* acc, std::size_t n) { HWY_DYNAMIC_DISPATCH(AddF64)(in, acc, n); }
void widen(const std::uint8_t* in, float* out, std::size_t n) { HWY_DYNAMIC_DISPATCH(WidenF32)(in, out, n); }
void widen(const std::uint8_t* in, double* out, std::size_t n) { HWY_DYNAMIC_DISPATCH(WidenF64)(in, out, n); }
void widen(const std::uint16_t* in, float* out, std::size_t n) { HWY_DYNAMIC_DISPATCH(WidenU16F32)(in, out, n); }
void finishU16(const float* a, bool abs, std::uint16_t* out, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(FinishU16)(a, abs, out, n);
}
void narrow(const double* in, float* out, std::size_t n) { HWY_DYNAMIC_DISPATCH(NarrowF64)(in, out, n); }
void finish(const float* a, const float* b, Combine combine, bool filterAlpha, const std::uint8_t* in,
            std::uint8_t* out, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(Finish)(a, b, combine, filterAlpha, in, out, n);
}
const char* targetName() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace convlive::simd
#endif
