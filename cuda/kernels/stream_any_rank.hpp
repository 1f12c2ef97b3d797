// stream's RGBA8 kernel on 3x3 and 5x5 masks of any rank (kernels/stream.cu): each input row
// unpacked once and summed with each of the mask's rows, each mask row's sums added to the output
// row it is that row of; fp32 sums (each row's taps and the adds rounded in fp32, then one rounding
// to the byte; the variant refuses weights whose fp32 bound passes 0.45 levels). Single RGBA8
// frames, Identity or Abs; tile {32, SH} as stream's.
#pragma once

#include "launch.hpp"

namespace convlive::kernels {

constexpr int kStreamAnyRankRadius = 2;    // the largest mask of any rank: 5x5
constexpr int kStreamMagnitudeRadius = 2;  // the largest gradient magnitude's mask: 5x5

// Masks mirror-symmetric across both axes (w(y, x) = w(y, -x) = w(-y, x): the laplacian, sharpen, a
// disc, a difference of gaussians) sum each input row's pixels in pairs, x[d] + x[-d], and make R + 1
// row sums, one for mask rows t and 2R - t: at 5x5 11 row instructions a channel value, not 25.
// Other masks whose weights are integers over one divisor n <= 64 (emboss: over r; custom integer
// masks, "-1,-1,-1;-1,8,-1;-1,-1,-1") and whose absolute sum times n is at most 128 sum in integers:
// each channel byte a 16-bit half, two channel values an instruction, exact, then times 1 / n
// (streamAnyRankIntegerWeights).
bool streamMaskMirrorSymmetric(const float* w, int radius);    // (2 radius + 1)^2 weights, row-major
bool streamAnyRankIntegerWeights(const float* w, int radius);  // as above; false where mirror-symmetric
void streamAnyRank(const Launch& l, const Mask2D& m);          // m.radius 1 .. kStreamAnyRankRadius
LaunchDescription describeStreamAnyRank(const Launch& l, int radius, bool symmetric, bool integer);
WorkModel modelStreamAnyRank(const Launch& l, int radius, bool symmetric, bool integer);

// The gradient magnitude of a separable 3x3 or 5x5 mask (sobel, scharr): gx = col (x) row and its
// transpose from the same row window, fp32, sqrt(gx^2 + gy^2) at the store. The factors must be one
// antisymmetric (its centre 0) and one symmetric, their outer weights not 0
// (streamMagnitudeFactorsFit): each factor sums the pairs of taps its symmetry joins.
// At 5x5, factors whose ratios to their outer weights are integers (sobel: 2; 4 and 6) and whose gx
// and gy stay within 16 bits (255 x the absolute sums' product at most 128) take integer sums
// instead: two channel values an instruction, exact, 88 registers (5 blocks an SM) where fp32 takes
// 114 (4); 4K sobel 5x5 0.0495 -> 0.0436 ms, 1.46-1.49x the gaussian (H200)
// (streamMagnitudeIntegerFactors). The others take fp32, the 3x3 ones too (sobel, scharr): their
// factors over the outer weight need 3 instructions a value each way, which integers do not halve
// once the halves' conversions are paid (4K 0.0316 -> 0.0352 ms).
constexpr int kStreamIntegerMagnitudeRadius = 2;
bool streamMagnitudeFactorsFit(const float* row, const float* col, int radius);  // 2 radius + 1 taps each
bool streamMagnitudeIntegerFactors(const float* row, const float* col, int radius);
void streamMagnitude(const Launch& l, const MaskSep& m);  // m.radius 1 .. kStreamMagnitudeRadius
LaunchDescription describeStreamMagnitude(const Launch& l, int radius, bool integer);
WorkModel modelStreamMagnitude(const Launch& l, int radius, bool integer);

}  // namespace convlive::kernels
