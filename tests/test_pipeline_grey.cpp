// Grey sources through the pipeline (issue 35): GRAY8 and GRAY16_LE frames (mono cameras, grey
// pictures, `videotestsrc format=GRAY8`) arrive as they are, are uploaded at 1 or 2 bytes a
// pixel, filtered as one channel of 8 or 16 bits (on the CPU with the cpu variant in the cpu
// build, on the GPU in the gpu build), and reach the sink as RGBA8 (R = G = B; 16 bits scaled to
// 8), or as they are to a display that takes grey frames; a variant that takes RGBA8 only gets them expanded first and
// says why. Built into both pipeline test programs, like test_pipeline.cpp.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/colour.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "pipeline_fixture.hpp"

using namespace convlive;
using namespace convlive::testing;
using namespace std::chrono_literals;

namespace {

// A moving zone plate (every spatial frequency, a new frame each time, the same frames on every
// run) in `format`, through a videoconvert (which passes it through when grey frames are taken).
std::string greyLine(const char* format, int frames, int w, int h) {
  return "videotestsrc num-buffers=" + std::to_string(frames) +
         " pattern=zone-plate kx2=20 ky2=20 kt=3 ! video/x-raw,format=" + format + ",width=" + std::to_string(w) +
         ",height=" + std::to_string(h) + ",framerate=30/1 ! videoconvert ! appsink";
}

FilterParams gaussian(int r) {
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = r});
  p.border = Border::Mirror;
  return p;
}

PipelineConfig greyConfig(const std::string& line, FilterParams p, const char* variant = kVariant,
                          InputFormat format = InputFormat::Auto) {
  return testConfig(SourceSpec::launch(line), std::move(p), format, variant);
}

// One grey frame copied out of its sample (rows packed), with its description.
struct GreyFrame {
  ImageDesc desc;
  std::vector<std::uint8_t> bytes;
};

// The frames `line` gives a source that takes grey frames as they are.
std::vector<GreyFrame> greyFramesOf(const std::string& line) {
  SourceOptions o;
  o.acceptGrey = true;
  Source src(SourceSpec::launch(line), o);
  std::vector<GreyFrame> out;
  SourceFrame f;
  while (src.pull(f, 5s) == Source::Pull::Frame) {
    EXPECT_TRUE(f.isGrey());
    if (!f.isGrey()) break;
    GreyFrame g;
    g.desc = f.greyDesc;
    g.desc.pitch = 0;
    g.bytes.resize(g.desc.span());
    for (int y = 0; y < g.desc.height; ++y)
      std::memcpy(g.bytes.data() + y * g.desc.rowBytes(),
                  static_cast<const std::uint8_t*>(f.grey) + y * f.greyDesc.rowPitch(), g.desc.rowBytes());
    out.push_back(std::move(g));
  }
  return out;
}

// What the sink should see for a grey frame: the reference filter at its own depth, as RGBA8.
HostImage filteredAsRgba(const FilterParams& p, const GreyFrame& g) {
  std::vector<std::uint8_t> filtered(g.bytes.size());
  referenceFrames(p.filter, p.border, p.filterAlpha, g.desc, g.bytes.data(), filtered.data());
  HostImage rgba(g.desc.width, g.desc.height);
  referenceGreyToRgba(filtered.data(), g.desc, rgba.view());
  return rgba;
}

HostImage sourceAsRgba(const GreyFrame& g) {
  HostImage rgba(g.desc.width, g.desc.height);
  referenceGreyToRgba(g.bytes.data(), g.desc, rgba.view());
  return rgba;
}

// Keeps each frame's filtered output, and the source where a sink is given it, from a display-like
// sink on the GPU (device views, copied back on the frame's stream) or a host-frame sink.
class GreyCaptureSink : public FrameSink {
 public:
  explicit GreyCaptureSink(bool hostFrames) : hostFrames_(hostFrames) {}
  bool wantsHostFrames() const override { return hostFrames_; }
  void deliver(const OutputFrame& f) override { keep(f); }
  void present(const OutputFrame& f) override { keep(f); }
  struct Frame {
    std::uint64_t index = 0;
    HostImage source, filtered;
  };
  std::vector<Frame> frames;

 private:
  HostImage copy(ConstImageView v, const OutputFrame& f) {
    if (!v.data) return HostImage();
    if (!f.onDevice) return copyOf(v);
    HostImage img(v.width, v.height);
    CL_CUDA(cudaMemcpy2DAsync(img.view().data, img.view().pitch, v.data, v.pitch, std::size_t(v.width) * 4, v.height,
                              cudaMemcpyDeviceToHost, f.stream));
    CL_CUDA(cudaStreamSynchronize(f.stream));
    return img;
  }
  void keep(const OutputFrame& f) {
    frames.push_back({f.index, copy(f.onDevice ? f.source : f.sourceHost, f), copy(f.filtered, f)});
  }
  bool hostFrames_;
};

class PipelineGrey : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kGpu && !deviceInfo().available) GTEST_SKIP() << "no CUDA device: " << deviceInfo().reason;
  }
};

// ---- The source ---------------------------------------------------------------------------------------

// Grey frames arrive as they are when asked for: their plane, type and row pitch; otherwise (and
// colour sources always) as before.
TEST(SourceGrey, GreyFramesArriveAsTheyAreWhenAskedFor) {
  for (const auto& [format, type] : {std::pair{"GRAY8", PixelType::U8}, std::pair{"GRAY16_LE", PixelType::U16}}) {
    SCOPED_TRACE(format);
    SourceOptions o;
    o.acceptGrey = true;
    Source src(SourceSpec::launch(greyLine(format, 2, 37, 23)), o);
    SourceFrame f;
    ASSERT_EQ(src.pull(f, 5s), Source::Pull::Frame);
    ASSERT_TRUE(f.isGrey());
    EXPECT_FALSE(f.isYuv());
    EXPECT_EQ(f.greyDesc.type, type);
    EXPECT_EQ(f.greyDesc.channels, 1);
    EXPECT_EQ(f.greyDesc.width, 37);
    EXPECT_EQ(f.greyDesc.height, 23);
    EXPECT_GE(f.greyDesc.rowPitch(), f.greyDesc.rowBytes());
    EXPECT_EQ(f.pixels.width, 37);
    EXPECT_EQ(f.pixels.data, nullptr);
    EXPECT_EQ(src.info().frameFormat, format);
    if (type == PixelType::U16)
      EXPECT_NE(src.info().depthNote.find("filtered at 16 bits"), std::string::npos) << src.info().depthNote;
    else
      EXPECT_EQ(src.info().depthNote, "");

    Source rgba(SourceSpec::launch(greyLine(format, 2, 37, 23)), SourceOptions{});
    ASSERT_EQ(rgba.pull(f, 5s), Source::Pull::Frame);
    EXPECT_FALSE(f.isGrey()) << "grey frames were not asked for";
    EXPECT_EQ(rgba.info().frameFormat, "RGBA");
  }
  SourceOptions o;
  o.acceptGrey = true;
  Source colour(SourceSpec::launch("videotestsrc num-buffers=2 ! video/x-raw,format=RGB,width=33,height=17 ! "
                                   "videoconvert ! appsink"),
                o);
  SourceFrame f;
  ASSERT_EQ(colour.pull(f, 5s), Source::Pull::Frame);
  EXPECT_FALSE(f.isGrey()) << "a colour source must keep its colours";
  EXPECT_EQ(colour.info().frameFormat, "RGBA");
}

// ---- The pipeline ---------------------------------------------------------------------------------------

// Every frame the sink gets equals the reference filter of its grey source at the source's depth,
// expanded to RGBA8 (within 1 level on the GPU: the filter's 1 LSB; exactly with the cpu
// variant), at odd sizes; host-frame sinks and (on the GPU) display-like ones that take device
// frames; the stages say what ran.
TEST_F(PipelineGrey, FramesAreFilteredAsTheyComeAtTheirDepth) {
  for (const auto& [format, as] : {std::pair{"GRAY8", "u8x1"}, std::pair{"GRAY16_LE", "u16x1"}})
    for (const auto& [w, h] : {std::pair{67, 45}, std::pair{160, 9}})
      for (bool hostFrames : {true, false}) {
        SCOPED_TRACE(std::string(format) + " " + std::to_string(w) + "x" + std::to_string(h) +
                     (hostFrames ? " host frames" : " presented"));
        const std::string line = greyLine(format, 4, w, h);
        const FilterParams p = gaussian(3);
        GreyCaptureSink sink(hostFrames);
        Pipeline pipe(greyConfig(line, p), sink);
        EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream);
        const std::vector<GreyFrame> sources = greyFramesOf(line);
        ASSERT_EQ(sink.frames.size(), 4u);
        ASSERT_EQ(sources.size(), 4u);
        for (const auto& f : sink.frames) {
          const GreyFrame& g = sources[f.index];
          ASSERT_EQ(f.filtered.width(), w);
          EXPECT_LE(testcases::maxDifference(f.filtered.view(), filteredAsRgba(p, g).view()), kGpu ? 1 : 0)
              << "frame " << f.index;
          // The source goes to a display (its split view) and to host sinks on the CPU path.
          if (!hostFrames || !kGpu) {
            ASSERT_EQ(f.source.width(), w) << "no source handed to the sink";
            EXPECT_EQ(testcases::maxDifference(f.source.view(), sourceAsRgba(g).view()), 0) << "frame " << f.index;
          }
        }
        const Timings t = pipe.timings();
        EXPECT_EQ(t.filteredAs, as);
        EXPECT_EQ(pipe.greyExpandedWhy(), "");
        EXPECT_EQ(pipe.sourceInfo().frameFormat, format);
        EXPECT_GT(t[Stage::Convert].average(), 0) << "the expansion to RGBA8 is timed";
        // One channel of `as`: the filter's bandwidth counts those bytes, not RGBA's.
        if (t[Stage::Filter].last() > 0) {
          const double bytes = 2.0 * w * h * (std::string(as) == "u8x1" ? 1 : 2);
          EXPECT_NEAR(t.filterGBs, bytes / (t[Stage::Filter].last() * 1e6), t.filterGBs * 1e-6);
        }
      }
}

// A display that takes grey frames as they are (FrameSink::acceptsGreyFrames: the viewer, which
// shows them through R8 / R16 textures) gets the filtered and the source planes at their own depth
// (device memory from the GPU, host memory from the CPU), no RGBA8 views, and no expansion is made.
class GreyPlaneSink : public FrameSink {
 public:
  bool wantsHostFrames() const override { return false; }
  bool acceptsGreyFrames() const override { return true; }
  void present(const OutputFrame& f) override {
    EXPECT_EQ(f.filtered.data, nullptr);
    EXPECT_EQ(f.source.data, nullptr);
    EXPECT_EQ(f.sourceHost.data, nullptr);
    EXPECT_NE(f.filteredGrey, nullptr);
    EXPECT_NE(f.sourceGrey, nullptr);
    if (!f.filteredGrey || !f.sourceGrey) return;
    frames.push_back({f.index, f.greyDesc, packed(f.filteredGrey, f), packed(f.sourceGrey, f)});
  }
  struct Frame {
    std::uint64_t index = 0;
    ImageDesc desc;                              // as handed over
    std::vector<std::uint8_t> filtered, source;  // rows packed
  };
  std::vector<Frame> frames;

 private:
  static std::vector<std::uint8_t> packed(const void* plane, const OutputFrame& f) {
    const ImageDesc& d = f.greyDesc;
    std::vector<std::uint8_t> out(d.rowBytes() * std::size_t(d.height));
    if (f.onDevice) {
      CL_CUDA(cudaMemcpy2DAsync(out.data(), d.rowBytes(), plane, d.rowPitch(), d.rowBytes(), std::size_t(d.height),
                                cudaMemcpyDeviceToHost, f.stream));
      CL_CUDA(cudaStreamSynchronize(f.stream));
    } else {
      for (int y = 0; y < d.height; ++y)
        std::memcpy(out.data() + y * d.rowBytes(), static_cast<const std::uint8_t*>(plane) + y * d.rowPitch(),
                    d.rowBytes());
    }
    return out;
  }
};

// The largest difference between two packed planes of u8 or u16 values.
int maxPlaneDifference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b, bool words) {
  int most = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); i += words ? 2 : 1) {
    const int va = words ? a[i] | a[i + 1] << 8 : a[i], vb = words ? b[i] | b[i + 1] << 8 : b[i];
    most = std::max(most, std::abs(va - vb));
  }
  return a.size() == b.size() ? most : 1 << 20;
}

TEST_F(PipelineGrey, ADisplayTakingGreyFramesGetsThemAsTheyAre) {
  for (const auto& [format, type] : {std::pair{"GRAY8", PixelType::U8}, std::pair{"GRAY16_LE", PixelType::U16}}) {
    SCOPED_TRACE(format);
    const std::string line = greyLine(format, 4, 67, 45);
    const FilterParams p = gaussian(3);
    GreyPlaneSink sink;
    Pipeline pipe(greyConfig(line, p), sink);
    EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream);
    const std::vector<GreyFrame> sources = greyFramesOf(line);
    ASSERT_EQ(sink.frames.size(), 4u);
    ASSERT_EQ(sources.size(), 4u);
    const bool words = type == PixelType::U16;
    for (const auto& f : sink.frames) {
      const GreyFrame& g = sources[f.index];
      EXPECT_EQ(f.desc.type, type);
      EXPECT_EQ(f.desc.channels, 1);
      ASSERT_EQ(f.desc.width, 67);
      ASSERT_EQ(f.desc.height, 45);
      std::vector<std::uint8_t> want(g.bytes.size());
      referenceFrames(p.filter, p.border, p.filterAlpha, g.desc, g.bytes.data(), want.data());
      EXPECT_LE(maxPlaneDifference(f.filtered, want, words), kGpu ? 1 : 0) << "frame " << f.index;
      EXPECT_EQ(maxPlaneDifference(f.source, g.bytes, words), 0) << "frame " << f.index;
    }
    EXPECT_EQ(pipe.greyExpandedWhy(), "");
    // Nothing expanded: on the CPU no conversion at all (the GPU's convert stage keeps its upload's).
    if (!kGpu) {
      EXPECT_EQ(pipe.timings()[Stage::Convert].average(), 0);
    }
  }
}

// The null sink (run --sink null) drops grey frames as they are: nothing is expanded for it.
TEST_F(PipelineGrey, TheNullSinkDropsThemUnexpanded) {
  const std::string line = greyLine("GRAY8", 4, 67, 45);
  NullSink sink;
  EXPECT_TRUE(sink.acceptsGreyFrames());
  Pipeline pipe(greyConfig(line, gaussian(2)), sink);
  EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream);
  EXPECT_EQ(pipe.framesIn(), 4u);
  EXPECT_EQ(pipe.timings().filteredAs, "u8x1");
  if (!kGpu) {
    EXPECT_EQ(pipe.timings()[Stage::Convert].average(), 0);
  }
}

// --input-format rgba keeps the old path: grey sources are converted to RGBA by GStreamer.
TEST_F(PipelineGrey, RgbaInputFormatConvertsThemAsBefore) {
  CaptureSink sink;
  Pipeline pipe(greyConfig(greyLine("GRAY8", 2, 41, 19), gaussian(2), kVariant, InputFormat::Rgba), sink);
  EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream);
  ASSERT_EQ(sink.frames.size(), 2u);
  EXPECT_EQ(pipe.sourceInfo().frameFormat, "RGBA");
  EXPECT_EQ(pipe.timings().filteredAs, "RGBA8");
  for (const auto& f : sink.frames)
    EXPECT_LE(maxErrorAgainstReference(gaussian(2), f.source, f.filtered), kGpu ? 1 : 0);
}

// A variant that takes RGBA8 frames only (the classic teaching ones) still runs on grey sources:
// their frames are expanded to RGBA8 first (8 bits), the pipeline says why, and the output is the
// filter of the expanded frame.
TEST_F(PipelineGrey, AVariantTakingRgbaOnlyGetsThemExpandedAndSaysWhy) {
  if (!kGpu) GTEST_SKIP() << "the CPU variants take grey frames: the gpu build checks a variant that does not";
  for (const char* format : {"GRAY8", "GRAY16_LE"}) {
    SCOPED_TRACE(format);
    const std::string line = greyLine(format, 3, 53, 31);
    const FilterParams p = gaussian(2);
    GreyCaptureSink sink(true);
    Pipeline pipe(greyConfig(line, p, "naive"), sink);
    EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream);
    EXPECT_EQ(pipe.variantName(), "naive");
    EXPECT_EQ(pipe.timings().filteredAs, "RGBA8");
    EXPECT_NE(pipe.greyExpandedWhy().find("naive"), std::string::npos) << pipe.greyExpandedWhy();
    const std::vector<GreyFrame> sources = greyFramesOf(line);
    ASSERT_EQ(sink.frames.size(), 3u);
    for (const auto& f : sink.frames)
      EXPECT_LE(maxErrorAgainstReference(p, sourceAsRgba(sources[f.index]), f.filtered), 1) << "frame " << f.index;
  }
}

// A filter change while grey frames play applies to them as they are (the plan is made for grey
// frames, not for RGBA8 of their size).
TEST_F(PipelineGrey, AFilterChangeKeepsThemAsTheyCome) {
  const std::string line = greyLine("GRAY8", 6, 45, 27);
  GreyCaptureSink sink(true);
  Pipeline pipe(greyConfig(line, gaussian(1)), sink);
  ASSERT_EQ(nextFrame(pipe), StepResult::Frame);
  EXPECT_EQ(pipe.setFilter(kVariant, gaussian(4)), "");
  EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream);
  const std::vector<GreyFrame> sources = greyFramesOf(line);
  ASSERT_EQ(sink.frames.size(), 6u);
  const GreyCaptureSink::Frame& last = sink.frames.back();
  EXPECT_LE(testcases::maxDifference(last.filtered.view(), filteredAsRgba(gaussian(4), sources[last.index]).view()),
            kGpu ? 1 : 0);
  EXPECT_EQ(pipe.timings().filteredAs, "u8x1");
  EXPECT_EQ(pipe.filterParams().filter.mask.radius(), 4);
}

// On the GPU, a host-frame sink that takes I420 (an export, run --sink download) gets grey frames
// as I420 made there (1.5 bytes a pixel over PCIe): Y the filtered value in the sink's colours, U
// and V neutral.
TEST_F(PipelineGrey, SinksTakingYuvGetI420FromTheGpu) {
  if (!kGpu) GTEST_SKIP() << "the CPU path hands RGBA8 frames: the gpu build checks the GPU's I420";
  struct YuvSink : FrameSink {
    bool wantsHostFrames() const override { return true; }
    bool acceptsYuvFrames() const override { return true; }
    ColourSpec yuvFramesColour(ColourSpec, int, int) const override { return {ColourMatrix::Bt601, ColourRange::Full}; }
    void deliver(const OutputFrame& f) override {
      EXPECT_EQ(f.filtered.data, nullptr);
      ASSERT_NE(f.filteredYuv.planes[0], nullptr);
      EXPECT_EQ(f.filteredColour, (ColourSpec{ColourMatrix::Bt601, ColourRange::Full}));
      const ConstYuvView& v = f.filteredYuv;
      Frame c{f.index, HostImage(v.width, v.height), 0};
      for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
          std::uint8_t* px = c.luma.view().row(y) + 4 * x;
          px[0] = px[1] = px[2] = v.planes[0][y * v.pitches[0] + x];
          px[3] = 255;
        }
      for (int p = 1; p < 3; ++p)
        for (int y = 0; y < chromaHeight(v.height); ++y)
          for (int x = 0; x < chromaWidth(v.width); ++x) c.notNeutral += v.planes[p][y * v.pitches[p] + x] != 128;
      frames.push_back(std::move(c));
    }
    struct Frame {
      std::uint64_t index;
      HostImage luma;  // Y as grey RGBA, to compare with the filtered frame (full range: Y = the value)
      int notNeutral;
    };
    std::vector<Frame> frames;
  } sink;
  const std::string line = greyLine("GRAY8", 3, 67, 45);
  const FilterParams p = gaussian(2);
  Pipeline pipe(greyConfig(line, p), sink);
  EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream);
  const std::vector<GreyFrame> sources = greyFramesOf(line);
  ASSERT_EQ(sink.frames.size(), 3u);
  for (const auto& f : sink.frames) {
    EXPECT_LE(testcases::maxDifference(f.luma.view(), filteredAsRgba(p, sources[f.index]).view()), 1)
        << "frame " << f.index;
    EXPECT_EQ(f.notNeutral, 0) << "frame " << f.index << ": a grey frame's chroma is not 128";
  }
}

// An export of a grey source writes every frame as video (on the GPU through I420 made there):
// grey (R = G = B) and the filtered frame within the codec's loss.
TEST_F(PipelineGrey, ExportWritesThemAsVideo) {
  // Whole 16x16 blocks: MJPEG's partial edge blocks tint a few pixels whatever the source.
  const std::string line = greyLine("GRAY8", 5, 64, 48);
  const std::string path = (scratch() / "grey-export.avi").string();
  FileExporter out(path, 30);
  ExportSink forward(out);
  const FilterParams p = gaussian(1);
  Pipeline pipe(greyConfig(line, p), forward);
  EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream);
  out.finish();
  EXPECT_EQ(out.frames(), 5u);
  EXPECT_EQ(pipe.timings().filteredAs, "u8x1");
  const HostImage first = firstFrameOf(path);
  ASSERT_EQ(first.width(), 64);
  ASSERT_EQ(first.height(), 48);
  EXPECT_LT(meanDifference(first.view(), filteredAsRgba(p, greyFramesOf(line)[0]).view()), 3.0);
  int colourful = 0;
  for (int y = 0; y < first.height(); ++y)
    for (int x = 0; x < first.width(); ++x) {
      const std::uint8_t* px = first.view().row(y) + 4 * x;
      colourful += std::max({std::abs(px[0] - px[1]), std::abs(px[1] - px[2]), std::abs(px[0] - px[2])}) > 3;
    }
  EXPECT_EQ(colourful, 0) << "a grey source exported with colours";
}

}  // namespace
