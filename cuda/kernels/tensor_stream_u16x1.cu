// tensorstream's typed instances for u16 grey frames (the kernel: tensor_stream_typed.cuh, Kind
// kU16Values): a warp on four 16-pixel strips, the factors as fp16 high + low parts; at B0 = 1 also
// held to 128 registers, taken where that brings a launch into one wave.
#include "tensor_stream_typed.cuh"

namespace convlive::kernels::typedtensor {

// At B0 = 1 the instance held to 128 registers where it brings the launch into one wave
// (heldFillsOneWave), ptxas's own otherwise.
void launchU16x1(const TypedTensorStreamLaunch& l, const MaskTerms& parts) {
  constexpr int SS = kTensorStreamU16Strips;
  withU16Instance(parts.radius, l.absolute, [&](auto b0) {
    constexpr int B0 = decltype(b0)::value;
    if constexpr (B0 == 1)
      if (heldFillsOneWave<2, SS, 1, kClamp, true, true, kU16Values>(l, 2))
        return launchTypedTensorStream<2, SS, 1, kClamp, true, false, kU16Values, true>(l, parts);
    launchTypedTensorStream<2, SS, B0, kClamp, true, false, kU16Values>(l, parts);
  });
}
LaunchDescription describeU16x1(const TypedTensorStreamLaunch& l, int radius) {
  constexpr int SS = kTensorStreamU16Strips;
  return withU16Instance(radius, l.absolute, [&](auto b0) {
    constexpr int B0 = decltype(b0)::value;
    if constexpr (B0 == 1)
      if (heldFillsOneWave<2, SS, 1, kClamp, true, true, kU16Values>(l, 2))
        return describeTypedTensorStream<2, SS, 1, kClamp, true, true, false, kU16Values, true>(l, radius, 2);
    return describeTypedTensorStream<2, SS, B0, kClamp, true, true, false, kU16Values>(l, radius, 2);
  });
}

}  // namespace convlive::kernels::typedtensor
