// The GPU colour conversion against the CPU reference (label gpu; every case skips, saying why,
// without a CUDA device). Both directions, NV12 and I420, every matrix and both ranges, on fresh
// random frames of odd and even sizes (1x1 up to 1283x721) in three layouts: tight rows, padded rows
// aligned for the vectorised path, and padded rows at odd pitches and an odd start address (the
// byte path). Outputs are poisoned with two different values in two launches, so an unwritten
// sample cannot match; the bytes outside the rows (pitch padding, the offset before the frame) must
// still hold the poison afterwards. Set CONVLIVE_TEST_SEED to replay a run.
//
// Tolerance: at most 1 level, and at most 500 samples in a million off at all (measured with the
// kernels' code run on the host: up to about 60). The kernels compute in float with coefficients
// folded from the reference's doubles; the chroma filters are exact in float, so only a value
// within about 1e-4 of a rounding boundary can round the other way. Such values are not rare:
// the standards' luma weights are decimals (0.2126, 0.7152, 0.0722), so a weighted sum of bytes
// lands exactly on a half about once in 10^4, and there double and float noise decide the side.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/resources.hpp"
#include "test_colour_common.hpp"

using namespace convlive;
using namespace convlive::colourtest;

namespace {

constexpr long kMaxDifferingPerMillion = 500;

struct Size {
  int w, h;
};

const Padding kLayouts[] = {
    {0, 0, 1, "tight"},
    {16, 0, 64, "aligned padded"},       // pitches multiples of 64: the vectorised path, padding after each row
    {3, 1, 1, "odd pitch and address"},  // the byte path
};

std::string caseName(Size s, YuvFormat f, ColourSpec spec, const Padding& p) {
  return std::to_string(s.w) + "x" + std::to_string(s.h) + " " + std::string(yuvFormatName(f)) + " " + describe(spec) +
         " " + p.name + " seed " + std::to_string(seedForRun());
}

DeviceBuffer toDevice(const std::vector<std::uint8_t>& bytes) {
  DeviceBuffer d(bytes.size());
  CL_CUDA(cudaMemcpy(d.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  return d;
}

ImageView deviceView(const DeviceBuffer& d, const RgbaBuffer& like) {
  return {d.as<std::uint8_t>() + like.offset, like.width, like.height, like.pitch};
}

class ColourGpu : public testing::TestWithParam<Size> {
 protected:
  void SetUp() override {
    if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
    stream_.emplace();
  }
  cudaStream_t stream() const { return stream_->get(); }
  std::optional<Stream> stream_;  // a non-blocking stream: the conversions are asynchronous on it
  std::mt19937 rng_{seedForRun() ^ static_cast<unsigned>(GetParam().w * 7919 + GetParam().h)};
};

TEST_P(ColourGpu, YuvToRgbaMatchesReference) {
  const Size s = GetParam();
  for (YuvFormat f : {YuvFormat::NV12, YuvFormat::I420})
    for (ColourSpec spec : allSpecs())
      for (const Padding& layout : kLayouts) {
        SCOPED_TRACE(caseName(s, f, spec, layout));
        YuvBuffer in(f, s.w, s.h, layout);
        fillRandom(in.bytes, rng_);  // the padding too: it must not leak into the output
        RgbaBuffer want(s.w, s.h);
        referenceYuvToRgba(in.view(), want.view(), spec);

        const DeviceBuffer din = toDevice(in.bytes);
        RgbaBuffer out(s.w, s.h, layout);
        DeviceBuffer dout(out.bytes.size());
        for (std::uint8_t poison : {std::uint8_t(0xcd), std::uint8_t(0x32)}) {
          CL_CUDA(cudaMemsetAsync(dout.get(), poison, out.bytes.size(), stream()));
          yuvToRgba(yuvViewAt(in.layout, din.as<const std::uint8_t>()), deviceView(dout, out), spec, stream());
          CL_CUDA(cudaMemcpyAsync(out.bytes.data(), dout.get(), out.bytes.size(), cudaMemcpyDeviceToHost, stream()));
          stream_->synchronize();
          SCOPED_TRACE("poison " + std::to_string(poison));
          ASSERT_TRUE(within(compareRgba(out.view(), want.view(), 1), 1, kMaxDifferingPerMillion));
          ASSERT_TRUE(paddingUntouched(out.bytes, out, poison));
        }
      }
}

TEST_P(ColourGpu, RgbaToYuvMatchesReference) {
  const Size s = GetParam();
  for (YuvFormat f : {YuvFormat::NV12, YuvFormat::I420})
    for (ColourSpec spec : allSpecs())
      for (const Padding& layout : kLayouts) {
        SCOPED_TRACE(caseName(s, f, spec, layout));
        RgbaBuffer in(s.w, s.h, layout);
        fillRandom(in.bytes, rng_);
        YuvBuffer want(f, s.w, s.h);
        referenceRgbaToYuv(in.view(), want.view(), spec);

        const DeviceBuffer din = toDevice(in.bytes);
        YuvBuffer out(f, s.w, s.h, layout);
        DeviceBuffer dout(out.bytes.size());
        const ConstImageView dinView(din.as<const std::uint8_t>() + in.offset, s.w, s.h, in.pitch);
        for (std::uint8_t poison : {std::uint8_t(0xcd), std::uint8_t(0x32)}) {
          CL_CUDA(cudaMemsetAsync(dout.get(), poison, out.bytes.size(), stream()));
          rgbaToYuv(dinView, yuvViewAt(out.layout, dout.as<std::uint8_t>()), spec, stream());
          CL_CUDA(cudaMemcpyAsync(out.bytes.data(), dout.get(), out.bytes.size(), cudaMemcpyDeviceToHost, stream()));
          stream_->synchronize();
          SCOPED_TRACE("poison " + std::to_string(poison));
          ASSERT_TRUE(within(compareYuv(out.view(), want.view(), 1), 1, kMaxDifferingPerMillion));
          ASSERT_TRUE(paddingUntouched(out.bytes, out, poison));
        }
      }
}

INSTANTIATE_TEST_SUITE_P(Sizes, ColourGpu,
                         testing::Values(Size{1, 1}, Size{1, 17}, Size{17, 1}, Size{2, 2}, Size{3, 3}, Size{37, 23},
                                         Size{64, 48}, Size{641, 479}, Size{1283, 721}),
                         [](const testing::TestParamInfo<Size>& i) {
                           return std::to_string(i.param.w) + "x" + std::to_string(i.param.h);
                         });

// ---- 4K: a round trip and the kernels' times ----------------------------------------------------------

class ColourGpu4K : public testing::Test {
 protected:
  void SetUp() override {
    if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  }
};

// Median milliseconds of `runs` launches of `launch` on `s`, timed by events around each.
template <class F>
double medianMs(F launch, cudaStream_t s, int runs = 50) {
  const Event start, stop;
  std::vector<double> ms;
  for (int i = 0; i < 5; ++i) launch();  // warm-up
  for (int i = 0; i < runs; ++i) {
    start.record(s);
    launch();
    stop.record(s);
    stop.synchronize();
    ms.push_back(stop.elapsedSince(start));
  }
  std::nth_element(ms.begin(), ms.begin() + runs / 2, ms.end());
  return ms[runs / 2];
}

// Grey frames expanded to RGBA8 on the GPU equal the reference exactly (integer arithmetic both
// sides): u8 and u16, odd sizes from 1x1, tight rows and padded ones at odd pitches (u8: an odd
// start address too), into RGBA frames aligned (word stores) and not (byte stores), poisoned first;
// the RGBA padding keeps its poison.
TEST(ColourGpuGrey, GreyFramesExpandAsTheReferenceDoes) {
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")";
  std::mt19937 rng(seedForRun());
  int ran = 0;
  for (PixelType t : {PixelType::U8, PixelType::U16})
    for (const Size s : {Size{1, 1}, Size{37, 23}, Size{640, 3}, Size{1283, 721}})
      for (const Padding& pad : kLayouts) {
        SCOPED_TRACE(std::string(t == PixelType::U8 ? "u8 " : "u16 ") + std::to_string(s.w) + "x" +
                     std::to_string(s.h) + " " + pad.name + " seed " + std::to_string(seedForRun()));
        const std::size_t e = t == PixelType::U8 ? 1 : 2;
        ImageDesc grey{.width = s.w, .height = s.h, .type = t, .channels = 1};
        grey.pitch = e * std::size_t(s.w) + e * pad.extraBytes;
        const std::size_t offset = e * pad.offset;
        std::vector<std::uint8_t> in(offset + grey.rowPitch() * std::size_t(s.h));
        for (auto& b : in) b = std::uint8_t(rng());
        RgbaBuffer want(s.w, s.h, pad), got(s.w, s.h, pad);
        std::fill(want.bytes.begin(), want.bytes.end(), 0x5a);
        std::fill(got.bytes.begin(), got.bytes.end(), 0x5a);
        referenceGreyToRgba(in.data() + offset, grey, want.view());
        const DeviceBuffer din = toDevice(in), dout = toDevice(got.bytes);
        greyToRgba(din.as<std::uint8_t>() + offset, grey, deviceView(dout, got), nullptr);
        CL_CUDA(cudaMemcpy(got.bytes.data(), dout.get(), got.bytes.size(), cudaMemcpyDeviceToHost));
        EXPECT_TRUE(got.bytes == want.bytes) << "differs from the reference (or wrote the padding)";
        ++ran;
      }
  EXPECT_EQ(ran, 2 * 4 * int(std::size(kLayouts)));
}

// A 3840x2160 frame (device frames as the pipeline has them: pitched RGBA, packed YUV) through
// RGBA -> YUV -> RGBA on the GPU matches the same round trip on the CPU reference; the four
// kernels' median times and effective bandwidth are printed (and recorded in the XML output).
TEST_F(ColourGpu4K, RoundTripMatchesReferenceAndTimes) {
  const int w = 3840, h = 2160;
  const ColourSpec spec{ColourMatrix::Bt709, ColourRange::Limited};
  std::mt19937 rng(seedForRun());
  HostImage src(w, h);
  fillRandom(src.pixels(), rng);
  const Stream stream;
  DeviceImage rgba(w, h), back(w, h);
  rgba.upload(src.view(), stream.get());
  for (YuvFormat f : {YuvFormat::NV12, YuvFormat::I420}) {
    SCOPED_TRACE(std::string(yuvFormatName(f)) + " seed " + std::to_string(seedForRun()));
    const DeviceYuvFrame yuv(packedYuvLayout(f, w, h));
    rgbaToYuv(rgba.view(), yuv.view(), spec, stream.get());
    yuvToRgba(yuv.view(), back.view(), spec, stream.get());
    HostImage got(w, h);
    back.download(got.view(), stream.get());
    stream.synchronize();

    YuvBuffer yuvRef(f, w, h);
    HostImage want(w, h);
    referenceRgbaToYuv(src.view(), yuvRef.view(), spec);
    referenceYuvToRgba(yuvRef.view(), want.view(), spec);
    // Two conversions: a Y, Cb or Cr 1 level off after the first moves R, G or B by up to 2.
    EXPECT_TRUE(within(compareRgba(got.view(), want.view(), 2), 2, 2 * kMaxDifferingPerMillion));

    const double toRgba = medianMs([&] { yuvToRgba(yuv.view(), back.view(), spec, stream.get()); }, stream.get());
    const double toYuv = medianMs([&] { rgbaToYuv(rgba.view(), yuv.view(), spec, stream.get()); }, stream.get());
    const double bytes = double(w) * h * (4 + 1.5);  // read one side, write the other
    std::printf("[ colour   ] 3840x2160 %s -> RGBA %.1f us (%.0f GB/s), RGBA -> %s %.1f us (%.0f GB/s) on %s\n",
                std::string(yuvFormatName(f)).c_str(), 1000 * toRgba, bytes / toRgba / 1e6,
                std::string(yuvFormatName(f)).c_str(), 1000 * toYuv, bytes / toYuv / 1e6, deviceInfo().name.c_str());
    RecordProperty(std::string(yuvFormatName(f)) + "_to_rgba_us", std::to_string(1000 * toRgba));
    RecordProperty(std::string("rgba_to_") + std::string(yuvFormatName(f)) + "_us", std::to_string(1000 * toYuv));
  }
}

}  // namespace
