// tensorstream's typed instances for u8x3 frames (the kernel: tensor_stream_typed.cuh).
#include "tensor_stream_typed.cuh"

namespace convlive::kernels::typedtensor {

void launchU8x3(const TypedTensorStreamLaunch& l, const MaskSep& scaled, bool splitIntermediate, bool sumsInByteRange) {
  launchTypedInstance<3, tensorStreamTypedStripPixels(3) / 16>(l, scaled, splitIntermediate, sumsInByteRange);
}
void launchU8x3(const TypedTensorStreamLaunch& l, const MaskTerms& scaled, bool splitIntermediate) {
  launchTypedInstance<3, tensorStreamTypedStripPixels(3) / 16>(l, scaled, splitIntermediate, false);
}
void launchU8x3Magnitude(const TypedTensorStreamLaunch& l, const MaskSep& m, bool splitIntermediate) {
  launchTypedMagnitude<3, tensorStreamTypedMagnitudeStrips(3)>(l, m, splitIntermediate);
}
LaunchDescription describeU8x3(const TypedTensorStreamLaunch& l, int radius, int terms, bool asTerms, bool magnitude,
                               bool splitIntermediate, bool sumsInByteRange) {
  return describeTypedInstance<3, tensorStreamTypedStripPixels(3) / 16, tensorStreamTypedMagnitudeStrips(3)>(
      l, radius, terms, asTerms, magnitude, splitIntermediate, sumsInByteRange);
}

}  // namespace convlive::kernels::typedtensor
