// tensorstream for a gradient magnitude (sobel, scharr): the separable mask's two terms, gx and
// gy, in one pass (the kernel: tensor_stream.cuh, its Mag instances). Compiled apart from the
// others, so that it builds in parallel with them.
#include "tensor_stream.cuh"

namespace convlive::kernels {
namespace {

// The compiled instance for a launch: B0 from the radius (1 or 2: at B0 >= 3 the two sets of
// accumulators would not fit the registers), NCH from the alpha mode, SplitH from the error plan.
template <int NCH, bool SplitH, class F>
decltype(auto) magnitudeB0(int radius, F&& f) {
  if (radius <= 8) return f(TensorStreamInstance<1, NCH, kClamp, SplitH>{});
  return f(TensorStreamInstance<2, NCH, kClamp, SplitH>{});
}
template <class F>
decltype(auto) magnitudeInstance(const Launch& l, int radius, bool splitH, F&& f) {
  if (l.tileW % 16 || l.tileW < 16 || l.tileW > 128 || l.tileH % 16 || l.tileH < 16) badTile("tensorstream", l);
  if (radius < 1 || radius > kTensorStreamMaxMagnitudeRadius)
    throw std::invalid_argument("tensorstream: a gradient magnitude at r = " + std::to_string(radius) +
                                " (it takes r = 1.." + std::to_string(kTensorStreamMaxMagnitudeRadius) + ")");
  if (l.filterAlpha) return splitH ? magnitudeB0<4, true>(radius, f) : magnitudeB0<4, false>(radius, f);
  return splitH ? magnitudeB0<3, true>(radius, f) : magnitudeB0<3, false>(radius, f);
}

template <int B0, int NCH, bool SplitH>
void launchMagnitude(const Launch& l, const MaskSep& m) {
  const MaskTerms scaled = scaledTerms(magnitudeTerms(m));
  const Ring ring = ringOf<B0, NCH, kClamp, SplitH, false, true, false, true>(l, m.radius, 2);
  const StripSchedule& s = ring.schedule;
  const std::size_t shared = sharedBytes<B0>(tensorStreamThreads(l) / 32, ring.ahead, kHistory<B0, NCH>, 2);
  constexpr auto kernel = kernelOf<B0, NCH, kClamp, SplitH, false, true, false, true>();
  allowSharedBytes(kernel, shared);
  launchFrames(kernel, s, shared, l, scaled, ring.ahead);
}

}  // namespace

void tensorStreamMagnitude(const Launch& l, const MaskSep& m, bool splitIntermediate) {
  magnitudeInstance(l, m.radius, splitIntermediate, [&](auto k) {
    using K = decltype(k);
    launchMagnitude<K::B0, K::NCH, K::splitH>(l, m);
  });
}

LaunchDescription describeTensorStreamMagnitude(const Launch& l, int radius, bool splitIntermediate) {
  return magnitudeInstance(l, radius, splitIntermediate,
                           [&](auto k) { return describeInstance<decltype(k), true, true>(l, radius, 2); });
}

WorkModel modelTensorStreamMagnitude(const Launch& l, int radius, bool splitIntermediate) {
  return magnitudeInstance(l, radius, splitIntermediate,
                           [&](auto k) { return modelInstance<decltype(k), true>(l, radius, 2); });
}

}  // namespace convlive::kernels
