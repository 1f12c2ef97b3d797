// cpu-simd against the CPU reference: every filter kind, radii {0, 1, 2, 3, 4, 8, 16, 64}, every
// border mode and both alpha modes, on fresh random frames of odd sizes (1x1, 1xN, Nx1, smaller
// than the mask, 37x23, 129x65) with padded rows; a random sample on larger frames; then masks of
// low rank (built-in and random of rank 2-6) through their k terms the same way. The output is
// poisoned before each run, with two values in two runs, so an unwritten pixel cannot match, and
// the row padding must come back untouched. Set CONVLIVE_TEST_SEED to replay a run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>
#include <thread>

#include "../app/bench/random_masks.hpp"
#include "convlive/cpu_simd.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "convlive/tuner.hpp"
#include "convlive/variants.hpp"
#include "filter_cases.hpp"
#include "image_compare.hpp"
#include "typed_frames.hpp"

using namespace convlive;
using namespace convlive::testcases;

namespace {

const int kRadii[] = {0, 1, 2, 3, 4, 8, 16, 64};

const Variant& cpuSimd() { return *findVariant("cpu-simd"); }

// Rows `pad` bytes longer than the pixels need; the padding holds `fill`.
struct PaddedFrame {
  int width, height;
  std::size_t pitch;
  std::vector<std::uint8_t> bytes;
  PaddedFrame(int w, int h, std::size_t pad, std::uint8_t fill)
      : width(w), height(h), pitch(4 * std::size_t(w) + pad), bytes(pitch * h, fill) {}
  ImageView view() { return {bytes.data(), width, height, pitch}; }
  ConstImageView view() const { return {bytes.data(), width, height, pitch}; }
};

PaddedFrame randomFrame(int w, int h, std::mt19937& rng) {
  PaddedFrame f(w, h, 4 * (rng() % 5), 0);
  for (auto& b : f.bytes) b = static_cast<std::uint8_t>(rng() >> 24);
  return f;
}

// At most 1 apart in every channel, and the padding untouched; else where and by how much.
testing::AssertionResult matches(const PaddedFrame& got, const HostImage& want, std::uint8_t poison) {
  for (int y = 0; y < got.height; ++y)
    for (std::size_t i = 4 * std::size_t(got.width); i < got.pitch; ++i)
      if (got.bytes[y * got.pitch + i] != poison)
        return testing::AssertionFailure() << "row " << y << "'s padding was written";
  return imagesMatch(got.view(), want.view());
}

struct Size {
  int w, h;
};

class CpuSimdFixture : public testing::Test {
 protected:
  // One case, run twice with two poisons, against the reference.
  void check(const Filter& f, Border b, bool alpha, const PaddedFrame& in) {
    FilterParams p;
    p.filter = f;
    p.border = b;
    p.filterAlpha = alpha;
    SCOPED_TRACE(testing::Message() << f.name << " r=" << f.mask.radius() << " border=" << borderName(b)
                                    << " alpha=" << (alpha ? "filtered" : "kept") << " frame=" << in.width << "x"
                                    << in.height << " pitch=" << in.pitch << " seed=" << seedForRun());
    HostImage want(in.width, in.height);
    referenceFilter(f, b, alpha, in.view(), want.view());
    ASSERT_EQ(cpuSimd().whyNot(p, in.width, in.height).text(), "");
    const auto plan = planCpuSimd(f);
    ++(plan.precision == CpuSimdPlan::Precision::Float ? floatRuns_ : doubleRuns_);
    for (std::uint8_t poison : {std::uint8_t(0xcd), std::uint8_t(0x32)}) {
      PaddedFrame out(in.width, in.height, 4 * (1 + seedForRun() % 3), poison);
      cpuSimd().run(p, in.view(), out.view(), ws_, nullptr);
      ASSERT_TRUE(matches(out, want, poison)) << "poison " << int(poison);
    }
  }

  Workspace ws_;
  int floatRuns_ = 0, doubleRuns_ = 0;
};

class CpuSimdVsReference : public CpuSimdFixture, public testing::WithParamInterface<std::string> {};

TEST_P(CpuSimdVsReference, EqualsTheCpuReference) {
  const std::string kind = GetParam();
  std::mt19937 rng(seedForRun() ^ static_cast<unsigned>(std::hash<std::string>{}(kind)));
  // Small frames, smaller than the mask at most radii: every radius, border and alpha mode.
  for (Size s : {Size{1, 1}, Size{1, 19}, Size{19, 1}, Size{5, 3}, Size{37, 23}})
    for (int r : kRadii)
      for (Border b : kBorders)
        for (bool alpha : {false, true})
          if (const auto f = filterFor(kind, r, rng)) {
            check(*f, b, alpha, randomFrame(s.w, s.h, rng));
            if (HasFatalFailure()) return;
          }
  // 129x65: radii up to 16 (the 2D reference is slow past that).
  for (int r : kRadii)
    for (Border b : kBorders)
      if (const auto f = filterFor(kind, r, rng); f && r <= 16) {
        check(*f, b, rng() % 2, randomFrame(129, 65, rng));
        if (HasFatalFailure()) return;
      }
  // Larger frames: a random sample of radius, border and alpha.
  for (Size s : {Size{641, 479}, Size{1283, 721}})
    for (int sample = 0; sample < 2; ++sample) {
      const int r = kRadii[1 + rng() % 5];  // 1..8
      if (const auto f = filterFor(kind, r, rng)) {
        check(*f, kBorders[rng() % 4], rng() % 2, randomFrame(s.w, s.h, rng));
        if (HasFatalFailure()) return;
      }
    }
  RecordProperty("float_runs", floatRuns_);
  RecordProperty("double_runs", doubleRuns_);
  EXPECT_GT(floatRuns_ + doubleRuns_, 0);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, CpuSimdVsReference, testing::ValuesIn(kKinds), [](const auto& info) {
  std::string n = info.param;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

// Separable masks at the largest radius on a larger frame (the column pass reads 129 rows).
TEST(CpuSimd, SeparableAtTheLargestRadius) {
  std::mt19937 rng(seedForRun() ^ 0x64u);
  for (const char* kind : {"gaussian", "box"})
    for (Border b : kBorders) {
      const Filter f = makeFilter(kind, {.radius = Mask::kMaxRadius});
      const PaddedFrame in = randomFrame(301, 157, rng);
      HostImage want(in.width, in.height);
      referenceFilter(f, b, true, in.view(), want.view());
      FilterParams p;
      p.filter = f;
      p.border = b;
      p.filterAlpha = true;
      PaddedFrame out(in.width, in.height, 8, 0xcd);
      Workspace ws;
      cpuSimd().run(p, in.view(), out.view(), ws, nullptr);
      EXPECT_TRUE(matches(out, want, 0xcd)) << kind << " " << borderName(b) << " seed=" << seedForRun();
    }
}

// Masks whose float error bound passes the budget run with double sums, and still match.
TEST(CpuSimd, LargeCancellingWeightsRunInDouble) {
  std::mt19937 rng(seedForRun() ^ 0xd0u);
  const int r = 3, n = 2 * r + 1;
  // Big weights that cancel: the sum stays in range (around 4000 * (difference of neighbours)).
  std::vector<float> w(n * n, 0.f);
  w[0] = 4000.f;
  w[1] = -4000.f;
  w[n * n / 2] = 0.5f;
  for (int i = 2; i < n * n; ++i)
    if (i != n * n / 2) w[i] = (i % 2 ? 1.f : -1.f) * 3000.f;
  Filter f;
  f.name = "custom";
  f.mask = Mask(r, w);
  EXPECT_EQ(planCpuSimd(f).precision, CpuSimdPlan::Precision::Double) << planCpuSimd(f).floatBound;
  const PaddedFrame in = randomFrame(67, 41, rng);
  for (Border b : kBorders) {
    HostImage want(in.width, in.height);
    referenceFilter(f, b, false, in.view(), want.view());
    FilterParams p;
    p.filter = f;
    p.border = b;
    PaddedFrame out(in.width, in.height, 0, 0xcd);
    Workspace ws;
    cpuSimd().run(p, in.view(), out.view(), ws, nullptr);
    EXPECT_TRUE(matches(out, want, 0xcd)) << borderName(b);
  }
}

// The bounds of the common masks: float everywhere the benchmarks and the viewer go.
TEST(CpuSimd, CommonMasksSumInFloat) {
  for (int r : {1, 2, 4, 8, 16, 64}) {
    EXPECT_EQ(planCpuSimd(makeFilter("gaussian", {.radius = r})).precision, CpuSimdPlan::Precision::Float) << r;
    EXPECT_EQ(planCpuSimd(makeFilter("box", {.radius = r})).precision, CpuSimdPlan::Precision::Float) << r;
  }
  EXPECT_EQ(planCpuSimd(makeFilter("sobel", {.radius = 1})).precision, CpuSimdPlan::Precision::Float);
  EXPECT_EQ(planCpuSimd(makeFilter("emboss", {.radius = 2})).precision, CpuSimdPlan::Precision::Float);
  EXPECT_LT(planCpuSimd(makeFilter("gaussian", {.radius = 64})).floatBound, 0.01);
}

// cpu-simd refuses `p` with the reason (no sum type holds it to 1 LSB) and names the reference.
void expectRefusedBeyondTheDoubleBound(const FilterParams& p) {
  const Problem why = cpuSimd().whyNot(p, 64, 64);
  EXPECT_EQ(why.code, Problem::Code::CannotRun);
  EXPECT_NE(why.text().find("too large for a 1 LSB bound"), std::string::npos) << why.text();
  EXPECT_EQ(why.fixSetting + "=" + why.fixValue, "variant=cpu");
}

// Weights no sum type holds to 1 LSB: refused with the reason, the reference named as the way out.
TEST(CpuSimd, RefusesWeightsBeyondTheDoubleBound) {
  Filter f;
  f.name = "custom";
  f.mask = Mask(2, std::vector<float>(25, 1e13f));
  FilterParams p;
  p.filter = f;
  expectRefusedBeyondTheDoubleBound(p);
  HostImage in(8, 8), out(8, 8);
  Workspace ws;
  EXPECT_THROW(cpuSimd().run(p, in.view(), out.view(), ws, nullptr), ProblemError);
  EXPECT_EQ(cpuChoice(p, 64, 64).name, "cpu");
}

TEST(CpuSimd, RejectsBadFramesWithTheReason) {
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = 2});
  EXPECT_NE(cpuSimd().whyNot(p, 0, 5).text().find("at least 1"), std::string::npos);
  EXPECT_EQ(cpuSimd().whyNot(p, 1, 1).text(), "");
  EXPECT_FALSE(cpuSimd().onGpu);
  EXPECT_EQ(cpuSimd().maxRadius, Mask::kMaxRadius);
  Workspace ws;
  HostImage a(8, 8), b(9, 8);
  EXPECT_THROW(cpuSimd().run(p, a.view(), b.view(), ws, nullptr), std::invalid_argument);
  std::vector<std::uint8_t> odd(8 * 34);
  ImageView oddPitch{odd.data(), 8, 8, 34};
  EXPECT_THROW(cpuSimd().run(p, a.view(), oddPitch, ws, nullptr), std::invalid_argument);
}

// Several callers at once (the viewer's worker, a benchmark): each gets its own result.
TEST(CpuSimd, CallersOnSeveralThreadsGetTheirOwnResults) {
  std::mt19937 rng(seedForRun() ^ 0x7u);
  const Filter filters[] = {makeFilter("gaussian", {.radius = 2}), makeFilter("emboss", {.radius = 3}),
                            makeFilter("sobel", {.radius = 1}), makeFilter("box", {.radius = 9})};
  std::vector<PaddedFrame> ins;
  std::vector<HostImage> wants;
  for (const Filter& f : filters) {
    ins.push_back(randomFrame(203, 117, rng));
    wants.emplace_back(203, 117);
    referenceFilter(f, Border::Mirror, false, ins.back().view(), wants.back().view());
  }
  std::vector<PaddedFrame> outs;
  for (int i = 0; i < 4; ++i) outs.emplace_back(203, 117, 4, 0xcd);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      FilterParams p;
      p.filter = filters[i];
      p.border = Border::Mirror;
      Workspace ws;
      for (int k = 0; k < 20; ++k) cpuSimd().run(p, ins[i].view(), outs[i].view(), ws, nullptr);
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(matches(outs[i], wants[i], 0xcd)) << filters[i].name;
}

// A run prepares once per (variant, parameters, frame size) and reuses it: only a change that
// alters the computation (not the filter's name) prepares again, each result is still the one its
// own parameters give, and the workspace keeps the last kPrepared.
TEST(Prepare, RunsReuseThePreparationUntilTheComputationOrSizeChanges) {
  std::mt19937 rng(seedForRun() ^ 0x9u);
  const PaddedFrame in = randomFrame(61, 37, rng), small = randomFrame(23, 19, rng);
  Workspace ws;
  EXPECT_EQ(ws.preparations(), 0u);
  auto runAndCheck = [&](const FilterParams& p, const PaddedFrame& from, std::size_t preparations) {
    PaddedFrame out(from.width, from.height, 8, 0xcd);
    HostImage want(from.width, from.height);
    cpuSimd().run(p, from.view(), out.view(), ws, nullptr);
    referenceFilter(p.filter, p.border, p.filterAlpha, from.view(), want.view());
    EXPECT_TRUE(matches(out, want, 0xcd)) << p.filter.name << " seed=" << seedForRun();
    EXPECT_EQ(ws.preparations(), preparations) << p.filter.name;
  };
  FilterParams gauss;
  gauss.filter = makeFilter("gaussian", {.radius = 2});
  EXPECT_TRUE(cpuSimd().prepare(gauss, in.width, in.height, ws).empty());
  EXPECT_EQ(ws.preparations(), 1u);
  runAndCheck(gauss, in, 1);  // prepared ahead
  runAndCheck(gauss, in, 1);
  FilterParams renamed = gauss;
  renamed.filter.name = "blur";  // the same computation
  runAndCheck(renamed, in, 1);
  FilterParams wider = gauss;
  wider.filter = makeFilter("gaussian", {.radius = 2, .sigma = 3.f});  // same radius, other weights
  runAndCheck(wider, in, 2);
  runAndCheck(gauss, small, 3);  // another frame size
  FilterParams mirror = gauss;
  mirror.border = Border::Mirror;
  runAndCheck(mirror, in, 4);
  FilterParams alpha = gauss;
  alpha.filterAlpha = true;
  runAndCheck(alpha, in, 5);  // four kept: gauss on `in` was the oldest and went
  runAndCheck(gauss, in, 6);
  runAndCheck(alpha, in, 6);  // still kept
  // A refused preparation is kept too: the same reason, from prepare and from run.
  FilterParams huge;
  huge.filter.name = "custom";
  huge.filter.mask = Mask(2, std::vector<float>(25, 1e13f));
  const Problem why = cpuSimd().prepare(huge, in.width, in.height, ws);
  EXPECT_EQ(why.code, Problem::Code::CannotRun);
  EXPECT_EQ(ws.preparations(), 7u);
  PaddedFrame out(in.width, in.height, 0, 0);
  try {
    cpuSimd().run(huge, in.view(), out.view(), ws, nullptr);
    ADD_FAILURE() << "ran a mask it refuses";
  } catch (const ProblemError& e) {
    EXPECT_EQ(e.problem().text(), why.text());
  }
  EXPECT_EQ(ws.preparations(), 7u);
}

// Without a GPU, auto and the fixed order pick cpu-simd, and the GPU variants name it as the way out.
TEST(CpuSimd, IsTheChoiceWithoutADevice) {
  if (deviceInfo().available) GTEST_SKIP() << "a CUDA device is present (" << deviceInfo().name << ")";
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = 2});
  EXPECT_EQ(fixedOrderChoice(p, 1280, 720).name, "cpu-simd");
  EXPECT_EQ(chooseAuto(p, 1280, 720).variant->name, "cpu-simd");
  EXPECT_EQ(findVariant("stream")->whyNot(p, 64, 64).fixValue, "cpu-simd");
  EXPECT_NE(std::string(cpuSimdTarget()), "");
}

}  // namespace

// ---- Masks of low rank: k column and row passes, their sums added (convlive/low_rank.hpp) ----
namespace {

using testcases::rankFilter;

using Path = CpuSimdPlan::Path;
using Precision = CpuSimdPlan::Precision;

}  // namespace

TEST(CpuSimdLowRankPlan, TakesTheTermsWhereTheyPay) {
  std::mt19937 rng(seedForRun() ^ 0x38u);
  struct Case {
    Filter filter;
    Path path;
    int terms;
    Precision precision;
  };
  const Case cases[] = {
      {makeFilter("gaussian", {.radius = 8}), Path::Separable, 1, Precision::Float},
      {makeFilter("sharpen", {.radius = 8}), Path::LowRank, 2, Precision::Float},
      {makeFilter("sharpen", {.radius = 2}), Path::LowRank, 2, Precision::Float},
      {makeFilter("sharpen", {.radius = 1}), Path::Direct, 0, Precision::Float},     // 3x3: 2D
      {makeFilter("laplacian", {.radius = 2}), Path::LowRank, 3, Precision::Float},  // k = r + 1
      {rankFilter(2, 4, rng), Path::Direct, 0, Precision::Float},                    // k > r + 1
      {makeFilter("emboss", {.radius = 8}), Path::LowRank, 3, Precision::Float},
      {makeFilter("emboss", {.radius = 16}), Path::LowRank, 3, Precision::Double},   // float's bound: 1.1 levels
      {makeFilter("laplacian", {.radius = 8}), Path::LowRank, 2, Precision::Float},  // Mask::lowRankForBytes
      {makeFilter("laplacian", {.radius = 4}), Path::LowRank, 3, Precision::Float},
      {rankFilter(8, 3, rng), Path::LowRank, 3, Precision::Float},
      {rankFilter(8, 6, rng), Path::LowRank, 6, Precision::Float},
      {*filterFor("custom", 8, rng), Path::Direct, 0, Precision::Float},  // random: of full rank
  };
  for (const Case& c : cases) {
    const CpuSimdPlan p = planCpuSimd(c.filter);
    SCOPED_TRACE(c.filter.name + " r=" + std::to_string(c.filter.mask.radius()) + ": " + describeRank(c.filter.mask));
    EXPECT_EQ(p.path, c.path);
    EXPECT_EQ(p.terms, c.terms);
    EXPECT_EQ(p.precision, c.precision) << p.floatBound << " " << p.doubleBound;
    EXPECT_LE(p.precision == Precision::Float ? p.floatBound : p.doubleBound, kCpuSimdErrorBudget);
    if (c.path == Path::LowRank) {
      EXPECT_NEAR(p.floatBound, c.filter.mask.lowRankForBytes()->errorBound(std::ldexp(1.0, -24)), 1e-12);
    }
  }
  // The work model says k and the bound.
  FilterParams sharpen;
  sharpen.filter = makeFilter("sharpen", {.radius = 8});
  const WorkModel m = cpuSimd().workModel(sharpen, 1280, 720);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("low rank: 2 separable terms"), std::string::npos) << m.notes[0];
  EXPECT_NE(m.notes[0].find("36 taps an output against 289"), std::string::npos) << m.notes[0];
  EXPECT_EQ(m.flops, 2 * 4 * 36);
}

// A low-rank mask no sum type holds to 1 LSB: refused with the reason, as the 2D ones are. Its
// terms are exact (small whole numbers times 2^43, every product a float), so that the truncation
// is 0 and only the sums' rounding is too large.
TEST(CpuSimdLowRankPlan, RefusesTermsBeyondTheDoubleBound) {
  const int r = 4, n = 2 * r + 1;
  const float big = std::ldexp(1.f, 43);
  std::vector<SeparableTerm> terms(2, {std::vector<float>(n), std::vector<float>(n)});
  for (int i = 0; i < n; ++i) {
    terms[0].col[i] = big * float(i % 3 - 1);
    terms[0].row[i] = float(i % 2 ? 1 : -2);
    terms[1].col[i] = float(i % 4);
    terms[1].row[i] = big * float(i % 5 - 2);
  }
  std::vector<float> w(std::size_t(n) * n, 0.f);
  for (const SeparableTerm& t : terms)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) w[std::size_t(i) * n + j] += t.col[i] * t.row[j];
  Filter f;
  f.name = "custom";
  f.mask = Mask(r, w, terms);
  ASSERT_TRUE(f.mask.lowRank().has_value());
  EXPECT_EQ(f.mask.lowRank()->rank(), 2);
  EXPECT_EQ(f.mask.lowRank()->truncation, 0.0);
  EXPECT_EQ(planCpuSimd(f).precision, Precision::Refused);
  FilterParams p;
  p.filter = f;
  expectRefusedBeyondTheDoubleBound(p);
}

class CpuSimdLowRank : public CpuSimdFixture {};

// Every border, both alpha modes, odd sizes from 1x1: built-in masks of low rank, random ones of
// rank 2 to 6, float and double sums, and a low-rank gradient magnitude (the transposed terms).
TEST_F(CpuSimdLowRank, EqualsTheReference) {
  std::mt19937 rng(seedForRun() ^ 0x382u);
  std::vector<Filter> filters;
  for (int r : {2, 3, 8, 16}) filters.push_back(makeFilter("sharpen", {.radius = r}));
  for (int r : {3, 8, 16}) filters.push_back(makeFilter("emboss", {.radius = r}));
  for (int r : {4, 8, 16}) filters.push_back(makeFilter("laplacian", {.radius = r}));
  for (int rank = 2; rank <= 6; ++rank) filters.push_back(rankFilter(rank <= 3 ? 5 : 8, rank, rng));
  filters.push_back(rankFilter(6, 2, rng, Combine::Magnitude));
  filters.push_back(rankFilter(6, 3, rng, Combine::Abs));
  int doubles = 0;
  for (const Filter& f : filters) {
    const CpuSimdPlan plan = planCpuSimd(f);
    ASSERT_EQ(plan.path, Path::LowRank) << f.name << " r=" << f.mask.radius() << ": " << describeRank(f.mask);
    doubles += plan.precision == Precision::Double;
    for (Size s : {Size{1, 1}, Size{1, 19}, Size{19, 1}, Size{5, 3}, Size{37, 23}, Size{129, 65}})
      for (Border b : kBorders)
        for (bool alpha : {false, true}) {
          check(f, b, alpha, randomFrame(s.w, s.h, rng));
          if (HasFatalFailure()) return;
        }
    check(f, kBorders[rng() % 4], rng() % 2, randomFrame(641, 479, rng));  // several bands a core
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(doubles, 0);  // emboss r=16
}

namespace convlive {
namespace {

// A random custom mask of radius r and the given rank (the sum of rank outer products), named so.
Filter rankFilter(int r, int rank, std::mt19937& rng, Combine combine = Combine::Identity) {
  Filter f;
  f.name = "rank " + std::to_string(rank);
  f.mask = bench::randomRankMask(r, rank, rng);
  f.combine = combine;
  return f;
}

// p through v (runFrames, as a Plan runs it) on random frames as d describes, against the reference
// under d's type's contract; outputs poisoned, the gaps left alone.
void expectFramesEqualTheReference(const Variant& v, const FilterParams& p, const ImageDesc& d, std::mt19937& rng,
                                   Workspace& ws) {
  using namespace testcases;
  ASSERT_TRUE(v.whyNot(p, d).empty()) << v.whyNot(p, d).text();
  const std::vector<unsigned char> in = randomFrames(d, rng);
  std::vector<unsigned char> got = poisoned(d), want = poisoned(d);
  v.runFrames(p, d, in.data(), got.data(), ws, nullptr);
  referenceFrames(p.filter, p.border, p.filterAlpha, d, in.data(), want.data());
  const TypedDifference diff = compareTyped(d, got, want, p.filter.mask, typeRange(d.type));
  EXPECT_EQ(diff.over, 0) << diff.first << " (worst " << diff.worst << ")";
  EXPECT_TRUE(gapsUntouched(d, got, poisonByte(d.type)));
}

// Frames other than one u8x4 frame with 4-byte rows: every type, 1, 3 or 4 channels (alpha or
// padding), rows pitched and batches with gaps, every border, separable, 2D, low-rank (by their
// terms: sharpen, the random masks), |.| and gradient-magnitude masks, against the reference under the accuracy
// contract; outputs poisoned, the gaps left alone. Through the variant, as a Plan runs it.
TEST(CpuSimdFrames, EveryTypeChannelCountAndBatchEqualsTheReference) {
  using namespace testcases;
  std::mt19937 rng(seedForRun() ^ 0xf7a3u);
  const Variant& v = *findVariant("cpu-simd");
  ASSERT_TRUE(v.takesAnyImage());
  std::vector<Filter> filters;
  for (const auto& [kind, r] : {std::pair{"gaussian", 1},
                                {"gaussian", 4},
                                {"sharpen", 2},
                                {"sobel", 1},
                                {"emboss", 3},
                                {"laplacian", 8},  // u8: two terms (lowRankForBytes); wider types: three
                                {"custom", 2},
                                {"box", 5}})
    filters.push_back(*filterFor(kind, r, rng));
  Filter abs = makeFilter("laplacian", {.radius = 2});
  abs.combine = Combine::Abs;
  filters.push_back(abs);
  // Masks of low rank by their terms: a random one of rank 2 as a gradient magnitude (its transpose's
  // terms beside its own), and one of rank 3.
  filters.push_back(rankFilter(4, 2, rng, Combine::Magnitude));
  filters.push_back(rankFilter(5, 3, rng));
  Workspace ws;
  int checked = 0;
  for (PixelType t : kPixelTypes)
    for (int c : {1, 3, 4})
      for (const Filter& f : filters)
        for (const auto& [w, h] : {std::pair{1, 1}, {7, 5}, {33, 17}, {2, 40}}) {
          ImageDesc d{.width = w, .height = h, .type = t, .channels = c};
          d.alpha = rng() % 3 != 0;
          if (rng() % 2) {
            const std::size_t e = pixelTypeBytes(t);
            d.pitch = (d.rowBytes() / e + 1 + rng() % 7) * e;
            d.batch = 1 + int(rng() % 3);
            d.batchStride = d.pitch * std::size_t(h) + e * (rng() % 5);
          }
          FilterParams p;
          p.filter = f;
          p.border = kBorders[rng() % 4];
          p.filterAlpha = rng() % 2;
          SCOPED_TRACE(testing::Message()
                       << f.name << " r=" << f.mask.radius() << " " << d.str() << " border " << borderName(p.border)
                       << (p.filterAlpha ? " alpha filtered" : "") << " seed " << seedForRun());
          expectFramesEqualTheReference(v, p, d, rng, ws);
          ++checked;
        }
  EXPECT_EQ(checked, 4 * 3 * 11 * 4);
}

// u8x4 batches whose rows and frames are 4 bytes apart take the RGBA path, every frame's bands in one
// parallel loop (a share of the bands a frame, at least one): 2 to 67 frames of 1x1 to 33x17, rows
// padded and gaps between frames, against the reference; the gaps left alone.
TEST(CpuSimdFrames, AnRgba8BatchRunsEveryFrameInOneLoop) {
  using namespace testcases;
  std::mt19937 rng(seedForRun() ^ 0x51d3u);
  const Variant& v = *findVariant("cpu-simd");
  std::vector<Filter> filters = {makeFilter("gaussian", {.radius = 2}), makeFilter("sobel", {.radius = 1}),
                                 *filterFor("custom", 2, rng)};
  filters.push_back(rankFilter(3, 3, rng));
  Workspace ws;
  int checked = 0;
  for (int batch : {2, 5, 67})
    for (const auto& [w, h] : {std::pair{1, 1}, {7, 5}, {33, 17}})
      for (const Filter& f : filters) {
        ImageDesc d = ImageDesc::rgba8(w, h);
        d.pitch = std::size_t(w + int(rng() % 3)) * 4;
        d.batch = batch;
        d.batchStride = d.pitch * std::size_t(h) + 4 * (rng() % 3);
        FilterParams p;
        p.filter = f;
        p.border = kBorders[rng() % 4];
        p.filterAlpha = rng() % 2;
        SCOPED_TRACE(testing::Message() << f.name << " r=" << f.mask.radius() << " " << d.str() << " border "
                                        << borderName(p.border) << " seed " << seedForRun());
        expectFramesEqualTheReference(v, p, d, rng, ws);
        ++checked;
      }
  EXPECT_EQ(checked, 3 * 3 * 4);
}

// auto, without a device, runs cpu-simd on frames other than u8x4 too (it ran the reference).
TEST(CpuSimdFrames, IsTheChoiceWithoutADeviceForEveryFrame) {
  if (deviceInfo().available) GTEST_SKIP() << "a CUDA device is present (" << deviceInfo().name << ")";
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = 3});
  for (PixelType t : testcases::kPixelTypes)
    EXPECT_EQ(fixedOrderChoice(p, ImageDesc{.width = 640, .height = 480, .type = t, .channels = 1}).name, "cpu-simd")
        << pixelTypeName(t);
}

}  // namespace
}  // namespace convlive
