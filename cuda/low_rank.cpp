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

// The SVD's terms of `a` (the weights, or the weights less `last`), the smallest count that with
// `last` after them holds the weights within the budget: sqrt(sigma) on each factor, so that
// neither grows much past the other's scale.
std::optional<LowRank> fromSvd(int n, const std::vector<double>& a, const std::vector<float>& weights,
                               const std::vector<SeparableTerm>& last = {}) {
  const Svd svd = singularValueDecomposition(n, a);
  LowRank lr;
  lr.source = LowRank::Source::Svd;
  std::vector<double> residual = asDouble(weights);
  for (const SeparableTerm& t : last) subtract(n, residual, t);
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
  lr.terms.insert(lr.terms.end(), last.begin(), last.end());
  if (lr.rank() >= n && n > 1) return std::nullopt;  // full rank: nothing gained
  return lr;
}

// x with f x = e_centre in the least-squares sense (f: the k factors, each n long), from the normal
// equations by Gaussian elimination with partial pivoting; nullopt where e_centre is not in their
// span (the residual past `tolerance`) or the equations are singular.
std::optional<std::vector<double>> centreCoefficients(int n, const std::vector<const std::vector<float>*>& f,
                                                      double tolerance) {
  const int k = static_cast<int>(f.size()), r = n / 2;
  std::vector<double> g(std::size_t(k) * (k + 1), 0.0);  // [G | b], G = F^T F, b = F^T e
  for (int a = 0; a < k; ++a) {
    for (int b = 0; b < k; ++b)
      for (int i = 0; i < n; ++i) g[std::size_t(a) * (k + 1) + b] += double((*f[a])[i]) * double((*f[b])[i]);
    g[std::size_t(a) * (k + 1) + k] = (*f[a])[r];
  }
  for (int col = 0; col < k; ++col) {
    int pivot = col;
    for (int row = col + 1; row < k; ++row)
      if (std::fabs(g[std::size_t(row) * (k + 1) + col]) > std::fabs(g[std::size_t(pivot) * (k + 1) + col]))
        pivot = row;
    if (std::fabs(g[std::size_t(pivot) * (k + 1) + col]) < 1e-300) return std::nullopt;
    for (int j = 0; j <= k; ++j) std::swap(g[std::size_t(col) * (k + 1) + j], g[std::size_t(pivot) * (k + 1) + j]);
    for (int row = 0; row < k; ++row) {
      if (row == col) continue;
      const double m = g[std::size_t(row) * (k + 1) + col] / g[std::size_t(col) * (k + 1) + col];
      for (int j = col; j <= k; ++j) g[std::size_t(row) * (k + 1) + j] -= m * g[std::size_t(col) * (k + 1) + j];
    }
  }
  std::vector<double> x(k);
  for (int a = 0; a < k; ++a) x[a] = g[std::size_t(a) * (k + 1) + k] / g[std::size_t(a) * (k + 1) + a];
  for (int i = 0; i < n; ++i) {
    double v = 0.0;
    for (int a = 0; a < k; ++a) v += x[a] * double((*f[a])[i]);
    if (std::fabs(v - (i == r ? 1.0 : 0.0)) > tolerance) return std::nullopt;
  }
  return x;
}

// One non-zero weight, at the factor's centre.
bool centreOnly(const std::vector<float>& f) {
  const std::size_t r = f.size() / 2;
  for (std::size_t i = 0; i < f.size(); ++i)
    if ((f[i] != 0.f) != (i == r)) return false;
  return true;
}

// A centre tap peeled off a mask of rank k >= 2: where the centre's unit vector e lies in the span
// of the column factors C and of the row factors R (W = C R^T; masks of even factors: the
// laplacian, differences of gaussians), W - c e e^T has rank k - 1 for c = 1 / (beta^T alpha),
// C alpha = e, R beta = e. The result is its k - 1 terms (SVD) and the centre-only term c delta (x)
// delta, which tensorstream adds at the store (where it reads the stored rows' input back) and
// cpu-simd sums as one tap: a term's products fewer. nullopt where no such c exists, a term is
// centre-only already, or the terms would not hold the weights within the budget.
std::optional<LowRank> withCentrePeeled(int n, const std::vector<float>& weights, const LowRank& lr) {
  const int k = lr.rank();
  if (k < 2 || n < 3 || n % 2 == 0) return std::nullopt;
  if (lr.hasCentreOnlyTerm()) return std::nullopt;
  std::vector<const std::vector<float>*> cols, rows;
  for (const SeparableTerm& t : lr.terms) cols.push_back(&t.col), rows.push_back(&t.row);
  const auto alpha = centreCoefficients(n, cols, 1e-5), beta = centreCoefficients(n, rows, 1e-5);
  if (!alpha || !beta) return std::nullopt;
  double s = 0.0;
  for (int a = 0; a < k; ++a) s += (*alpha)[a] * (*beta)[a];
  const double largest = std::fabs(static_cast<double>(
      *std::max_element(weights.begin(), weights.end(), [](float x, float y) { return std::fabs(x) < std::fabs(y); })));
  if (std::fabs(s) < 1e-12 || !(std::fabs(1.0 / s) <= 4.0 * n * n * largest)) return std::nullopt;
  const float c = static_cast<float>(1.0 / s);
  SeparableTerm centre{std::vector<float>(n, 0.f), std::vector<float>(n, 0.f)};
  centre.col[n / 2] = c;
  centre.row[n / 2] = 1.f;
  std::vector<double> rest = asDouble(weights);
  rest[std::size_t(n / 2) * n + n / 2] -= c;
  std::optional<LowRank> peeled = fromSvd(n, rest, weights, {centre});
  if (!peeled || peeled->rank() > k) return std::nullopt;
  return peeled;
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

int LowRank::centreOnlyTerm() const {
  for (int t = 0; t < rank(); ++t)
    if (centreOnly(terms[t].col) && centreOnly(terms[t].row)) return t;
  return -1;
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
  std::optional<LowRank> lr;
  if (!known.empty() && fits(side, known) && (known.size() < std::size_t(side) || known.size() == 1)) {
    lr = LowRank{known, LowRank::Source::Factors, truncationOf(side, weights, known)};
    if (lr->truncation > kLowRankTruncationBudget) lr.reset();
  }
  if (!lr) lr = fromSvd(side, asDouble(weights), weights);
  if (lr)
    if (std::optional<LowRank> peeled = withCentrePeeled(side, weights, *lr)) return peeled;
  return lr;
}

namespace {
// Gram-Schmidt (modified, twice) on the k columns f (each n long): q (n x k, column t at q[t n],
// orthonormal or zero where a column adds nothing) and r (k x k, row-major, upper) with f = q r.
void orthonormalise(int n, const std::vector<const std::vector<float>*>& f, std::vector<double>& q,
                    std::vector<double>& r) {
  const int k = static_cast<int>(f.size());
  q.assign(std::size_t(n) * k, 0.0);
  r.assign(std::size_t(k) * k, 0.0);
  for (int t = 0; t < k; ++t) {
    double* x = &q[std::size_t(t) * n];
    double scale = 0.0;
    for (int i = 0; i < n; ++i) x[i] = (*f[t])[i], scale = std::max(scale, std::fabs(x[i]));
    for (int pass = 0; pass < 2; ++pass)
      for (int s = 0; s < t; ++s) {
        const double* y = &q[std::size_t(s) * n];
        double d = 0.0;
        for (int i = 0; i < n; ++i) d += x[i] * y[i];
        for (int i = 0; i < n; ++i) x[i] -= d * y[i];
        r[std::size_t(s) * k + t] += d;
      }
    double norm = 0.0;
    for (int i = 0; i < n; ++i) norm += x[i] * x[i];
    norm = std::sqrt(norm);
    if (norm <= 1e-13 * scale) norm = 0.0;  // within the others' span
    r[std::size_t(t) * k + t] = norm;
    for (int i = 0; i < n; ++i) x[i] = norm > 0.0 ? x[i] / norm : 0.0;
  }
}
}  // namespace

std::optional<LowRank> fewerTerms(int side, const std::vector<float>& weights, const LowRank& lowRank) {
  const int k = lowRank.rank(), n = side;
  if (k < 2 || !fits(side, lowRank.terms) || weights.size() != std::size_t(n) * n) return std::nullopt;
  std::vector<const std::vector<float>*> cols, rows;
  for (const SeparableTerm& t : lowRank.terms) cols.push_back(&t.col), rows.push_back(&t.row);
  std::vector<double> qc, rc, qr, rr;
  orthonormalise(n, cols, qc, rc);
  orthonormalise(n, rows, qr, rr);
  std::vector<double> core(std::size_t(k) * k, 0.0);  // Rc Rr^T
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b)
      for (int t = 0; t < k; ++t)
        core[std::size_t(a) * k + b] += rc[std::size_t(a) * k + t] * rr[std::size_t(b) * k + t];
  const Svd svd = singularValueDecomposition(k, core);
  LowRank lr;
  lr.source = LowRank::Source::Svd;
  for (int m = 0; m + 1 < k; ++m) {  // the first m + 1 terms: s u_m (x) s v_m, s = sqrt(sigma_m)
    if (svd.sigma[m] == 0.0) return std::nullopt;
    const double s = std::sqrt(svd.sigma[m]);
    SeparableTerm t{std::vector<float>(n, 0.f), std::vector<float>(n, 0.f)};
    for (int i = 0; i < n; ++i) {
      double c = 0.0, r = 0.0;
      for (int a = 0; a < k; ++a) {
        c += qc[std::size_t(a) * n + i] * svd.u[std::size_t(m) * k + a];
        r += qr[std::size_t(a) * n + i] * svd.v[std::size_t(m) * k + a];
      }
      t.col[i] = static_cast<float>(s * c);
      t.row[i] = static_cast<float>(s * r);
    }
    lr.terms.push_back(std::move(t));
    lr.truncation = truncationOf(side, weights, lr.terms);
    if (lr.truncation <= kLowRankTruncationBudget) return lr;
  }
  return std::nullopt;
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
