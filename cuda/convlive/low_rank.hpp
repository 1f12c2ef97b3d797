// Masks as sums of separable terms: w[i][j] = sum over t < k of col_t[i] * row_t[j] (i the row,
// dy + r; j the column, dx + r), k the mask's numerical rank. A rank-k mask then filters as k column
// passes and k row passes, 2k(2r+1) taps an output instead of (2r+1)^2: sharpen (2 delta - G) is
// two terms, emboss and the Laplacian of Gaussian three. The terms are the mask builder's own
// factors where it has them (convlive/mask.hpp), else a singular value decomposition of the
// weights (one-sided Jacobi in double); either way they are checked against the float weights.
// Mask::lowRank() computes this once per mask; a consumer (cpu-simd) decides whether it pays.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace convlive {

// One separable term: w_t[i][j] = col[i] * row[j], both 2r+1 long.
struct SeparableTerm {
  std::vector<float> col, row;
  SeparableTerm transposed() const { return {row, col}; }
};

// The rounding factor of a sum of n products with unit roundoff u (2^-24 float, 2^-53 double):
// gamma(n) = n u / (1 - n u), infinite when n u >= 1. A sum of n terms a_i x_i rounded once a term
// is within gamma(n) * sum |a_i x_i| of the exact sum.
double gammaBound(std::size_t n, double unitRoundoff);

// An 8-bit output is sum w x over inputs x in 0..255. Written as the terms, the mask moves it by at
// most
//   truncation = 255 * max(sum of the positive residuals, sum of the negative residuals),
// residual = w - sum_t col_t[i] row_t[j] (the float factors' products, exact in double); summing the
// terms with unit roundoff u (a term: a column pass of nc_t non-zero taps, then a row pass of nr_t;
// then the k terms added in order) adds at most
//   rounding(u) = 255 * ( sum_t (g(nc_t) + g(nr_t) (1 + g(nc_t))) S_t
//                         + g(k - 1) sum_t (1 + g(nc_t)) (1 + g(nr_t)) S_t ),
// S_t = sum |col_t| * sum |row_t|, g = gammaBound. Both in levels of the 8-bit output; a gradient
// magnitude (two masks) takes sqrt(2) times each.
struct LowRank {
  enum class Source {
    Factors,  // the mask's separable factors, or the builder's (sharpen, emboss, laplacian)
    Svd,      // the singular value decomposition, largest singular values first
  };
  std::vector<SeparableTerm> terms;
  Source source = Source::Factors;
  double truncation = 0.0;  // levels, as above

  int rank() const { return static_cast<int>(terms.size()); }
  double rounding(double unitRoundoff) const;
  double errorBound(double unitRoundoff) const { return truncation + rounding(unitRoundoff); }
  // The taps of the column passes and of the row passes: each factor's span from its first to its
  // last non-zero weight (a centre tap, 2 delta, is one).
  std::size_t columnTaps() const;
  std::size_t rowTaps() const;
  std::size_t taps() const { return columnTaps() + rowTaps(); }
  // Whether a term is one centre tap in both factors (sharpen's 2 delta, a peeled centre): the
  // consumers add it at the store or as one tap.
  bool hasCentreOnlyTerm() const { return centreOnlyTerm() >= 0; }
  int centreOnlyTerm() const;  // the first such term's index, -1 where there is none
  LowRank transposed() const;  // of the transposed mask
};

// The most a decomposition may move an 8-bit output (truncation, in levels): a quarter of the 1 LSB
// rule's half level, so that the consumer's own rounding keeps the rest (cpu-simd: 0.25 in all).
constexpr double kLowRankTruncationBudget = 1.0 / 8;

// The decomposition of a side x side mask (weights row-major): `known` when it is given, within
// the budget and of lower rank than the side, else the smallest k of the SVD within the budget.
// nullopt when that k is the full rank (side) and above 1: the mask is not of low rank. All-zero
// weights give rank 0 (no terms). Where the centre lies in the span of both the column and the
// row factors of k >= 2 terms and no term is centre-only, a centre tap c peels off: W - c e e^T
// has rank k - 1, and the terms become its k - 1 (SVD) and c delta (x) delta, last (an unsharp
// mask 2 delta - G given by its weights; the 5x5 laplacian), which costs one tap (cpu-simd) or no
// products at all (tensorstream, r <= 8, alpha kept).
std::optional<LowRank> decomposeMask(int side, const std::vector<float>& weights,
                                     const std::vector<SeparableTerm>& known = {});

// The leading terms of lowRank's own SVD, the fewest that hold the weights within the budget, where
// they are fewer than its k terms; nullopt otherwise. That SVD comes from the terms' k x k core
// (W = C R^T = Qc (Rc Rr^T) Qr^T, C = Qc Rc and R = Qr Rr by Gram-Schmidt): O(side k^2), not the
// side x side SVD's O(side^3). The laplacian of Gaussian from r = 8: two terms where its builder
// gives three (its mean, a box term, is under the budget there: 0.10 levels at r = 8, 0.006 at
// r = 32). Its truncation is in 8-bit levels: a consumer of wider types keeps lowRank's terms.
std::optional<LowRank> fewerTerms(int side, const std::vector<float>& weights, const LowRank& lowRank);

// The truncation (levels, as LowRank's) of writing the weights as the terms.
double truncationOf(int side, const std::vector<float>& weights, const std::vector<SeparableTerm>& terms);

// A singular value decomposition a = U diag(sigma) V^T of a square n x n matrix (row-major) by
// one-sided Jacobi rotations, in double: sigma descending, u and v column-major (column t of U at
// u[t * n]). About 0.1 s for n = 129.
struct Svd {
  int n = 0;
  std::vector<double> sigma, u, v;
};
Svd singularValueDecomposition(int n, const std::vector<double>& a);

}  // namespace convlive
