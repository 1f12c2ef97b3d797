// Every GPU variant against the CPU reference: every filter kind, border mode, tile shape and alpha
// mode, radii {1, 2, 3, 5, 8, 16, the variant's max}, on fresh random frames. The full cross product
// on small frames (1x1, 7x5, 33x17); a random sample on large ones (640x480, 1917x1079). Outputs are
// poisoned before each launch, with two different values in two launches, so an unwritten pixel
// cannot match the reference. Set CONVLIVE_TEST_SEED to replay a run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <sstream>

#include "convlive/check.hpp"
#include "convlive/precision.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "convlive/tuner.hpp"
#include "convlive/variants.hpp"
#include "filter_cases.hpp"
#include "half_sums_emulation.hpp"
#include "image_compare.hpp"
#include "kernels/schedules.hpp"

using namespace convlive;
using namespace convlive::testcases;

namespace {

// Why fft cannot load cuFFT here ("" when it can), from its refusal of a plain blur.
std::string cufftMissingForTests() {
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = 1});
  const std::string why = findVariant("fft")->whyNot(p, 16, 16).text();
  return why.find("cuFFT") != std::string::npos ? why : "";
}

HostImage randomFrame(int w, int h, std::mt19937& rng) {
  HostImage img(w, h);
  for (auto& p : img.pixels()) p = static_cast<std::uint8_t>(rng() >> 24);
  return img;
}

// The shared radii up to the variant's limit, and the limit itself.
std::vector<int> radiiFor(const Variant& v) {
  std::vector<int> r;
  for (int x : {1, 2, 3, 5, 8, 16})
    if (x < v.maxRadius) r.push_back(x);
  r.push_back(v.maxRadius);
  return r;
}

// At most 1 apart in every channel; else where and by how much.
testing::AssertionResult matches(const HostImage& got, const HostImage& want) {
  return imagesMatch(got.view(), want.view());
}

// One GPU run of v, poisoned with `poison` first; returns the output.
HostImage runGpu(const Variant& v, const FilterParams& p, const DeviceImage& in, DeviceImage& out, Workspace& ws,
                 std::uint8_t poison) {
  CL_CUDA(cudaMemset2D(out.view().data, out.pitch(), poison, std::size_t(out.width()) * 4, out.height()));
  v.run(p, in.view(), out.view(), ws, nullptr);
  HostImage got(in.width(), in.height());
  out.download(got.view());
  CL_CUDA(cudaDeviceSynchronize());
  return got;
}

// One GPU run of v on `in` copied into device rows `pitch` bytes apart (a multiple of 4, not
// necessarily of 16), the output poisoned first; returns the output.
HostImage runGpuPitched(const Variant& v, const FilterParams& p, const HostImage& in, std::size_t pitch,
                        Workspace& ws) {
  DeviceBuffer dinBuf(pitch * in.height()), doutBuf(pitch * in.height());
  ImageView din{static_cast<std::uint8_t*>(dinBuf.get()), in.width(), in.height(), pitch};
  ImageView dout{static_cast<std::uint8_t*>(doutBuf.get()), in.width(), in.height(), pitch};
  CL_CUDA(cudaMemcpy2D(din.data, pitch, in.view().data, in.view().pitch, std::size_t(in.width()) * 4, in.height(),
                       cudaMemcpyHostToDevice));
  CL_CUDA(cudaMemset(dout.data, 0x5a, pitch * in.height()));
  v.run(p, din, dout, ws, nullptr);
  HostImage got(in.width(), in.height());
  CL_CUDA(cudaMemcpy2D(got.view().data, got.view().pitch, dout.data, pitch, std::size_t(in.width()) * 4, in.height(),
                       cudaMemcpyDeviceToHost));
  return got;
}

// One run of a host variant (cpu-simd) on host memory, poisoned with `poison` first.
HostImage runHost(const Variant& v, const FilterParams& p, const HostImage& in, Workspace& ws, std::uint8_t poison) {
  HostImage got(in.width(), in.height());
  std::fill(got.pixels().begin(), got.pixels().end(), poison);
  v.run(p, in.view(), got.view(), ws, nullptr);
  return got;
}

struct Size {
  int w, h;
};

class VariantVsReference : public testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  // Host variants (cpu-simd) run without a device too; GPU variants skip.
  void SetUp() override {
    if (!deviceInfo().available && !hostVariantParam())
      GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  }
  bool hostVariantParam() const {
    if (!testing::UnitTest::GetInstance()->current_test_info()->value_param()) return false;  // a TEST_F
    const Variant* v = findVariant(std::get<0>(GetParam()));
    return v && !v->onGpu;
  }

  // Checks one case (all tiles) against one reference; counts the launches checked.
  void check(const Variant& v, const Filter& f, Border b, bool alpha, const HostImage& in,
             const std::vector<Tile>& tiles) {
    FilterParams p;
    p.filter = f;
    p.border = b;
    p.filterAlpha = alpha;
    HostImage want(in.width(), in.height());
    referenceFilter(f, b, alpha, in.view(), want.view());
    std::optional<DeviceImage> din, dout;
    if (v.onGpu) {
      din.emplace(in.width(), in.height());
      dout.emplace(in.width(), in.height());
      din->upload(in.view());
    }
    int ran = 0;
    for (const Tile& t : tiles) {
      p.tile = t;
      SCOPED_TRACE(testing::Message() << v.name << " " << f.name << " r=" << f.mask.radius()
                                      << " border=" << borderName(b) << " alpha=" << (alpha ? "filtered" : "kept")
                                      << " tile=" << t.str() << " frame=" << in.width() << "x" << in.height()
                                      << " seed=" << seedForRun());
      const std::string why = v.whyNot(p, in.width(), in.height());
      // A large tile may need more shared memory than a block gets at a large radius: the variant
      // refuses it with that reason (the tuner and the panel then offer the others).
      if (why.find("KiB of shared memory") != std::string::npos) continue;
      // fft refuses weights whose float error estimate passes its budget (large embosses: the
      // weights' absolute sum grows as r^3), with that reason; Fft.* checks where it does.
      // The tensor-core variants refuse weights whose absolute sum their truncating fp32 sums cannot
      // hold to the budget (tensor2d: embosses from r=9), with that reason; TensorCores.* and
      // HalfWeights.* check where.
      const bool tensorCores = v.name == "tensor2d" || v.name == "tensorsep" || v.name == "tensorstream";
      // sweep refuses integer frames where its fp32 sums' worst-case error passes its budget (large
      // embosses again), with that reason; PlanOnDevice.* checks where it takes them.
      if ((v.name == "fft" && why.find("estimated at") != std::string::npos) ||
          (v.name == "sweep" && why.find("fp32 sums") != std::string::npos) ||
          (tensorCores && why.find("truncating adds") != std::string::npos) ||
          (v.name == "tensorstream" && why.find("separable terms could move") != std::string::npos)) {
        ++refusedForError_;
        return;
      }
      // tensorstream runs a gradient magnitude to r = 16; past it, it says so.
      if (v.name == "tensorstream" && f.combine == Combine::Magnitude &&
          f.mask.radius() > kernels::kTensorStreamMaxMagnitudeRadius) {
        EXPECT_NE(why.find("gradient magnitude up to r = 16"), std::string::npos) << why;
        ++refusedForRank_;
        return;
      }
      // stream runs gradient magnitudes of 3x3 and 5x5 masks; larger ones it refuses, saying so.
      if (needsOneMask(v.takes) && f.combine == Combine::Magnitude && f.mask.radius() > v.magnitudeRadius) {
        EXPECT_NE(why.find("gradient magnitude"), std::string::npos) << why;
        ++refusedForRank_;
        return;
      }
      // stream takes masks of any rank up to 5x5; larger ones it refuses as not separable.
      if (needsSeparable(v.takes) && !f.mask.separable() && f.mask.radius() > v.anyRankRadius) {
        EXPECT_NE(why.find("not separable"), std::string::npos) << why;
        ++refusedForRank_;
        return;
      }
      // tensorstream takes masks of low rank, up to 4 separable terms; the others it refuses with
      // the reason (custom masks of full rank, the 3x3 emboss).
      if (v.takes == MaskTakes::LowRank && !f.mask.separable() &&
          (!f.mask.lowRankForBytes() || f.mask.lowRankForBytes()->rank() > kernels::kTensorStreamMaxTerms)) {
        EXPECT_NE(why.find("not separable"), std::string::npos) << why;
        ++refusedForRank_;
        return;
      }
      ASSERT_EQ(why, "");
      for (std::uint8_t poison : {std::uint8_t(0x5a), std::uint8_t(0xa5)}) {
        const HostImage got = v.onGpu ? runGpu(v, p, *din, *dout, ws_, poison) : runHost(v, p, in, ws_, poison);
        ASSERT_TRUE(matches(got, want)) << "poison " << int(poison);
        ++checked_;
      }
      ++ran;
    }
    ASSERT_GT(ran, 0) << v.name << " r=" << f.mask.radius() << ": every tile refused";
  }

  Workspace ws_;
  int checked_ = 0, refusedForError_ = 0, refusedForRank_ = 0;
};

TEST_P(VariantVsReference, EqualsTheCpuReference) {
  const auto& [name, kind] = GetParam();
  const Variant& v = *findVariant(name);
  std::mt19937 rng(seedForRun() ^ static_cast<unsigned>(std::hash<std::string>{}(name + kind)));

  // A kind the variant cannot take at all must be refused with the reason, not filtered wrongly.
  const Filter probe = *filterFor(kind, 1, rng);
  // (tensorstream takes masks of low rank too: check() sees its refusals of the others.)
  // (stream takes masks of any rank up to 5x5, the probe's 3x3 among them.)
  const bool separableOnly = needsSeparable(v.takes) && probe.mask.radius() > v.anyRankRadius;
  if (separableOnly && !probe.mask.separable()) {
    FilterParams p;
    p.filter = probe;
    EXPECT_NE(v.whyNot(p, 8, 8).text().find("not separable"), std::string::npos);
    return;
  }
  // (tensorstream runs the gradient magnitude of a separable mask as two terms; stream those of
  // 3x3 and 5x5 masks, the probe's 3x3 among them.)
  const bool oneMaskOnly = needsOneMask(v.takes) && probe.mask.radius() > v.magnitudeRadius;
  if (oneMaskOnly && probe.combine == Combine::Magnitude) {
    FilterParams p;
    p.filter = probe;
    EXPECT_NE(v.whyNot(p, 8, 8).text().find("gradient magnitude"), std::string::npos);
    return;
  }

  // Small frames: the full cross product.
  for (Size s : {Size{1, 1}, Size{7, 5}, Size{33, 17}})
    for (int r : radiiFor(v)) {
      const auto f = filterFor(kind, r, rng);
      if (!f) continue;
      for (Border b : kBorders)
        for (bool alpha : {false, true}) {
          const HostImage in = randomFrame(s.w, s.h, rng);
          check(v, *f, b, alpha, in, v.runnableTiles());
          if (HasFatalFailure()) return;
        }
    }
  // Large frames: a random sample of (radius, border, alpha, tile). The direct 2D reference is
  // slow at large radii, so non-separable masks are sampled at smaller ones there.
  for (Size s : {Size{640, 480}, Size{1917, 1079}})
    for (int sample = 0; sample < 2; ++sample) {
      std::vector<int> radii = radiiFor(v);
      const int cap = probe.mask.separable() ? 1000 : (s.w > 1000 ? 5 : 16);
      std::erase_if(radii, [&](int r) { return r > cap || !filterFor(kind, r, rng); });
      const int r = radii[rng() % radii.size()];
      const HostImage in = randomFrame(s.w, s.h, rng);
      check(v, *filterFor(kind, r, rng), kBorders[rng() % 4], rng() % 2, in,
            v.tiles.empty() ? v.runnableTiles() : std::vector<Tile>{v.tiles[rng() % v.tiles.size()], v.tiles.front()});
      if (HasFatalFailure()) return;
    }
  RecordProperty("launches_checked", checked_);
  RecordProperty("refused_for_the_error_estimate", refusedForError_);
  RecordProperty("refused_for_their_rank", refusedForRank_);
  // Custom masks are of full rank: tensorstream refuses every one, with the reason.
  if (v.takes == MaskTakes::LowRank && kind == "custom")
    EXPECT_GT(refusedForRank_, 0);
  else
    EXPECT_GT(checked_, 0);
}

std::vector<std::string> gpuVariantNames() {
  std::vector<std::string> names;
  for (const Variant& v : variants())
    if (v.onGpu) names.push_back(v.name);
  return names;
}

// Every variant but the reference itself: the GPU ones and cpu-simd.
std::vector<std::string> testedVariantNames() {
  std::vector<std::string> names;
  for (const Variant& v : variants())
    if (v.name != "cpu") names.push_back(v.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllVariants, VariantVsReference,
                         testing::Combine(testing::ValuesIn(testedVariantNames()), testing::ValuesIn(kKinds)),
                         [](const auto& info) {
                           std::string n = std::get<0>(info.param) + "_" + std::get<1>(info.param);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// Separable factors the built-in kinds do not make: asymmetric, so that a tap order reversed in
// either pass shows. lopsided: rising then falling unevenly, a negative first tap (-neg times the
// centre's; sums below 0 reach the clamp), normalised to 1. slope: a derivative leaning one way,
// summing to 0 (with Abs).
std::vector<float> lopsided(int r, float neg) {
  std::vector<float> f(2 * r + 1);
  for (int t = 0; t <= 2 * r; ++t) f[t] = t <= r ? float(t + 1) : float(2 * r + 1 - t) * 0.5f;
  f[0] = -neg * f[r];
  float sum = 0;
  for (float w : f) sum += w;
  for (float& w : f) w /= sum;
  return f;
}
std::vector<float> slope(int r) {
  std::vector<float> f(2 * r + 1);
  for (int t = 0; t <= 2 * r; ++t) f[t] = float(t - r) / r * (t < r ? 0.1f : 0.16f);
  float sum = 0;
  for (float w : f) sum += w;
  f[r] -= sum;
  return f;
}
Filter separableFilter(const std::string& name, std::vector<float> col, std::vector<float> row,
                       Combine combine = Combine::Identity) {
  Filter f;
  f.name = name;
  f.mask = Mask::fromFactors(col, row);
  f.combine = combine;
  return f;
}
// stream's filters at radius r for the tests below: the built-in kinds it takes, a separable
// sharpen (sums below 0 and past 255), the asymmetric factors in fp16 (Identity and Abs) and, six
// times heavier, in fp32; at r = 0 one tap scaled by 1, 1.7 (saturating) and 300 (fp32); at r = 1
// and 2 masks of any rank and gradient magnitudes.
std::vector<Filter> streamFilters(int r, std::mt19937& rng) {
  std::vector<Filter> filters;
  if (r == 0) {
    for (float scale : {1.f, 1.7f, 300.f})
      filters.push_back(separableFilter("identity x" + std::to_string(scale), {1.f}, {scale}));
    return filters;
  }
  for (const char* kind : {"gaussian", "box", "pitch-h", "pitch-v"})
    if (const auto f = filterFor(kind, r, rng)) filters.push_back(*f);
  std::vector<float> sharpen(2 * r + 1, -0.5f / r);
  sharpen[r] = 2.f;
  filters.push_back(separableFilter("separable sharpen", sharpen, sharpen));
  filters.push_back(separableFilter("lopsided", lopsided(r, 0.f), lopsided(r, 0.3f)));
  filters.push_back(separableFilter("lopsided slope", lopsided(r, 0.f), slope(r), Combine::Abs));
  std::vector<float> heavy = lopsided(r, 0.3f);
  for (float& w : heavy) w *= 6.f;
  filters.push_back(separableFilter("lopsided x6", lopsided(r, 0.f), heavy));
  if (r == 1 || r == 2) {  // masks of any rank: a full-rank one, and the laplacian's absolute value
    filters.push_back(makeFilter("custom", {.weights = r == 1 ? "1,-2,3;4,-5,6;-7,8,10"
                                                              : "1,-2,3,-1,2;4,-5,6,2,-3;-7,8,10,-4,1;"
                                                                "2,3,-6,5,-2;-1,4,2,-3,7"}));
    Filter laplacian = makeFilter("laplacian", {.radius = r});
    laplacian.combine = Combine::Abs;
    filters.push_back(laplacian);
    if (r == 2) filters.push_back(makeFilter("emboss", {.radius = 2}));
    // The masks above of integer weights (the custom one, emboss) sum in integers; of full rank but
    // not integers, in fp32; integers with |.| (sums below 0).
    filters.push_back(makeFilter("custom", {.weights = r == 1 ? "1,-2,3;4,-5,6;-7,8,1.41421356"
                                                              : "1,-2,3,-1,2;4,-5,6,2,-3;-7,8,10,-4,1;"
                                                                "2,3,-6,5,-2;-1,4,2,-3,1.41421356"}));
    Filter integerAbs = makeFilter(
        "custom",
        {.weights = r == 1 ? "-1,-2,0;-2,0,2;0,2,1" : "1,0,-2,0,1;0,3,0,-3,0;-2,0,0,0,2;0,3,0,-3,0;1,0,-2,0,1"});
    integerAbs.combine = Combine::Abs;
    filters.push_back(integerAbs);
    // Mirror-symmetric across both axes (the kernel's pairs of pixels and of mask rows), not across
    // the diagonal, of rank 2 and 3, sums below 0 and past 255.
    filters.push_back(makeFilter("custom", {.weights = r == 1 ? "0.3,-0.8,0.3;1.1,0.9,1.1;0.3,-0.8,0.3"
                                                              : "0.1,-0.3,0.5,-0.3,0.1;0.2,0.7,-0.4,0.7,0.2;"
                                                                "-0.6,0.3,1.9,0.3,-0.6;0.2,0.7,-0.4,0.7,0.2;"
                                                                "0.1,-0.3,0.5,-0.3,0.1"}));
    // 3x3 and 5x5 gradient magnitudes (fp32, whatever planHalfSums says of the mask; scharr is 3x3 only).
    for (const char* kind : {"sobel", "scharr"})
      if (const auto f = filterFor(kind, r, rng)) filters.push_back(*f);
    // The factors the kernel takes (one antisymmetric, one symmetric) with weights other than the
    // built-in ones' (no inner weight a multiple of the outer, which the kernel divides by; outer
    // weights of both signs), in both orders, one of them past 255 (saturating).
    const std::vector<float> odd = r == 1 ? std::vector<float>{0.7f, 0.f, -0.7f}
                                          : std::vector<float>{-0.15f, -0.55f, 0.f, 0.55f, 0.15f},
                             even = r == 1 ? std::vector<float>{0.3f, 1.3f, 0.3f}
                                           : std::vector<float>{0.35f, 0.8f, 1.7f, 0.8f, 0.35f};
    filters.push_back(separableFilter("odd x even magnitude", even, odd, Combine::Magnitude));
    std::vector<float> heavyEven = even;
    for (float& w : heavyEven) w *= 3.f;
    filters.push_back(separableFilter("even x odd magnitude x3", odd, heavyEven, Combine::Magnitude));
    // A ratio of sqrt 2 keeps fp32 at both sizes; at 5x5 sobel and a pair of integer ratios (3 and 1,
    // 3, 2 and 1; an outer weight below 0; heavy enough to saturate) take integer sums.
    std::vector<float> irrational = even;
    irrational[r] = 0.3f * std::sqrt(2.f);
    filters.push_back(separableFilter("irrational x odd magnitude", odd, irrational, Combine::Magnitude));
    if (r == 2)
      filters.push_back(separableFilter("integer magnitude", {0.6f, 1.2f, 1.8f, 1.2f, 0.6f},
                                        {0.5f, 1.5f, 0.f, -1.5f, -0.5f}, Combine::Magnitude));
  }
  return filters;
}

// stream at every radius (0..4) on odd frames shorter than any tile and wider than a strip, so that
// its fast path (strips inside the frame, rows by 16-byte cp.async) runs beside the edge strips
// (rows ending inside a lane's pixels, and at a lane's end):
// every border, both alpha modes, every tile, streamFilters' masks. At every radius both number
// formats run (fp16 sums where planHalfSums allows them, fp32 where it does not), and from r = 1
// fp16 with Abs too.
class StreamSmallRadii : public VariantVsReference {};

TEST_F(StreamSmallRadii, FastAndEdgeStripsEqualTheCpuReference) {
  const Variant& v = *findVariant("stream");
  std::mt19937 rng(seedForRun() ^ 0x57e4u);
  for (int r = 0; r <= kernels::kStreamMaxRadius; ++r) {
    int half = 0, single = 0, halfAbs = 0;
    for (const Filter& f : streamFilters(r, rng)) {
      const bool fits = planHalfSums(f.mask).fits && f.combine != Combine::Magnitude;  // magnitudes: fp32
      ++(fits ? half : single);
      if (fits && f.combine == Combine::Abs) ++halfAbs;
      for (Size s : {Size{257, 9}, Size{481, 15}, Size{1917, 7}, Size{121, 5}, Size{3, 11}, Size{480, 7}, Size{8, 6}})
        for (Border b : kBorders)
          for (bool alpha : {false, true}) {
            check(v, f, b, alpha, randomFrame(s.w, s.h, rng), v.tiles);
            if (HasFatalFailure()) return;
          }
    }
    EXPECT_GT(half, 0) << "r=" << r << ": no case ran the fp16 sums";
    EXPECT_GT(single, 0) << "r=" << r << ": no case ran the fp32 sums";
    if (r > 0) {
      EXPECT_GT(halfAbs, 0) << "r=" << r << ": no case ran the fp16 sums with Abs";
    }
  }
  EXPECT_GT(checked_, 0);
}

// Rows whose pitch is 4 or 8 bytes past a multiple of 16, so that no lane's 16-byte copy is
// aligned: every lane takes the bordered copies, in both number formats, at every radius.
TEST_F(StreamSmallRadii, UnalignedRowsEqualTheCpuReference) {
  const Variant& v = *findVariant("stream");
  std::mt19937 rng(seedForRun() ^ 0x57e5u);
  int ran = 0;
  for (int r = 0; r <= kernels::kStreamMaxRadius; ++r)
    for (const Filter& f : streamFilters(r, rng))
      for (std::size_t extra : {4, 8}) {
        const HostImage in = randomFrame(131, 23, rng);
        FilterParams p;
        p.filter = f;
        p.border = kBorders[(r + extra / 4) % 4];
        p.filterAlpha = extra == 8;
        p.tile = v.tiles[r % v.tiles.size()];
        HostImage want(in.width(), in.height());
        referenceFilter(f, p.border, p.filterAlpha, in.view(), want.view());
        const std::size_t pitch = 132 * 4 + extra;
        ASSERT_EQ(v.whyNot(p, in.width(), in.height()).text(), "");
        EXPECT_TRUE(matches(runGpuPitched(v, p, in, pitch, ws_), want)) << f.name << " r=" << r << " pitch " << pitch;
        ++ran;
      }
  EXPECT_GT(ran, 0);
}

// The fp16 kernel against the host emulation of the steps planHalfSums bounds
// (half_sums_emulation.hpp), byte for byte, on the pixels whose window lies inside the frame (the
// border modes are the other tests'): if the kernel's arithmetic strayed from what the bound
// describes (a tap order, a weight's conversion, the offset, the rounding of the last step), a
// byte here would differ even where the result stays within 1 of the reference. Random frames and
// ones of extreme bytes (0 and 255 in stripes), both alpha modes.
TEST_F(StreamSmallRadii, Fp16SumsAreTheEmulatedStepsByteForByte) {
  const Variant& v = *findVariant("stream");
  std::mt19937 rng(seedForRun() ^ 0x57e6u);
  int compared = 0;
  for (int r = 0; r <= kernels::kStreamMaxRadius; ++r)
    for (const Filter& f : streamFilters(r, rng)) {
      const HalfSumsPlan plan = planHalfSums(f.mask);
      if (!plan.fits || f.combine == Combine::Magnitude) continue;  // a magnitude runs in fp32
      const testcases::HalfSumsWeights k(f.mask, plan);
      for (int frame = 0; frame < 2; ++frame) {
        HostImage in = randomFrame(259, 37, rng);
        if (frame == 1)
          for (int y = 0; y < in.height(); ++y)
            for (int x = 0; x < in.width(); ++x)
              for (int c = 0; c < 4; ++c)
                in.view().data[y * in.view().pitch + 4 * x + c] = ((x / (c + 1) + y) % 3 == 0) ? 255 : 0;
        const bool alpha = frame == 1;
        FilterParams p;
        p.filter = f;
        p.filterAlpha = alpha;
        p.tile = v.tiles.front();
        DeviceImage din(in.width(), in.height()), dout(in.width(), in.height());
        din.upload(in.view());
        const HostImage got = runGpu(v, p, din, dout, ws_, 0x5a);
        const ConstImageView iv = in.view();
        for (int y = r; y < in.height() - r; ++y)
          for (int x = r; x < in.width() - r; ++x)
            for (int c = 0; c < 4; ++c) {
              const int byte = got.view().data[y * got.view().pitch + 4 * x + c];
              const int want = c == 3 && !alpha
                                   ? iv.data[y * iv.pitch + 4 * x + 3]
                                   : testcases::halfSumsByte(
                                         testcases::halfSumsOutput(k, f.combine == Combine::Abs, [&](int s, int t) {
                                           return int(iv.data[(y - r + s) * iv.pitch + 4 * (x - r + t) + c]);
                                         }));
              ASSERT_EQ(byte, want) << f.name << " r=" << r << " at (" << x << ", " << y << ") channel " << c
                                    << (alpha ? " alpha filtered" : "") << (frame ? ", stripes" : ", random");
              ++compared;
            }
      }
    }
  EXPECT_GT(compared, 0);
}

// tensorstream's warps walk 16-pixel strips in segments of the tile's height, 16 rows a step, and
// load 4 pixels a lane (16 bytes where the row allows): frames whose width is not a multiple of 16
// or 4, heights that end a segment mid-step, several segments per strip, every radius 0..32 (its
// apron rounds r up to 4 at r <= 8, up to 8 above; four kernels, r <= 8, 16, 24 and 32, the middle
// two making their weights from a staged copy of the factors), every border, both alpha modes, every
// tile; a row pitch that is not a multiple of 16 bytes runs the 4-byte loads. Masks: gaussian and
// box (sums in the byte range: no clamp), pitch (Abs), a separable sharpen (sums below 0 and past
// 255) and a box summing to 1.5 (non-negative, past 255).
// The tensor-core variants run mma.sync m16n8k16: compute capability 8.0 and up.
class TensorCoreVariant : public VariantVsReference {
 protected:
  void SetUp() override {
    VariantVsReference::SetUp();
    if (!IsSkipped() && deviceInfo().major < 8)
      GTEST_SKIP() << "the tensor-core variants need compute capability 8.0 (mma.sync m16n8k16); this device is "
                   << deviceInfo().major << "." << deviceInfo().minor;
  }
};
class TensorStreamStrips : public TensorCoreVariant {};

TEST_F(TensorStreamStrips, EveryStripSegmentAndEdgeEqualsTheCpuReference) {
  const Variant& v = *findVariant("tensorstream");
  std::mt19937 rng(seedForRun() ^ 0x7e57u);
  for (Size s : {Size{70, 300}, Size{33, 129}, Size{16, 16}, Size{259, 47}, Size{5, 3}})
    for (int r = 0; r <= v.maxRadius; ++r) {
      std::vector<Filter> filters;
      if (r == 0) {
        Filter one;
        one.name = "identity";
        one.mask = Mask::fromFactors({1.f}, {1.f});
        filters.push_back(one);
      } else {
        for (const char* kind : {"gaussian", "box", "pitch-h", "pitch-v"})
          if (const auto f = filterFor(kind, r, rng)) filters.push_back(*f);
        // fp16-exact factors, scaled or not (powers of two: 2 at the centre, 2r taps of 2^-k
        // weighing 1/2 to 1 in all), |w| summing to at most 3: the error plan, the tensor cores'
        // sums included, takes every radius.
        int k = 0;
        while ((1 << k) < 2 * r) ++k;
        std::vector<float> factor(2 * r + 1, -std::ldexp(1.f, -k));
        factor[r] = 2.f;
        Filter sharpen;
        sharpen.name = "separable sharpen";
        sharpen.mask = Mask::fromFactors(factor, factor);
        filters.push_back(sharpen);
        // Non-negative factors summing to 1.5: sums past 255 that must saturate (the kernel drops
        // the clamp only for masks whose sums cannot leave the byte range).
        Filter bright;
        bright.name = "bright box";
        bright.mask = Mask::fromFactors(std::vector<float>(2 * r + 1, 1.5f / (2 * r + 1)),
                                        std::vector<float>(2 * r + 1, 1.f / (2 * r + 1)));
        filters.push_back(bright);
      }
      for (const Filter& f : filters) {
        const Border b = kBorders[rng() % 4];
        const bool alpha = rng() % 2;
        check(v, f, b, alpha, randomFrame(s.w, s.h, rng), v.tiles);
        if (HasFatalFailure()) return;
      }
    }
  // Blocks run edge block columns first, their segments apart from the interior's (placeOf): a
  // frame wide enough for interior columns between the edge ones at every tile (517: 5 to 17
  // columns) and tall enough for several segments of each, at each K-chunk count.
  for (int r : {1, 4, 8, 9, 17, 25, 32}) {
    check(v, *filterFor("gaussian", r, rng), kBorders[r % 4], r % 2, randomFrame(517, 133, rng), v.tiles);
    if (HasFatalFailure()) return;
  }
  // A gaussian on a w x h frame: the entries of its schedule with the halved edge split on `slots`
  // places, and the launch the variant describes (what it makes: InspectGpu checks that).
  struct Grids {
    FilterParams params;
    int halvedEntries;
    PassLaunch made;
  };
  auto grids = [&](int w, int h, Tile t, int r, int slots) {
    Grids g{{}, 0, {}};
    g.params.filter = *filterFor("gaussian", r, rng);
    g.params.tile = t;
    kernels::Launch l{};
    l.width = w;
    l.height = h;
    l.tileW = t.w;
    l.tileH = t.h;
    g.halvedEntries = std::make_unique<kernels::StripSchedule>(kernels::tensorStreamSchedule(l, r, slots))->entries;
    g.made = v.describeLaunch(g.params, w, h).passes.at(0);
    return g;
  };
  // Past one wave the edge columns' blocks go ahead (twice the entries): a 4K frame at r = 24 and 32
  // is 1.4 to 4 waves on an H100 or H200 with these tiles; the described grid says the path was taken.
  for (int r : {24, 32})
    for (Tile t : {Tile{64, 256}, Tile{64, 128}}) {
      const Grids g = grids(3840, 2160, t, r, 1);
      if (g.made.grid.x != g.halvedEntries) {
        ADD_FAILURE() << "4K r=" << r << " " << t.str() << ": grid " << g.made.grid.str()
                      << " is not the edges-ahead one (" << g.halvedEntries
                      << " entries): the GPU holds all its blocks at once?";
        continue;
      }
      check(v, g.params.filter, kBorders[r % 4], r % 2, randomFrame(3840, 2160, rng), {t});
      if (HasFatalFailure()) return;
    }
  // Within one round of blocks the edge columns' segments are split an eighth or a quarter of the
  // tile's height (tensorStreamEdgeDivisor): 1080p grids are one round on an H100 or H200 with these
  // tiles; the described grid, more entries than the halved split's, says the finer split was taken.
  for (const auto& [r, t] :
       {std::pair{4, Tile{64, 192}}, std::pair{24, Tile{128, 192}}, std::pair{32, Tile{64, 192}}}) {
    const Grids g = grids(1920, 1080, t, r, 0);
    if (g.made.grid.x <= g.halvedEntries) {
      ADD_FAILURE() << "1080p r=" << r << " " << t.str() << ": grid " << g.made.grid.str()
                    << " has no more entries than the halved split's (" << g.halvedEntries
                    << "): the GPU does not hold it in one round?";
      continue;
    }
    check(v, g.params.filter, kBorders[r % 4], r % 2, randomFrame(1920, 1080, rng), {t});
    if (HasFatalFailure()) return;
  }
  // Factors whose fp16 rounding could move an output past the budget are refused with the reason.
  FilterParams coarse;
  coarse.filter.mask = Mask::fromFactors({1000.3f, 1000.3f, 1000.3f}, {1.f, 1.f, 1.f});
  EXPECT_NE(v.whyNot(coarse, 64, 64).text().find("with fp16 factors the output could be off"), std::string::npos)
      << v.whyNot(coarse, 64, 64).text();
  // Largest weights whose product passes about 256 leave no scale for its fp16 subnormal inputs
  // (convlive/tensor_inputs.hpp): refused, naming tensorsep, which keeps the bytes biased and takes it.
  FilterParams steep;
  steep.filter.mask = Mask::fromFactors({0.f, 1.f, 0.f}, {0.f, 300.f, 0.f});
  ASSERT_TRUE(planHalfSeparable(steep.filter.mask, Combine::Identity).why.empty());
  EXPECT_NE(v.whyNot(steep, 64, 64).text().find("no S keeps both largest weights (1 and 300)"), std::string::npos)
      << v.whyNot(steep, 64, 64).text();
  EXPECT_TRUE(findVariant("tensorsep")->whyNot(steep, 64, 64).empty())
      << findVariant("tensorsep")->whyNot(steep, 64, 64).text();
  // Frames wider than its grid's table of block columns are refused, naming the limit.
  FilterParams wide;
  wide.filter = makeFilter("gaussian", {.radius = 2});
  wide.tile = {32, 64};
  EXPECT_NE(v.whyNot(wide, 70000, 16).text().find("tensorstream takes frames up to 1984 tiles wide"), std::string::npos)
      << v.whyNot(wide, 70000, 16).text();
  EXPECT_TRUE(v.whyNot(wide, 1984 * 32, 16).empty()) << v.whyNot(wide, 1984 * 32, 16).text();
  // And frames taller than 65535 segments (its grid's rows).
  EXPECT_NE(v.whyNot(wide, 16, 65535 * 64 + 1).text().find("tensorstream takes frames up to 4194240 rows tall"),
            std::string::npos)
      << v.whyNot(wide, 16, 65535 * 64 + 1).text();
  EXPECT_TRUE(v.whyNot(wide, 16, 65535 * 64).empty()) << v.whyNot(wide, 16, 65535 * 64).text();
  // A pitch of 4 (mod 16) bytes: the unaligned loads, on a frame whose rows are padded.
  for (int r : {1, 4, 8}) {
    const HostImage in = randomFrame(67, 41, rng);
    FilterParams p;
    p.filter = makeFilter("gaussian", {.radius = r});
    p.border = kBorders[r % 4];
    HostImage want(in.width(), in.height());
    referenceFilter(p.filter, p.border, false, in.view(), want.view());
    const std::size_t pitch = 68 * 4 + 4;  // 276 bytes: a multiple of 4, not of 16
    EXPECT_TRUE(matches(runGpuPitched(v, p, in, pitch, ws_), want)) << "r=" << r << " pitch " << pitch;
    ++checked_;
  }
  EXPECT_GT(checked_, 0);
}

// The input ring at each depth (r 1, 9, 17, 25 and 32: two, three, four and five K chunks), every
// border and alpha mode, short and long segments and 4 or 8 warps a block, and launches whose rings
// prefetch two steps ahead (r = 14, 20, 29): a small set, sized for compute-sanitizer racecheck.
TEST_F(TensorStreamStrips, RingStagesAtEveryDepthBorderAndAlphaMode) {
  const Variant& v = *findVariant("tensorstream");
  std::mt19937 rng(seedForRun() ^ 0x51a6u);
  const std::vector<Tile> tiles = {{64, 32}, {64, 256}, {128, 64}};
  for (Size s : {Size{70, 300}, Size{33, 129}})
    for (int r : {1, 6, 9, 17, 25, 32})  // 6: the weight fragments read from memory
      for (Border b : kBorders)
        for (bool alpha : {false, true}) {
          check(v, *filterFor("gaussian", r, rng), b, alpha, randomFrame(s.w, s.h, rng), tiles);
          if (HasFatalFailure()) return;
        }
  // Two poisons a launch. Every device takes the 4-warp tiles; one with less shared memory a block
  // than the H100/H200 refuses 128x64's at r > 16 (check() skips a tile refused for that).
  FilterParams widest;
  widest.filter = *filterFor("gaussian", 32, rng);
  widest.tile = {128, 64};
  if (v.whyNot(widest, 70, 300).empty())
    EXPECT_EQ(checked_, 2 * 6 * 4 * 2 * 3 * 2);
  else
    EXPECT_GE(checked_, 2 * 6 * 4 * 2 * 2 * 2);
  // At r > 8 a grid of more blocks than the GPU holds at once prefetches two steps ahead, with a
  // deeper ring (ringOf in tensor_stream.cu): the described launch's shared memory says it was
  // taken. With 64x32, a 520-pixel-wide frame is 9 block columns and more (the edge columns split);
  // 2800 rows (r = 10, 14, 20: 4, 4 and 3 blocks an SM) and 1400 (r = 29: 2) make grids past what a
  // GPU of fewer than 198 SMs holds. r=29 with every border, the others with two; both alpha modes.
  struct Deep {
    int r, h;
    std::vector<Border> borders;
  };
  for (const Deep& d : {Deep{10, 2800, {Border::Wrap, Border::Mirror}}, Deep{14, 2800, {Border::Clamp, Border::Zero}},
                        Deep{20, 2800, {Border::Mirror, Border::Wrap}},
                        Deep{29, 1400, std::vector<Border>(std::begin(kBorders), std::end(kBorders))}}) {
    FilterParams deep;
    deep.filter = *filterFor("gaussian", d.r, rng);
    deep.tile = {64, 32};
    const std::size_t oneAhead = kernels::tensorStreamSharedBytes(64, d.r, deep.filterAlpha);
    const std::size_t made = v.describeLaunch(deep, 520, d.h).passes.at(0).dynamicShared;
    EXPECT_TRUE(made > oneAhead || deviceInfo().multiprocessors >= 198)
        << "520x" << d.h << " r=" << d.r << " 64x32: the launch kept one step ahead (" << made
        << " bytes of shared memory a block)";
    for (Border b : d.borders)
      for (bool alpha : {false, true}) {
        check(v, deep.filter, b, alpha, randomFrame(520, d.h, rng), {deep.tile});
        if (HasFatalFailure()) return;
      }
  }
}

// Masks of low rank: every term count tensorstream takes (2..4) at every K-chunk count (r = 1..32),
// clamped and |.|, on odd frames with edge strips and several segments, every border and alpha
// mode at random, every tile; sharpen, emboss and the laplacian on a frame of several block
// columns. A mask of rank 5 is refused naming its rank.
TEST_F(TensorStreamStrips, MasksOfLowRankEqualTheCpuReference) {
  const Variant& v = *findVariant("tensorstream");
  std::mt19937 rng(seedForRun() ^ 0x7a2c5u);
  for (Size s : {Size{70, 300}, Size{259, 47}, Size{5, 3}})
    for (int r : {1, 2, 4, 5, 8, 9, 13, 16, 17, 24, 25, 32})
      for (int k = 2; k <= kernels::kTensorStreamMaxTerms; ++k) {
        if (k >= 2 * r + 1) continue;  // of full rank at r = 1
        const Filter f = rankFilter(r, k, rng, rng() % 3 == 0 ? Combine::Abs : Combine::Identity);
        ASSERT_FALSE(f.mask.separable());
        ASSERT_TRUE(f.mask.lowRank().has_value()) << f.name << " r=" << r;
        ASSERT_EQ(f.mask.lowRank()->rank(), k) << " r=" << r;
        check(v, f, kBorders[rng() % 4], rng() % 2, randomFrame(s.w, s.h, rng), v.tiles);
        if (HasFatalFailure()) return;
      }
  for (int r : {2, 5, 8, 12, 16, 20, 32})
    for (const char* kind : {"sharpen", "emboss", "laplacian"}) {
      const Filter f = makeFilter(kind, {.radius = r});
      ASSERT_TRUE(f.mask.lowRank() && f.mask.lowRank()->rank() <= kernels::kTensorStreamMaxTerms) << kind << r;
      check(v, f, kBorders[rng() % 4], rng() % 2, randomFrame(517, 133, rng),
            {v.tiles.front(), v.tiles[rng() % v.tiles.size()]});
      if (HasFatalFailure()) return;
    }
  // A centre-only term is added at the store where alpha is kept and r <= 8 (sharpen's 2 delta,
  // emboss's centre), and past r = 8 where one term is left (the one-term instances carry the
  // stored rows' input pixels): sharpen at each such radius to 9 and at every K-chunk count past it,
  // every border, and a term of random factors plus 1.37 delta (x) delta, the centre's weight no
  // power of two; alpha filtered keeps it a term.
  for (int r : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 24, 25, 32})
    for (Border b : kBorders) {
      check(v, makeFilter("sharpen", {.radius = r}), b, false, randomFrame(83, 61, rng),
            {v.tiles[rng() % v.tiles.size()]});
      if (HasFatalFailure()) return;
      const int n = 2 * r + 1;
      std::uniform_real_distribution<float> d(-0.2f, 0.5f);
      SeparableTerm random{std::vector<float>(n), std::vector<float>(n)},
          centre{std::vector<float>(n, 0.f), std::vector<float>(n, 0.f)};
      for (int i = 0; i < n; ++i) random.col[i] = d(rng), random.row[i] = d(rng);
      centre.col[r] = 1.37f;
      centre.row[r] = 1.f;
      std::vector<float> w(std::size_t(n) * n);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          w[std::size_t(i) * n + j] = random.col[i] * random.row[j] + (i == r && j == r ? 1.37f : 0.f);
      Filter f;
      f.name = "random + 1.37 centre";
      f.mask = Mask(r, w, {random, centre});
      ASSERT_TRUE(f.mask.lowRank() && f.mask.lowRank()->rank() == 2) << "r=" << r;
      check(v, f, b, rng() % 2, randomFrame(83, 61, rng), {v.tiles[rng() % v.tiles.size()]});
      if (HasFatalFailure()) return;
    }
  EXPECT_GT(checked_, 0);
  FilterParams five;
  five.filter = rankFilter(4, 5, rng);
  const std::string why = v.whyNot(five, 64, 64).text();
  EXPECT_NE(why.find("not separable and is of rank 5"), std::string::npos) << why;
}

// The laplacian of Gaussian from r = 8 as two terms of its builder's three terms' own SVD
// (Mask::lowRankForBytes): every border and alpha mode (a frame size each), at r = 8, 12, 24 and 32
// (its three terms were over the budget there: tensor2d or fft ran it); none refused.
TEST_F(TensorStreamStrips, TheLaplacianAsTwoTermsEqualsTheCpuReference) {
  const Variant& v = *findVariant("tensorstream");
  std::mt19937 rng(seedForRun() ^ 0x1a9cu);
  for (int r : {8, 12, 24, 32}) {
    const Filter f = makeFilter("laplacian", {.radius = r});
    ASSERT_EQ(f.mask.lowRank()->rank(), 3) << "r=" << r;
    ASSERT_EQ(f.mask.lowRankForBytes()->rank(), 2) << "r=" << r;
    for (Border b : kBorders)
      for (bool alpha : {false, true}) {
        const Size s = alpha ? Size{70, 300} : Size{517, 133};
        check(v, f, b, alpha, randomFrame(s.w, s.h, rng), {v.tiles[rng() % v.tiles.size()]});
        if (HasFatalFailure()) return;
      }
    FilterParams p;
    p.filter = f;
    EXPECT_NE(v.describeLaunch(p, 64, 64).passes.at(0).kernel.find("(2 terms)"), std::string::npos) << "r=" << r;
  }
  EXPECT_EQ(refusedForError_, 0);
  EXPECT_GE(checked_, 2 * 4 * 4 * 2);  // poisons x radii x borders x alpha modes
}

// Emboss at r = 3, 5, 6, 7: its ramp j / r is not fp16's, so the host writes it n times over (r's
// odd part: integers, or halves at r = 6) and the kernels multiply their sums by 1 / n at the store
// (convlive/precision.hpp halfTermsOf), before the centre: every border, tile at random, both alpha modes (alpha
// filtered: the centre a term of products, scaled too), two frame sizes; the description says so.
TEST_F(TensorStreamStrips, EmbossWithItsRampAsIntegersEqualsTheCpuReference) {
  const Variant& v = *findVariant("tensorstream");
  std::mt19937 rng(seedForRun() ^ 0xe3b5u);
  for (int r : {3, 5, 6, 7}) {
    const Filter f = makeFilter("emboss", {.radius = r});
    for (Border b : kBorders)
      for (Size s : {Size{517, 133}, Size{70, 300}}) {
        check(v, f, b, false, randomFrame(s.w, s.h, rng), {v.tiles[rng() % v.tiles.size()]});
        if (HasFatalFailure()) return;
      }
    // Alpha filtered: the centre a third term of products (r = 7: 0.449 levels, at the budget's edge).
    check(v, f, kBorders[rng() % 4], true, randomFrame(131, 77, rng), {v.tiles[rng() % v.tiles.size()]});
    if (HasFatalFailure()) return;
    FilterParams p;
    p.filter = f;
    const std::string note = v.describeLaunch(p, 64, 64).passes.at(0).note;
    EXPECT_NE(note.find("factors written " + std::to_string(r % 2 ? r : r / 2) + " times over"), std::string::npos)
        << "r=" << r << ": " << note;
  }
  EXPECT_EQ(refusedForError_, 0);
  EXPECT_GE(checked_, 2 * 4 * (4 * 2 + 1));  // poisons x radii x (borders x sizes + one alpha-filtered)
}

// Emboss r = 8 with alpha kept: its centre added at the store leaves two terms of products, whose
// truncating adds then fit the budget (planHalfTerms' centreAtStore), so tensorstream takes it
// (tensor2d ran it): every border and tile, two frame sizes. With alpha filtered the centre
// stays a term, and on u8x1 and u8x3 frames (the typed kernel runs every term): refused there.
TEST_F(TensorStreamStrips, EmbossWithItsCentreAtTheStoreEqualsTheCpuReference) {
  const Variant& v = *findVariant("tensorstream");
  std::mt19937 rng(seedForRun() ^ 0xe8b0u);
  const Filter f = makeFilter("emboss", {.radius = 8});
  for (Border b : kBorders)
    for (Size s : {Size{517, 133}, Size{70, 300}}) {
      check(v, f, b, false, randomFrame(s.w, s.h, rng), v.tiles);
      if (HasFatalFailure()) return;
    }
  EXPECT_EQ(refusedForError_, 0);
  EXPECT_GE(checked_, 2 * 4 * 2 * 8);  // borders x sizes x poisons x the tiles whose shared memory fits
  FilterParams p;
  p.filter = f;
  EXPECT_EQ(v.describeLaunch(p, 64, 64).passes.at(0).note.find("times over"), std::string::npos)
      << "dx / 8 is fp16's: no divisor";
  p.filterAlpha = true;
  EXPECT_NE(v.whyNot(p, 64, 64).text().find("separable terms could move"), std::string::npos);
  p.filterAlpha = false;
  EXPECT_EQ(v.whyNot(p, ImageDesc::rgba8(64, 64)).text(), "");
  for (int channels : {1, 3}) {
    ImageDesc typed = ImageDesc::rgba8(64, 64);
    typed.channels = channels;
    EXPECT_NE(v.whyNot(p, typed).text().find("separable terms could move"), std::string::npos) << channels;
  }
}

// A gradient magnitude as two terms in one pass (gx = col (x) row, gy = row (x) col, each in sums of
// its own): sobel at every radius tensorstream takes it to, scharr, and random separable masks of
// both signs (fp16-rounded factors, split intermediates where the plan asks) at both K-chunk counts,
// every border and alpha mode at random, on odd frames with edge strips and several segments, every
// tile; past r = 16 and for a mask that is not separable, refused with the reason.
TEST_F(TensorStreamStrips, GradientMagnitudesEqualTheCpuReference) {
  const Variant& v = *findVariant("tensorstream");
  std::mt19937 rng(seedForRun() ^ 0x9a6du);
  for (int r = 1; r <= kernels::kTensorStreamMaxMagnitudeRadius; ++r) {
    check(v, makeFilter("sobel", {.radius = r}), kBorders[rng() % 4], rng() % 2, randomFrame(259, 47, rng),
          r % 4 == 1 ? v.tiles : std::vector<Tile>{v.tiles[rng() % v.tiles.size()]});
    if (HasFatalFailure()) return;
  }
  for (Border b : kBorders)
    for (bool alpha : {false, true}) {
      check(v, makeFilter("scharr", {.radius = 1}), b, alpha, randomFrame(70, 300, rng),
            {v.tiles[rng() % v.tiles.size()]});
      if (HasFatalFailure()) return;
    }
  for (Size s : {Size{70, 300}, Size{517, 133}, Size{5, 3}})
    for (int r : {1, 3, 8, 9, 16}) {
      const int n = 2 * r + 1;
      // Each factor's absolute sum 1.5 (outputs to about 575 levels, clamped at 255): |w| summing
      // to much more is refused for the tensor cores' truncating adds (a test of its own).
      std::uniform_real_distribution<float> d(-1.f, 1.f);
      std::vector<float> col(n), row(n);
      double colAbs = 0, rowAbs = 0;
      for (int i = 0; i < n; ++i)
        col[i] = d(rng), row[i] = d(rng), colAbs += std::fabs(col[i]), rowAbs += std::fabs(row[i]);
      for (int i = 0; i < n; ++i) col[i] = float(col[i] * 1.5 / colAbs), row[i] = float(row[i] * 1.5 / rowAbs);
      Filter f;
      f.name = "random separable magnitude";
      f.mask = Mask::fromFactors(col, row);
      f.combine = Combine::Magnitude;
      check(v, f, kBorders[rng() % 4], rng() % 2, randomFrame(s.w, s.h, rng), {v.tiles[rng() % v.tiles.size()]});
      if (HasFatalFailure()) return;
    }
  EXPECT_GT(checked_, 0);
  FilterParams past;
  past.filter = makeFilter("sobel", {.radius = kernels::kTensorStreamMaxMagnitudeRadius + 1});
  EXPECT_NE(v.whyNot(past, 64, 64).text().find("gradient magnitude up to r = 16"), std::string::npos);
  FilterParams notSeparable;
  notSeparable.filter = makeFilter("laplacian", {.radius = 2});
  notSeparable.filter.combine = Combine::Magnitude;
  EXPECT_NE(v.whyNot(notSeparable, 64, 64).text().find("this mask is not separable"), std::string::npos);
}

// sobel at both K-chunk counts (r = 3, 12), two borders, both alpha modes, a 64x32 tile: a small
// set, sized for compute-sanitizer racecheck and memcheck.
TEST_F(TensorStreamStrips, GradientMagnitudesAtEveryKChunkCount) {
  const Variant& v = *findVariant("tensorstream");
  std::mt19937 rng(seedForRun() ^ 0x51a7u);
  for (int r : {3, 12})
    for (Border b : {Border::Mirror, Border::Zero})
      for (bool alpha : {false, true}) {
        check(v, makeFilter("sobel", {.radius = r}), b, alpha, randomFrame(70, 100, rng), {{64, 32}});
        if (HasFatalFailure()) return;
      }
  EXPECT_EQ(checked_, 2 * 2 * 2 * 2);
}

// Three terms at every K-chunk count (r = 4, 12, 20, 28), clamped and |.|, two borders, both
// alpha modes, a 64x32 tile: a small set, sized for compute-sanitizer racecheck and memcheck.
TEST_F(TensorStreamStrips, MasksOfLowRankAtEveryKChunkCount) {
  const Variant& v = *findVariant("tensorstream");
  std::mt19937 rng(seedForRun() ^ 0x3e4au);
  for (int r : {4, 12, 20, 28})
    for (Border b : {Border::Mirror, Border::Zero})
      for (bool alpha : {false, true}) {
        check(v, rankFilter(r, 3, rng, alpha ? Combine::Abs : Combine::Identity), b, alpha, randomFrame(70, 100, rng),
              {{64, 32}});
        if (HasFatalFailure()) return;
      }
  // sharpen's centre term added at the store (alpha kept) at every K-chunk count: read back from the
  // ring (r = 3), carried with the rows (r = 12, 20, 28).
  for (int r : {3, 12, 20, 28})
    check(v, makeFilter("sharpen", {.radius = r}), Border::Clamp, false, randomFrame(70, 100, rng), {{64, 32}});
  EXPECT_EQ(checked_, 4 * 2 * 2 * 2 + 4 * 2);
}

// tensor2d and tensorstream launch as programmatic dependents of the kernel before them
// on the stream (cuda/kernels/dependent_launch.cuh): their blocks may start while it runs, and must
// read their input only once it has finished. The producer here is tensor2d with a 17x17 identity
// mask (an exact copy, 0.04 ms at 1080p, that lets its successor start at once), writing the frame
// the consumer reads with nothing between the two launches on one stream; the consumer's output
// must equal the reference on the original frame, three times over for each consumer.
class DependentLaunches : public TensorCoreVariant {};

TEST_F(DependentLaunches, ReadWhatTheKernelBeforeThemWrote) {
  std::mt19937 rng(seedForRun() ^ 0xde9du);
  const int w = 1917, h = 1079;
  const HostImage in = randomFrame(w, h, rng);
  DeviceImage src(w, h), mid(w, h), dst(w, h);
  src.upload(in.view());
  CL_CUDA(cudaDeviceSynchronize());
  Stream stream;
  Workspace producerWs, consumerWs;
  const Variant& producer = *findVariant("tensor2d");
  FilterParams copy;
  std::vector<float> identity(17 * 17, 0.f);
  identity[17 * 17 / 2] = 1.f;
  copy.filter.name = "identity 17x17";
  copy.filter.mask = Mask(8, identity);
  copy.tile = {64, 32};
  ASSERT_EQ(producer.whyNot(copy, w, h).text(), "");
  struct Case {
    const char* variant;
    Filter filter;
    Tile tile;
  };
  // r=7: the launch that reads its weight fragments from memory too (written by a copy on the
  // stream before the producer, read before the wait).
  const std::vector<Case> cases = {{"tensorstream", *filterFor("gaussian", 4, rng), {64, 64}},
                                   {"tensorstream", *filterFor("gaussian", 7, rng), {32, 64}},
                                   {"tensorstream", *filterFor("gaussian", 16, rng), {64, 128}},
                                   {"tensorstream", *filterFor("box", 32, rng), {64, 64}},
                                   {"tensor2d", *filterFor("custom", 3, rng), {64, 32}}};
  for (const Case& c : cases) {
    const Variant& consumer = *findVariant(c.variant);
    FilterParams p;
    p.filter = c.filter;
    p.tile = c.tile;
    p.border = kBorders[rng() % 4];
    SCOPED_TRACE(testing::Message() << c.variant << " " << c.filter.name << " r=" << c.filter.mask.radius()
                                    << " border=" << borderName(p.border) << " seed=" << seedForRun());
    ASSERT_EQ(consumer.whyNot(p, w, h).text(), "");
    HostImage want(w, h);
    referenceFilter(p.filter, p.border, p.filterAlpha, in.view(), want.view());
    for (int round = 0; round < 3; ++round) {
      const std::uint8_t poison = round % 2 ? 0xa5 : 0x5a;
      CL_CUDA(cudaMemset2DAsync(mid.view().data, mid.pitch(), poison, std::size_t(w) * 4, h, stream.get()));
      CL_CUDA(cudaMemset2DAsync(dst.view().data, dst.pitch(), poison, std::size_t(w) * 4, h, stream.get()));
      producer.run(copy, src.view(), mid.view(), producerWs, stream.get());
      consumer.run(p, mid.view(), dst.view(), consumerWs, stream.get());
      stream.synchronize();
      HostImage copied(w, h), got(w, h);
      mid.download(copied.view());
      dst.download(got.view());
      CL_CUDA(cudaDeviceSynchronize());
      ASSERT_TRUE(imagesMatch(copied.view(), in.view(), 0, "input")) << "the producer's copy, round " << round;
      ASSERT_TRUE(matches(got, want)) << "round " << round;
    }
  }
}

// tensor2d at each K-chunk count (r 1 and 8: two chunks of 16 inputs a 16-pixel output chunk; 9
// and 16: three; 17: four; 25 and 32: five), weights as one fp16 part (random custom masks) and as
// high + low parts (weights 0.45 of an fp16 step off the grid, |w| summing to 5-10), every
// tile, borders in turn, both alpha modes, on frames that end every tile part-way: a small set,
// sized for compute-sanitizer racecheck.
class Tensor2DProducts : public TensorCoreVariant {
 protected:
  // Every weight but the centre a power of two 2^e times (1 + 0.45 2^-10), random signs: 0.45 of
  // an fp16 step off the grid at the grid's coarsest relative step, so that one fp16 part misses
  // each by 0.45 2^-10 of it. 2^e is the power of two nearest 7 / (n^2 - 1): |w| sums to 5-10
  // besides the centre (which makes the sum 1), so one part always misses the budget (by 0.11 x
  // that sum) and two parts, with the tensor cores' sums, always keep to it (0.04 x that at r=32).
  static Filter offGrid(int r, std::mt19937& rng) {
    const int n = 2 * r + 1;
    const float step = std::ldexp(1.f, static_cast<int>(std::lround(std::log2(7.0 / (n * n - 1)))));
    std::vector<float> w(n * n);
    double sum = 0;
    for (int i = 0; i < n * n; ++i) {
      if (i == n * n / 2) continue;
      w[i] = step * (1 + std::ldexp(0.45f, -10)) * (rng() % 2 ? 1.f : -1.f);
      sum += w[i];
    }
    w[n * n / 2] = static_cast<float>(1 - sum);
    Filter f;
    f.name = "off-grid";
    f.mask = Mask(r, w);
    return f;
  }
  // A random normalised custom mask that one fp16 part per weight keeps to the budget (drawn again
  // in the rare case that the normalising sum comes out near 0 and the weights large).
  static Filter singleCustom(int r, std::mt19937& rng) {
    for (int tries = 0; tries < 100; ++tries) {
      const Filter f = *filterFor("custom", r, rng);
      if (planHalfWeights(f.mask, f.combine).mode == HalfWeightsPlan::Mode::Single) return f;
    }
    throw std::runtime_error("no single-part custom mask in 100 draws");
  }
};

TEST_F(Tensor2DProducts, EveryKChunkCountWeightSplitAndTile) {
  const Variant& v = *findVariant("tensor2d");
  std::mt19937 rng(seedForRun() ^ 0x2d2du);
  int split = 0, single = 0, turn = 0;
  for (int r : {1, 3, 8, 9, 16, 17, 25, 32})
    for (const Filter& f : {singleCustom(r, rng), offGrid(r, rng)}) {
      const HalfWeightsPlan plan = planHalfWeights(f.mask, f.combine);
      ASSERT_NE(plan.mode, HalfWeightsPlan::Mode::Refused) << f.name << " r=" << r << ": " << plan.why;
      for (Size s : {Size{67, 41}, Size{19, 70}}) {
        ++turn;
        check(v, f, kBorders[turn % 4], turn % 3 == 0, randomFrame(s.w, s.h, rng), v.tiles);
        if (HasFatalFailure()) return;
      }
      ++(plan.split() ? split : single);
    }
  EXPECT_EQ(split, 8);  // the off-grid masks
  EXPECT_EQ(single, 8);
  // Two poisons a launch. Every device takes the 4-warp tiles; one with less shared memory a block
  // than the H100/H200 refuses the widest at the largest radii (check() skips a tile refused for that).
  FilterParams widest;
  widest.filter = *filterFor("custom", 32, rng);  // 186 KiB with 128x32
  widest.tile = {128, 32};
  if (v.whyNot(widest, 67, 41).empty())
    EXPECT_EQ(checked_, 8 * 2 * 2 * int(v.tiles.size()) * 2);
  else
    EXPECT_GE(checked_, 8 * 2 * 2 * 2 * 2);
}

// Where the apron's rows may be twice a tile's (a 16-row tile from r = 9), a tensor2d block walks rows:
// on a frame whose grid passes one round of blocks, several steps each, its ring of input rows
// wrapping. Its products are the tile kernel's (a 32-row tile at r = 12 fills and computes one
// tile a block), summed in the same order: the outputs are the same bytes. Both weight forms, the
// border that reads zeros and one that reads the frame, both alpha modes; outputs poisoned.
TEST_F(Tensor2DProducts, RowWalksEqualTheTileKernelOnAFrameOfManySteps) {
  const Variant& v = *findVariant("tensor2d");
  std::mt19937 rng(seedForRun() ^ 0x5eedu);
  const HostImage in = randomFrame(1923, 1081, rng);
  const int w = in.width(), h = in.height();
  DeviceImage din(w, h);
  din.upload(in.view());
  int compared = 0;
  for (const Filter& f : {singleCustom(12, rng), offGrid(12, rng)})
    for (Border b : {Border::Zero, Border::Mirror})
      for (bool alpha : {false, true}) {
        FilterParams p;
        p.filter = f;
        p.border = b;
        p.filterAlpha = alpha;
        HostImage got[2] = {HostImage(w, h), HostImage(w, h)};
        const Tile tiles[2] = {{64, 16}, {64, 32}};
        for (int i = 0; i < 2; ++i) {
          p.tile = tiles[i];
          ASSERT_TRUE(v.whyNot(p, w, h).empty()) << tiles[i].str() << ": " << v.whyNot(p, w, h).text();
          const PassLaunch d = v.describeLaunch(p, w, h).passes.at(0);
          if (i == 0) {  // walks rows, more than one 16-row step a block
            EXPECT_EQ(d.kernel.rfind("tensor2dStreamKernel<", 0), 0u) << d.kernel;
            EXPECT_LT(d.grid.y, (h + 15u) / 16) << d.note;
          } else {
            EXPECT_EQ(d.kernel.rfind("tensor2dKernel<", 0), 0u) << d.kernel;
          }
          DeviceImage dout(w, h);
          CL_CUDA(cudaMemset(dout.view().data, 0x5a, dout.pitch() * h));
          Workspace ws;
          v.run(p, din.view(), dout.view(), ws, nullptr);
          dout.download(got[i].view());
          CL_CUDA(cudaDeviceSynchronize());
        }
        int differ = 0;
        for (std::size_t k = 0; k < got[0].pixels().size(); ++k) differ += got[0].pixels()[k] != got[1].pixels()[k];
        EXPECT_EQ(differ, 0) << f.name << " border " << int(b) << " alpha " << alpha << " seed=" << seedForRun();
        ++compared;
      }
  EXPECT_EQ(compared, 8);
}

// Launches with different masks queued back to back, on one stream and across two, without
// waiting in between: each output must be its own mask's result (a mask change never races a
// frame in flight, and a run that reuses a kept preparation uses its own mask's).
class MaskChanges : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  }
};

TEST_P(MaskChanges, NeverRaceFramesInFlight) {
  const Variant& v = *findVariant(GetParam());
  std::mt19937 rng(seedForRun());
  const HostImage in = randomFrame(301, 203, rng);
  DeviceImage din(in.width(), in.height());
  din.upload(in.view());
  // Four different masks (radii clipped to the variant's limit; different sigmas keep them apart).
  // Two share a radius range whose weights a variant may keep in device memory (tensorstream at
  // r = 5..8): each workspace switches from one to the other between two launches in flight.
  const Filter masks[] = {makeFilter("gaussian", {.radius = std::min(5, v.maxRadius)}),
                          makeFilter("box", {.radius = 2}),
                          makeFilter("gaussian", {.radius = std::min(9, v.maxRadius), .sigma = 6.f}),
                          makeFilter("box", {.radius = std::min(7, v.maxRadius)})};
  // Launch i's mask: each workspace (pairs of launches alternate) runs every mask twice, in the
  // order 0 1 1 2 2 3 3 0 or 2 3 3 0 0 1 1 2.
  auto maskOf = [&](int i) -> const Filter& { return masks[(i + i / 4) % 4]; };
  constexpr int kLaunches = 16;
  Stream streams[2];
  Workspace ws[2];
  std::vector<DeviceImage> outs;
  for (int i = 0; i < kLaunches; ++i) outs.emplace_back(in.width(), in.height());
  for (int i = 0; i < kLaunches; ++i) {
    FilterParams p;
    p.filter = maskOf(i);
    const int s = (i / 2) % 2;  // pairs on one stream, alternating streams
    CL_CUDA(cudaMemsetAsync(outs[i].view().data, 0x5a, outs[i].pitch() * outs[i].height(), streams[s].get()));
    v.run(p, din.view(), outs[i].view(), ws[s], streams[s].get());
  }
  CL_CUDA(cudaDeviceSynchronize());
  // Each workspace ran the four masks twice each: prepared once a mask, then reused.
  EXPECT_EQ(ws[0].preparations(), 4u);
  EXPECT_EQ(ws[1].preparations(), 4u);
  for (int i = 0; i < kLaunches; ++i) {
    HostImage got(in.width(), in.height()), want(in.width(), in.height());
    outs[i].download(got.view());
    CL_CUDA(cudaDeviceSynchronize());
    referenceFilter(maskOf(i), Border::Clamp, false, in.view(), want.view());
    EXPECT_TRUE(matches(got, want)) << v.name << " launch " << i << " seed=" << seedForRun();
  }
}

INSTANTIATE_TEST_SUITE_P(AllVariants, MaskChanges, testing::ValuesIn(gpuVariantNames()), [](const auto& info) {
  std::string n = info.param;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

// Past its radius limit a variant refuses and names the limit (with or without a device).
TEST(Limits, EveryVariantRefusesRadiiPastItsLimit) {
  for (const Variant& v : variants()) {
    if (v.maxRadius >= Mask::kMaxRadius) continue;
    FilterParams p;
    p.filter = makeFilter("gaussian", {.radius = v.maxRadius + 1});
    const std::string why = v.whyNot(p, 64, 64);
    EXPECT_NE(why.find("takes radius up to " + std::to_string(v.maxRadius)), std::string::npos)
        << v.name << ": " << why;
  }
}

// A variant's default tile runs every radius it takes on this device (so --variant X alone never
// fails for lack of shared memory; larger tiles may be refused at large radii, with the reason).
TEST(Limits, DefaultTilesFitAtTheLargestRadius) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  for (const Variant& v : variants()) {
    if (!v.onGpu) continue;
    FilterParams p;
    p.filter = makeFilter("gaussian", {.radius = v.maxRadius});
    EXPECT_EQ(v.whyNot(p, 1920, 1080).text(), "") << v.name << " r=" << v.maxRadius;
  }
}

// The tensor-core variant refuses masks whose fp16 error bound it cannot hold, and says so.
TEST(TensorCores, RefuseMasksBeyondTheirErrorBound) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  if (deviceInfo().major < 8)
    GTEST_SKIP() << "compute capability " << deviceInfo().major << "." << deviceInfo().minor
                 << " has no fp16 mma.sync m16n8k16";
  const Variant& v = *findVariant("tensor2d");
  FilterParams p;
  p.filter.name = "custom";
  p.filter.mask = Mask(1, std::vector<float>(9, 1e5f));
  EXPECT_NE(v.whyNot(p, 64, 64).text().find("fp16's range"), std::string::npos) << v.whyNot(p, 64, 64).text();
  p.filter.mask = Mask(8, std::vector<float>(17 * 17, 10003.1259765625f));
  EXPECT_NE(v.whyNot(p, 64, 64).text().find("even split into two fp16 parts"), std::string::npos)
      << v.whyNot(p, 64, 64).text();
  p.filter = makeFilter("emboss", {.radius = 5});  // needs the high + low split, which it runs
  EXPECT_EQ(v.whyNot(p, 64, 64).text(), "");
  // sum |w| = 1769: the tensor cores' truncating sums could move an output by far more than 1 LSB
  // (on the H200 it came out 2 levels off before this was refused).
  p.filter = makeFilter("emboss", {.radius = 25});
  EXPECT_NE(v.whyNot(p, 64, 64).text().find("truncating adds"), std::string::npos) << v.whyNot(p, 64, 64).text();
}

// fft refuses weights whose float transforms' error estimate passes the budget, and says why;
// without cuFFT (CONVLIVE_CUFFT naming no library) it says how to get it.
TEST(Fft, RefusesWeightsPastItsErrorEstimate) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  const Variant& v = *findVariant("fft");
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = 64});
  const std::string ok = v.whyNot(p, 3840, 2160).text();
  if (ok.find("cuFFT") != std::string::npos) GTEST_SKIP() << ok;
  EXPECT_EQ(ok, "");
  p.filter.name = "custom";
  p.filter.mask = Mask(8, std::vector<float>(17 * 17, 10.f));  // sum |w| = 2890
  const std::string why = v.whyNot(p, 3840, 2160).text();
  EXPECT_NE(why.find("estimated at"), std::string::npos) << why;
  EXPECT_NE(why.find("2.89e+03"), std::string::npos) << why;
  EXPECT_EQ(v.whyNot(p, 3840, 2160).fixValue, "tiled-coop");
  // Every kind but emboss (weights summing to ~r^3 in absolute value) is taken to r = 64 at 4K.
  std::mt19937 rng(seedForRun());
  for (const std::string& kind : kKinds)
    for (int r : {1, 2, 8, 16, 32, 64}) {
      const auto f = filterFor(kind, r, rng);
      if (!f || kind == "emboss" || kind == "custom") continue;
      p.filter = *f;
      EXPECT_EQ(v.whyNot(p, 3840, 2160).text(), "") << kind << " r=" << r;
    }
  p.filter = makeFilter("emboss", {.radius = 4});
  EXPECT_EQ(v.whyNot(p, 3840, 2160).text(), "");
}

// 2D masks past r = 32: only fft and the CPU take them; fft equals the reference there.
TEST(Fft, LargeTwoDimensionalMasks) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  const Variant& v = *findVariant("fft");
  std::mt19937 rng(seedForRun() ^ 0xff7u);
  for (int r : {33, 48, 64}) {
    std::vector<float> w((2 * r + 1) * (2 * r + 1));
    for (float& x : w) x = std::uniform_real_distribution<float>(-1.f, 2.f)(rng);
    FilterParams p;
    p.filter.name = "custom";
    double sum = 0;
    for (float x : w) sum += x;
    for (float& x : w) x = float(x / sum);  // normalised: sums stay in range
    p.filter.mask = Mask(r, w);
    p.border = kBorders[rng() % 4];
    p.filterAlpha = rng() % 2;
    const std::string why = v.whyNot(p, 301, 157).text();
    if (why.find("cuFFT") != std::string::npos) GTEST_SKIP() << why;
    ASSERT_EQ(why, "") << "r=" << r;
    const HostImage in = randomFrame(301, 157, rng);
    HostImage want(301, 157);
    referenceFilter(p.filter, p.border, p.filterAlpha, in.view(), want.view());
    DeviceImage din(301, 157), dout(301, 157);
    din.upload(in.view());
    Workspace ws;
    for (std::uint8_t poison : {std::uint8_t(0x5a), std::uint8_t(0xa5)})
      EXPECT_TRUE(matches(runGpu(v, p, din, dout, ws, poison), want))
          << "r=" << r << " border=" << borderName(p.border) << " poison " << int(poison);
  }
}

// Without timing, auto falls back to the order measured on the H200: stream for separable r = 1,
// 3x3 masks of any rank, 3x3 and 5x5 gradient magnitudes and r = 2 (with fp32 sums past 1080p only),
// tensorstream to r = 32 (5x5 masks of full rank: stream), fft past it, tensor2d for 2D masks up to
// r = 21 at 1080p (fft from there); larger gradient magnitudes on tensorstream to r = 16, separable
// past it.
TEST(Auto, FixedOrderFollowsTheH200Measurements) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  FilterParams p;
  const auto pick = [&](const Filter& f) {
    p.filter = f;
    return fixedOrderChoice(p, 1920, 1080).name;
  };
  EXPECT_EQ(pick(makeFilter("gaussian", {.radius = 1})), "stream");
  // 3x3 masks of any rank (4K: laplacian 0.032 ms against tensorstream's 0.047, emboss and random
  // full-rank ones 0.031 against tensor2d's 0.061).
  for (const char* kind : {"laplacian", "sharpen", "emboss"})
    EXPECT_EQ(pick(makeFilter(kind, {.radius = 1})), "stream");
  EXPECT_EQ(pick(makeFilter("custom", {.weights = "1,2,3;4,-5,6;7,8,10"})), "stream");
  // 5x5 masks of full rank: stream too (4K 0.054 ms against tensor2d's 0.067); those of low rank
  // stay on tensorstream (sharpen 0.037 against 0.044), but for the mirror-symmetric ones of rank 3
  // (the laplacian: 0.045 on stream against 0.053) and those of integer weights (emboss, summed in
  // integers on stream).
  const Filter full5x5 = makeFilter("custom", {.weights = "1,-2,3,-1,2;4,-5,6,2,-3;-7,8,10,-4,1;"
                                                          "2,3,-6,5,-2;-1,4,2,-3,7"});
  p.filter = full5x5;
  ASSERT_NE(findVariant("tensorstream")->whyNot(p, 1920, 1080).text(), "");
  EXPECT_EQ(pick(full5x5), "stream");
  // (Without tensor cores, tensorstream refuses every mask: the 5x5 sharpen takes stream.)
  EXPECT_EQ(pick(makeFilter("sharpen", {.radius = 2})), deviceInfo().major >= 8 ? "tensorstream" : "stream");
  for (const char* kind : {"laplacian", "emboss"}) EXPECT_EQ(pick(makeFilter(kind, {.radius = 2})), "stream") << kind;
  // An RGBA8 batch goes by the frame's order, each variant asked about the batch: stream runs masks
  // of any rank on single frames only.
  ImageDesc batchOf4 = ImageDesc::rgba8(640, 480);
  batchOf4.batch = 4;
  p.filter = full5x5;
  EXPECT_FALSE(fixedOrderChoice(p, batchOf4).whyNot(p, batchOf4)) << fixedOrderChoice(p, batchOf4).name;
  p.filter = makeFilter("sobel", {.radius = 1});
  EXPECT_FALSE(fixedOrderChoice(p, batchOf4).whyNot(p, batchOf4)) << fixedOrderChoice(p, batchOf4).name;
  // A single frame is asked about whole too: rows 2 bytes past whole pixels apart.
  const ImageDesc oddPitch = ImageDesc::rgba8(640, 480, 4 * 640 + 2);
  for (int r : {1, 2}) {
    p.filter = makeFilter("sobel", {.radius = r});
    EXPECT_FALSE(fixedOrderChoice(p, oddPitch).whyNot(p, oddPitch)) << r << ": " << fixedOrderChoice(p, oddPitch).name;
  }
  if (deviceInfo().major < 8) {
    EXPECT_EQ(pick(makeFilter("sobel", {.radius = 1})), "stream");     // a 3x3 gradient magnitude
    EXPECT_EQ(pick(makeFilter("sobel", {.radius = 2})), "stream");     // and a 5x5
    EXPECT_EQ(pick(makeFilter("sobel", {.radius = 3})), "separable");  // two masks
  }
  if (deviceInfo().major >= 8) {  // the tensor cores' mma.sync m16n8k16
    // A gradient magnitude: stream at 3x3 (4K sobel and scharr 0.037 ms, tensorstream's two terms
    // 0.054 and 0.067) and 5x5 (4K 0.053 against 0.067, 1080p 0.019 against 0.023), tensorstream
    // to r = 16 (4K sobel r=3..8 0.064 ms, separable 0.23-0.30), separable past it.
    EXPECT_EQ(pick(makeFilter("sobel", {.radius = 1})), "stream");
    EXPECT_EQ(pick(makeFilter("scharr", {.radius = 1})), "stream");
    EXPECT_EQ(pick(makeFilter("sobel", {.radius = 2})), "stream");
    EXPECT_EQ(pick(makeFilter("sobel", {.radius = 3})), "tensorstream");
    EXPECT_EQ(pick(makeFilter("sobel", {.radius = 16})), "tensorstream");
    EXPECT_EQ(pick(makeFilter("sobel", {.radius = 17})), "separable");
    // Grey and RGB frames: stream's typed kernel at r = 1, and at r = 2 where it sums in fp16 (a
    // gaussian; not a mask whose fp16 sums could pass 1 LSB), tensorstream from r = 2 to 32; the
    // other types stream to r = 4, then sweep.
    for (int c : {1, 3}) {
      const ImageDesc d{.width = 1920, .height = 1080, .channels = c};
      for (int r : {1, 2}) {
        p.filter = makeFilter("gaussian", {.radius = r});
        EXPECT_EQ(fixedOrderChoice(p, d).name, "stream") << r;
      }
      p.filter = makeFilter("custom", {.rowWeights = "1,1,1,1,1", .colWeights = "0.2,0.2,0.2,0.2,0.2"});
      ASSERT_FALSE(planHalfSums(p.filter.mask).fits);  // a row sum to 640 in fp16: 1.9 levels
      EXPECT_EQ(fixedOrderChoice(p, d).name, "tensorstream");
      for (int r : {3, 8, 32}) {
        p.filter = makeFilter("gaussian", {.radius = r});
        EXPECT_EQ(fixedOrderChoice(p, d).name, "tensorstream") << r;
      }
    }
    const ImageDesc f32{.width = 1920, .height = 1080, .type = PixelType::F32, .channels = 3};
    p.filter = makeFilter("gaussian", {.radius = 4});
    EXPECT_EQ(fixedOrderChoice(p, f32).name, "stream");
    p.filter = makeFilter("gaussian", {.radius = 5});
    EXPECT_EQ(fixedOrderChoice(p, f32).name, "sweep");
    // An RGBA8 batch: tensorstream in one launch, from r = 1.
    ImageDesc rgbaBatch = ImageDesc::rgba8(1920, 1080);
    rgbaBatch.batch = 16;
    for (int r : {1, 2, 8}) {
      p.filter = makeFilter("gaussian", {.radius = r});
      EXPECT_EQ(fixedOrderChoice(p, rgbaBatch).name, "tensorstream") << r;
    }
    // u16 and f16 grey frames stream to r = 3, f32 ones to r = 5, then tensorstream to r = 16 (4K u16
    // r = 4 0.030 ms against stream's 0.032, r = 16 0.041 against sweep's 0.077; f16 r = 4 0.027
    // against 0.029, r = 16 0.039 against 0.080; f32 r = 6 0.0388 against sweep's 0.0391, r = 8
    // 0.0391 against 0.0418, on 48 512x512 frames 0.060 against 0.064 and 0.070), then sweep.
    for (PixelType t : {PixelType::U16, PixelType::F16, PixelType::F32}) {
      const ImageDesc grey{.width = 3840, .height = 2160, .type = t, .channels = 1};
      const int most = t == PixelType::F32 ? 5 : 3;
      for (int r : {std::max(1, most - 3), most}) {
        p.filter = makeFilter("gaussian", {.radius = r});
        EXPECT_EQ(fixedOrderChoice(p, grey).name, "stream") << grey.str() << " r=" << r;
      }
      for (int r : {most + 1, 8, 16}) {
        p.filter = makeFilter("gaussian", {.radius = r});
        EXPECT_EQ(fixedOrderChoice(p, grey).name, "tensorstream") << grey.str() << " r=" << r;
      }
      p.filter = makeFilter("gaussian", {.radius = 17});
      EXPECT_EQ(fixedOrderChoice(p, grey).name, "sweep") << grey.str();
    }
    // u16 and f16 frames of 4 channels: stream to r = 4, tensorstream r = 5..16 (4K r = 6 0.135-0.140
    // ms against sweep's 0.155-0.161), then sweep.
    for (PixelType t : {PixelType::U16, PixelType::F16}) {
      const ImageDesc four{.width = 3840, .height = 2160, .type = t, .channels = 4};
      for (const auto& [r, name] :
           {std::pair{1, "stream"}, {4, "stream"}, {5, "tensorstream"}, {16, "tensorstream"}, {17, "sweep"}}) {
        p.filter = makeFilter("gaussian", {.radius = r});
        EXPECT_EQ(fixedOrderChoice(p, four).name, name) << four.str() << " r=" << r;
      }
    }
    if (cufftMissingForTests().empty()) {
      // A full 2D mask on such frames: sweep to r = 7, fft from r = 8 (4K f32x1 r=8 0.28 ms against
      // sweep's 0.40); f16 frames stay on sweep (fft refuses them).
      std::mt19937 rng(seedForRun());
      p.filter = *filterFor("custom", 4, rng);
      EXPECT_EQ(fixedOrderChoice(p, f32).name, "sweep");
      p.filter = *filterFor("custom", 8, rng);
      EXPECT_EQ(fixedOrderChoice(p, f32).name, "fft");
      const ImageDesc f16{.width = 1920, .height = 1080, .type = PixelType::F16, .channels = 1};
      EXPECT_EQ(fixedOrderChoice(p, f16).name, "sweep");
    }
    // r = 2 with fp16 sums: stream at every size; with fp32 sums (a factor that does not fit) past 1080p.
    EXPECT_EQ(pick(makeFilter("box", {.radius = 2})), "stream");
    Filter sharpen = makeFilter("gaussian", {.radius = 2});
    sharpen.mask = Mask::fromFactors({-0.25f, -0.25f, 2.f, -0.25f, -0.25f}, {-0.25f, -0.25f, 2.f, -0.25f, -0.25f});
    ASSERT_FALSE(planHalfSums(sharpen.mask).fits);
    EXPECT_EQ(pick(sharpen), "tensorstream");
    p.filter = sharpen;
    EXPECT_EQ(fixedOrderChoice(p, 3840, 2160).name, "stream");  // 4K r = 2 fp32: stream 0.0325 ms, tensorstream 0.036
    // From r = 3 tensorstream at every size (4K r=3 0.0325 ms against stream's 0.0345).
    EXPECT_EQ(pick(makeFilter("gaussian", {.radius = 3})), "tensorstream");
    p.filter = makeFilter("gaussian", {.radius = 3});
    EXPECT_EQ(fixedOrderChoice(p, 3840, 2160).name, "tensorstream");
    EXPECT_EQ(pick(makeFilter("gaussian", {.radius = 8})), "tensorstream");
    EXPECT_EQ(pick(makeFilter("gaussian", {.radius = 16})), "tensorstream");
    EXPECT_EQ(pick(makeFilter("gaussian", {.radius = 32})), "tensorstream");
    // fused and tensorstream stop at 32; fft (where cuFFT loads) is faster than separable past it.
    EXPECT_EQ(pick(makeFilter("gaussian", {.radius = 40})), cufftMissingForTests().empty() ? "fft" : "separable");
    // Masks of low rank: tensorstream (4K emboss r = 3 0.055 ms, its ramp as integers; tensor2d 0.092).
    EXPECT_EQ(pick(makeFilter("emboss", {.radius = 3})), "tensorstream");
    if (cufftMissingForTests().empty()) {
      // A 2D mask of full rank: fft past r = 32 (only it takes one), from r = 22 at 1080p.
      std::mt19937 rng(seedForRun());
      EXPECT_EQ(pick(*filterFor("custom", 40, rng)), "fft");
      EXPECT_EQ(pick(*filterFor("custom", 24, rng)), "fft");
      EXPECT_EQ(pick(*filterFor("custom", 16, rng)), "tensor2d");
      EXPECT_EQ(pick(*filterFor("custom", 12, rng)), "tensor2d");
      // 4K: tensor2d through r = 24 (four K chunks), fft from r = 25.
      p.filter = *filterFor("custom", 24, rng);
      EXPECT_EQ(fixedOrderChoice(p, 3840, 2160).name, "tensor2d");
      p.filter = *filterFor("custom", 25, rng);
      EXPECT_EQ(fixedOrderChoice(p, 3840, 2160).name, "fft");
      // Masks of low rank run as their terms on tensorstream up to r = 32 (4K sharpen r=16 0.076 ms
      // against tensor2d's 0.273, r=32 0.123 against fft's 0.624); past it fft.
      EXPECT_EQ(pick(makeFilter("sharpen", {.radius = 40})), "fft");
      for (int r : {2, 12, 16, 24, 32}) EXPECT_EQ(pick(makeFilter("sharpen", {.radius = r})), "tensorstream") << r;
      p.filter = makeFilter("sharpen", {.radius = 25});
      EXPECT_EQ(fixedOrderChoice(p, 3840, 2160).name, "tensorstream");
    }
  } else {
    EXPECT_EQ(pick(makeFilter("box", {.radius = 2})), "stream");
    EXPECT_EQ(pick(makeFilter("gaussian", {.radius = 4})), "stream");
    EXPECT_EQ(pick(makeFilter("gaussian", {.radius = 8})), "fused");
  }  // A 2D mask on a frame taller than every tiled grid takes (65535 rows of blocks): sweep, not a
  // CPU variant (refused for device memory).
  std::mt19937 rng(seedForRun() ^ 0x7a11u);
  p.filter = *filterFor("custom", 3, rng);
  EXPECT_EQ(fixedOrderChoice(p, 3, 2200000).name, "sweep");
}

// auto measured: the first use times the candidates and stores the winner; the second is served
// from the cache; the winner filters correctly with the tile it was timed with.
TEST(AutoTuner, MeasuresOnceThenServesFromTheCache) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  const std::string path =
      (std::filesystem::temp_directory_path() / ("convlive-tune-gpu-" + std::to_string(seedForRun()) + ".json"))
          .string();
  std::filesystem::remove(path);
  Tuner tuner(path, deviceInfo().name);
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = 2});
  const AutoChoice first = tuner.choose(p, 641, 479);
  ASSERT_TRUE(first.variant);
  EXPECT_TRUE(first.measured);
  EXPECT_FALSE(first.fromCache);
  EXPECT_GT(first.entry.ms, 0.0);
  EXPECT_NE(first.why.find("measured: " + first.variant->name), std::string::npos) << first.why;
  EXPECT_FALSE(first.entry.runnerUp.empty()) << "several candidates run a separable gaussian";
  EXPECT_LE(first.entry.ms, first.entry.runnerUpMs);
  const AutoChoice second = tuner.choose(p, 641, 479);
  EXPECT_TRUE(second.fromCache);
  EXPECT_EQ(second.variant, first.variant);
  EXPECT_EQ(second.tile, first.tile);
  EXPECT_EQ(Tuner(path, deviceInfo().name).size(), 1u);
  // The winner, with its tile, equals the reference.
  std::mt19937 rng(seedForRun());
  const HostImage in = randomFrame(641, 479, rng);
  HostImage want(641, 479);
  referenceFilter(p.filter, p.border, p.filterAlpha, in.view(), want.view());
  DeviceImage din(641, 479), dout(641, 479);
  din.upload(in.view());
  Workspace ws;
  p.tile = first.tile;
  EXPECT_TRUE(matches(runGpu(*first.variant, p, din, dout, ws, 0x5a), want));
  std::filesystem::remove(path);
}

// Without a device every GPU variant refuses with a reason that names the cpu-simd variant.
TEST(NoDevice, GpuVariantsNameTheCpuVariant) {
  if (deviceInfo().available) GTEST_SKIP() << "a CUDA device is present (" << deviceInfo().name << ")";
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = 2});
  for (const Variant& v : variants()) {
    if (v.onGpu) {
      const Problem why = v.whyNot(p, 16, 16);
      EXPECT_EQ(why.code, Problem::Code::NoDevice) << v.name;
      EXPECT_EQ(why.fixSetting + "=" + why.fixValue, "variant=cpu-simd") << v.name;  // the way out, as a value
      EXPECT_EQ(why.text().find("--"), std::string::npos) << "no command-line wording in the library: " << why.text();
    }
  }
}

}  // namespace
