#include "convlive/mask.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "convlive/weights_file.hpp"

namespace convlive {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

void checkRadius(int radius, const char* kind, int lo = 1, int hi = Mask::kMaxRadius) {
  if (radius < lo || radius > hi) {
    std::ostringstream s;
    s << kind << " radius " << radius << " is out of range: use " << lo << ".." << hi;
    fail(s.str());
  }
}

std::vector<float> outer(const std::vector<float>& col, const std::vector<float>& row) {
  std::vector<float> w(col.size() * row.size());
  for (size_t i = 0; i < col.size(); ++i)
    for (size_t j = 0; j < row.size(); ++j) w[i * row.size() + j] = col[i] * row[j];
  return w;
}

// Binomial coefficients of order n (n+1 values), scaled to sum `total`.
std::vector<float> binomial(int n, double total) {
  std::vector<double> c(n + 1, 1.0);
  for (int k = 1; k < n; ++k) c[k] = c[k - 1] * (n - k + 1) / k;
  const double s = std::ldexp(1.0, n);
  std::vector<float> out(n + 1);
  for (int k = 0; k <= n; ++k) out[k] = static_cast<float>(c[k] / s * total);
  return out;
}

std::vector<float> gaussian1d(int radius, float sigma) {
  std::vector<double> g(2 * radius + 1);
  for (int k = -radius; k <= radius; ++k) g[k + radius] = std::exp(-(double(k) * k) / (2.0 * sigma * sigma));
  const double s = std::accumulate(g.begin(), g.end(), 0.0);
  std::vector<float> out(g.size());
  for (size_t i = 0; i < g.size(); ++i) out[i] = static_cast<float>(g[i] / s);
  return out;
}

float resolveSigma(int radius, float sigma) {
  if (!std::isfinite(sigma)) fail("sigma must be a finite number");
  return sigma > 0.f ? sigma : defaultGaussianSigma(radius);
}

// 2r+1 values, all zero but the centre's.
std::vector<float> centreTap(int radius, float value) {
  std::vector<float> d(2 * radius + 1, 0.f);
  d[radius] = value;
  return d;
}

std::vector<float> scaled(std::vector<double> v, double by) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<float>(v[i] * by);
  return out;
}

}  // namespace

struct Mask::LowRankCache {
  std::vector<SeparableTerm> known;
  std::once_flag once, onceForBytes;
  std::optional<LowRank> value, forBytes;
};

Mask::Mask(int radius, std::vector<float> weights, std::vector<SeparableTerm> terms)
    : Mask(radius, std::move(weights)) {
  lowRank_->known = std::move(terms);
}

const std::optional<LowRank>& Mask::lowRank() const {
  std::call_once(lowRank_->once, [this] {
    const std::vector<SeparableTerm> own{{col_, row_}};
    lowRank_->value = decomposeMask(size(), weights_, separable_ ? own : lowRank_->known);
  });
  return lowRank_->value;
}

const std::optional<LowRank>& Mask::lowRankForBytes() const {
  const std::optional<LowRank>& all = lowRank();
  std::call_once(lowRank_->onceForBytes, [&] {
    if (all) lowRank_->forBytes = fewerTerms(size(), weights_, *all);
  });
  return lowRank_->forBytes ? lowRank_->forBytes : all;
}

Mask::Mask(int radius, std::vector<float> weights)
    : radius_(radius), weights_(std::move(weights)), lowRank_(std::make_shared<LowRankCache>()) {
  if (radius < 0 || radius > kMaxRadius) {
    std::ostringstream s;
    s << "mask radius " << radius << " is out of range: use 0.." << kMaxRadius;
    fail(s.str());
  }
  const size_t n = static_cast<size_t>(size());
  if (weights_.size() != n * n) {
    std::ostringstream s;
    s << "a radius-" << radius << " mask needs " << n * n << " weights, got " << weights_.size();
    fail(s.str());
  }
  for (float w : weights_)
    if (!std::isfinite(w)) fail("mask weights must be finite numbers (found NaN or infinity)");

  // Rank-one test: take the row and column through the largest weight as the factors, then check
  // every weight against their product.
  const auto big =
      std::max_element(weights_.begin(), weights_.end(), [](float a, float b) { return std::fabs(a) < std::fabs(b); });
  const float peak = std::fabs(*big);
  if (peak == 0.f) return;  // all zero: treat as 2D, nothing gained
  const size_t p = static_cast<size_t>(big - weights_.begin());
  const size_t pr = p / n, pc = p % n;
  std::vector<float> col(n), row(n);
  for (size_t i = 0; i < n; ++i) col[i] = weights_[i * n + pc];
  for (size_t j = 0; j < n; ++j) row[j] = weights_[pr * n + j] / weights_[p];
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (std::fabs(weights_[i * n + j] - col[i] * row[j]) > 1e-6f * peak) return;
  separable_ = true;
  row_ = std::move(row);
  col_ = std::move(col);
}

Mask Mask::fromFactors(const std::vector<float>& col, const std::vector<float>& row) {
  if (col.size() != row.size() || col.size() % 2 == 0) fail("separable factors must have the same odd length");
  return Mask(static_cast<int>(col.size() / 2), outer(col, row));
}

double absoluteSum(const std::vector<float>& w) {
  double s = 0.0;
  for (float x : w) s += std::fabs(static_cast<double>(x));
  return s;
}

std::string describeRank(const Mask& m) {
  std::ostringstream s;
  s << m.size() << "x" << m.size() << ", ";
  const auto& lr = m.lowRank();
  if (m.separable()) {
    s << "separable (rank 1)";
  } else if (lr && lr->rank() == 0) {
    s << "all zero (rank 0)";
  } else if (!lr) {
    s << "full rank (no low-rank form within " << kLowRankTruncationBudget << " levels)";
  } else {
    s.precision(2);
    s << "rank " << lr->rank() << ": " << lr->rank() << " separable terms ("
      << (lr->source == LowRank::Source::Svd ? "SVD" : "the builder's factors") << ") within " << lr->truncation
      << " levels of the weights";
    if (const auto& bytes = m.lowRankForBytes(); bytes->rank() < lr->rank())
      s << "; for 8-bit outputs " << bytes->rank() << " (their SVD) within " << bytes->truncation;
  }
  return s.str();
}

float Mask::sum() const { return std::accumulate(weights_.begin(), weights_.end(), 0.f); }

Mask Mask::transposed() const {
  const int n = size();
  std::vector<float> t(weights_.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) t[j * n + i] = weights_[i * n + j];
  std::vector<SeparableTerm> terms;
  for (const SeparableTerm& term : lowRank_->known) terms.push_back(term.transposed());
  return Mask(radius_, std::move(t), std::move(terms));
}

float defaultGaussianSigma(int radius) { return 0.3f * static_cast<float>(radius - 1) + 0.8f; }

Mask boxMask(int radius) {
  checkRadius(radius, "box");
  const int n = 2 * radius + 1;
  std::vector<float> f(n, 1.f / static_cast<float>(n));
  return Mask::fromFactors(f, f);
}

Mask gaussianMask(int radius, float sigma) {
  checkRadius(radius, "gaussian");
  const auto g = gaussian1d(radius, resolveSigma(radius, sigma));
  return Mask::fromFactors(g, g);
}

Mask sharpenMask(int radius, float sigma) {
  checkRadius(radius, "sharpen");
  const Mask g = gaussianMask(radius, sigma);
  std::vector<float> w = g.weights();
  for (float& v : w) v = -v;
  w[w.size() / 2] += 2.f;
  // Two terms: the gaussian's factors (one negated) and the centre tap.
  std::vector<float> negated = g.col();
  for (float& v : negated) v = -v;
  return Mask(radius, std::move(w), {{negated, g.row()}, {centreTap(radius, 2.f), centreTap(radius, 1.f)}});
}

Mask embossMask(int radius) {
  checkRadius(radius, "emboss");
  const int n = 2 * radius + 1;
  std::vector<float> w(n * n);
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx)
      w[(dy + radius) * n + dx + radius] = static_cast<float>(dx + dy) / static_cast<float>(radius);
  w[w.size() / 2] = 1.f;
  // Three terms: dx / r along the rows, dy / r down the columns, and the centre's 1.
  std::vector<float> ramp(n), ones(n, 1.f);
  for (int k = -radius; k <= radius; ++k) ramp[k + radius] = static_cast<float>(k) / static_cast<float>(radius);
  return Mask(radius, std::move(w), {{ones, ramp}, {ramp, ones}, {centreTap(radius, 1.f), centreTap(radius, 1.f)}});
}

Mask laplacianMask(int radius) {
  checkRadius(radius, "laplacian");
  const int n = 2 * radius + 1;
  if (radius == 1) return Mask(1, {0, 1, 0, 1, -4, 1, 0, 1, 0}, {{{0, 1, 0}, {1, -2, 1}}, {{1, -2, 1}, {0, 1, 0}}});
  const double s = defaultGaussianSigma(radius), s2 = s * s;
  std::vector<double> w(n * n);
  double mean = 0;
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) {
      const double rr = double(dx) * dx + double(dy) * dy;
      mean += w[(dy + radius) * n + dx + radius] = (rr - 2 * s2) * std::exp(-rr / (2 * s2));
    }
  mean /= n * n;
  double response = 0;  // to f(x, y) = x^2, whose Laplacian is 2
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) response += (w[(dy + radius) * n + dx + radius] - mean) * dx * dx;
  std::vector<float> out(n * n);
  const double scale = 2.0 / response;
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>((w[i] - mean) * scale);
  // (x^2 + y^2 - 2s^2) g(x) g(y) = (x^2 - s^2) g(x) g(y) + g(x) (y^2 - s^2) g(y), g(x) = e^(-x^2/2s^2):
  // two terms, and the mean a third (a constant).
  std::vector<double> g(n), a(n), ones(n, 1.0);
  for (int k = -radius; k <= radius; ++k) {
    g[k + radius] = std::exp(-double(k) * k / (2 * s2));
    a[k + radius] = (double(k) * k - s2) * g[k + radius];
  }
  return Mask(radius, std::move(out),
              {{scaled(g, scale), scaled(a, 1.0)},
               {scaled(a, scale), scaled(g, 1.0)},
               {scaled(ones, -mean * scale), scaled(ones, 1.0)}});
}

Mask sobelXMask(int radius) {
  checkRadius(radius, "sobel");
  // Smoothing: binomial of order 2r scaled to sum 4 ([1 2 1] at r=1). Derivative: binomial of order
  // 2r-2 (sum 1) convolved with [-1 0 1], so a ramp of slope 1 gives 2 as [-1 0 1] does.
  const auto smooth = binomial(2 * radius, 4.0);
  const auto b = binomial(2 * radius - 2, 1.0);
  std::vector<float> deriv(2 * radius + 1, 0.f);
  for (size_t k = 0; k < b.size(); ++k) {
    deriv[k] -= b[k];
    deriv[k + 2] += b[k];
  }
  return Mask::fromFactors(smooth, deriv);
}

Mask scharrXMask(int radius) {
  if (radius != 1) fail("scharr is defined for radius 1 only (use sobel for larger radii)");
  return Mask::fromFactors({3.f, 10.f, 3.f}, {-1.f, 0.f, 1.f});
}

Mask pitchMask(float pitch, bool vertical) {
  if (!std::isfinite(pitch) || pitch < 1.f || pitch > static_cast<float>(Mask::kMaxRadius)) {
    std::ostringstream s;
    s << "pitch " << pitch << " is out of range: use 1.." << Mask::kMaxRadius << " pixels";
    fail(s.str());
  }
  const int lo = static_cast<int>(std::floor(pitch));
  const float f = pitch - static_cast<float>(lo);
  const int radius = f > 0.f ? lo + 1 : lo;
  const int n = 2 * radius + 1;
  // 1D taps: c - (east + west)/2, east = (1-f) I[x+lo] + f I[x+lo+1], likewise west.
  std::vector<float> taps(n, 0.f);
  taps[radius] = 1.f;
  taps[radius + lo] -= 0.5f * (1.f - f);
  taps[radius - lo] -= 0.5f * (1.f - f);
  if (f > 0.f) {
    taps[radius + lo + 1] -= 0.5f * f;
    taps[radius - lo - 1] -= 0.5f * f;
  }
  std::vector<float> delta(n, 0.f);
  delta[radius] = 1.f;
  return vertical ? Mask::fromFactors(taps, delta) : Mask::fromFactors(delta, taps);
}

Mask parseCustomMask(std::string_view text, bool normalize) {
  WeightGrid grid;
  std::string all(text);
  std::stringstream rowsIn(all);
  std::string rowText;
  int rowNumber = 0;
  while (std::getline(rowsIn, rowText, ';')) {
    ++rowNumber;
    // Values are split by commas or by spaces; two commas with nothing between them are a missing
    // value ("1,,2"), not one separator.
    std::vector<float> row;
    auto take = [&](const std::string& token) {
      char* end = nullptr;
      const double v = std::strtod(token.c_str(), &end);
      if (end != token.c_str() + token.size()) fail("custom weight '" + token + "' is not a number");
      if (!roundsToFiniteFloat(v))
        fail("custom weight '" + token + "' is not a finite number (floats hold up to about 3.4e38)");
      row.push_back(static_cast<float>(v));  // tiny values (1e-50) round to 0, as floats do
    };
    std::stringstream fields(rowText);
    std::string field;
    const bool commas = rowText.find(',') != std::string::npos;
    while (std::getline(fields, field, commas ? ',' : '\n')) {
      std::istringstream values(field);
      std::string token;
      int count = 0;
      while (values >> token) take(token), ++count;
      if (commas && count == 0)
        fail("custom weights row " + std::to_string(rowNumber) + " has an empty value between commas: '" + rowText +
             "'");
    }
    if (commas && rowText.back() == ',')
      fail("custom weights row " + std::to_string(rowNumber) + " ends in a comma: '" + rowText + "'");
    if (row.empty()) fail("custom weights have an empty row: write rows as \"1,2,1;2,4,2;1,2,1\"");
    if (grid.rows > 0 && int(row.size()) != grid.cols) {
      std::ostringstream s;
      s << "custom weights are ragged: row 1 has " << grid.cols << " values, row " << rowNumber << " has "
        << row.size();
      fail(s.str());
    }
    grid.cols = int(row.size());
    ++grid.rows;
    grid.values.insert(grid.values.end(), row.begin(), row.end());
  }
  if (grid.rows == 0) fail("custom weights are empty: write rows as \"1,2,1;2,4,2;1,2,1\"");
  return maskFromGrid(grid, normalize);
}

Mask maskFromGrid(const WeightGrid& g, bool normalize, const std::string& subject) {
  if (const std::string why = gridShapeProblem(g.rows, g.cols, subject); !why.empty()) fail(why);
  const int n = std::max(g.rows, g.cols);
  const int radius = n / 2;
  std::vector<float> weights(std::size_t(n) * n, 0.f);
  for (int i = 0; i < g.rows; ++i)
    for (int j = 0; j < g.cols; ++j) {
      const int r = g.rows == 1 ? n / 2 : i, c = g.cols == 1 ? n / 2 : j;
      weights[std::size_t(r) * n + c] = g.values[std::size_t(i) * g.cols + j];
    }
  if (normalize) {
    const double s = std::accumulate(weights.begin(), weights.end(), 0.0);
    if (std::fabs(s) < 1e-12) fail(subject + " sum to 0, so they cannot be normalised");
    for (float& v : weights) v = static_cast<float>(v / s);
  }
  return Mask(radius, std::move(weights));
}

Mask separableMask(std::vector<float> col, std::vector<float> row, bool normalize) {
  if (col.empty()) col = {1.f};
  if (row.empty()) row = {1.f};
  for (const auto* f : {&col, &row}) {
    const char* which = f == &col ? "column" : "row";
    if (f->size() % 2 == 0 || f->size() > std::size_t(kMaxMaskSide))
      fail(std::string("the ") + which + " factor has " + std::to_string(f->size()) +
           " values: use an odd count up to " + std::to_string(kMaxMaskSide));
    for (float v : *f)
      if (!std::isfinite(v)) fail(std::string("the ") + which + " factor holds a value that is not finite");
  }
  if (normalize) {
    for (auto* f : {&col, &row}) {
      const double s = std::accumulate(f->begin(), f->end(), 0.0);
      if (std::fabs(s) < 1e-12)
        fail(std::string("the ") + (f == &col ? "column" : "row") + " factor sums to 0, so it cannot be normalised");
      for (float& v : *f) v = static_cast<float>(v / s);
    }
  }
  const std::size_t n = std::max(col.size(), row.size());
  for (auto* f : {&col, &row}) {
    const std::size_t pad = (n - f->size()) / 2;
    f->insert(f->begin(), pad, 0.f);
    f->insert(f->end(), pad, 0.f);
  }
  return Mask::fromFactors(col, row);
}

namespace {

// The custom mask's weights from whichever of its settings gives them (exactly one must).
Mask customMask(const FilterSpec& o) {
  using Code = Problem::Code;
  std::vector<std::string> ways;
  if (!o.weights.empty()) ways.push_back("a grid of weights");
  if (!o.weightsFile.empty()) ways.push_back("a weights file");
  if (!o.rowWeights.empty() || !o.colWeights.empty()) ways.push_back("row and column factors");
  if (ways.empty())
    throw ProblemError(problem(Code::Missing, "weights",
                               "the custom mask needs weights: rows as \"1,2,1;2,4,2;1,2,1\", a file of them, or "
                               "row and column factors"));
  if (ways.size() > 1) {
    std::string list;
    for (std::size_t i = 0; i < ways.size(); ++i)
      list += (i == 0 ? "" : i + 1 == ways.size() ? " and " : ", ") + ways[i];
    throw ProblemError(
        problem(Code::Conflict, o.weightsFile.empty() ? "row-weights" : "weights-file",
                "the custom mask is given " + std::to_string(ways.size()) + " ways (" + list + "): keep one"));
  }
  if (!o.weightsFile.empty()) {
    WeightGrid grid;
    if (Problem why = readWeightsFile(o.weightsFile, grid)) {
      why.setting = "weights-file";
      throw ProblemError(why);
    }
    try {
      return maskFromGrid(grid, o.normalize, "the weights in '" + o.weightsFile + "'");
    } catch (const std::invalid_argument& e) {
      throw ProblemError(problem(Code::Invalid, "weights-file", e.what()));
    }
  }
  if (o.weights.empty()) {
    std::vector<float> factors[2];
    const std::string* texts[2] = {&o.colWeights, &o.rowWeights};
    for (int k = 0; k < 2; ++k) {
      if (texts[k]->empty()) continue;
      if (Problem why = parseWeightVector(*texts[k], factors[k])) {
        why.setting = k == 0 ? "col-weights" : "row-weights";
        throw ProblemError(why);
      }
    }
    try {
      return separableMask(factors[0], factors[1], o.normalize);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      throw ProblemError(
          problem(Code::Invalid, what.find("column") != std::string::npos ? "col-weights" : "row-weights", what));
    }
  }
  return parseCustomMask(o.weights, o.normalize);
}

}  // namespace

const std::vector<std::string>& filterKinds() {
  static const std::vector<std::string> kinds{"box",   "gaussian", "sharpen", "emboss", "laplacian",
                                              "sobel", "scharr",   "pitch",   "custom"};
  return kinds;
}

Filter makeFilter(std::string_view kind, FilterSpec spec) {
  spec.mask = std::string(kind);
  return makeFilter(spec);
}

Filter makeFilter(const FilterSpec& o) {
  const std::string_view kind = o.mask;
  Filter f;
  f.name = std::string(kind);
  if (kind == "box") {
    f.mask = boxMask(o.radius);
  } else if (kind == "gaussian") {
    f.mask = gaussianMask(o.radius, o.sigma);
  } else if (kind == "sharpen") {
    f.mask = sharpenMask(o.radius, o.sigma);
  } else if (kind == "emboss") {
    f.mask = embossMask(o.radius);
  } else if (kind == "laplacian") {
    f.mask = laplacianMask(o.radius);
    f.combine = Combine::Abs;
  } else if (kind == "sobel") {
    f.mask = sobelXMask(o.radius);
    f.combine = Combine::Magnitude;
  } else if (kind == "scharr") {
    f.mask = scharrXMask(o.radius);
    f.combine = Combine::Magnitude;
  } else if (kind == "pitch") {
    f.mask = pitchMask(o.pitch, o.vertical);
    f.combine = Combine::Abs;
  } else if (kind == "custom") {
    f.mask = customMask(o);
  } else {
    std::string known;
    for (const auto& k : filterKinds()) known += (known.empty() ? "" : ", ") + k;
    fail("unknown mask '" + std::string(kind) + "': use one of " + known);
  }
  return f;
}

}  // namespace convlive
