// The CPU variants' work models (convlive/work_model.hpp), beside their code (reference.cpp,
// cpu_simd.cpp): what each does per output pixel for a filter. Read by the variant table.
#pragma once

#include "convlive/mask.hpp"
#include "convlive/work_model.hpp"

namespace convlive {

// The reference: double sums; separable masks as a row pass into double planes, then a column pass.
WorkModel cpuReferenceModel(const Filter& f);
// cpu-simd: separable masks as a column pass from the 8-bit rows into a float row, then the row
// pass; others in 2D over rows widened to float once; float sums (double where its plan says).
WorkModel cpuSimdModel(const Filter& f);

}  // namespace convlive
