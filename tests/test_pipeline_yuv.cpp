// NV12/I420 sources through the pipeline (issue 10, part 2): the colorimetry read from caps, sources
// that let the decoder's YUV through, the pipeline converting it (on the CPU with the colour
// reference in the cpu build, on the GPU in the gpu build), exports taking I420 back, and the
// command line's --input-format. Built into both pipeline test programs, like test_pipeline.cpp.
#include <gst/app/gstappsink.h>
#include <gtest/gtest.h>

#include "colorimetry.hpp"
#include "convlive/colour.hpp"
#include "convlive/export.hpp"
#include "convlive/resources.hpp"
#include "cuda_share.hpp"
#include "pipeline_fixture.hpp"
#ifdef CONVLIVE_EXE
#include <nlohmann/json.hpp>

#include "run_program.hpp"
#endif

using namespace convlive;
using namespace convlive::testing;
using namespace std::chrono_literals;

namespace {

FilterParams gaussian(int r) {
  FilterParams p;
  p.filter = makeFilter("gaussian", {.radius = r});
  p.border = Border::Clamp;
  return p;
}

PipelineConfig yuvConfig(SourceSpec src, InputFormat format = InputFormat::Yuv, FilterParams p = gaussian(2)) {
  return testConfig(std::move(src), std::move(p), format);
}

SourceSpec pattern(int frames, int w, int h, const char* kind = "moving") {
  SourceSpec s = SourceSpec::testPattern(kind, w, h, 30);
  s.frames = frames;
  return s;
}

// A YUV frame copied into host memory (packed), with its colours.
struct HostYuv {
  YuvLayout layout;
  std::vector<std::uint8_t> bytes;
  ColourSpec colour;
  ConstYuvView view() const { return yuvViewAt(layout, bytes.data()); }
};

HostYuv copyOf(const ConstYuvView& v, ColourSpec colour) {
  HostYuv h;
  h.layout = packedYuvLayout(v.format, v.width, v.height);
  h.bytes.resize(h.layout.bytes);
  h.colour = colour;
  const YuvView to = yuvViewAt(h.layout, h.bytes.data());
  for (int p = 0; p < yuvPlaneCount(v.format); ++p)
    for (int y = 0; y < yuvPlaneRows(v.height, p); ++y)
      std::memcpy(to.planes[p] + y * to.pitches[p], v.planes[p] + y * v.pitches[p], yuvRowBytes(v.format, v.width, p));
  return h;
}

HostImage rgbaOf(const HostYuv& y) {
  HostImage img(y.layout.width, y.layout.height);
  referenceYuvToRgba(y.view(), img.view(), y.colour);
  return img;
}

// Keeps each frame's YUV source and its filtered output (RGBA, or I420 when it takes YUV).
class YuvCaptureSink : public FrameSink {
 public:
  explicit YuvCaptureSink(bool takesYuv = false) : takesYuv_(takesYuv) {}
  bool wantsHostFrames() const override { return true; }
  bool acceptsYuvFrames() const override { return takesYuv_; }
  void deliver(const OutputFrame& f) override {
    Frame c;
    c.index = f.index;
    if (f.sourceYuv.planes[0]) c.source = copyOf(f.sourceYuv, f.colour);
    if (f.filteredYuv.planes[0]) c.filteredYuv = copyOf(f.filteredYuv, f.filteredColour);
    if (f.filtered.data) c.filtered = convlive::testing::copyOf(f.filtered);
    frames.push_back(std::move(c));
  }
  struct Frame {
    std::uint64_t index = 0;
    HostYuv source, filteredYuv;
    HostImage filtered;
  };
  std::vector<Frame> frames;

 private:
  bool takesYuv_;
};

class PipelineYuv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kGpu && !deviceInfo().available) GTEST_SKIP() << "no CUDA device: " << deviceInfo().reason;
  }
};

// ---- Colorimetry ------------------------------------------------------------------------------------

ColourSpec specOfCaps(const char* caps) {
  GstCaps* c = gst_caps_from_string(caps);
  GstVideoInfo info;
  EXPECT_TRUE(gst_video_info_from_caps(&info, c)) << caps;
  gst_caps_unref(c);
  return colourSpecOf(info);
}

TEST(Colorimetry, CapsMapToMatrixAndRange) {
  initGStreamer();
  const auto is = [](ColourSpec s, ColourMatrix m, ColourRange r) { return s.matrix == m && s.range == r; };
  EXPECT_TRUE(is(specOfCaps("video/x-raw,format=I420,width=64,height=48,colorimetry=bt601"), ColourMatrix::Bt601,
                 ColourRange::Limited));
  EXPECT_TRUE(is(specOfCaps("video/x-raw,format=NV12,width=64,height=48,colorimetry=bt709"), ColourMatrix::Bt709,
                 ColourRange::Limited));
  EXPECT_TRUE(is(specOfCaps("video/x-raw,format=I420,width=64,height=48,colorimetry=bt2020"), ColourMatrix::Bt2020,
                 ColourRange::Limited));
  // JPEG's: BT.601 at full range (written out: GStreamer 1.22 reads the name "jpeg" as limited).
  EXPECT_TRUE(is(specOfCaps("video/x-raw,format=I420,width=64,height=48,colorimetry=1:4:0:0"), ColourMatrix::Bt601,
                 ColourRange::Full));
  EXPECT_TRUE(is(specOfCaps("video/x-raw,format=I420,width=64,height=48,colorimetry=1:3:5:1"), ColourMatrix::Bt709,
                 ColourRange::Full));
  // Numbers no matrix or range has (the caps parse; the fuzzer's find, undefined behaviour when read
  // as GStreamer's enums): the size's default matrix, limited range.
  EXPECT_TRUE(is(specOfCaps("video/x-raw,format=I420,width=64,height=48,colorimetry=99:99:99:99"), ColourMatrix::Bt601,
                 ColourRange::Limited));
  // None given: GStreamer's default for the size (SD BT.601, HD BT.709).
  EXPECT_TRUE(
      is(specOfCaps("video/x-raw,format=I420,width=720,height=576"), ColourMatrix::Bt601, ColourRange::Limited));
  EXPECT_TRUE(
      is(specOfCaps("video/x-raw,format=I420,width=1280,height=720"), ColourMatrix::Bt709, ColourRange::Limited));
  for (ColourMatrix m : {ColourMatrix::Bt601, ColourMatrix::Bt709, ColourMatrix::Bt2020})
    for (ColourRange r : {ColourRange::Limited, ColourRange::Full}) {
      GstVideoInfo info;
      gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, 64, 48);
      info.colorimetry = colorimetryOf({m, r});
      EXPECT_TRUE(colourSpecOf(info) == (ColourSpec{m, r})) << describe({m, r});
    }
  EXPECT_EQ(yuvFormatOf(GST_VIDEO_FORMAT_NV12), YuvFormat::NV12);
  EXPECT_FALSE(yuvFormatOf(GST_VIDEO_FORMAT_YUY2));
}

// ---- Sources ----------------------------------------------------------------------------------------

SourceOptions yuvOptions() {
  SourceOptions o;
  o.acceptYuv = true;
  o.openTimeout = 20s;
  return o;
}

TEST(SourceYuv, PatternArrivesAsI420WithItsColours) {
  Source src(pattern(3, 67, 45), yuvOptions());
  SourceFrame f;
  ASSERT_EQ(src.pull(f, 5s), Source::Pull::Frame);
  ASSERT_TRUE(f.isYuv());
  EXPECT_EQ(f.yuv.format, YuvFormat::I420);
  EXPECT_EQ(f.yuv.width, 67);
  EXPECT_EQ(f.yuv.height, 45);
  EXPECT_EQ(f.pixels.width, 67);
  EXPECT_EQ(f.pixels.data, nullptr);
  EXPECT_TRUE(f.colour == (ColourSpec{ColourMatrix::Bt601, ColourRange::Limited})) << describe(f.colour);
  // One block holds the planes (what the pipeline uploads in one copy).
  ASSERT_NE(f.bytes, nullptr);
  EXPECT_GE(f.byteCount, std::size_t(67 * 45 + 2 * 34 * 23));
  EXPECT_EQ(src.info().frameFormat, "I420");
  EXPECT_EQ(src.info().nativeFormat, "I420");
}

// An H.264 MP4 made with x264enc (empty, with the reason in `why`, where it cannot be made here).
std::string h264File(const std::string& name, int frames, int w, int h, std::string& why) {
  for (const char* e : {"x264enc", "h264parse", "mp4mux", "qtdemux"})
    if (!hasElement(e)) {
      why = std::string("GStreamer's ") + e + " is not installed: no H.264 file can be made";
      return "";
    }
  const fs::path path = scratch() / name;
  if (!fs::exists(path))
    runLaunch("videotestsrc num-buffers=" + std::to_string(frames) +
              " pattern=ball ! video/x-raw,format=I420,width=" + std::to_string(w) + ",height=" + std::to_string(h) +
              ",framerate=30/1 ! x264enc speed-preset=ultrafast key-int-max=5 ! video/x-h264,profile=high ! h264parse "
              "! mp4mux ! filesink location=" +
              path.string());
  return path.string();
}

// Where there is no NVDEC, asking for it says why and what to do instead.
TEST(SourceYuv, NvdecWhereThereIsNoneSaysWhyAndWhatToDo) {
  std::string why;
  if (nvdecAvailable(why)) GTEST_SKIP() << "NVDEC is present here: its refusal is checked where it is missing";
  SourceOptions o = yuvOptions();
  o.decoder = Decoder::Nvdec;
  try {
    Source src(SourceSpec::file(generatedVideo("yuv.webm", 5)), o);
    ADD_FAILURE() << "opened without NVDEC";
  } catch (const SourceError& e) {
    EXPECT_NE(std::string(e.what()).find("--decoder nvdec"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("use --decoder cpu"), std::string::npos) << e.what();
  }
  // auto decodes on the CPU, quietly (there was no NVDEC to try).
  o.decoder = Decoder::Auto;
  Source src(SourceSpec::file(generatedVideo("yuv.webm", 5)), o);
  EXPECT_FALSE(src.info().framesOnDevice);
  EXPECT_FALSE(src.info().decoder.empty());
  EXPECT_EQ(src.info().decoderNote, "");
}

TEST(SourceYuv, DecodedFileKeepsTheDecodersFormat) {
  Source src(SourceSpec::file(generatedVideo("yuv.webm", 5)), yuvOptions());
  SourceFrame f;
  ASSERT_EQ(src.pull(f, 5s), Source::Pull::Frame);
  ASSERT_TRUE(f.isYuv()) << src.info().frameFormat;
  EXPECT_EQ(src.info().frameFormat, src.info().nativeFormat) << "converted on the CPU";
}

// 10-bit frames say what becomes of their depth (converted to 8 bits before the filter); 8-bit ones
// say nothing.
TEST(SourceYuv, DeeperThan8BitFramesSayTheyAreCutTo8Bits) {
  for (const char* format : {"I420_10LE", "P010_10LE", "GRAY16_LE"}) {
    SCOPED_TRACE(format);
    Source src(SourceSpec::launch(std::string("videotestsrc num-buffers=2 ! video/x-raw,format=") + format +
                                  ",width=32,height=16 ! videoconvert ! appsink"),
               yuvOptions());
    SourceFrame f;
    ASSERT_EQ(src.pull(f, 5s), Source::Pull::Frame);
    EXPECT_EQ(src.info().nativeFormat, format);
    const std::string bits = std::string(format) == "GRAY16_LE" ? "16 bits a channel" : "10 bits a channel";
    EXPECT_NE(src.info().depthNote.find(std::string(format) + " has " + bits), std::string::npos)
        << src.info().depthNote;
    EXPECT_NE(src.info().depthNote.find("converted to 8 bits"), std::string::npos) << src.info().depthNote;
  }
  Source eight(SourceSpec::launch("videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=32,height=16 ! "
                                  "videoconvert ! appsink"),
               yuvOptions());
  SourceFrame f;
  ASSERT_EQ(eight.pull(f, 5s), Source::Pull::Frame);
  EXPECT_EQ(eight.info().depthNote, "");
}

TEST(SourceYuv, LaunchLinesGiveNv12OrRgbaAsTheyCome) {
  {
    Source src(SourceSpec::launch("videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=33,height=17 ! "
                                  "videoconvert ! appsink"),
               yuvOptions());
    SourceFrame f;
    ASSERT_EQ(src.pull(f, 5s), Source::Pull::Frame);
    ASSERT_TRUE(f.isYuv());
    EXPECT_EQ(f.yuv.format, YuvFormat::NV12);
    EXPECT_EQ(src.info().frameFormat, "NV12");
  }
  {
    Source src(SourceSpec::launch("videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,width=33,height=17 ! appsink"),
               yuvOptions());
    SourceFrame f;
    ASSERT_EQ(src.pull(f, 5s), Source::Pull::Frame);
    EXPECT_FALSE(f.isYuv());
    EXPECT_NE(f.pixels.data, nullptr);
  }
  {  // Another YUV layout is converted to one the pipeline takes.
    Source src(SourceSpec::launch("videotestsrc num-buffers=2 ! video/x-raw,format=YUY2,width=32,height=16 ! "
                                  "videoconvert ! appsink"),
               yuvOptions());
    SourceFrame f;
    ASSERT_EQ(src.pull(f, 5s), Source::Pull::Frame);
    EXPECT_TRUE(src.info().frameFormat == "NV12" || src.info().frameFormat == "I420" ||
                src.info().frameFormat == "RGBA")
        << src.info().frameFormat;
  }
}

// Solid patterns drawn as I420 (read with the colorimetry of their caps) and as RGBA agree within
// 2 levels: the matrix and range are mapped right (a wrong matrix is 10 or more levels off on these).
TEST(SourceYuv, SolidPatternsMatchTheirRgbaTwins) {
  for (const auto& [w, h] : {std::pair{320, 240}, std::pair{1280, 720}})
    for (const char* kind : {"red", "green", "blue", "white", "black"}) {
      SCOPED_TRACE(std::string(kind) + " " + std::to_string(w) + "x" + std::to_string(h));
      Source yuv(pattern(1, w, h, kind), yuvOptions());
      SourceOptions rgbaOptions;
      Source rgba(pattern(1, w, h, kind), rgbaOptions);
      SourceFrame fy, fr;
      ASSERT_EQ(yuv.pull(fy, 5s), Source::Pull::Frame);
      ASSERT_EQ(rgba.pull(fr, 5s), Source::Pull::Frame);
      ASSERT_TRUE(fy.isYuv());
      const HostImage converted = rgbaOf(copyOf(fy.yuv, fy.colour));
      EXPECT_LE(testcases::maxDifference(converted.view(), fr.pixels), 2);
    }
}

// ---- The pipeline -----------------------------------------------------------------------------------

// Every frame's output equals the reference filter of the reference conversion of its YUV source:
// exactly on the CPU (the same reference), within 2 levels on the GPU (the conversion 1, the filter 1).
TEST_F(PipelineYuv, YuvFramesAreConvertedThenFiltered) {
  for (const auto& [w, h] : {std::pair{67, 45}, std::pair{160, 90}}) {
    YuvCaptureSink sink;
    const FilterParams p = gaussian(2);
    Pipeline pipe(yuvConfig(pattern(6, w, h), InputFormat::Yuv, p), sink);
    EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream);
    ASSERT_EQ(sink.frames.size(), 6u);
    for (const auto& f : sink.frames) {
      ASSERT_FALSE(f.source.bytes.empty()) << "no YUV source handed to the sink";
      const HostImage rgba = rgbaOf(f.source);
      HostImage want(w, h);
      referenceFilter(p.filter, p.border, p.filterAlpha, rgba.view(), want.view());
      EXPECT_LE(testcases::maxDifference(f.filtered.view(), want.view()), kGpu ? 2 : 0) << "frame " << f.index;
    }
    const Timings t = pipe.timings();
    EXPECT_GT(t[Stage::Convert].average(), 0) << "the conversion is timed";
    EXPECT_EQ(pipe.sourceInfo().frameFormat, "I420");
  }
}

// NVDEC (issue 10): an H.264 file decoded on the GPU reaches the filter without leaving GPU memory
// (no host frame, no upload), and every output equals the same file decoded on the CPU (H.264
// decoding is exact), which itself equals the reference filter of its frames within 2 levels.
TEST_F(PipelineYuv, NvdecFramesStayOnTheGpuAndMatchTheCpuDecoder) {
  if (!kGpu) GTEST_SKIP() << "NVDEC frames are GPU memory: the gpu build checks them";
  std::string why;
  if (!nvdecAvailable(why)) GTEST_SKIP() << "no NVDEC here: " << why;
  const std::string file = h264File("nvdec.mp4", 12, 322, 182, why);
  if (file.empty()) GTEST_SKIP() << why;
  const FilterParams p = gaussian(2);
  YuvCaptureSink onGpu, onCpu;
  PipelineConfig a = yuvConfig(SourceSpec::file(file), InputFormat::Yuv, p);
  a.decoder = Decoder::Nvdec;
  PipelineConfig b = a;
  b.decoder = Decoder::Cpu;
  Pipeline pa(a, onGpu), pb(b, onCpu);
  EXPECT_EQ(runToEnd(pa), StepResult::EndOfStream) << pa.lastError();
  EXPECT_EQ(runToEnd(pb), StepResult::EndOfStream) << pb.lastError();
  EXPECT_TRUE(pa.sourceInfo().framesOnDevice) << "decoder: " << pa.sourceInfo().decoder;
  EXPECT_FALSE(pb.sourceInfo().framesOnDevice);
  EXPECT_EQ(pa.timings().deviceFrames, 12u);
  EXPECT_EQ(pa.timings().pageLocks, 0u) << "nothing in host memory to page-lock";
  ASSERT_EQ(onGpu.frames.size(), 12u);
  ASSERT_EQ(onCpu.frames.size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_TRUE(onGpu.frames[i].source.bytes.empty()) << "an NVDEC frame has no host copy";
    ASSERT_FALSE(onCpu.frames[i].source.bytes.empty());
    const HostImage rgba = rgbaOf(onCpu.frames[i].source);
    HostImage want(rgba.view().width, rgba.view().height);
    referenceFilter(p.filter, p.border, p.filterAlpha, rgba.view(), want.view());
    EXPECT_LE(testcases::maxDifference(onCpu.frames[i].filtered.view(), want.view()), 2);
    EXPECT_LE(testcases::maxDifference(onGpu.frames[i].filtered.view(), onCpu.frames[i].filtered.view()), 1);
  }
}

// A launch line whose NVDEC decoder downloads into system memory: its pool's buffers are
// page-locked by the pipeline and written by the decoder's device again when they come round (the
// registration must let the device write; read-only registration failed on the fourth frame).
TEST_F(PipelineYuv, NvdecDownloadingIntoPageLockedBuffersKeepsGoing) {
  if (!kGpu) GTEST_SKIP() << "page-locking is the GPU build's";
  std::string why;
  if (!nvdecAvailable(why)) GTEST_SKIP() << "no NVDEC here: " << why;
  const std::string file = h264File("nvdec-sys.mp4", 24, 1280, 720, why);  // 1.4 MB frames: registered
  if (file.empty()) GTEST_SKIP() << why;
  CaptureSink sink;
  PipelineConfig c = yuvConfig(SourceSpec::launch("filesrc location=" + file +
                                                  " ! qtdemux ! h264parse ! nvh264dec ! video/x-raw,format=NV12 ! "
                                                  "appsink name=sink"),
                               InputFormat::Yuv);
  Pipeline pipe(c, sink);
  EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream) << pipe.lastError();
  EXPECT_EQ(sink.frames.size(), 24u);
  EXPECT_FALSE(pipe.sourceInfo().framesOnDevice);
  EXPECT_GT(pipe.timings().directUploads, 0u) << "the decoder's buffers were page-locked";
}

// The RGBA path (GStreamer converting on the CPU) and the YUV path give the same output within 2
// levels on a smooth picture (on sharp colour edges they differ by design: videoconvert repeats each
// chroma sample of I420 over its 2x2 block, we interpolate).
TEST_F(PipelineYuv, YuvPathMatchesTheRgbaPathOnSolidColours) {
  for (const char* kind : {"red", "blue", "white"}) {
    SCOPED_TRACE(kind);
    YuvCaptureSink viaYuv, viaRgba;
    Pipeline a(yuvConfig(pattern(2, 96, 64, kind), InputFormat::Yuv), viaYuv);
    Pipeline b(yuvConfig(pattern(2, 96, 64, kind), InputFormat::Rgba), viaRgba);
    runToEnd(a);
    runToEnd(b);
    ASSERT_EQ(viaYuv.frames.size(), 2u);
    ASSERT_EQ(viaRgba.frames.size(), 2u);
    EXPECT_TRUE(viaRgba.frames[0].source.bytes.empty()) << "the RGBA path has no YUV source";
    EXPECT_LE(testcases::maxDifference(viaYuv.frames[0].filtered.view(), viaRgba.frames[0].filtered.view()), 2);
  }
}

// Without a device, auto keeps the RGBA path (GStreamer's optimised conversion beats our plain
// reference on the CPU); with one, it takes YUV.
TEST_F(PipelineYuv, AutoTakesYuvOnlyWhereTheGpuConverts) {
  YuvCaptureSink sink;
  Pipeline pipe(yuvConfig(pattern(2, 64, 48), InputFormat::Auto), sink);
  runToEnd(pipe);
  EXPECT_EQ(pipe.sourceInfo().frameFormat, deviceInfo().available ? "I420" : "RGBA");
}

// A sink that takes YUV gets the filtered frame back as I420 from the GPU (1.5 bytes a pixel),
// equal to the reference's conversion of the reference filter of the converted source; on the CPU
// path it gets RGBA, exactly that filter.
TEST_F(PipelineYuv, SinksTakingYuvGetI420FromTheGpu) {
  YuvCaptureSink sink(true);
  const FilterParams p = gaussian(1);
  Pipeline pipe(yuvConfig(pattern(4, 67, 45), InputFormat::Yuv, p), sink);
  runToEnd(pipe);
  ASSERT_EQ(sink.frames.size(), 4u);
  for (const auto& f : sink.frames) {
    const HostImage rgba = rgbaOf(f.source);
    HostImage filtered(67, 45);
    referenceFilter(p.filter, p.border, p.filterAlpha, rgba.view(), filtered.view());
    if (!kGpu || !deviceInfo().available) {
      EXPECT_TRUE(f.filteredYuv.bytes.empty());
      EXPECT_EQ(testcases::maxDifference(f.filtered.view(), filtered.view()), 0);
      continue;
    }
    ASSERT_FALSE(f.filteredYuv.bytes.empty()) << "frame " << f.index << " came back as RGBA";
    EXPECT_EQ(f.filteredYuv.layout.format, YuvFormat::I420);
    HostYuv want = f.filteredYuv;
    referenceRgbaToYuv(filtered.view(), yuvViewAt(want.layout, want.bytes.data()), f.filteredYuv.colour);
    int worst = 0;
    for (std::size_t i = 0; i < want.bytes.size(); ++i)
      worst = std::max(worst, std::abs(int(want.bytes[i]) - int(f.filteredYuv.bytes[i])));
    // The GPU's RGBA may be 2 off the reference's (conversion 1, filter 1); through the matrix that
    // moves Y by up to 1.7 before its own rounding: 3 at most, and rarely more than 1.
    EXPECT_LE(worst, 3) << "frame " << f.index;
  }
}

// ---- Export -----------------------------------------------------------------------------------------

// The exporter takes I420 frames in the colours it asks for as well as RGBA ones: the same picture
// given both ways decodes to the same content within the codec's loss, for each container.
TEST(ExportYuv, I420FramesEncodeLikeTheirRgbaTwins) {
  for (const char* ext : {".avi", ".webm", ".mkv"}) {
    SCOPED_TRACE(ext);
    const int w = 64, h = 48;
    HostImage picture(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        std::uint8_t* p = picture.view().row(y) + 4 * x;
        p[0] = std::uint8_t(4 * x), p[1] = std::uint8_t(5 * y), p[2] = std::uint8_t(255 - 3 * x), p[3] = 255;
      }
    const ColourSpec source{ColourMatrix::Bt709, ColourRange::Limited};
    const std::string fromYuv = (scratch() / (std::string("from-yuv") + ext)).string();
    const std::string fromRgba = (scratch() / (std::string("from-rgba") + ext)).string();
    for (bool asYuv : {true, false}) {
      FileExporter out(asYuv ? fromYuv : fromRgba, 30);
      HostYuv yuv;
      yuv.layout = packedYuvLayout(YuvFormat::I420, w, h);
      yuv.bytes.resize(yuv.layout.bytes);
      yuv.colour = out.yuvFramesColour(source, w, h);
      referenceRgbaToYuv(picture.view(), yuvViewAt(yuv.layout, yuv.bytes.data()), yuv.colour);
      for (int i = 0; i < 3; ++i) {
        OutputFrame f;
        f.index = std::uint64_t(i);
        f.colour = source;
        f.filteredColour = yuv.colour;
        if (asYuv)
          f.filteredYuv = yuv.view();
        else
          f.filtered = picture.view();
        out.deliver(f);
      }
      out.finish();
      EXPECT_EQ(out.frames(), 3u);
    }
    const HostImage a = firstFrameOf(fromYuv), b = firstFrameOf(fromRgba);
    ASSERT_EQ(a.width(), w);
    ASSERT_EQ(b.width(), w);
    EXPECT_LT(meanDifference(a.view(), picture.view()), 4.0);
    EXPECT_LT(meanDifference(b.view(), picture.view()), 4.0);
    EXPECT_LT(meanDifference(a.view(), b.view()), 3.0);  // two lossy encodes, each 1-2 levels off
  }
}

// An export from a YUV source: every frame written, the file plays back at the source's size.
TEST_F(PipelineYuv, ExportRoundTrip) {
  const std::string path = (scratch() / "yuv-export.avi").string();
  FileExporter out(path, 30);
  ExportSink forward(out);
  Pipeline pipe(yuvConfig(pattern(5, 66, 46, "gradient"), InputFormat::Yuv, gaussian(1)), forward);
  EXPECT_EQ(runToEnd(pipe), StepResult::EndOfStream);
  out.finish();
  EXPECT_EQ(out.frames(), 5u);
  const HostImage first = firstFrameOf(path);
  EXPECT_EQ(first.width(), 66);
  EXPECT_EQ(first.height(), 46);
}

// ---- The command line (the cpu program only: it knows where convlive is) -----------------------------

#ifdef CONVLIVE_EXE
std::string quoted(const fs::path& p) { return std::string("'").append(p.string()).append("'"); }

TEST(InputFormatCommand, YuvRunsAndReports) {
  const fs::path report = scratch() / "yuv-report.json";
  const ProgramResult r = runConvliveWith(
      "run --frames 8 --size 96x64 --mask box --radius 1 --input-format yuv --report " + quoted(report), "timeout 120");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("frames arrive as I420 (--input-format yuv)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("convert"), std::string::npos) << r.output;
  std::ifstream in(report);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["source"]["frame_format"], "I420");
  EXPECT_EQ(j["settings"]["input_format"], "yuv");
  EXPECT_EQ(j["stages"][3]["name"], "convert");
  EXPECT_GT(j["stages"][3]["average_ms"].get<double>(), 0);
}

TEST(InputFormatCommand, RgbaKeepsTheOldPath) {
  const ProgramResult r = runConvliveWith("run --frames 3 --size 64x48 --input-format rgba", "timeout 120");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("frames arrive as RGBA (--input-format rgba)"), std::string::npos) << r.output;
}

TEST(InputFormatCommand, UnknownValueIsRefused) {
  const ProgramResult r = runConvliveWith("run --frames 3 --input-format nv21", "timeout 120");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("auto|rgba|yuv"), std::string::npos) << r.output;
}

TEST(InputFormatCommand, YuvExportWritesEveryFrame) {
  const fs::path out = scratch() / "yuv-command.webm";
  const ProgramResult r = runConvliveWith(
      "export --frames 6 --size 66x46 --mask gaussian --radius 2 --input-format yuv --output " + quoted(out),
      "timeout 120");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("6 frames"), std::string::npos) << r.output;
  const HostImage first = firstFrameOf(out.string());
  EXPECT_EQ(first.width(), 66);
  EXPECT_EQ(first.height(), 46);
}
#endif

}  // namespace
