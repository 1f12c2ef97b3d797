// stream's RGBA8 kernel on 3x3 masks of any rank (kernels/stream.cu): each input row unpacked once
// and summed with each of the mask's three rows, each mask row's sums added to the output row it
// is that row of; fp32 sums (each row's three taps and the two adds rounded in fp32, then one
// rounding to the byte; the variant refuses weights whose fp32 bound passes 0.45 levels). Single
// RGBA8 frames, Identity or Abs; tile {32, SH} as stream's.
#pragma once

#include "launch.hpp"

namespace convlive::kernels {

void stream3x3(const Launch& l, const Mask2D& m);  // m.radius == 1
LaunchDescription describeStream3x3(const Launch& l);
WorkModel modelStream3x3(const Launch& l);

}  // namespace convlive::kernels
