// Convolution masks: square (2r+1)x(2r+1) float weights applied as correlation (weight (0,0), the
// top-left one, multiplies the top-left neighbour, as in OpenCV's filter2D), their separable
// factors when they have them, their low-rank decomposition (convlive/low_rank.hpp), and the
// builders for the masks and filters convlive offers.
#pragma once

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convlive/border.hpp"
#include "convlive/low_rank.hpp"
#include "convlive/spec.hpp"
#include "convlive/weights_file.hpp"

namespace convlive {

class Mask {
 public:
  static constexpr int kMaxRadius = 64;  // the largest any variant takes (separable)

  // weights: (2*radius+1)^2 values, row-major, row 0 on top. Throws std::invalid_argument when the
  // radius is outside 0..kMaxRadius, the count is wrong or a weight is not finite. Detects whether
  // the mask is separable (rank one, up to float rounding) and keeps its factors.
  Mask(int radius, std::vector<float> weights);
  // The same with the separable terms the builder made the weights from (sharpen: -G and 2 delta;
  // emboss; laplacian): lowRank() takes them when they give the weights within its budget, else it
  // decomposes the weights itself.
  Mask(int radius, std::vector<float> weights, std::vector<SeparableTerm> terms);
  // A separable mask from its column (vertical) and row (horizontal) factors: w[i][j] = col[i]*row[j].
  static Mask fromFactors(const std::vector<float>& col, const std::vector<float>& row);

  int radius() const { return radius_; }
  int size() const { return 2 * radius_ + 1; }
  const std::vector<float>& weights() const { return weights_; }
  // dy, dx in -radius..radius
  float at(int dy, int dx) const { return weights_[(dy + radius_) * size() + dx + radius_]; }
  bool separable() const { return separable_; }
  const std::vector<float>& row() const { return row_; }  // empty when not separable
  const std::vector<float>& col() const { return col_; }
  float sum() const;
  Mask transposed() const;  // its terms transposed too
  // The mask as a sum of separable terms (convlive/low_rank.hpp): the separable factors (one
  // term), the builder's terms, or an SVD's; nullopt when the mask is numerically of full rank.
  // Made on the first call (the SVD of a 129 x 129 mask takes about 0.1 s, the others microseconds)
  // and kept: copies of the mask share it (the reference is valid while one of them lives). Safe to
  // call from several threads at once.
  const std::optional<LowRank>& lowRank() const;
  // The same for 8-bit outputs: fewer of lowRank()'s own SVD terms where they hold the weights
  // within its budget (convlive/low_rank.hpp fewerTerms: the laplacian of Gaussian from r = 8, two
  // terms for three), else lowRank(). Its truncation may be a tenth of an 8-bit level: consumers of
  // wider types keep lowRank(). Made once and shared likewise.
  const std::optional<LowRank>& lowRankForBytes() const;
  // The same weights, bit for bit (the factors follow from them): a memcmp, 0.3 us for a 65 x 65
  // mask where comparing floats took 4 (a run compares its mask with the prepared one's).
  bool sameWeights(const Mask& o) const {
    return radius_ == o.radius_ &&
           std::memcmp(weights_.data(), o.weights_.data(), weights_.size() * sizeof(float)) == 0;
  }

 private:
  int radius_;
  std::vector<float> weights_;
  bool separable_ = false;
  std::vector<float> row_, col_;
  struct LowRankCache;  // the builder's terms, and the decomposition once made
  std::shared_ptr<LowRankCache> lowRank_;
};

// The sum of the absolute values (the weights' worst-case gain: error bounds scale with it).
double absoluteSum(const std::vector<float>& w);

// The mask's rank in words, for reports: "17x17, separable (rank 1)", "17x17, rank 2: 2 separable
// terms (the builder's factors) within 1.2e-05 levels of the weights", "17x17, full rank".
std::string describeRank(const Mask& mask);

// A mask plus how its sums become the output: what the kernels run.
struct Filter {
  std::string name;  // for reports: "gaussian", "sobel", ...
  Mask mask{0, {1.f}};
  Combine combine = Combine::Identity;  // Magnitude: gx with mask, gy with mask.transposed()
};

// Mask and filter builders. Each throws std::invalid_argument with a message that names the bad
// value and the accepted range.
float defaultGaussianSigma(int radius);  // 0.3*(r-1)+0.8, OpenCV's getGaussianKernel default
Mask boxMask(int radius);
Mask gaussianMask(int radius, float sigma = 0.f);  // sigma <= 0: defaultGaussianSigma(radius)
Mask sharpenMask(int radius, float sigma = 0.f);   // unsharp mask, amount 1: 2*delta - gaussian
Mask embossMask(int radius);                       // w = (dx+dy)/r, centre 1 (r=1: the classic 3x3)
Mask laplacianMask(int radius);                    // r=1: 4-neighbour; r>1: Laplacian of Gaussian, scaled so x^2 -> 2
Mask sobelXMask(int radius);                       // r=1 classic; r>1 binomial smoothing x derivative (see README)
Mask scharrXMask(int radius);                      // radius 1 only
// Pitch inspection: |2c - (east + west)| / 2 with east/west linearly interpolated `pitch` pixels away
// along the direction: a 1D mask of radius ceil(pitch) (pitch in [1, 64]) with Abs combine.
Mask pitchMask(float pitch, bool vertical);
// Rows split by ';', values by ',' (or spaces): square with an odd side, or one row / one column
// (embedded in a square as a horizontal / vertical mask). normalize: divide by the sum.
Mask parseCustomMask(std::string_view text, bool normalize);
// A grid of weights as a mask, by the same shape rules (an odd square, or one row / one column);
// `subject` names the weights in messages ("custom weights", "the weights in 'm.txt'").
Mask maskFromGrid(const WeightGrid& grid, bool normalize, const std::string& subject = "custom weights");
// A separable mask from its factors: w[i][j] = col[i] * row[j]. Each has an odd length (at most
// 129); an empty one is [1] (a 1D mask along the other). The shorter is padded with zeros at both
// ends to the longer's length (the Mask is square), which leaves the result as it was. normalize:
// each factor divided by its sum (the mask then sums to 1).
Mask separableMask(std::vector<float> col, std::vector<float> row, bool normalize);

// The filter kinds a FilterSpec names, by name.
const std::vector<std::string>& filterKinds();  // box gaussian sharpen emboss laplacian sobel scharr pitch custom
// The filter a spec's mask settings describe (spec.mask and the settings that apply to it). The
// custom mask takes its weights from one of: weights (the grid as text), weights-file (read here,
// on every call) or row-weights and col-weights (the factors). Throws std::invalid_argument naming
// the bad value; a ProblemError (which is one) where the setting at fault is known (the file's
// problems, weights given two ways); FilterSpec::compile words the rest as a Problem.
Filter makeFilter(const FilterSpec& spec);
// The same with the mask kind given apart (tests and benchmarks: makeFilter("gaussian", {.radius = 4})).
Filter makeFilter(std::string_view kind, FilterSpec spec);
// The builders' older name for the spec: the same struct.
using FilterOptions = FilterSpec;

}  // namespace convlive
