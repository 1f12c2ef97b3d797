// tensorstream for masks of low rank: k separable terms in one pass (the kernel: tensor_stream.cuh,
// its Terms instances). Compiled apart from the separable instances (tensor_stream.cu), so that the
// two build in parallel.
#include "tensor_stream.cuh"

namespace convlive::kernels {
namespace {

// The compiled instance for a launch: B0 from the radius, NCH from the alpha mode, Out from the
// combine rule (clamped: a mask of low rank has weights of both signs, or its sums are not
// bounded to the byte range), SplitH from the error plan.
template <int NCH, int Out, bool SplitH, class F>
decltype(auto) termsB0(int radius, F&& f) {
  if (radius <= 8) return f(TensorStreamInstance<1, NCH, Out, SplitH>{});
  if (radius <= 16) return f(TensorStreamInstance<2, NCH, Out, SplitH>{});
  if (radius <= 24) return f(TensorStreamInstance<3, NCH, Out, SplitH>{});
  return f(TensorStreamInstance<4, NCH, Out, SplitH>{});
}
template <int NCH, class F>
decltype(auto) termsOut(const Launch& l, int radius, bool splitH, F&& f) {
  if (l.combine == Combine::Abs)
    return splitH ? termsB0<NCH, kAbs, true>(radius, f) : termsB0<NCH, kAbs, false>(radius, f);
  return splitH ? termsB0<NCH, kClamp, true>(radius, f) : termsB0<NCH, kClamp, false>(radius, f);
}
template <class F>
decltype(auto) termsInstance(const Launch& l, int radius, bool splitH, F&& f) {
  if (l.tileW % 16 || l.tileW < 16 || l.tileW > 128 || l.tileH % 16 || l.tileH < 16) badTile("tensorstream", l);
  if (l.filterAlpha) return termsOut<4>(l, radius, splitH, f);
  return termsOut<3>(l, radius, splitH, f);
}

// One tap at the centre, nothing else.
bool centreOnly(const float* factor, int radius) {
  for (int i = 0; i <= 2 * radius; ++i)
    if ((factor[i] != 0.f) != (i == radius)) return false;
  return true;
}

// A centre-only term (sharpen's 2 delta, emboss's centre) costs a whole set of row and column
// products as a term. Where the kernel has the stored rows' input at the store (alpha kept: B0 = 1
// reads it back from the ring; past r = 8 the one-term instance carries it) it is added there
// instead, one FMA a channel: taken out of the terms (at least one stays; past r = 8, exactly one).
MaskTerms withCentreFolded(const MaskTerms& m, bool filterAlpha) {
  MaskTerms f = m;
  f.centre = 0.f;
  if (!tensorStreamCentreAtStore(m.radius, m.terms, filterAlpha)) return f;
  const int r = m.radius;
  for (int t = 0; t < m.terms; ++t) {
    if (!centreOnly(m.row[t], r) || !centreOnly(m.col[t], r)) continue;
    f.centre = m.row[t][r] * m.col[t][r] * m.outScale;  // added after the sums' scale
    for (int u = t; u + 1 < m.terms; ++u) {
      std::copy(m.row[u + 1], m.row[u + 1] + 2 * r + 1, f.row[u]);
      std::copy(m.col[u + 1], m.col[u + 1] + 2 * r + 1, f.col[u]);
    }
    --f.terms;
    break;
  }
  return f;
}

template <int B0, int NCH, int Out, bool SplitH, bool OneTerm>
void launchInstance(const Launch& l, const MaskTerms& m) {
  const MaskTerms scaled = scaledTerms(m);
  const Ring ring = ringOf<B0, NCH, Out, SplitH, false, true, OneTerm>(l, m.radius, m.terms);
  const StripSchedule& s = ring.schedule;
  const std::size_t shared = sharedBytes<B0>(tensorStreamThreads(l) / 32, ring.ahead, kHistory<B0, NCH>, m.terms);
  constexpr auto kernel = kernelOf<B0, NCH, Out, SplitH, false, true, OneTerm>();
  allowSharedBytes(kernel, shared);
  launchFrames(kernel, s, shared, l, scaled, ring.ahead);
}

// One term left once the centre is folded (sharpen): the instance that knows it has one.
template <int B0, int NCH, int Out, bool SplitH>
void launchTerms(const Launch& l, const MaskTerms& unfolded) {
  const MaskTerms m = withCentreFolded(unfolded, l.filterAlpha);
  if constexpr (NCH == 3)
    if (m.terms == 1) return launchInstance<B0, NCH, Out, SplitH, true>(l, m);
  launchInstance<B0, NCH, Out, SplitH, false>(l, m);
}

}  // namespace

void tensorStreamTerms(const Launch& l, const MaskTerms& m, bool splitIntermediate) {
  termsInstance(l, m.radius, splitIntermediate, [&](auto k) {
    using K = decltype(k);
    launchTerms<K::B0, K::NCH, K::Out, K::splitH>(l, m);
  });
}

namespace {
// The terms of products a launch runs: one fewer where the centre-only term is added at the store.
int productTerms(const Launch& l, int radius, int terms, bool centreOnlyTerm) {
  return centreOnlyTerm && tensorStreamCentreAtStore(radius, terms, l.filterAlpha) ? terms - 1 : terms;
}
}  // namespace

LaunchDescription describeTensorStreamTerms(const Launch& l, int radius, int terms, bool splitIntermediate,
                                            bool centreOnlyTerm) {
  const int products = productTerms(l, radius, terms, centreOnlyTerm);
  LaunchDescription d = termsInstance(l, radius, splitIntermediate, [&](auto k) {
    using K = decltype(k);
    if constexpr (K::NCH == 3)
      if (products == 1) return describeInstance<K, true, false, true>(l, radius, 1);
    return describeInstance<K, true>(l, radius, products);
  });
  if (products < terms)
    for (PassLaunch& p : d.passes)
      p.note +=
          (p.note.empty() ? "" : "; ") + std::string("the centre-only term added at the store, one FMA a channel");
  return d;
}

WorkModel modelTensorStreamTerms(const Launch& l, int radius, int terms, bool splitIntermediate, bool centreOnlyTerm) {
  const int products = productTerms(l, radius, terms, centreOnlyTerm);
  return termsInstance(l, radius, splitIntermediate,
                       [&](auto k) { return modelInstance<decltype(k)>(l, radius, products); });
}

}  // namespace convlive::kernels
