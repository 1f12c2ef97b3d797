// tensorstream's typed instances for u8x1 frames (the kernel: tensor_stream_typed.cuh).
#include "tensor_stream_typed.cuh"

namespace convlive::kernels::typedtensor {

void launchU8x1(const TypedTensorStreamLaunch& l, const MaskSep& scaled, bool splitIntermediate, bool sumsInByteRange) {
  launchTypedInstance<1, tensorStreamTypedStripPixels(1) / 16>(l, scaled, splitIntermediate, sumsInByteRange);
}
void launchU8x1(const TypedTensorStreamLaunch& l, const MaskTerms& scaled, bool splitIntermediate) {
  launchTypedInstance<1, tensorStreamTypedStripPixels(1) / 16>(l, scaled, splitIntermediate, false);
}
void launchU8x1Magnitude(const TypedTensorStreamLaunch& l, const MaskSep& m, bool splitIntermediate) {
  launchTypedMagnitude<1, tensorStreamTypedMagnitudeStrips(1)>(l, m, splitIntermediate);
}
LaunchDescription describeU8x1(const TypedTensorStreamLaunch& l, int radius, int terms, bool asTerms, bool magnitude,
                               bool splitIntermediate, bool sumsInByteRange) {
  return describeTypedInstance<1, tensorStreamTypedStripPixels(1) / 16, tensorStreamTypedMagnitudeStrips(1)>(
      l, radius, terms, asTerms, magnitude, splitIntermediate, sumsInByteRange);
}

}  // namespace convlive::kernels::typedtensor
