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

// The same on frames of any description (convlive/image.hpp: u8, u16, f16 or f32 values, 1, 3 or 4
// channels, a batch). Sums in double; integer outputs rounded to nearest (ties to even) and
// saturated, f16 rounded once from the double sum (convlive/half.hpp), f32 rounded to float. With
// 4 channels the 4th is copied from the input when it is padding (alpha false) or filterAlpha is
// false. This is the accuracy contract's exact result: integer variants stay within 1 LSB of it,
// f16 within 1 ulp, f32 within f32Bound.
void referenceFrames(const Filter& filter, Border border, bool filterAlpha, const ImageDesc& image, const void* in,
                     void* out, int threads = 0, bool directOnly = false);
// The same into output frames laid out as `output` says (its size, channels and batch image's):
// another pitch and frame stride, or f32 values from u8 frames (the double sums rounded to float,
// neither rounded to integers nor clamped; a copied 4th channel converted). Throws
// std::invalid_argument for other pairs of types.
void referenceFrames(const Filter& filter, Border border, bool filterAlpha, const ImageDesc& image, const void* in,
                     const ImageDesc& output, void* out, int threads = 0, bool directOnly = false);

// The f32 accuracy bound for `mask` on inputs no larger than maxAbs in magnitude: 1e-5 x sum|w| x
// maxAbs (for a gradient magnitude, sum|w| of the mask counts for each of the two sums).
double f32Bound(const Mask& mask, double maxAbs);

}  // namespace convlive
