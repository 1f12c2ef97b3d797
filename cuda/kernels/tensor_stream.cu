// tensorstream for separable masks: the entry points (the kernel: tensor_stream.cuh).
#include "tensor_stream.cuh"

namespace convlive::kernels {
StripSchedule tensorStreamSchedule(const Launch& l, int radius, int slots, int edgeDivisor) {
  return tensorStreamB0<3, kClamp, false>(
      radius, [&](auto k) { return scheduleOf<decltype(k)::B0>(l, radius, slots, edgeDivisor); });
}

int tensorStreamEdgeDivisor(const Launch& l, int radius, int slots) {
  return tensorStreamB0<3, kClamp, false>(radius,
                                          [&](auto k) { return edgeDivisorOf<decltype(k)::B0>(l, radius, slots); });
}

std::size_t tensorStreamSharedBytes(int tileW, int radius, bool filterAlpha, int terms) {
  // The ring's size depends only on B0 and whether alpha is kept, not on the output rule or split;
  // one step ahead is the least a launch takes (ringOf goes deeper only where that fits).
  return tensorStreamB0<3, kClamp, false>(radius, [&](auto k) {
    constexpr int B0 = decltype(k)::B0;
    return sharedBytes<B0>(tileW / 16, 1, filterAlpha ? kHistory<B0, 4> : kHistory<B0, 3>, terms);
  });
}

void tensorStream(const Launch& l, const MaskSep& m, const unsigned* fragments, bool splitIntermediate,
                  bool sumsInByteRange) {
  tensorStreamInstance(l, m.radius, splitIntermediate, sumsInByteRange, [&](auto k) {
    using K = decltype(k);
    launchTensorStream<K::B0, K::NCH, K::Out, K::splitH, K::fetched>(l, m, fragments);
  });
}

std::vector<unsigned> tensorStreamFragments(const MaskSep& m) {
  if (!fragmentsFetched(m.radius)) return {};
  return fragmentsOf<1>(scaledForTensorInputs(m));
}

LaunchDescription describeTensorStream(const Launch& l, int radius, bool splitIntermediate, bool sumsInByteRange) {
  return tensorStreamInstance(l, radius, splitIntermediate, sumsInByteRange,
                              [&](auto k) { return describeInstance<decltype(k), false>(l, radius, 1); });
}

WorkModel modelTensorStream(const Launch& l, int radius, bool splitIntermediate) {
  return tensorStreamInstance(l, radius, splitIntermediate, false,
                              [&](auto k) { return modelInstance<decltype(k)>(l, radius, 1); });
}

}  // namespace convlive::kernels
