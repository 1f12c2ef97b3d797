// convlive::Plan on device memory (label gpu; each test skips with the reason without a CUDA
// device): auto's choice and every GPU variant by name against the CPU reference within 1 LSB on
// odd sizes, pitched rows and batches, the outputs poisoned first; frames past a grid's rows of
// blocks; a copy on a second stream; the device option.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/inspect.hpp"
#include "convlive/plan.hpp"
#include "convlive/precision.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "fft.hpp"
#include "filter_cases.hpp"
#include "half_sums_emulation.hpp"
#include "image_compare.hpp"
#include "kernels/stream_typed.hpp"
#include "kernels/sweep.hpp"
#include "typed_frames.hpp"

namespace convlive {
namespace {

using testcases::imagesMatch;

class PlanOnDevice : public testing::Test {
 protected:
  void SetUp() override {
    if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  }
  std::mt19937 rng{testcases::seedForRun()};

  HostImage randomImage(int w, int h) {
    HostImage img(w, h);
    for (auto& b : img.pixels()) b = static_cast<std::uint8_t>(rng() >> 24);
    return img;
  }
  static HostImage reference(const FilterParams& p, const HostImage& in) {
    HostImage want(in.width(), in.height());
    referenceFilter(p.filter, p.border, p.filterAlpha, in.view(), want.view());
    return want;
  }
  // One case of a test's mask table: a mask by name and radius (0: its default), or custom row and
  // column factors.
  struct MaskCase {
    const char* mask;
    int radius = 0;
    const char* row = "";
    const char* col = "";
  };
  // The f16 and f32 tensorstream cases: blurs at both K-chunk counts, the identity, asymmetric factors
  // with negative weights, a derivative factor (its row sums scaled by 1/2); refused: |sum| (pitch) and
  // a gradient magnitude.
  static constexpr MaskCase kFloatSeparableCases[] = {{"gaussian", 1, "", ""},
                                                      {"box", 2, "", ""},
                                                      {"gaussian", 4, "", ""},
                                                      {"gaussian", 8, "", ""},
                                                      {"gaussian", 9, "", ""},
                                                      {"box", 13, "", ""},
                                                      {"gaussian", 16, "", ""},
                                                      {"custom", 0, "1", "1"},  // r = 0: the identity
                                                      {"custom", 0, "-0.05,0.6,0.3,0.2,-0.05", "0.25,0.5,0.3,-0.05,0"},
                                                      {"custom", 0, "-1,0,1", "0.25,0.5,0.25"},  // |row| sums to 2
                                                      {"pitch", 0, "", ""},
                                                      {"sobel", 1, "", ""}};
  // The spec for a case through `variant`, on a border drawn at random.
  FilterSpec specFor(const MaskCase& k, const char* variant) {
    FilterSpec s;
    s.mask = k.mask;
    if (k.radius) s.radius = k.radius;
    s.rowWeights = k.row;
    s.colWeights = k.col;
    s.border = testcases::kBorders[rng() % 4];
    s.variant = variant;
    return s;
  }
  // A built-in mask or custom 2D weights (rows split by ';') through `variant`, on a border and
  // an alpha rule at random.
  struct WeightsCase {
    const char* mask;
    int radius;
    std::string weights;
  };
  FilterSpec weightsSpecFor(const WeightsCase& k, const char* variant) {
    FilterSpec s;
    s.mask = k.mask;
    if (k.radius) s.radius = k.radius;
    s.weights = k.weights;
    s.border = testcases::kBorders[rng() % 4];
    s.filterAlpha = rng() % 2;
    s.variant = variant;
    return s;
  }
  // Custom 2D weights of radius r (rows split by ';'), of full rank, normalised, of both signs.
  std::string randomFullRank(int r) {
    const int n = 2 * r + 1;
    std::vector<double> w(std::size_t(n) * n);
    double sum = 0;
    for (double& x : w) sum += x = double(rng() % 1000) / 1000.0 - 0.2;
    std::string text;
    for (int i = 0; i < n * n; ++i) text += std::to_string(w[std::size_t(i)] / sum) + (i % n == n - 1 ? ";" : ",");
    text.pop_back();
    return text;
  }
  // 2..5 RGBA8 frames of w x h, rows padded by up to 8 pixels, frames by up to 16 bytes (strides
  // that are not multiples of 16).
  ImageDesc paddedRgba8Batch(int w, int h) {
    ImageDesc d = ImageDesc::rgba8(w, h);
    d.pitch = std::size_t(w + int(rng() % 9)) * 4;
    d.batch = 2 + int(rng() % 4);
    d.batchStride = d.pitch * std::size_t(h) + 4 * (rng() % 5);
    return d;
  }
  // s's plan for the batch d launches a frame a grid z, says so, and equals the reference.
  void expectABatchInOneLaunch(const FilterSpec& s, const ImageDesc& d, const std::string& what) {
    Problem why;
    Plan plan = Plan::make(s, d, {}, why);
    ASSERT_TRUE(plan) << what << " " << d.str() << ": " << why.text();
    for (const PassLaunch& pass : plan.launches().passes) {
      EXPECT_EQ(pass.grid.z, d.batch) << what << " " << pass.kernel << ": a frame a grid z";
      EXPECT_NE(pass.note.find("a frame of the batch a grid z"), std::string::npos) << pass.note;
    }
    expectEqualsReference(plan, d);
  }
  // Each case through v at each of its tiles on a batch of each size (paddedRgba8Batch; alignedToo:
  // half the time frames a whole 64 bytes past their rows, for the lanes' whole copies), one launch
  // each against the reference. How many ran.
  template <std::size_t N>
  int expectBatchesOnEveryTile(const Variant& v, const WeightsCase (&cases)[N],
                               std::initializer_list<std::pair<int, int>> sizes, bool alignedToo) {
    int ran = 0;
    for (const auto& [w, h] : sizes)
      for (const WeightsCase& k : cases)
        for (const Tile& tile : v.tiles) {
          ImageDesc d = paddedRgba8Batch(w, h);
          if (alignedToo && rng() % 2) d.batchStride = d.pitch * std::size_t(h) + 64;
          FilterSpec s = weightsSpecFor(k, v.name.c_str());
          s.tile = tile;
          expectABatchInOneLaunch(s, d, std::string(k.mask) + " r=" + std::to_string(k.radius) + " " + tile.str());
          ++ran;
        }
    return ran;
  }
  // A plan refused only on integer frames (of `types`) whose weights' fp32 sums could pass half a
  // level, saying so.
  static void expectRefusedForTheErrorBound(const Problem& why, PixelType t, std::initializer_list<PixelType> types,
                                            const std::string& what = "") {
    EXPECT_NE(why.text().find("fp32 sums"), std::string::npos) << what << why.text();
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << what << why.text();
  }
  // Custom factors of radius r, asymmetric with negative taps (a row or column read the wrong way,
  // or a border's values mirrored the wrong way, shows), through `variant` on a border at random.
  FilterSpec asymmetricSpec(int r, const char* variant) {
    std::string row, col;
    for (int i = 0; i <= 2 * r; ++i) {
      if (i) row += ',', col += ',';
      row += std::to_string(i % 3 == 1 ? -1 : 1 + i % 4);
      col += i == r ? "2" : i % 2 ? "0.5" : "0.25";
    }
    return specFor({"custom", 0, row.c_str(), col.c_str()}, variant);
  }
  // A batch of w x h frames of t x c values, alpha at random: rows padded to 64 bytes and 64-byte
  // gaps between frames (aligned: the lanes' whole copies and stores), or rows and gaps one value
  // long (no lane's copy aligned).
  ImageDesc paddedBatch(PixelType t, int c, int w, int h, int batch, bool aligned) {
    const std::size_t e = pixelTypeBytes(t);
    ImageDesc d{.width = w, .height = h, .type = t, .channels = c};
    d.alpha = rng() % 2;
    d.pitch = aligned ? (d.rowBytes() + 63) / 64 * 64 : d.rowBytes() + e;
    d.batch = batch;
    d.batchStride = d.pitch * std::size_t(h) + (aligned ? 64 : e);
    return d;
  }
  // s on d (written as f32 where toF32) against the reference under its type's contract, or, on
  // u8 and u16 frames only, refused for the fp32 sums' error bound; counts which. Whether it ran.
  bool expectEqualsOrRefusedForTheBound(const FilterSpec& s, const ImageDesc& d, bool toF32, std::string what, int& ran,
                                        int& refused) {
    if (toF32) what += " to f32";
    Problem why;
    Plan plan = Plan::make(s, d, toF32 ? PlanOptions{.outType = PixelType::F32} : PlanOptions{}, why);
    if (!plan) {
      expectRefusedForTheErrorBound(why, d.type, {PixelType::U8, PixelType::U16}, what);
      ++refused;
      return false;
    }
    SCOPED_TRACE(what);
    expectEqualsReference(plan, d);
    ++ran;
    return true;
  }
  // A w x h frame of t x c values, alpha or padding at random; half the time a batch of 1..maxBatch
  // frames with padded rows and gaps between frames.
  ImageDesc randomDesc(PixelType t, int c, int w, int h, int maxBatch) {
    const std::size_t e = pixelTypeBytes(t);
    ImageDesc d{.width = w, .height = h, .type = t, .channels = c};
    d.alpha = rng() % 4 != 0;
    if (rng() % 2) {
      d.pitch = (d.rowBytes() / e + 1 + rng() % 9) * e;
      d.batch = 1 + int(rng() % unsigned(maxBatch));
      d.batchStride = d.pitch * std::size_t(h) + e * (rng() % 5);
    }
    return d;
  }
  // tensorstream by name on `type` frames of 1 and 4 channels (the 4th filtered or copied) over
  // `cases` (f32: grey only) at odd sizes from 1x1, narrow and packed wide frames, every border (specFor), a random
  // tile each, batches with padded rows and gaps: a case `numerics` refuses the plan refuses with its
  // reason, naming sweep; the others equal the reference, the identity (row "1") exactly. Adds what
  // ran and what was refused.
  template <class Numerics>
  void sixteenBitCases(PixelType type, std::span<const MaskCase> cases, Numerics numerics, int& ran, int& refused);
  // The plan on fresh random frames (output poisoned) against the reference under the accuracy
  // contract, the gaps between rows and frames untouched. The frames in and out, for more checks.
  struct RanFrames {
    std::vector<unsigned char> in, out;
  };
  RanFrames expectEqualsReference(Plan& plan, const ImageDesc& d);
  // One run of `plan` on `in` in device memory (output poisoned), brought back.
  static HostImage runOnDevice(Plan& plan, const HostImage& in, cudaStream_t s = nullptr) {
    DeviceImage din(in.width(), in.height()), dout(in.width(), in.height());
    din.upload(in.view());
    CL_CUDA(cudaMemset2D(dout.view().data, dout.pitch(), 0xa5, std::size_t(in.width()) * 4, in.height()));
    plan.run(din.view(), dout.view(), s);
    HostImage got(in.width(), in.height());
    dout.download(got.view(), s);
    CL_CUDA(cudaStreamSynchronize(s));
    return got;
  }
};

TEST_F(PlanOnDevice, AutoEqualsTheReferenceOnOddSizesEveryBorderAndMask) {
  for (const auto& [w, h] : {std::pair{37, 23}, {131, 67}, {1, 29}, {300, 2}})
    for (Border b : testcases::kBorders)
      for (const auto& [mask, r] : {std::pair{"gaussian", 1}, {"gaussian", 7}, {"sharpen", 3}, {"sobel", 1}}) {
        FilterSpec s;
        s.mask = mask;
        s.radius = r;
        s.border = b;
        Plan plan = Plan::make(s, ImageDesc::rgba8(w, h));
        EXPECT_TRUE(plan.onGpu());
        EXPECT_FALSE(plan.autoWhy().empty());
        ASSERT_NE(plan.autoChoice(), nullptr);
        EXPECT_TRUE(plan.autoChoice()->measured) << plan.autoWhy();
        const HostImage in = randomImage(w, h);
        EXPECT_TRUE(imagesMatch(runOnDevice(plan, in).view(), reference(plan.params(), in).view()))
            << plan.describe() << " seed " << testcases::seedForRun();
      }
}

TEST_F(PlanOnDevice, EveryGpuVariantByNameThatTakesTheFilter) {
  const HostImage in = randomImage(45, 27);
  int ran = 0;
  for (const Variant& v : variants()) {
    if (!v.onGpu) continue;
    FilterSpec s;
    s.mask = "gaussian";
    s.radius = 2;
    s.border = Border::Mirror;
    s.variant = v.name;
    Problem why;
    Plan plan = Plan::make(s, ImageDesc::rgba8(45, 27), {.memory = Memory::Device}, why);
    if (!plan) {
      ADD_FAILURE() << v.name << " refused a gaussian r=2: " << why.text();
      continue;
    }
    EXPECT_EQ(plan.variant().name, v.name);
    EXPECT_TRUE(imagesMatch(runOnDevice(plan, in).view(), reference(plan.params(), in).view())) << v.name;
    ++ran;
  }
  EXPECT_GE(ran, 8);
}

TEST_F(PlanOnDevice, HostMemoryWithAGpuVariantGoesThroughThePlansOwnFrames) {
  const HostImage in = randomImage(51, 33);
  FilterSpec s;
  s.radius = 4;
  Plan plan = Plan::make(s, ImageDesc::rgba8(51, 33), {.memory = Memory::Host});
  EXPECT_TRUE(plan.onGpu());
  HostImage got(51, 33);
  std::fill(got.pixels().begin(), got.pixels().end(), std::uint8_t(0x5a));
  plan.run(in.view(), got.view());  // done on return
  EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), in).view())) << plan.describe();
}

TEST_F(PlanOnDevice, ABatchOfPitchedFramesInOneRun) {
  ImageDesc d = ImageDesc::rgba8(29, 13, 128);
  d.batch = 4;
  DeviceBuffer in(d.span()), out(d.span());
  CL_CUDA(cudaMemset(out.get(), 0xa5, d.span()));
  std::vector<HostImage> frames;
  for (int f = 0; f < d.batch; ++f) {
    frames.push_back(randomImage(d.width, d.height));
    CL_CUDA(cudaMemcpy2D(in.as<std::uint8_t>() + d.frameStride() * f, d.pitch, frames.back().view().data,
                         frames.back().pitch(), d.rowBytes(), d.height, cudaMemcpyHostToDevice));
  }
  FilterSpec s;
  s.mask = "laplacian";
  s.radius = 2;
  Plan plan = Plan::make(s, d);
  plan.run(in.get(), out.get());
  for (int f = 0; f < d.batch; ++f) {
    HostImage got(d.width, d.height);
    CL_CUDA(cudaMemcpy2D(got.view().data, got.pitch(), out.as<std::uint8_t>() + d.frameStride() * f, d.pitch,
                         d.rowBytes(), d.height, cudaMemcpyDeviceToHost));
    EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), frames[f]).view())) << "frame " << f;
  }
}

TEST_F(PlanOnDevice, ACopyRunsOnAnotherStreamWithItsOwnWorkspace) {
  FilterSpec s;
  s.radius = 3;
  s.variant = "separable";  // scratch planes in the workspace: a shared one would race
  Plan a = Plan::make(s, ImageDesc::rgba8(97, 61));
  Plan b = a;
  Stream s1, s2;
  const HostImage in1 = randomImage(97, 61), in2 = randomImage(97, 61);
  DeviceImage d1(97, 61), d2(97, 61), o1(97, 61), o2(97, 61);
  d1.upload(in1.view(), s1.get());
  d2.upload(in2.view(), s2.get());
  for (int i = 0; i < 5; ++i) {
    a.run(d1.view(), o1.view(), s1.get());
    b.run(d2.view(), o2.view(), s2.get());
  }
  HostImage g1(97, 61), g2(97, 61);
  o1.download(g1.view(), s1.get());
  o2.download(g2.view(), s2.get());
  s1.synchronize();
  s2.synchronize();
  EXPECT_TRUE(imagesMatch(g1.view(), reference(a.params(), in1).view()));
  EXPECT_TRUE(imagesMatch(g2.view(), reference(b.params(), in2).view()));
}

TEST_F(PlanOnDevice, TheDeviceOptionRunsThereAndRestoresTheCallersDevice) {
  int count = 0;
  CL_CUDA(cudaGetDeviceCount(&count));
  const int last = count - 1;
  FilterSpec s;
  s.radius = 2;
  Plan plan = Plan::make(s, ImageDesc::rgba8(40, 30), {.memory = Memory::Host, .device = last});
  const HostImage in = randomImage(40, 30);
  HostImage got(40, 30);
  CL_CUDA(cudaSetDevice(0));
  plan.run(in.view(), got.view());
  int current = -1;
  CL_CUDA(cudaGetDevice(&current));
  EXPECT_EQ(current, 0);
  EXPECT_TRUE(imagesMatch(got.view(), reference(plan.params(), in).view()));
}

// Frames of `d` through `plan` in device memory: uploaded, output poisoned, brought back.
// One run on device frames laid out as d (the output as plan.output() says, poisoned), brought back.
std::vector<unsigned char> runTyped(Plan& plan, const ImageDesc& d, const std::vector<unsigned char>& in,
                                    cudaStream_t s = nullptr) {
  const ImageDesc& o = plan.output();
  DeviceBuffer din(d.span()), dout(o.span());
  CL_CUDA(cudaMemcpy(din.get(), in.data(), d.span(), cudaMemcpyHostToDevice));
  std::vector<unsigned char> got = testcases::poisoned(o);
  CL_CUDA(cudaMemcpy(dout.get(), got.data(), o.span(), cudaMemcpyHostToDevice));
  plan.run(din.get(), dout.get(), s);
  CL_CUDA(cudaStreamSynchronize(s));
  CL_CUDA(cudaMemcpy(got.data(), dout.get(), o.span(), cudaMemcpyDeviceToHost));
  return got;
}

template <class Numerics>
void PlanOnDevice::sixteenBitCases(PixelType type, std::span<const MaskCase> cases, Numerics numerics, int& ran,
                                   int& refused) {
  const Variant& v = *findVariant("tensorstream");
  for (int c : {1, 4})
    for (const auto& [w, h] : {std::pair{1, 1}, {37, 23}, {300, 2}, {5, 131}, {640, 37}, {1024, 19}, {1031, 9}})
      for (const MaskCase& k : cases) {
        if (type == PixelType::F32 && c != 1) continue;  // f32: grey only
        ImageDesc d = randomDesc(type, c, w, h, 4);
        if (w >= 640 && rng() % 2) d.pitch = d.batchStride = 0, d.batch = 1 + int(rng() % 3);  // packed rows
        FilterSpec s = specFor(k, "tensorstream");
        s.tile = v.tiles[rng() % v.tiles.size()];
        s.filterAlpha = rng() % 2;
        FilterParams params;
        ASSERT_TRUE(s.compile(params).empty()) << k.mask;
        const HalfWeightsPlan plan16 = numerics(params.filter.mask, params.filter.combine, 16);
        Problem why;
        Plan plan = Plan::make(s, d, {}, why);
        if (plan16.mode == HalfWeightsPlan::Mode::Refused) {
          EXPECT_FALSE(plan) << k.mask << " r=" << k.radius << ": the plan refuses it (" << plan16.why << ")";
          EXPECT_NE(why.text().find(plan16.why), std::string::npos) << why.text();
          EXPECT_EQ(why.fixValue, "sweep") << why.text();
          ++refused;
          continue;
        }
        ASSERT_TRUE(plan) << k.mask << " r=" << k.radius << " on " << d.str() << ": " << why.text();
        EXPECT_EQ(plan.variant().name, "tensorstream");
        expectEqualsReference(plan, d);
        // The identity: every value exactly (no rounding slack); f32's pass through fp16 high + low
        // parts (22 bits), within the bound above.
        if (std::string(k.row) == "1" && type != PixelType::F32) {
          const auto in = testcases::randomFrames(d, rng);
          const auto diff =
              testcases::compareTyped(d, runTyped(plan, d, in), in, params.filter.mask, testcases::typeRange(type));
          EXPECT_EQ(diff.worst, 0.0) << d.str() << ": " << diff.first;
        }
        ++ran;
      }
}

PlanOnDevice::RanFrames PlanOnDevice::expectEqualsReference(Plan& plan, const ImageDesc& d) {
  const ImageDesc& o = plan.output();
  auto in = testcases::randomFrames(d, rng);
  auto got = runTyped(plan, d, in);
  auto want = testcases::poisoned(o);
  const FilterParams& p = plan.params();
  referenceFrames(p.filter, p.border, p.filterAlpha, d, in.data(), o, want.data());
  const auto diff = testcases::compareTyped(o, got, want, p.filter.mask, testcases::typeRange(d.type));
  EXPECT_EQ(diff.over, 0) << plan.describe() << " " << d.str() << ": " << diff.first << " (" << diff.over
                          << " over; seed " << testcases::seedForRun() << ")";
  EXPECT_TRUE(testcases::gapsUntouched(o, got, testcases::poisonByte(o.type)))
      << plan.describe() << " " << d.str() << ": a gap was written";
  return {std::move(in), std::move(got)};
}

// u8 frames into f32 output (PlanOptions::outType) through stream (separable, r <= 4), sweep
// (separable and 2D masks to r = 32, gradient magnitudes) and auto: 1, 3 and 4 channels (a kept
// alpha converted, padding copied), odd sizes from 1x1 and wide frames whose f32 rows take the
// 16-byte stores beside ones that do not, every border, batches with padded rows and gaps (the
// output's in values as the input's); against the double reference under f32's bound, the outputs
// NaN-poisoned. tensorstream, fft and the RGBA8 variants refuse, naming one that writes f32.
TEST_F(PlanOnDevice, U8FramesIntoF32EqualTheReference) {
  // r = 5..8 on grey: stream's instances of 4 values a lane (8-bit grey into f32 only); a custom
  // 13-tap row factor with negative weights.
  const MaskCase cases[] = {{"gaussian", 1},
                            {"box", 2},
                            {"gaussian", 4},
                            {"sobel", 1},
                            {"gaussian", 5},
                            {"box", 8},
                            {"gaussian", 12},
                            {"sharpen", 2},
                            {"emboss", 3},
                            {"laplacian", 1},
                            {"pitch", 3},
                            {"gaussian", 32},
                            {"custom", 0, "1,-2,1", "1,2,1"},
                            {"custom", 0, "1,-2,0,3,1,0,-1,2,1,0,1,1,-1", "1,2,1"}};
  int ran = 0;
  for (const char* variant : {"stream", "sweep", "auto"})
    for (int c : {1, 3, 4})
      for (const auto& [w, h] : {std::pair{1, 1}, {37, 23}, {300, 2}, {5, 131}, {1024, 9}})
        for (const MaskCase& k : cases) {
          const ImageDesc d = randomDesc(PixelType::U8, c, w, h, 3);
          FilterSpec s = specFor(k, variant);
          s.filterAlpha = rng() % 2;
          Problem why;
          Plan plan = Plan::make(s, d, {.outType = PixelType::F32}, why);
          if (!plan) {  // stream: separable masks to r = 4 only, and it says so
            EXPECT_EQ(std::string(variant), "stream") << why.text();
            continue;
          }
          ASSERT_EQ(plan.output().type, PixelType::F32) << plan.describe();
          ASSERT_NE(plan.describe().find("to f32"), std::string::npos) << plan.describe();
          expectEqualsReference(plan, d);
          ++ran;
        }
  EXPECT_GT(ran, 300);
  // Past every GPU variant's radius only the cpu writes f32: device memory is refused saying so.
  Problem far;
  EXPECT_FALSE(
      Plan::make(specFor({"gaussian", 40}, "auto"), ImageDesc::rgba8(64, 16), {.outType = PixelType::F32}, far));
  EXPECT_NE(far.text().find("no GPU variant writes f32"), std::string::npos) << far.text();
  const ImageDesc d{.width = 64, .height = 16, .channels = 3};
  for (const char* variant : {"tensorstream", "fft", "naive", "tensor2d"}) {
    FilterSpec s = specFor({"gaussian", 2}, variant);
    Problem why;
    EXPECT_FALSE(Plan::make(s, d, {.outType = PixelType::F32}, why)) << variant;
    EXPECT_NE(why.text().find("writes frames of their own type"), std::string::npos) << why.text();
    EXPECT_EQ(why.fixSetting, "variant") << why.text();
  }
}

// sweep, by name and as auto's choice, on every type and channel count: odd sizes from 1x1,
// every border, separable and 2D masks from r = 1 to its limit and a gradient magnitude, alpha filtered
// and not, a batch with padded rows and gaps; against the reference under the accuracy contract.
TEST_F(PlanOnDevice, EveryTypeAndChannelCountEqualsTheReference) {
  const MaskCase cases[] = {{"gaussian", 1},  {"box", 2},     {"sobel", 1},     {"gaussian", 7}, {"pitch", 3},
                            {"gaussian", 32}, {"sharpen", 2}, {"laplacian", 1}, {"emboss", 3},   {"sharpen", 32}};
  int refused = 0;
  for (PixelType t : testcases::kPixelTypes)
    for (int c : {1, 3, 4})
      for (const auto& [w, h] : {std::pair{1, 1}, {37, 23}, {300, 2}, {5, 131}})
        for (const MaskCase& k : cases) {
          const ImageDesc d = randomDesc(t, c, w, h, 3);
          FilterSpec s = specFor(k, "sweep");
          s.filterAlpha = rng() % 2;
          s.variant = rng() % 2 ? "sweep" : "auto";
          Problem why;
          Plan plan = Plan::make(s, d, {}, why);
          if (!plan) {
            // Only where fp32 sums cannot hold u16's 1 LSB (the emboss's and the large sharpen's
            // weights), and sweep says so.
            FilterParams p;
            ASSERT_TRUE(s.compile(p).empty());
            const Problem sweepWhy = findVariant("sweep")->whyNot(p, d);
            EXPECT_NE(sweepWhy.text().find("fp32 sums"), std::string::npos) << why.text() << " / " << sweepWhy.text();
            EXPECT_EQ(t, PixelType::U16) << why.text();
            ++refused;
            continue;
          }
          ASSERT_TRUE(plan.onGpu()) << plan.describe();
          expectEqualsReference(plan, d);
        }
  RecordProperty("refused_for_the_error_bound", refused);
}

// sweep's separable kernel by name on every type and channel count: r = 1..32 on each side of its
// 8-tap chunks, negative weights and |sum| (pitch), gradient magnitudes (their own instance), every
// offered tile, odd sizes from 1x1 and wide frames whose rows take the stage's 16-byte loads (640
// and 1024 pixels, packed) beside ones that do not (1031), every border, alpha filtered and not,
// batches with padded rows and gaps; against the reference under the accuracy contract, the
// outputs poisoned.
TEST_F(PlanOnDevice, SweepTakesEveryTileRadiusAndRowAlignment) {
  const MaskCase cases[] = {{"gaussian", 1, "", ""},  {"gaussian", 3, "", ""},
                            {"box", 4, "", ""},       {"gaussian", 8, "", ""},
                            {"gaussian", 9, "", ""},  {"gaussian", 16, "", ""},
                            {"box", 17, "", ""},      {"gaussian", 31, "", ""},
                            {"gaussian", 32, "", ""}, {"pitch", 0, "", ""},
                            {"sobel", 1, "", ""},     {"sobel", 9, "", ""},
                            {"scharr", 1, "", ""},    {"custom", 0, "-1,0,3,0,-1", "0.5,1,0.5,1,-0.25"}};
  const Variant& v = *findVariant("sweep");
  int ran = 0, refused = 0;
  for (PixelType t : testcases::kPixelTypes)
    for (int c : {1, 3, 4})
      for (const auto& [w, h] : {std::pair{1, 1}, {37, 23}, {5, 131}, {640, 37}, {1024, 19}, {1031, 9}})
        for (const MaskCase& k : cases) {
          ImageDesc d = randomDesc(t, c, w, h, 3);
          if (w >= 640 && rng() % 2) d.pitch = d.batchStride = 0, d.batch = 1 + int(rng() % 3);  // packed
          FilterSpec s = specFor(k, "sweep");
          s.filterAlpha = rng() % 2;
          s.tile = v.tiles[rng() % v.tiles.size()];
          Problem why;
          Plan plan = Plan::make(s, d, {}, why);
          if (!plan) {
            expectRefusedForTheErrorBound(why, t, {PixelType::U8, PixelType::U16});
            ++refused;
            continue;
          }
          EXPECT_EQ(plan.variant().name, "sweep");
          expectEqualsReference(plan, d);
          ++ran;
        }
  EXPECT_GT(ran, 800);
  RecordProperty("refused_for_the_error_bound", refused);
}

// sweep's separable kernel compiled for each radius (kSweepFixedMinRadius..kSweepFixedMaxRadius on
// u16, f16 and f32 frames of 1, 3 or 4 channels, its one tile): every instance, described as such,
// on asymmetric factors with negative taps and on the gaussian, odd sizes from 1x1, batches with
// padded rows and gaps beside packed frames (the stage's 16-byte copies), every border, alpha
// filtered and not; against the reference under the accuracy contract, the outputs poisoned.
TEST_F(PlanOnDevice, SweepCompiledRadiiEqualTheReference) {
  const Variant& v = *findVariant("sweep");
  const std::pair<int, int> sizes[] = {{1, 1}, {5, 131}, {37, 23}, {263, 41}, {640, 19}, {1031, 9}};
  int ran = 0, refused = 0;
  for (PixelType t : {PixelType::U16, PixelType::F16, PixelType::F32})
    for (int c : {1, 3, 4})
      for (int r = kernels::kSweepFixedMinRadius; r <= kernels::kSweepFixedMaxRadius; ++r)
        for (bool asymmetric : {true, false}) {
          const auto [w, h] = sizes[rng() % std::size(sizes)];
          ImageDesc d = rng() % 2 ? paddedBatch(t, c, w, h, 1 + int(rng() % 3), rng() % 2) : randomDesc(t, c, w, h, 1);
          if (w >= 640 && rng() % 2) d.pitch = d.batchStride = 0;  // packed
          FilterSpec s = asymmetric ? asymmetricSpec(r, "sweep") : specFor({"gaussian", r}, "sweep");
          s.tile = Tile{kernels::kSweepFixedValues, kernels::kSweepFixedRows};
          s.filterAlpha = rng() % 2;
          FilterParams p;
          ASSERT_TRUE(s.compile(p).empty());
          const std::string what = d.str() + " r = " + std::to_string(r) + (asymmetric ? " asymmetric" : " gaussian");
          EXPECT_NE(v.describeLaunch(p, d).passes.at(0).kernel.find(", radius " + std::to_string(r) + ">"),
                    std::string::npos)
              << what;
          expectEqualsOrRefusedForTheBound(s, d, false, what, ran, refused);
        }
  // f16 and f32 frames are never refused (no integer LSB to hold), nor u16 frames' gaussian.
  EXPECT_GE(ran, 2 * 3 * 12 * 2 + 3 * 12);
  RecordProperty("refused_for_the_error_bound", refused);
}

// The compiled radii in a few small launches (so that compute-sanitizer's racecheck covers them in
// seconds): each pixel type and channel count at the first and last compiled radius and on each
// side of the 8-tap chunks, frames packed (the stage's 16-byte copies) and not.
TEST_F(PlanOnDevice, SweepCompiledRadiiInSmallLaunches) {
  const Variant& v = *findVariant("sweep");
  int ran = 0, refused = 0;
  for (PixelType t : {PixelType::U16, PixelType::F16, PixelType::F32})
    for (int c : {1, 3, 4})
      for (int r : {kernels::kSweepFixedMinRadius, 8, 9, kernels::kSweepFixedMaxRadius}) {
        // Odd radii: two 37-wide frames, rows and gaps aligned (the 16-byte copies); even: one
        // packed 256-wide frame.
        ImageDesc d = r % 2 ? paddedBatch(t, c, 37, 23, 2, true) : randomDesc(t, c, 256, 23, 1);
        if (d.width == 256) d.pitch = d.batchStride = 0, d.batch = 1;
        FilterSpec s = r % 2 ? asymmetricSpec(r, "sweep") : specFor({"gaussian", r}, "sweep");
        s.tile = Tile{kernels::kSweepFixedValues, kernels::kSweepFixedRows};
        FilterParams p;
        ASSERT_TRUE(s.compile(p).empty());
        const std::string what = d.str() + " r = " + std::to_string(r);
        EXPECT_NE(v.describeLaunch(p, d).passes.at(0).kernel.find(", radius " + std::to_string(r) + ">"),
                  std::string::npos)
            << what;
        if (!expectEqualsOrRefusedForTheBound(s, d, false, what, ran, refused)) continue;
        // The same sums in the same order as the kernel that reads the radius at run time (the
        // 256x16 tile): byte for byte, a stronger check than the reference's tolerance.
        FilterSpec atRunTime = s;
        atRunTime.tile = Tile{kernels::kSweepFixedValues, 2 * kernels::kSweepFixedRows};
        Problem why;
        Plan compiled = Plan::make(s, d, {}, why), general = Plan::make(atRunTime, d, {}, why);
        ASSERT_TRUE(compiled && general) << what << ": " << why.text();
        const auto in = testcases::randomFrames(d, rng);
        EXPECT_TRUE(runTyped(compiled, d, in) == runTyped(general, d, in))
            << what << ": the compiled instance and the run-time one differ";
      }
  EXPECT_GE(ran, 2 * 3 * 4 + 3 * 2);  // f16, f32 every case; u16 the gaussians
  RecordProperty("refused_for_the_error_bound", refused);
}

// Blocks whose chunks all lie in the frame beside the border's: aligned frames three strips wide and
// more, so that the middle blocks' passes are copied with no check (and f32 frames' row jobs read
// those copies where they arrived), every type, channel count and tile, a batch of two. r = 0 takes
// the farthest window past a raw row (three channels on the 512-value tiles: 38 floats, inside the
// pad); r = 5..8 on the 256x8 tile the compiled instances, one-channel f32 windows at each offset
// 3, 2, 1, 0 from a chunk boundary. Small enough for racecheck.
TEST_F(PlanOnDevice, SweepInsideBlocksEqualTheReference) {
  const Variant& v = *findVariant("sweep");
  int ran = 0, refused = 0;
  for (PixelType t : testcases::kPixelTypes)
    for (int c : {1, 3, 4})
      for (const Tile& tile : v.tiles)
        for (int r : {0, 1, 5, 6, 7, 8}) {
          const int strip = tile.w / c;  // the pixels a block takes across
          const ImageDesc d = paddedBatch(t, c, 3 * strip + 7, 4 * tile.h + 2 * r + 3, 2, true);
          FilterSpec s = asymmetricSpec(r, "sweep");
          s.tile = tile;
          s.filterAlpha = rng() % 2;
          const std::string what = d.str() + " tile " + tile.str() + " r = " + std::to_string(r);
          expectEqualsOrRefusedForTheBound(s, d, false, what, ran, refused);
        }
  EXPECT_GE(ran, 2 * 3 * 3 * 6);  // f16 and f32 every case
  RecordProperty("refused_for_the_error_bound", refused);
}

// A frame's last strip narrower than a tile (its blocks read and sum only its pixels and their
// apron): rows of whole strips and 1, 2, 8, 9 pixels more (a job of 8 pixels, part of one, one past
// it), separable and 2D masks, every type, channel count and tile, aligned batches of two (the
// middle strips' checkless copies beside the last one's); against the reference, the outputs
// poisoned. Small enough for racecheck.
TEST_F(PlanOnDevice, SweepShortLastStripsEqualTheReference) {
  const Variant& v = *findVariant("sweep");
  int ran = 0, refused = 0;
  for (PixelType t : testcases::kPixelTypes)
    for (int c : {1, 3, 4})
      for (const Tile& tile : v.tiles) {
        const int strip = tile.w / c, extra = std::array{1, 2, 8, 9}[rng() % 4];
        const ImageDesc d = paddedBatch(t, c, 2 * strip + extra, 2 * tile.h + 5, 2, true);
        const int r = 1 + int(rng() % 9);
        const std::string what = d.str() + " tile " + tile.str() + " r = " + std::to_string(r);
        FilterSpec sep = asymmetricSpec(r, "sweep");
        sep.tile = tile;
        expectEqualsOrRefusedForTheBound(sep, d, false, what, ran, refused);
        FilterSpec twoD = weightsSpecFor({"custom", 0, randomFullRank(std::min(r, 3))}, "sweep");
        twoD.tile = tile;
        expectEqualsOrRefusedForTheBound(twoD, d, false, what + " 2D", ran, refused);
      }
  EXPECT_GE(ran, 2 * 3 * 3 * 2);  // f16 and f32 every case
  RecordProperty("refused_for_the_error_bound", refused);
}

// sweep's two paths the wide test reaches only by chance, each in a handful of small launches
// (so that compute-sanitizer's racecheck covers them in seconds): a kept 4th channel (copied by
// jobs of its own beside the 3 filtered ones) and the gradient magnitude's own instance, on every
// type, separable masks on each side of the 8-tap chunks, frames packed (16-byte copies) and not.
TEST_F(PlanOnDevice, SweepCopiesAKeptFourthChannelAndMakesMagnitudes) {
  struct Case {
    int channels;
    const char* mask;
    int radius;
  };
  const Case cases[] = {{4, "gaussian", 3}, {4, "gaussian", 9}, {4, "pitch", 0}, {1, "sobel", 1},
                        {3, "sobel", 9},    {4, "scharr", 1},   {4, "sobel", 4}};
  const Variant& v = *findVariant("sweep");
  int ran = 0, refused = 0;
  for (PixelType t : testcases::kPixelTypes)
    for (const Case& k : cases)
      for (const auto& [w, h] : {std::pair{37, 23}, {256, 11}}) {
        ImageDesc d = randomDesc(t, k.channels, w, h, 2);
        if (w == 256) d.pitch = d.batchStride = 0, d.batch = 1;  // packed: the 16-byte copies
        d.alpha = k.channels == 4 && rng() % 2;
        FilterSpec s = specFor({k.mask, k.radius}, "sweep");
        s.filterAlpha = false;  // a 4th channel is kept: padding, or alpha not filtered
        s.tile = v.tiles[rng() % v.tiles.size()];
        Problem why;
        Plan plan = Plan::make(s, d, {}, why);
        if (!plan) {  // only u16 frames (scharr's weights)
          expectRefusedForTheErrorBound(why, t, {PixelType::U16}, d.str() + " " + k.mask + ": ");
          ++refused;
          continue;
        }
        expectEqualsReference(plan, d);
        ++ran;
      }
  EXPECT_EQ(ran + refused, int(std::size(testcases::kPixelTypes) * std::size(cases) * 2));
  EXPECT_LE(refused, 2);
}

// stream by name on every type and channel count (RGBA8 batches and unaligned RGBA8 frames take
// its typed kernel too): radius 1..4, odd sizes from 1x1 and frames narrower than a warp's apron,
// every border, negative weights and |sum| (pitch), alpha filtered and not, batches with padded
// rows and gaps (rows that break the 16-byte copies); against the reference under the accuracy contract.
TEST_F(PlanOnDevice, StreamTakesEveryTypeAndChannelCount) {
  const MaskCase cases[] = {{"gaussian", 1, "", ""},
                            {"box", 2, "", ""},
                            {"gaussian", 3, "", ""},
                            {"gaussian", 4, "", ""},
                            {"pitch", 0, "", ""},
                            {"custom", 0, "1,-2,1", "1,2,1"},
                            {"custom", 0, "-1,0,3,0,-1", "0.5,1,0.5,1,-0.25"}};
  int ran = 0, refused = 0;
  for (PixelType t : testcases::kPixelTypes)
    for (int c : {1, 3, 4})
      for (const auto& [w, h] : {std::pair{1, 1}, {37, 23}, {300, 2}, {5, 131}, {1031, 9}})
        for (const MaskCase& k : cases) {
          const ImageDesc d = randomDesc(t, c, w, h, 4);
          FilterSpec s = specFor(k, "stream");
          s.filterAlpha = rng() % 2;
          Problem why;
          Plan plan = Plan::make(s, d, {}, why);
          if (!plan) {
            expectRefusedForTheErrorBound(why, t, {PixelType::U8, PixelType::U16});
            ++refused;
            continue;
          }
          expectEqualsReference(plan, d);
          ++ran;
        }
  EXPECT_GT(ran, 350);
  RecordProperty("refused_for_the_error_bound", refused);
}

// stream's strips inside the row of an aligned frame (whole 16-byte copies and stores) and its edge
// strips in one launch: every type, channel count, radius 1..4 (grey 16- and 32-bit to 8) and
// border, on frames several strips wide with 64-byte row pitches and batches with aligned gaps, and
// the same frames with their rows one value longer (lanes split by the row's end, the outside
// values through the edge strips' apron lanes); 8-bit frames into f32 too. Against the reference
// under each type's contract, the outputs poisoned.
TEST_F(PlanOnDevice, StreamInteriorAndEdgeStripsEqualTheReference) {
  int ran = 0, refused = 0;
  for (PixelType t : testcases::kPixelTypes)
    for (int c : {1, 3, 4})
      for (int r = 1; r <= 8; ++r)
        for (bool aligned : {true, false})
          for (bool toF32 : {false, true}) {
            if (toF32 && t != PixelType::U8) continue;
            if (r > 4 && (c != 1 || (t == PixelType::U8 && !toF32))) continue;
            const ImageDesc d = paddedBatch(t, c, 1000 / c + 2 * r + 1, 19 + r, 2 + int(rng() % 2), aligned);
            FilterSpec s = asymmetricSpec(r, "stream");
            s.filterAlpha = rng() % 2;
            expectEqualsOrRefusedForTheBound(s, d, toF32, d.str() + " r=" + std::to_string(r), ran, refused);
          }
  EXPECT_GT(ran, 120);
  RecordProperty("refused_for_the_error_bound", refused);
}

// stream's direct kernel (f32 frames of 4 channels at r = 1, 16-byte aligned: a thread a pixel of
// 4 rows): every border, sizes from 1x1 to a row of a block and a pixel and heights that are no
// multiple of its 4 rows, the 4th channel filtered and kept, batches with 64-byte gaps; the same
// frames with rows 4 bytes longer, and |sum| (pitch 1), take the streaming kernel. Against the
// reference, the outputs poisoned, each launch named as the kernel it ran.
TEST_F(PlanOnDevice, StreamDirectKernelEqualsTheReference) {
  int ran = 0;
  for (Border b : testcases::kBorders)
    for (const auto& [w, h] :
         {std::pair{1, 1}, {2, 3}, {3, 1}, {5, 2}, {8, 9}, {37, 6}, {128, 4}, {129, 7}, {257, 5}, {1029, 2}})
      for (bool aligned : {true, false})
        for (const char* mask : {"asymmetric", "pitch"}) {
          const ImageDesc d = paddedBatch(PixelType::F32, 4, w, h, 1 + int(rng() % 3), aligned);
          const bool pitch = std::string(mask) == "pitch";
          FilterSpec s = pitch ? specFor({"pitch", 0, "", ""}, "stream") : asymmetricSpec(1, "stream");
          if (pitch) s.pitch = 1.f, s.vertical = rng() % 2;  // radius 1, either direction
          s.border = b;
          s.filterAlpha = rng() % 2;
          Problem why;
          Plan plan = Plan::make(s, d, {}, why);
          ASSERT_TRUE(plan) << d.str() << " " << mask << ": " << why.text();
          const std::string what = d.str() + " " + mask + " " + borderName(b);
          ASSERT_EQ(plan.launches().passes.size(), 1u) << what;
          const bool direct = aligned && !pitch;
          EXPECT_EQ(
              plan.launches().passes[0].kernel.rfind(direct ? "streamDirectKernel" : "streamTypedKernel<f32, 4, 1", 0),
              0u)
              << what << ": " << plan.launches().passes[0].kernel;
          SCOPED_TRACE(what);
          expectEqualsReference(plan, d);
          ++ran;
        }
  EXPECT_EQ(ran, 4 * 10 * 2 * 2);
}

// stream with the values outside each row made in the registers of the lanes that read them
// (Zero, Clamp, Mirror; rows a whole number of lanes long; strips from the row's first value, the
// edge strips writing their outer lanes): rows of one warp's values exactly (256 16-bit grey values
// at r = 1, 2: one strip), one pixel more, two strips exactly and one pixel more, a row of R + 1
// pixels (the mirror's furthest value), and rows narrower than R + 1 pixels or with Wrap (the edge
// strips' apron lanes instead); every type, channel count, radius and border, aligned and padded
// batches. Against the reference under each type's contract, the outputs poisoned.
TEST_F(PlanOnDevice, StreamEdgesInRegistersEqualTheReference) {
  int ran = 0, refused = 0, inRegisters = 0;
  for (PixelType t : testcases::kPixelTypes)
    for (int c : {1, 3, 4})
      for (int r = 1; r <= 8; ++r)
        for (bool toF32 : {false, true}) {
          if (toF32 && t != PixelType::U8) continue;
          if (r > kernels::typedStreamMaxRadius(t, c, toF32) || (t == PixelType::U8 && c == 1 && !toF32 && r > 1))
            continue;
          const int tb = int(pixelTypeBytes(t)), v = kernels::typedStreamLaneValues(tb, c, r);
          const int outV = kernels::typedStreamOutValues(tb, c, r);
          const int unit = v / std::gcd(v, c);  // pixels: a row of a multiple of them is whole lanes
          auto whole = [&](int values) { return (values / c + unit - 1) / unit * unit; };
          for (int w : {whole(32 * v), whole(32 * v) + unit, whole(32 * v + outV), whole(32 * v + outV) + unit,
                        whole((r + 1) * c), unit})
            for (Border b : testcases::kBorders) {
              const ImageDesc d = paddedBatch(t, c, w, 5 + int(rng() % 30), 1 + int(rng() % 3), rng() % 2);
              FilterSpec s = asymmetricSpec(r, "stream");
              s.border = b;
              s.filterAlpha = rng() % 2;
              kernels::TypedStreamLaunch l{};
              l.image = d;
              l.border = b;
              if (expectEqualsOrRefusedForTheBound(
                      s, d, toF32, d.str() + " r=" + std::to_string(r) + " " + borderName(b), ran, refused))
                inRegisters += kernels::typedStreamEdgesInRegisters(l, r);
            }
        }
  EXPECT_GT(ran, 800);
  EXPECT_GT(inRegisters, 400);
  RecordProperty("refused_for_the_error_bound", refused);
}

// stream's fp16 sums on u8 frames of 1 and 3 channels into u8 at r = 1, 2 (two values an HFMA2,
// the RGBA8 kernel's steps), taken where planHalfSums fits the mask and named so in the launch
// (", fp16 sums"), fp32 sums elsewhere: blurs, |sum| (pitch), factors of both signs whose sums
// saturate, and a mask whose fp16 sums would not keep 1 LSB; odd sizes from 1x1, rows of whole lanes
// (the edges in registers, bytes replaced before they are paired) and one pixel more, two strips,
// every border, batches with padded rows and gaps (16-byte aligned: 16 values a lane; 8-byte: 8;
// neither: the lanes' value-by-value copies). Against the reference under the 1 LSB contract,
// the outputs poisoned; and byte for byte against the host emulation of the steps planHalfSums
// bounds (half_sums_emulation.hpp) wherever an output's window lies inside its frame.
TEST_F(PlanOnDevice, StreamU8Fp16SumsEqualTheReferenceAndTheEmulatedSteps) {
  const MaskCase cases[] = {{"gaussian", 1},
                            {"box", 1},
                            {"gaussian", 2},
                            {"box", 2},
                            {"pitch", 0},
                            {"custom", 0, "-0.2,0.7,0.5", "0.3,0.9,-0.2"},
                            {"custom", 0, "0.1,-0.3,0.9,-0.3,0.1", "0.2,0.2,0.2,0.2,0.2"},
                            {"custom", 0, "10,10,10", "1,-1,1"}};
  int ran = 0, half = 0, emulated = 0;
  for (int c : {1, 3})
    for (const MaskCase& k : cases) {
      const std::string row = k.row;
      const int r = k.radius ? k.radius : std::string(k.mask) == "pitch" ? 1 : int(std::ranges::count(row, ',')) / 2;
      const int v = kernels::typedStreamLaneValues(1, c, r, true), outV = kernels::typedStreamOutValues(1, c, r, true);
      const int unit = v / std::gcd(v, c);  // pixels: a row of a multiple of them is whole lanes
      auto whole = [&](int values) { return (values / c + unit - 1) / unit * unit; };
      for (int w :
           {1, 2, 5, 37, whole(32 * v), whole(32 * v) + unit, whole(32 * v + outV), whole(32 * v + outV) + 1, 600})
        for (Border b : testcases::kBorders) {
          ImageDesc d = paddedBatch(PixelType::U8, c, w, 1 + int(rng() % 13), 1 + int(rng() % 3), rng() % 2);
          if (rng() % 3 == 0) {  // rows and frames 8 bytes aligned, not 16: 8 values a lane
            d.pitch = (d.rowBytes() + 7) / 16 * 16 + 8;
            d.batchStride = d.pitch * std::size_t(d.height) + 24;
          }
          FilterSpec s = specFor(k, "stream");
          if (std::string(k.mask) == "pitch") s.pitch = 1.f, s.vertical = rng() % 2;  // radius 1, |sum|
          s.border = b;
          Problem why;
          Plan plan = Plan::make(s, d, {}, why);
          ASSERT_TRUE(plan) << d.str() << " " << k.mask << ": " << why.text();
          const FilterParams& p = plan.params();
          const HalfSumsPlan sums = planHalfSums(p.filter.mask);
          const std::string what = d.str() + " " + k.mask + " " + k.row + " " + borderName(b);
          ASSERT_EQ(plan.launches().passes.size(), 1u) << what;
          const std::string& kernel = plan.launches().passes[0].kernel;
          EXPECT_EQ(kernel.find(", fp16 sums>") != std::string::npos, sums.fits) << what << ": " << kernel;
          SCOPED_TRACE(what);
          const RanFrames frames = expectEqualsReference(plan, d);
          const std::vector<unsigned char>&in = frames.in, &got = frames.out;
          ++ran;
          if (!sums.fits) continue;
          ++half;
          const testcases::HalfSumsWeights weights(p.filter.mask, sums);
          EXPECT_EQ(p.filter.mask.radius(), r);
          for (int f = 0; f < d.batch; ++f)
            for (int y = r; y < d.height - r; ++y)
              for (int x = r; x < d.width - r; ++x)
                for (int ch = 0; ch < c; ++ch) {
                  auto at = [&](int yy, int xx) { return f * d.batchStride + yy * d.pitch + std::size_t(xx) * c + ch; };
                  const int want = testcases::halfSumsByte(
                      testcases::halfSumsOutput(weights, p.filter.combine == Combine::Abs,
                                                [&](int sy, int tx) { return int(in[at(y - r + sy, x - r + tx)]); }));
                  ASSERT_EQ(int(got[at(y, x)]), want) << "frame " << f << " (" << x << ", " << y << ") channel " << ch;
                  ++emulated;
                }
        }
    }
  EXPECT_EQ(ran, 2 * 8 * 9 * 4);
  EXPECT_EQ(half, 2 * 7 * 9 * 4);  // all but the last mask (its bound: 17.8 levels)
  EXPECT_GT(emulated, 100000);
}

// stream on 16- and 32-bit frames of one channel (grey, channels-first planes) past r = 4: r = 5..8
// (2r + 1 pending rows of a lane's 4 values in registers; 16-bit values 4 a lane there, not 8), odd
// sizes from 1x1, frames narrower than a warp's apron and wide ones (packed rows: the lanes'
// copies), every border, negative weights, batches with padded rows and gaps; against the
// reference under each type's contract, the outputs poisoned. Past r = 8, and on other frames past
// r = 4, it is refused naming sweep.
TEST_F(PlanOnDevice, StreamTakesGreyFramesOf16And32BitsToRadius8) {
  const MaskCase cases[] = {
      {"gaussian", 5, "", ""},
      {"box", 6, "", ""},
      {"gaussian", 7, "", ""},
      {"gaussian", 8, "", ""},
      {"custom", 0, "1,-2,3,-4,5,-6,7,-8,9,-8,7,-6,5,-4,3,-2,1", "0.5,1,0.5,1,-0.25,1,2,1,0.5,1,2,1,-0.25,1,0.5,1,0.5"},
      {"custom", 0, "-1,0,3,0,-1,2,1,2,-1,0,3,0,-1", "1,1,1,1,1,1,1,1,1,1,1,1,1"}};
  int ran = 0, refused = 0;
  for (PixelType t : {PixelType::U16, PixelType::F16, PixelType::F32})
    for (const auto& [w, h] : {std::pair{1, 1}, {37, 23}, {300, 2}, {5, 131}, {1031, 9}, {1024, 40}})
      for (const MaskCase& k : cases) {
        ImageDesc d = randomDesc(t, 1, w, h, 4);
        if (w == 1024) d.pitch = d.batchStride = 0;  // packed: the lanes' 8- and 16-byte copies
        const FilterSpec s = specFor(k, "stream");
        Problem why;
        Plan plan = Plan::make(s, d, {}, why);
        if (!plan) {
          expectRefusedForTheErrorBound(why, t, {PixelType::U16});
          ++refused;
          continue;
        }
        expectEqualsReference(plan, d);
        ++ran;
      }
  EXPECT_GE(ran, 3 * 6 * 6 - 12);
  RecordProperty("refused_for_the_error_bound", refused);
  FilterSpec s;
  s.radius = 9;
  s.variant = "stream";
  Problem why;
  EXPECT_FALSE(Plan::make(s, ImageDesc{.width = 64, .height = 64, .type = PixelType::F32, .channels = 1}, {}, why));
  EXPECT_EQ(why.fixValue, "sweep") << why.text();
  s.radius = 5;
  for (const ImageDesc& other :
       {ImageDesc{.width = 64, .height = 64, .type = PixelType::F32, .channels = 3},
        ImageDesc{.width = 64, .height = 64, .type = PixelType::U16, .channels = 4},
        ImageDesc{.width = 64, .height = 64, .type = PixelType::U8, .channels = 1}, ImageDesc::rgba8(64, 64)}) {
    EXPECT_FALSE(Plan::make(s, other, {}, why)) << other.str();
    EXPECT_NE(why.text().find("takes radius up to 4"), std::string::npos) << why.text();
  }
}

// tensorstream by name on u8x1 and u8x3 frames (its typed kernel: four 16-pixel strips a warp on
// grey, one on RGB): every B0 (r = 1..32, each side of 8, 16 and 24), odd sizes from 1x1, frames
// narrower than a warp's window and wide ones whose inner warps take the 16-byte copies (640 and 1024
// pixels, packed rows), every border, negative weights (clamped) and |sum| (pitch), masks of low rank
// (sharpen, laplacian, emboss: 2-4 terms), gradient magnitudes (sobel, scharr), every offered tile,
// batches with padded rows and gaps (rows that break the 16-byte copies); against the reference
// within 1 LSB, the outputs poisoned.
TEST_F(PlanOnDevice, TensorStreamTakesGreyAndRgbFrames) {
  const MaskCase cases[] = {{"gaussian", 1, "", ""},
                            {"box", 2, "", ""},
                            {"gaussian", 5, "", ""},
                            {"gaussian", 8, "", ""},
                            {"gaussian", 9, "", ""},
                            {"box", 13, "", ""},
                            {"gaussian", 16, "", ""},
                            {"gaussian", 17, "", ""},
                            {"gaussian", 24, "", ""},
                            {"gaussian", 25, "", ""},
                            {"gaussian", 32, "", ""},
                            {"pitch", 0, "", ""},
                            {"custom", 0, "1,-2,1", "1,2,1"},
                            {"custom", 0, "-1,0,3,0,-1", "0.5,1,0.5,1,-0.25"},
                            // masks of low rank: every term in the same pass
                            {"sharpen", 2, "", ""},
                            {"sharpen", 8, "", ""},
                            {"sharpen", 12, "", ""},
                            {"sharpen", 32, "", ""},
                            {"laplacian", 1, "", ""},
                            {"laplacian", 2, "", ""},
                            {"laplacian", 16, "", ""},
                            {"emboss", 2, "", ""},
                            {"emboss", 3, "", ""},  // its ramp written as integers, the sums times 1/3
                            {"emboss", 4, "", ""},
                            {"emboss", 5, "", ""},
                            {"emboss", 7, "", ""},  // its three terms at 0.449 levels: the budget's edge
                            // gradient magnitudes: two terms, each in sums of its own
                            {"sobel", 1, "", ""},
                            {"sobel", 2, "", ""},
                            {"sobel", 9, "", ""},
                            {"sobel", 16, "", ""},
                            {"scharr", 1, "", ""}};
  const Variant& v = *findVariant("tensorstream");
  int ran = 0;
  for (int c : {1, 3})
    for (const auto& [w, h] : {std::pair{1, 1}, {37, 23}, {300, 2}, {5, 131}, {640, 37}, {1024, 19}, {1031, 9}})
      for (const MaskCase& k : cases) {
        ImageDesc d = randomDesc(PixelType::U8, c, w, h, 4);
        if (w >= 640 && rng() % 2) d.pitch = d.batchStride = 0, d.batch = 1 + int(rng() % 3);  // packed: 16-byte rows
        FilterSpec s = specFor(k, "tensorstream");
        s.tile = v.tiles[rng() % v.tiles.size()];
        Problem why;
        Plan plan = Plan::make(s, d, {}, why);
        ASSERT_TRUE(plan) << k.mask << " r=" << k.radius << " on " << d.str() << ": " << why.text();
        EXPECT_EQ(plan.variant().name, "tensorstream");
        expectEqualsReference(plan, d);
        ++ran;
      }
  EXPECT_EQ(ran, 2 * 7 * 31);
}

// tensorstream by name on u16 frames of 1 and 4 channels (kU16Values: the factors as fp16 high + low
// parts, each value's bytes as inputs of their own; 4 channels: the 4th filtered or copied): both K-chunk counts (r =
// 0..16, each side of 8), odd sizes from 1x1, frames narrower than a warp's window and wide ones whose inner warps take
// the 16-byte copies, every border, negative weights (clamped and saturated), every offered tile, batches with padded
// rows and gaps; against the reference within 1 LSB of 65535 (random values over the whole range), the outputs
// poisoned. What planU16Separable refuses (|sum|, factors too large for the tensor cores' truncating sums) the plan
// refuses with its reason, naming sweep.
TEST_F(PlanOnDevice, TensorStreamTakesU16GreyFrames) {
  const MaskCase cases[] = {{"gaussian", 1, "", ""},
                            {"box", 2, "", ""},
                            {"gaussian", 4, "", ""},
                            {"gaussian", 5, "", ""},
                            {"gaussian", 8, "", ""},
                            {"gaussian", 9, "", ""},
                            {"box", 13, "", ""},
                            {"gaussian", 16, "", ""},
                            {"custom", 0, "1", "1"},  // r = 0: the identity
                            // negative weights, asymmetric (sums below 0 clamped, above 65535 saturated)
                            {"custom", 0, "-0.05,0.6,0.3,0.2,-0.05", "0.25,0.5,0.3,-0.05,0"},
                            // refused: |sum| (pitch), factors whose absolute sums multiply to 16
                            {"pitch", 0, "", ""},
                            {"custom", 0, "1,-2,1", "1,2,1"}};
  int ran = 0, refused = 0;
  sixteenBitCases(PixelType::U16, cases, planU16Separable, ran, refused);
  EXPECT_EQ(ran, 2 * 7 * 10) << "the blurs, the identity and the asymmetric factors run";
  EXPECT_EQ(refused, 2 * 7 * 2) << "pitch's |sum| and the large factors are refused";
}

// u16 grey frames at r <= 8 take the instance held to 128 registers exactly where it brings the
// launch into one wave and ptxas's own would take more (heldFillsOneWave): batches of 1024x32 frames
// at tile 64x32 (4 blocks a frame: a warp's four strips are 64 pixels wide) from 1 to 200 frames; the held launches
// form one run of batch sizes (on a device whose registers, not shared memory, limit the free instance: blocks past 3
// an SM up to 4 on the H200), and the held instance equals the reference, outputs poisoned.
TEST_F(PlanOnDevice, TensorStreamU16TakesTheHeldInstanceWhereItFillsOneWave) {
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = 6;
  s.variant = "tensorstream";
  s.tile = Tile{64, 32};
  std::vector<int> held;
  int free = 0;  // the free instance's resident blocks (the single frame's launch)
  for (int n = 1; n <= 200; ++n) {
    ImageDesc d{.width = 1024, .height = 32, .type = PixelType::U16, .channels = 1};
    d.batch = n;
    Problem why;
    Plan plan = Plan::make(s, d, {}, why);
    ASSERT_TRUE(plan) << why.text();
    const auto passes = plan.launches().passes;
    ASSERT_EQ(passes.size(), 1u);
    ASSERT_EQ(passes[0].grid.x * passes[0].grid.y * passes[0].grid.z, 4 * n) << passes[0].kernel;
    if (n == 1) {
      const PassResources res = passResources(passes[0]);
      ASSERT_TRUE(res.available) << res.why;
      free = res.blocksPerSm * deviceInfo().multiprocessors;
    }
    if (passes[0].kernel.find("held to 128 registers") != std::string::npos) held.push_back(n);
  }
  RecordProperty("held_batches",
                 held.empty() ? "none" : std::to_string(held.front()) + ".." + std::to_string(held.back()));
  if (held.empty()) {
    EXPECT_LE(4 * 200, free) << "no batch took the held instance, yet some launches passed one wave";
    GTEST_SKIP() << "every launch fit one wave of the free instance (" << free << " blocks): nothing to hold";
  }
  EXPECT_EQ(held.back() - held.front() + 1, int(held.size())) << "one run of batch sizes";
  EXPECT_GT(4 * held.front(), free) << "held only past the free instance's wave";
  EXPECT_LE(4 * (held.front() - 1), free) << "from the first batch past it";
  for (int n : {held.front(), held.back()}) {
    ImageDesc d{.width = 1024, .height = 32, .type = PixelType::U16, .channels = 1};
    d.batch = n;
    Plan plan = Plan::make(s, d);
    expectEqualsReference(plan, d);
  }
}

// tensorstream by name on f16 frames of 1 and 4 channels (kF16Values: the factors as fp16 high + low
// parts, the values as they are; 4 channels: the 4th filtered or copied): both K-chunk counts (r = 0..16), odd sizes
// from 1x1, narrow and wide frames, every border, negative weights, a derivative factor (its row sums scaled by 1/2),
// every offered tile, batches with padded rows and gaps; against the reference within f16's contract (random values in
// [-1, 2)), the outputs poisoned (NaN). What planF16Separable refuses the plan refuses with its reason, naming sweep.
TEST_F(PlanOnDevice, TensorStreamTakesF16GreyFrames) {
  int ran = 0, refused = 0;
  sixteenBitCases(PixelType::F16, kFloatSeparableCases, planF16Separable, ran, refused);
  EXPECT_EQ(ran, 2 * 7 * 10) << "the blurs, the identity, the asymmetric factors and the derivative run";
  EXPECT_EQ(refused, 2 * 7 * 2) << "pitch's |sum| and sobel's magnitude are refused";
}

// f16 grey frames holding Inf, -Inf and NaN here and there, values near fp16's largest (sums past it
// round to Inf) and subnormals: the tensor cores would spread an Inf or NaN over every output of its
// 16x16 products (0 x Inf is NaN), so the warps that store one make their outputs again from each
// window; every output equals the reference's (NaN where it is NaN, the same Inf where it is Inf,
// finite values within the contract). Odd sizes, batches whose last frame has none, every border,
// both K-chunk counts, a mask whose sums pass fp16's range over a patch of 65504s.
TEST_F(PlanOnDevice, TensorStreamF16FramesWithInfAndNaNEqualTheReference) {
  const MaskCase cases[] = {{"gaussian", 2, "", ""},
                            {"gaussian", 8, "", ""},
                            {"box", 12, "", ""},
                            {"custom", 0, "0.3,0.6,0.9", "0.25,0.5,0.25"}};  // sums to 1.8 of the largest
  const Variant& v = *findVariant("tensorstream");
  int ran = 0;
  for (int c : {1, 4})
    for (const auto& [w, h] : {std::pair{37, 23}, {300, 40}, {131, 70}, {700, 33}})
      for (const MaskCase& k : cases) {
        ImageDesc d = randomDesc(PixelType::F16, c, w, h, 3);
        FilterSpec s = specFor(k, "tensorstream");
        s.tile = v.tiles[rng() % v.tiles.size()];
        s.filterAlpha = rng() % 2;
        Problem why;
        Plan plan = Plan::make(s, d, {}, why);
        ASSERT_TRUE(plan) << k.mask << " on " << d.str() << ": " << why.text();
        auto in = testcases::randomFrames(d, rng);
        // In every frame but the last (of a batch): a few specials and subnormals; in the first a 3x3
        // patch of 65504s.
        auto put = [&](int f, int x, int y, std::uint16_t bits) {
          const std::size_t ch = rng() % unsigned(c);
          std::memcpy(
              &in[d.frameStride() * std::size_t(f) + d.rowPitch() * std::size_t(y) + 2 * (std::size_t(x) * c + ch)],
              &bits, 2);
        };
        const std::uint16_t specials[] = {0x7c00, 0xfc00, 0x7e00, 0x7bff, 0xfbff, 0x0001, 0x8003};
        for (int f = 0; f + 1 < d.batch || (d.batch == 1 && f == 0); ++f)
          for (int i = 0; i < 6; ++i)
            put(f, int(rng() % unsigned(w)), int(rng() % unsigned(h)), specials[rng() % std::size(specials)]);
        const int px = int(rng() % unsigned(w - 2)), py = int(rng() % unsigned(h - 2));
        for (int y = py; y < py + 3; ++y)
          for (int x = px; x < px + 3; ++x) put(0, x, y, 0x7bff);
        const auto got = runTyped(plan, d, in);
        auto want = testcases::poisoned(d);
        referenceFrames(plan.params().filter, plan.params().border, plan.params().filterAlpha, d, in.data(),
                        want.data());
        const auto diff = testcases::compareTyped(d, got, want, plan.params().filter.mask, 65504);
        EXPECT_EQ(diff.over, 0) << k.mask << " " << d.str() << ": " << diff.first << " (" << diff.over << " over)";
        EXPECT_TRUE(testcases::gapsUntouched(d, got, testcases::poisonByte(d.type))) << d.str();
        ++ran;
      }
  EXPECT_EQ(ran, 2 * 4 * 4);
}

// tensorstream by name on f32 grey frames (kF32Values: each step's values scaled by a power of two
// and split into fp16 high + low parts): the f16 cases, within the f32 bound (random values in
// [-1, 2)), outputs poisoned (NaN); what planF32Separable refuses the plan refuses, naming sweep.
TEST_F(PlanOnDevice, TensorStreamTakesF32GreyFrames) {
  int ran = 0, refused = 0;
  sixteenBitCases(PixelType::F32, kFloatSeparableCases, planF32Separable, ran, refused);
  EXPECT_EQ(ran, 7 * 10) << "the blurs, the identity, the asymmetric factors and the derivative run";
  EXPECT_EQ(refused, 7 * 2) << "pitch's |sum| and sobel's magnitude are refused";
}

// f32 grey frames of any magnitude: whole frames scaled by 2^e from the subnormals' edge to near
// f32's largest, each within the f32 bound of its own largest |value| (so that the step scale is
// seen to bring each into fp16's range); frames of bands of rows (1 to 40 rows, across step and
// segment edges) each scaled by its own power of two, and all-zero bands, within the frame's bound
// (the blocks rescaled where the step scale moves); both K-chunk counts, odd sizes, every border,
// blocks of 4 and 8 warps in turn (at r <= 8 the latter take the instance held to 80 registers with
// a two-stage ring).
TEST_F(PlanOnDevice, TensorStreamF32FramesOfAnyMagnitudeEqualTheReference) {
  const MaskCase cases[] = {{"gaussian", 3, "", ""}, {"box", 12, "", ""}, {"custom", 0, "-1,0,1", "0.25,0.5,0.25"}};
  auto scaleValues = [](const ImageDesc& d, std::vector<unsigned char>& in, auto&& factorOfRow) {
    for (int f = 0; f < d.batch; ++f)
      for (int y = 0; y < d.height; ++y) {
        const double k = factorOfRow(y);
        for (int x = 0; x < d.width; ++x) {
          const std::size_t at = d.frameStride() * std::size_t(f) + d.rowPitch() * std::size_t(y) + 4 * std::size_t(x);
          float value;
          std::memcpy(&value, &in[at], 4);
          value = float(double(value) * k);
          std::memcpy(&in[at], &value, 4);
        }
      }
  };
  int ran = 0;
  for (const MaskCase& k : cases)
    for (const auto& [w, h] : {std::pair{37, 23}, {300, 70}, {131, 150}}) {
      FilterSpec s = specFor(k, "tensorstream");
      for (int e : {-140, -120, -60, -13, 0, 15, 60, 100, 124}) {
        s.tile = ran % 2 ? Tile{128, 64} : Tile{64, 64};
        ImageDesc d = randomDesc(PixelType::F32, 1, w, h, 1);
        Problem why;
        Plan plan = Plan::make(s, d, {}, why);
        ASSERT_TRUE(plan) << k.mask << " on " << d.str() << ": " << why.text();
        auto in = testcases::randomFrames(d, rng);
        scaleValues(d, in, [&](int) { return std::ldexp(1.0, e); });
        const auto got = runTyped(plan, d, in);
        auto want = testcases::poisoned(d);
        referenceFrames(plan.params().filter, plan.params().border, false, d, in.data(), want.data());
        const auto diff = testcases::compareTyped(d, got, want, plan.params().filter.mask, std::ldexp(2.0, e));
        EXPECT_EQ(diff.over, 0) << k.mask << " x 2^" << e << " " << d.str() << ": " << diff.first << " (" << diff.over
                                << " over)";
        ++ran;
      }
      for (int spread : {3, 40}) {
        s.tile = ran % 2 ? Tile{128, 64} : Tile{64, 64};
        ImageDesc d = randomDesc(PixelType::F32, 1, w, h, 3);
        Problem why;
        Plan plan = Plan::make(s, d, {}, why);
        ASSERT_TRUE(plan) << k.mask << " on " << d.str() << ": " << why.text();
        std::vector<double> rowScale(static_cast<std::size_t>(h));
        double largest = 0;
        for (int y = 0; y < h;) {
          const int band = 1 + int(rng() % 40), e = int(rng() % unsigned(2 * spread + 1)) - spread;
          const double scale = rng() % 5 == 0 ? 0.0 : std::ldexp(1.0, e);
          for (int i = 0; i < band && y < h; ++i, ++y) rowScale[std::size_t(y)] = scale;
          largest = std::max(largest, scale);
        }
        auto in = testcases::randomFrames(d, rng);
        scaleValues(d, in, [&](int y) { return rowScale[std::size_t(y)]; });
        const auto got = runTyped(plan, d, in);
        auto want = testcases::poisoned(d);
        referenceFrames(plan.params().filter, plan.params().border, false, d, in.data(), want.data());
        const auto diff = testcases::compareTyped(d, got, want, plan.params().filter.mask, 2 * largest);
        EXPECT_EQ(diff.over, 0) << k.mask << " bands within 2^" << spread << " " << d.str() << ": " << diff.first
                                << " (" << diff.over << " over)";
        EXPECT_TRUE(testcases::gapsUntouched(d, got, testcases::poisonByte(d.type))) << d.str();
        ++ran;
      }
    }
  EXPECT_EQ(ran, 3 * 3 * (9 + 2));
}

// f32 grey frames holding Inf, -Inf and NaN here and there, f32's largest values (a 3x3 patch whose
// sums pass it, to Inf) and subnormals: the warps that store an Inf or NaN make their outputs again
// from each window (in double, as the reference); every output equals the reference's (NaN where
// it is NaN, the same Inf, finite values within the contract: frame 0, which holds FLT_MAX, at that
// magnitude; the frames after it, which hold no value past the random [-1, 2), at theirs).
TEST_F(PlanOnDevice, TensorStreamF32FramesWithInfAndNaNEqualTheReference) {
  const MaskCase cases[] = {{"gaussian", 2, "", ""},
                            {"gaussian", 8, "", ""},
                            {"box", 12, "", ""},
                            {"custom", 0, "0.3,0.6,0.9", "0.25,0.5,0.25"}};  // sums to 1.8 of the largest
  const Variant& v = *findVariant("tensorstream");
  int ran = 0;
  for (const auto& [w, h] : {std::pair{37, 23}, {300, 40}, {131, 70}, {700, 33}})
    for (const MaskCase& k : cases) {
      // Frame 0 holds f32's largest values (a 3x3 patch of them and, among the specials, +-FLT_MAX):
      // compared at that magnitude, it checks where Inf and NaN land. The frames after it hold
      // Inf, NaN and subnormals among values of [-1, 2): their finite outputs are held to the bound
      // of those values, next to windows that hold a special.
      ImageDesc d = randomDesc(PixelType::F32, 1, w, h, 3);
      d.batch = std::max(d.batch, 2);
      FilterSpec s = specFor(k, "tensorstream");
      s.tile = v.tiles[rng() % v.tiles.size()];
      Problem why;
      Plan plan = Plan::make(s, d, {}, why);
      ASSERT_TRUE(plan) << k.mask << " on " << d.str() << ": " << why.text();
      auto in = testcases::randomFrames(d, rng);
      auto put = [&](int f, int x, int y, float value) {
        std::memcpy(&in[d.frameStride() * std::size_t(f) + d.rowPitch() * std::size_t(y) + 4 * std::size_t(x)], &value,
                    4);
      };
      const float big = std::numeric_limits<float>::max();
      const float specials[] = {INFINITY, -INFINITY, NAN, 1e-45f, -3e-42f, big, -big};
      for (int f = 0; f < d.batch; ++f)
        for (int i = 0; i < 6; ++i)
          put(f, int(rng() % unsigned(w)), int(rng() % unsigned(h)),
              specials[rng() % (f == 0 ? std::size(specials) : std::size(specials) - 2)]);
      const int px = int(rng() % unsigned(w - 2)), py = int(rng() % unsigned(h - 2));
      for (int y = py; y < py + 3; ++y)
        for (int x = px; x < px + 3; ++x) put(0, x, y, big);
      const auto got = runTyped(plan, d, in);
      auto want = testcases::poisoned(d);
      referenceFrames(plan.params().filter, plan.params().border, false, d, in.data(), want.data());
      ImageDesc first = d, rest = d;
      first.batch = 1;
      rest.batch = d.batch - 1;
      const auto after = [&](const std::vector<unsigned char>& v) {
        return std::vector<unsigned char>(v.begin() + std::ptrdiff_t(d.frameStride()), v.end());
      };
      const Mask& mask = plan.params().filter.mask;
      for (const auto& [what, diff] :
           {std::pair{"frame 0 (FLT_MAX)", testcases::compareTyped(first, got, want, mask, big)},
            std::pair{"frames 1.. ([-1, 2) with Inf, NaN)",
                      testcases::compareTyped(rest, after(got), after(want), mask, testcases::typeRange(d.type))}})
        EXPECT_EQ(diff.over, 0) << k.mask << " " << d.str() << " " << what << ": " << diff.first << " (" << diff.over
                                << " over)";
      EXPECT_TRUE(testcases::gapsUntouched(d, got, testcases::poisonByte(d.type))) << d.str();
      ++ran;
    }
  EXPECT_EQ(ran, 4 * 4);
}

// A batch runs in one launch, and equals the frames filtered one at a time.
TEST_F(PlanOnDevice, ABatchOfSmallFramesInOneLaunch) {
  ImageDesc d{.width = 67, .height = 45, .type = PixelType::F32, .channels = 3};
  d.batch = 37;
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = 4;
  s.variant = "sweep";
  Plan plan = Plan::make(s, d);
  const auto launches = plan.launches();
  ASSERT_EQ(launches.passes.size(), 1u);
  EXPECT_EQ(launches.passes[0].grid.z, 37) << "the description is for the batch: a frame a z";
  EXPECT_EQ(launches.passes[0].kernel.rfind("sweepKernel<f32, 3, ", 0), 0u) << launches.passes[0].kernel;
  const auto in = testcases::randomFrames(d, rng);
  const auto got = runTyped(plan, d, in);
  auto want = testcases::poisoned(d);
  referenceFrames(plan.params().filter, plan.params().border, false, d, in.data(), want.data());
  const auto diff = testcases::compareTyped(d, got, want, plan.params().filter.mask, 2);
  EXPECT_EQ(diff.over, 0) << diff.first;
}

// tensorstream's RGBA8 kernel on a batch: one launch, a frame a grid z (the description says
// so), its every instance family: separable masks at each B0 (r = 1; 6, whose weight fragments are
// read from memory; 12, 20, 32), masks of low rank (sharpen on each side of r = 8, the laplacian,
// emboss) and gradient magnitudes; alpha filtered and not, every border, odd sizes, padded rows and
// gaps of 0 to 16 bytes between frames (so that frames start at other alignments than the first);
// against the reference, outputs and gaps poisoned.
TEST_F(PlanOnDevice, TensorStreamFiltersAnRgba8BatchInOneLaunch) {
  const MaskCase cases[] = {{"gaussian", 1},  {"gaussian", 6}, {"box", 12},     {"gaussian", 20},
                            {"gaussian", 32}, {"sharpen", 2},  {"sharpen", 12}, {"laplacian", 1},
                            {"emboss", 2},    {"sobel", 1},    {"scharr", 1},   {"sobel", 9}};
  int ran = 0;
  for (const auto& [w, h] : {std::pair{37, 23}, {131, 5}, {16, 40}, {200, 33}})
    for (const MaskCase& k : cases) {
      const ImageDesc d = paddedRgba8Batch(w, h);
      FilterSpec s = specFor(k, "tensorstream");
      s.filterAlpha = rng() % 2;
      expectABatchInOneLaunch(s, d, std::string(k.mask) + " r=" + std::to_string(k.radius));
      ++ran;
    }
  EXPECT_EQ(ran, 4 * 12);
}

// tensor2d takes an RGBA8 batch in one launch (a frame a grid z): 2D masks of full rank and of
// every chunk count, on the tile kernel and the walking one (16-row tiles from r = 9, 32-row tiles
// from r = 25), every offered tile, padded rows and frames whose stride is not a multiple of 16
// bytes; equal to the reference frame by frame, the outputs poisoned; the launch described with its
// grid z.
TEST_F(PlanOnDevice, Tensor2dFiltersAnRgba8BatchInOneLaunch) {
  const Variant& v = *findVariant("tensor2d");
  const WeightsCase cases[] = {{"custom", 0, randomFullRank(1)},
                               {"custom", 0, randomFullRank(8)},
                               {"gaussian", 12, ""},
                               {"laplacian", 3, ""},
                               {"gaussian", 26, ""},
                               {"box", 0, ""}};
  const int ran = expectBatchesOnEveryTile(v, cases, {{37, 23}, {131, 5}, {16, 70}, {200, 33}}, false);
  EXPECT_EQ(ran, 4 * 6 * int(v.tiles.size()));
}

// stream's RGBA8 kernel on a batch of 3x3 and 5x5 masks of any rank and gradient magnitudes: one
// launch, a frame a grid z, each frame's units its share of the warps; every tile, padded rows and
// frame strides that are not multiples of 16 (the lanes' copies of such frames go value by value).
// The mirror-symmetric masks (the laplacian with |.|, sharpen, a custom one) take the instances that
// sum pairs of pixels, the others the general ones.
TEST_F(PlanOnDevice, StreamFiltersAnRgba8BatchOfAnyRankAndMagnitudesInOneLaunch) {
  const Variant& v = *findVariant("stream");
  const WeightsCase cases[] = {{"sobel", 1, ""},
                               {"scharr", 1, ""},
                               {"sobel", 2, ""},
                               {"laplacian", 1, ""},
                               {"laplacian", 2, ""},
                               {"sharpen", 1, ""},
                               {"sharpen", 2, ""},
                               {"custom", 0,
                                "0.1,-0.3,0.5,-0.3,0.1;0.2,0.7,-0.4,0.7,0.2;-0.6,0.3,1.9,0.3,-0.6;"
                                "0.2,0.7,-0.4,0.7,0.2;0.1,-0.3,0.5,-0.3,0.1"},
                               {"emboss", 2, ""},
                               {"custom", 0, randomFullRank(1)},
                               {"custom", 0, randomFullRank(2)}};
  const int ran = expectBatchesOnEveryTile(v, cases, {{37, 23}, {131, 5}, {1, 9}, {300, 41}}, true);
  EXPECT_EQ(ran, 4 * 11 * int(v.tiles.size()));
}

// A batch past a grid's 65535 frames (65537 frames of 5x3): each variant that launches a batch a
// frame a grid z, on RGBA8 and grey frames, equals the reference on every frame, the last two
// included; tensor2d and stream (which launch again for the frames past 65535) say so.
TEST_F(PlanOnDevice, BatchesPastAGridsFramesEqualTheReference) {
  ImageDesc rgba = ImageDesc::rgba8(5, 3);
  rgba.batch = 65537;
  ImageDesc grey{.width = 5, .height = 3, .type = PixelType::U8, .channels = 1};
  grey.batch = 65537;
  struct Case {
    const char* variant;
    WeightsCase mask;
    ImageDesc frames;
    bool noted;  // its description names the launch a 65535 frames
  };
  const Case cases[] = {{"tensor2d", {"custom", 0, randomFullRank(1)}, rgba, true},
                        {"stream", {"sobel", 1, ""}, rgba, true},
                        {"stream", {"emboss", 2, ""}, rgba, true},
                        {"tensorstream", {"gaussian", 4, ""}, rgba, false},
                        {"tensorstream", {"gaussian", 4, ""}, grey, false},
                        {"stream", {"gaussian", 1, ""}, grey, false},
                        {"sweep", {"gaussian", 2, ""}, grey, false}};
  for (const Case& c : cases) {
    const FilterSpec s = weightsSpecFor(c.mask, c.variant);
    const std::string what = std::string(c.variant) + " " + c.mask.mask + " " + c.frames.str();
    Problem why;
    Plan plan = Plan::make(s, c.frames, {}, why);
    ASSERT_TRUE(plan) << what << ": " << why.text();
    if (c.noted) {
      const LaunchDescription d = plan.launches();
      ASSERT_FALSE(d.passes.empty()) << what;
      EXPECT_EQ(d.passes[0].grid.z, 65535) << what;
      EXPECT_NE(d.passes[0].note.find("a launch per 65535 frames"), std::string::npos) << d.passes[0].note;
    }
    SCOPED_TRACE(what);
    expectEqualsReference(plan, c.frames);
  }
}

// Frames taller than a grid's 65535 rows of blocks times a block's rows (1 and 3 pixels wide,
// 2.2 M rows: past every default tile's limit but tensorstream's): every GPU variant filters them
// within 1 LSB or refuses them, naming the tallest frame it takes and a variant that takes this
// one; 1 pixel wide, it filters a frame that tall and refuses one a row taller. stream and sweep,
// whose grids do not grow with the height, filter them, and so does auto's choice.
TEST_F(PlanOnDevice, FramesPastAGridsRowsOfBlocksRunOrAreRefusedNamingTheLimit) {
  constexpr int kTall = 2'200'000;
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = 1;
  s.border = Border::Mirror;
  FilterParams p;
  ASSERT_TRUE(s.compile(p).empty());
  // A texture over pitched memory takes rows at the device's texture pitch alignment (32 bytes on
  // the H200); the plan leaves device frames' rows to the caller.
  int texturePitch = 0;
  CL_CUDA(cudaDeviceGetAttribute(&texturePitch, cudaDevAttrTexturePitchAlignment, deviceInfo().index));
  int refused = 0, ran = 0;
  for (int w : {1, 3}) {
    const ImageDesc tall = ImageDesc::rgba8(w, kTall);
    for (const Variant& v : variants()) {
      if (!v.onGpu) continue;
      s.variant = v.name;
      Problem why;
      Plan plan = Plan::make(s, tall, {.memory = Memory::Device}, why);
      if (plan) {
        expectEqualsReference(plan, tall);
        ++ran;
        continue;
      }
      EXPECT_TRUE(v.name != "stream" && v.name != "sweep") << v.name << " refused " << tall.str() << ": " << why.text();
      const auto at = why.detail.find(" rows tall");
      if (at == std::string::npos) {  // refused whatever the height (no tensor cores, no cuFFT)
        EXPECT_TRUE(v.whyNot(p, ImageDesc::rgba8(w, 64))) << v.name << ": " << why.text();
        continue;
      }
      ++refused;
      const auto from = why.detail.rfind("up to ", at);
      ASSERT_NE(from, std::string::npos) << v.name << ": " << why.text();
      const int tallest = std::stoi(why.detail.substr(from + 6, at - from - 6));
      EXPECT_GE(tallest, 65000) << why.text();
      EXPECT_LT(tallest, kTall) << why.text();
      EXPECT_EQ(why.fixSetting, "variant") << why.text();
      const Variant* instead = findVariant(why.fixValue);
      ASSERT_NE(instead, nullptr) << why.text();
      EXPECT_FALSE(instead->whyNot(p, tall)) << why.text() << " / " << instead->whyNot(p, tall).text();
      if (w != 1) continue;
      ImageDesc most = ImageDesc::rgba8(1, tallest, v.name == "texture" ? std::size_t(std::max(texturePitch, 4)) : 0);
      Plan atMost = Plan::make(s, most, {.memory = Memory::Device}, why);
      ASSERT_TRUE(atMost) << v.name << " refused " << most.str() << ", the tallest it named: " << why.text();
      expectEqualsReference(atMost, most);
      ++ran;
      EXPECT_FALSE(Plan::make(s, ImageDesc::rgba8(1, tallest + 1), {.memory = Memory::Device}, why))
          << v.name << " took a frame a row taller than the tallest it named";
    }
    s.variant = "auto";
    Plan plan = Plan::make(s, tall);
    EXPECT_TRUE(plan.onGpu()) << plan.describe();
    expectEqualsReference(plan, tall);
  }
  EXPECT_GE(refused, 14) << "the 2D and separable variants' default tiles take fewer than 2.2 M rows";
  RecordProperty("ran", ran);
}

// Inf and NaN in float frames reach only the outputs within the radius, as in the reference: on
// sweep, and on fft, whose transforms would spread them over the whole frame, so it filters such a
// frame directly (and one holding a value so large that the transforms' sums could overflow) while
// the batch's other frames take the transforms.
TEST_F(PlanOnDevice, NonFiniteValuesStayWithinTheRadius) {
  for (const char* variant : {"sweep", "fft"})
    for (PixelType t : {PixelType::F16, PixelType::F32}) {
      if (std::string(variant) == "fft" && t == PixelType::F16) continue;  // refused (FftTakesEvery...)
      ImageDesc d{.width = 41, .height = 29, .type = t, .channels = 1, .batch = 2};
      std::vector<unsigned char> in = testcases::randomFrames(d, rng);
      const std::size_t e = pixelTypeBytes(t);
      const std::uint32_t inf32 = 0x7f800000u, nan32 = 0x7fc00000u;
      const std::uint16_t inf16 = 0x7c00u, nan16 = 0x7e00u;
      for (const auto& [x, y, nan] : {std::tuple{20, 14, false}, {3, 3, true}}) {
        unsigned char* p = &in[d.frameStride() + (std::size_t(y) * d.width + x) * e];  // frame 1 only
        if (t == PixelType::F32)
          std::memcpy(p, nan ? &nan32 : &inf32, 4);
        else
          std::memcpy(p, nan ? &nan16 : &inf16, 2);
      }
      FilterSpec s;
      s.mask = "gaussian";
      s.radius = 5;
      s.variant = variant;
      Plan plan = Plan::make(s, d);
      const auto got = runTyped(plan, d, in);
      auto want = testcases::poisoned(d);
      referenceFrames(plan.params().filter, plan.params().border, false, d, in.data(), want.data());
      const auto diff = testcases::compareTyped(d, got, want, plan.params().filter.mask, 2);
      EXPECT_EQ(diff.over, 0) << variant << " " << pixelTypeName(t) << ": " << diff.first;
    }
  // A finite f32 value whose transforms would overflow: 3e37 in a frame whose planes sum 2000 values.
  ImageDesc d{.width = 41, .height = 29, .type = PixelType::F32, .channels = 1};
  std::vector<unsigned char> in = testcases::randomFrames(d, rng);
  const float huge = 3e37f;
  std::memcpy(&in[(std::size_t(10) * d.width + 10) * 4], &huge, 4);
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = 5;
  s.variant = "fft";
  Plan plan = Plan::make(s, d);
  const auto got = runTyped(plan, d, in);
  auto want = testcases::poisoned(d);
  referenceFrames(plan.params().filter, plan.params().border, false, d, in.data(), want.data());
  const auto diff = testcases::compareTyped(d, got, want, plan.params().filter.mask, huge);
  EXPECT_EQ(diff.over, 0) << "fft, a value of 3e37: " << diff.first;
}

// fft on u8, u16 and f32 frames of every channel count: odd sizes from 1x1, separable and 2D masks
// (to r = 40, past the other GPU variants' reach), |sum| and a gradient magnitude, every border,
// alpha filtered and not, batches with padded rows and gaps; against the reference under the
// accuracy contract, the outputs poisoned. Refused on integer frames whose transforms' error could
// pass half a level, and on f16 frames, saying so.
TEST_F(PlanOnDevice, FftTakesEveryTypeChannelCountAndBatch) {
  std::string twoD;  // a random full 5x5 mask, weights of both signs summing to 1
  {
    std::uniform_real_distribution<double> u(-0.2, 0.4);
    std::vector<double> w(25);
    double sum = 0;
    for (double& v : w) sum += v = u(rng);
    for (int i = 0; i < 25; ++i) twoD += std::to_string(w[i] / sum) + (i % 5 == 4 ? (i < 24 ? ";" : "") : ",");
  }
  const WeightsCase cases[] = {{"gaussian", 1, ""}, {"gaussian", 9, ""}, {"box", 3, ""},       {"sobel", 1, ""},
                               {"pitch", 0, ""},    {"emboss", 3, ""},   {"laplacian", 1, ""}, {"custom", 0, twoD},
                               {"sharpen", 2, ""},  {"gaussian", 40, ""}};
  int ran = 0, refused = 0;
  for (PixelType t : testcases::kPixelTypes)
    for (int c : {1, 3, 4})
      for (const auto& [w, h] : {std::pair{1, 1}, {37, 23}, {300, 2}, {5, 131}})
        for (const WeightsCase& k : cases) {
          const ImageDesc d = randomDesc(t, c, w, h, 3);
          const FilterSpec s = weightsSpecFor(k, "fft");
          Problem why;
          Plan plan = Plan::make(s, d, {}, why);
          if (t == PixelType::F16) {  // its error is relative to the frame's largest value, not 1 ulp of each
            ASSERT_FALSE(plan) << d.str();
            EXPECT_NE(why.text().find("f16's contract"), std::string::npos) << why.text();
            EXPECT_EQ(why.fixValue, "sweep") << why.text();
            continue;
          }
          if (!plan) {
            EXPECT_NE(why.text().find("estimated at"), std::string::npos) << d.str() << ": " << why.text();
            EXPECT_TRUE(t == PixelType::U8 || t == PixelType::U16) << d.str() << ": " << why.text();
            ++refused;
            continue;
          }
          EXPECT_EQ(plan.variant().name, "fft");
          expectEqualsReference(plan, d);
          ++ran;
        }
  // Every refusal was checked above; how many there are depends on the random 2D mask's sum|w|
  // (39 of the 240 integer cases in one run), so the floor is on what ran: every f32 case (120) and
  // most integer ones.
  EXPECT_GE(ran, 250) << refused << " refused";
  RecordProperty("ran", ran);
  RecordProperty("refused_for_the_error_bound", refused);
}

// A batch whose planes pass kFftGroupBytes is transformed in groups, the last one smaller (a plan of
// its own), each frame against the reference.
TEST_F(PlanOnDevice, FftTransformsALargeBatchInGroups) {
  ImageDesc d{.width = 3, .height = 2, .type = PixelType::F32, .channels = 1};
  d.batch = 1 << 20;
  const FftGeometry all = fftGeometry(d, 64, false, Combine::Identity);
  ASSERT_GT(all.groups, 1);
  d.batch = all.frames + 37;
  FilterSpec s;
  s.mask = "gaussian";
  s.radius = 64;
  s.border = Border::Mirror;
  s.variant = "fft";
  Plan plan = Plan::make(s, d);
  const LaunchDescription launch = plan.variant().describeLaunch(plan.params(), d);
  ASSERT_FALSE(launch.passes.empty());
  EXPECT_NE(launch.passes[0].note.find("2 groups of up to " + std::to_string(all.frames) + " frames"),
            std::string::npos)
      << launch.passes[0].note;
  expectEqualsReference(plan, d);
}

}  // namespace
}  // namespace convlive
