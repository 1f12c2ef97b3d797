// The CPU reference: what every variant is checked against, and the `cpu` variant itself.
#pragma once

#include "convlive/image.hpp"
#include "convlive/mask.hpp"

namespace convlive {

// out = filter(in) with double accumulation, on `threads` threads (0: all hardware threads).
// Separable masks run as a row pass then a column pass (same sums, in double, in another order);
// directOnly forces the plain 2D sum (tests compare the two). in and out: host memory, same size,
// not overlapping.
void referenceFilter(const Filter& filter, Border border, bool filterAlpha, ConstImageView in, ImageView out,
                     int threads = 0, bool directOnly = false);

}  // namespace convlive
