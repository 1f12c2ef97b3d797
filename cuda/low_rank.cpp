#include "convlive/low_rank.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace convlive {
namespace {

std::size_t nonZero(const std::vector<float>& w) {
  return static_cast<std::size_t>(std::count_if(w.begin(), w.end(), [](float x) { return x != 0.f; }));
}

double absSum(const std::vector<float>& w) {
  double s = 0.0;
  for (float x : w) s += std::fabs(static_cast<double>(x));
  return s;
}

// From the first to the last non-zero value (0 when all are zero).
std::size_t span(const std::vector<float>& w) {
  const auto first = std::find_if(w.begin(), w.end(), [](float x) { return x != 0.f; });
  if (first == w.end()) return 0;
  const auto last = std::find_if(w.rbegin(), w.rend(), [](float x) { return x != 0.f; });
  return static_cast<std::size_t>(last.base() - first);
}

// 255 x the larger of the residual's positive and negative sums: inputs are 0..255, so the
// positive residuals can add up at most to that, as can the negative ones.
double levelsOf(const std::vector<double>& residual) {
  double pos = 0.0, neg = 0.0;
  for (double r : residual) (r > 0 ? pos : neg) += std::fabs(r);
  return 255.0 * std::max(pos, neg);
}

std::vector<double> asDouble(const std::vector<float>& w) { return {w.begin(), w.end()}; }

// residual -= col (x) row (float products are exact in double).
void subtract(int n, std::vector<double>& residual, const SeparableTerm& t) {
  for (int i = 0; i < n; ++i) {
    const double c = t.col[i];
    if (c == 0.0) continue;
    double* r = residual.data() + std::size_t(i) * n;
    for (int j = 0; j < n; ++j) r[j] -= c * static_cast<double>(t.row[j]);
  }
}

bool fits(int side, const std::vector<SeparableTerm>& terms) {
  for (const SeparableTerm& t : terms)
    if (t.col.size() != std::size_t(side) || t.row.size() != std::size_t(side)) return false;
  return true;
}

// The SVD's terms, the smallest count within the budget: sqrt(sigma) on each factor, so that
// neither grows much past the other's scale.
std::optional<LowRank> fromSvd(int n, const std::vector<float>& weights) {
  const Svd svd = singularValueDecomposition(n, asDouble(weights));
  LowRank lr;
  lr.source = LowRank::Source::Svd;
  std::vector<double> residual = asDouble(weights);
  for (int k = 0; k <= n; ++k) {
    lr.truncation = levelsOf(residual);
    if (lr.truncation <= kLowRankTruncationBudget) break;
    if (k == n || svd.sigma[k] == 0.0) return std::nullopt;  // nothing left to take
    const double s = std::sqrt(svd.sigma[k]);
    SeparableTerm t{std::vector<float>(n), std::vector<float>(n)};
    for (int i = 0; i < n; ++i) {
      t.col[i] = static_cast<float>(s * svd.u[std::size_t(k) * n + i]);
      t.row[i] = static_cast<float>(s * svd.v[std::size_t(k) * n + i]);
    }
    subtract(n, residual, t);
    lr.terms.push_back(std::move(t));
  }
  if (lr.rank() >= n && n > 1) return std::nullopt;  // full rank: nothing gained
  return lr;
}

}  // namespace

double gammaBound(std::size_t n, double unitRoundoff) {
  const double nu = static_cast<double>(n) * unitRoundoff;
  return nu < 1.0 ? nu / (1.0 - nu) : std::numeric_limits<double>::infinity();
}

double LowRank::rounding(double u) const {
  double perTerm = 0.0, magnitudes = 0.0;
  for (const SeparableTerm& t : terms) {
    const double gc = gammaBound(nonZero(t.col), u), gr = gammaBound(nonZero(t.row), u);
    const double s = absSum(t.col) * absSum(t.row);
    perTerm += (gc + gr * (1.0 + gc)) * s;
    magnitudes += (1.0 + gc) * (1.0 + gr) * s;
  }
  const std::size_t adds = terms.empty() ? 0 : terms.size() - 1;
  return 255.0 * (perTerm + gammaBound(adds, u) * magnitudes);
}

std::size_t LowRank::columnTaps() const {
  std::size_t n = 0;
  for (const SeparableTerm& t : terms) n += span(t.col);
  return n;
}

std::size_t LowRank::rowTaps() const {
  std::size_t n = 0;
  for (const SeparableTerm& t : terms) n += span(t.row);
  return n;
}

LowRank LowRank::transposed() const {
  LowRank t = *this;
  for (SeparableTerm& term : t.terms) term = term.transposed();
  return t;
}

double truncationOf(int side, const std::vector<float>& weights, const std::vector<SeparableTerm>& terms) {
  std::vector<double> residual = asDouble(weights);
  for (const SeparableTerm& t : terms) subtract(side, residual, t);
  return levelsOf(residual);
}

std::optional<LowRank> decomposeMask(int side, const std::vector<float>& weights,
                                     const std::vector<SeparableTerm>& known) {
  if (side < 1 || weights.size() != std::size_t(side) * side) return std::nullopt;
  if (std::all_of(weights.begin(), weights.end(), [](float w) { return w == 0.f; })) return LowRank{};
  if (!known.empty() && fits(side, known) && (known.size() < std::size_t(side) || known.size() == 1)) {
    LowRank lr{known, LowRank::Source::Factors, truncationOf(side, weights, known)};
    if (lr.truncation <= kLowRankTruncationBudget) return lr;
  }
  return fromSvd(side, weights);
}

Svd singularValueDecomposition(int n, const std::vector<double>& a) {
  const std::size_t N = static_cast<std::size_t>(n);
  // Columns of a (contiguous), rotated in pairs until every pair is orthogonal; v collects the
  // rotations. Then a's column norms are the singular values and its normalised columns U.
  std::vector<double> w(N * N), v(N * N, 0.0);
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < N; ++j) w[j * N + i] = a[i * N + j];
    v[i * N + i] = 1.0;
  }
  const auto dot = [N](const double* x, const double* y) {
    double s = 0.0;
    for (std::size_t i = 0; i < N; ++i) s += x[i] * y[i];
    return s;
  };
  const auto rotate = [N](double* x, double* y, double c, double s) {
    for (std::size_t i = 0; i < N; ++i) {
      const double p = x[i], q = y[i];
      x[i] = c * p - s * q;
      y[i] = s * p + c * q;
    }
  };
  constexpr double kOrthogonal = 1e-15;  // |x.y| <= this * |x| |y|: orthogonal to double precision
  for (int sweep = 0; sweep < 60; ++sweep) {
    bool rotated = false;
    for (std::size_t p = 0; p + 1 < N; ++p)
      for (std::size_t q = p + 1; q < N; ++q) {
        double *x = &w[p * N], *y = &w[q * N];
        const double alpha = dot(x, x), beta = dot(y, y), gamma = dot(x, y);
        if (gamma == 0.0 || std::fabs(gamma) <= kOrthogonal * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2.0 * gamma);
        const double t = std::copysign(1.0, zeta) / (std::fabs(zeta) + std::hypot(1.0, zeta));
        const double c = 1.0 / std::sqrt(1.0 + t * t), s = c * t;
        rotate(x, y, c, s);
        rotate(&v[p * N], &v[q * N], c, s);
      }
    if (!rotated) break;
  }
  std::vector<double> norms(N);
  for (std::size_t j = 0; j < N; ++j) norms[j] = std::sqrt(dot(&w[j * N], &w[j * N]));
  std::vector<std::size_t> order(N);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return norms[x] > norms[y]; });
  Svd out{n, std::vector<double>(N), std::vector<double>(N * N, 0.0), std::vector<double>(N * N)};
  for (std::size_t t = 0; t < N; ++t) {
    const std::size_t j = order[t];
    out.sigma[t] = norms[j];
    for (std::size_t i = 0; i < N; ++i) {
      if (norms[j] > 0.0) out.u[t * N + i] = w[j * N + i] / norms[j];
      out.v[t * N + i] = v[j * N + i];
    }
  }
  return out;
}

}  // namespace convlive
