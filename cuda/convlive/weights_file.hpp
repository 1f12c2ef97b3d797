// Mask weights from text and files: a grid of numbers read from a text/CSV file or a NumPy .npy
// file, and one vector of numbers given as text ("1,2,1"). Problems come back as values whose
// detail names the file and the place in it (row, column) and says what to do; the setting is left
// for the caller to fill in. Plain functions: any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "convlive/problem.hpp"

namespace convlive {

// Whether a number read as a double is a finite float once rounded: up to f32's largest value and
// the texts that round to it ("3.4028235e38", its shortest text, is a little above it as a double).
inline bool roundsToFiniteFloat(double v) {
  return v == v && v < 0x1.ffffffp+127 && v > -0x1.ffffffp+127;  // the halfway point rounds to Inf
}

// rows x cols numbers, row-major (row 0 on top).
struct WeightGrid {
  int rows = 0, cols = 0;
  std::vector<float> values;
};

// The largest side a mask may have: 2 * Mask::kMaxRadius + 1.
inline constexpr int kMaxMaskSide = 129;
// Files larger than this are refused before they are read (129x129 numbers as text take ~0.5 MB).
inline constexpr long long kMaxWeightsFileBytes = 16ll << 20;

// Reads a weights file, by its extension: .npy is NumPy (float32 or float64, 2D, C or Fortran
// order, little-endian); .txt, .csv, .tsv, .dat or none is text: one row of numbers a line, split
// by commas and/or whitespace, blank lines and '#' comments skipped. Checks the numbers (finite)
// and that rows agree in length, not the mask's shape (see gridShapeProblem). `out` is unchanged
// on a problem.
Problem readWeightsFile(const std::string& path, WeightGrid& out);
// The two formats from memory; `name` is the file's name in messages.
Problem parseWeightsText(std::string_view text, const std::string& name, WeightGrid& out);
Problem parseNpy(std::string_view bytes, const std::string& name, WeightGrid& out);
// One vector: numbers split by commas and/or whitespace ("1,2,1", "1 2 1").
Problem parseWeightVector(std::string_view text, std::vector<float>& out);

// Why a rows x cols grid cannot be a mask ("" when it can): a square with an odd side, or one row
// or one column of odd length, at most kMaxMaskSide. `subject` starts the sentence and takes
// "are": "custom weights", "the weights in 'm.txt'".
std::string gridShapeProblem(int rows, int cols, const std::string& subject);

}  // namespace convlive
