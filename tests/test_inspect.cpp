// The inspector's figures (convlive/inspect.hpp) against hand counts: every variant's work model
// for small tiles and radii, the launch geometry for a few frame sizes, the occupancy arithmetic,
// and `convlive list variants --details`. Runs anywhere (label cpu): the figures are arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "convlive/inspect.hpp"
#include "convlive/precision.hpp"
#include "convlive/resources.hpp"
#include "convlive/variants.hpp"
#include "fft.hpp"
#include "filter_cases.hpp"
#include "kernels/schedules.hpp"
#include "kernels/stream_typed.hpp"
#include "kernels/tensor_stream_typed.hpp"
#include "run_program.hpp"

namespace convlive {
namespace {

using testcases::paramsFor;

const Variant& variant(const char* name) {
  const Variant* v = findVariant(name);
  if (!v) throw std::invalid_argument(std::string("no variant ") + name);
  return *v;
}

WorkModel modelOf(const char* name, const FilterParams& p, int w = 64, int h = 48) {
  return variant(name).workModel(p, w, h);
}
LaunchDescription launchOf(const char* name, const FilterParams& p, int w = 64, int h = 48) {
  return variant(name).describeLaunch(p, w, h);
}

TEST(Inspect, EveryVariantDescribesItsLaunchAndWork) {
  const FilterParams p = paramsFor("gaussian", 2);
  for (const Variant& v : variants()) {
    SCOPED_TRACE(v.name);
    ASSERT_NE(v.describeLaunchImpl, nullptr);
    ASSERT_NE(v.workModelImpl, nullptr);
    const VariantInspection in = inspectVariant(v, p, 64, 48);
    ASSERT_TRUE(in.hasFigures()) << in.why.text();
    if (v.onGpu) {
      ASSERT_FALSE(in.launch.passes.empty());
      for (const PassLaunch& pass : in.launch.passes) {
        if (!pass.kernelFunction) {  // fft's transforms: cuFFT's own kernels, named, not described
          EXPECT_EQ(v.name, "fft");
          EXPECT_NE(pass.kernel.find("cuFFT"), std::string::npos);
          EXPECT_EQ(pass.outputTile, (Dims{0, 0, 0}));
          continue;
        }
        EXPECT_NE(pass.kernelFunction, nullptr);
        EXPECT_FALSE(pass.kernel.empty());
        EXPECT_GT(pass.grid.count(), 0);
        EXPECT_EQ(pass.threadsPerBlock, pass.block.count());
        EXPECT_GT(pass.outputsPerThread, 0);
        EXPECT_GE(pass.inputTile.x, pass.outputTile.x);
        EXPECT_GE(pass.inputTile.y, pass.outputTile.y);
        EXPECT_LE(pass.inputOffsetX, 0);
        EXPECT_LE(pass.inputOffsetY, 0);
        // stream is persistent: its grid is what the device holds, not the tiles; fft's pad covers the
        // padded planes and its product the spectrum (Fft.* below checks them).
        // tensorstream's grid is entries x segment rows, an edge block column taking up to
        // 2 x kTensorStreamEdgeDivisor entries here, with no device (up to eight on one, where the
        // grid is one round; Schedules.* below checks its places).
        const int columns = (64 + pass.outputTile.x - 1) / std::max(1, pass.outputTile.x);
        const int segments = (48 + pass.outputTile.y - 1) / std::max(1, pass.outputTile.y);
        if (v.name == "tensorstream") {
          EXPECT_EQ(pass.grid.y, segments) << pass.pass;
          EXPECT_GE(pass.grid.x, columns) << pass.pass;
          EXPECT_LE(pass.grid.x, columns * 2 * kernels::kTensorStreamEdgeDivisor) << pass.pass;
        } else if (v.name != "stream" && v.name != "fft") {
          EXPECT_EQ(pass.grid.x, columns) << pass.pass;
          EXPECT_EQ(pass.grid.y, segments) << pass.pass;
        }
      }
      EXPECT_EQ(in.resources.size(), in.launch.passes.size());
    } else {
      EXPECT_TRUE(in.launch.passes.empty());
      EXPECT_NE(in.launch.none.find("CPU"), std::string::npos);
    }
    const WorkModel& m = in.model;
    EXPECT_GE(m.globalReads, 1);
    EXPECT_GE(m.apron, 1);
    EXPECT_GE(m.idleThreads, 0);
    EXPECT_LT(m.idleThreads, 1);
    EXPECT_GT(m.totalFlops(), 0);
    EXPECT_GE(m.dramBytes, 8);
    EXPECT_LE(m.matrixUseful, m.matrixFlops);
    EXPECT_GT(m.intensity(), 0);
  }
}

// Frames other than one u8x4 frame: sweep and stream describe their kernels for them (sweep: type,
// channels, tile, a grid z a frame, its magnitude instance); a variant with no description of its
// kernel for them gives the u8x4 kernel's figures and says so in every pass's note and the model's
// notes.
TEST(Inspect, TypedFramesAndBatchesGetTheirKernelOrSaySo) {
  ImageDesc batch{.width = 67, .height = 45, .type = PixelType::F32, .channels = 3};
  batch.batch = 37;
  const LaunchDescription sweep = variant("sweep").describeLaunch(paramsFor("gaussian", 4), batch);
  ASSERT_EQ(sweep.passes.size(), 1u);
  EXPECT_EQ(sweep.passes[0].kernel, "sweepKernel<f32, 3, 256, 8>");
  EXPECT_EQ(sweep.passes[0].grid.z, 37);
  EXPECT_EQ(sweep.passes[0].note.find("not described"), std::string::npos) << sweep.passes[0].note;
  EXPECT_EQ(variant("sweep").workModel(paramsFor("gaussian", 4), batch).dramBytes, 2.0 * 3 * 4);
  const LaunchDescription sobel = variant("sweep").describeLaunch(
      paramsFor("sobel", 1), ImageDesc{.width = 40, .height = 30, .type = PixelType::U16, .channels = 1});
  EXPECT_EQ(sobel.passes.at(0).kernel, "sweepKernel<u16, 1, 256, 8, magnitude>");
  // The separable instances compiled for one radius (u16, f16, f32 frames, its tile) say which;
  // the other tiles, u8 frames and radii past them read the radius at run time.
  const ImageDesc f16{.width = 40, .height = 30, .type = PixelType::F16, .channels = 4};
  EXPECT_EQ(variant("sweep").describeLaunch(paramsFor("gaussian", 9), f16).passes.at(0).kernel,
            "sweepKernel<f16, 4, 256, 8, radius 9>");
  EXPECT_EQ(variant("sweep").describeLaunch(paramsFor("gaussian", 9, Tile{256, 16}), f16).passes.at(0).kernel,
            "sweepKernel<f16, 4, 256, 16>");
  EXPECT_EQ(variant("sweep").describeLaunch(paramsFor("gaussian", 17), f16).passes.at(0).kernel,
            "sweepKernel<f16, 4, 256, 8>");
  EXPECT_EQ(variant("sweep").describeLaunch(paramsFor("gaussian", 4), f16).passes.at(0).kernel,
            "sweepKernel<f16, 4, 256, 8>");
  EXPECT_EQ(variant("sweep").describeLaunch(paramsFor("sobel", 9), f16).passes.at(0).kernel,
            "sweepKernel<f16, 4, 256, 8, magnitude>");
  const ImageDesc u8{.width = 40, .height = 30, .type = PixelType::U8, .channels = 1};
  EXPECT_EQ(variant("sweep").describeLaunch(paramsFor("gaussian", 9), u8).passes.at(0).kernel,
            "sweepKernel<u8, 1, 256, 8>");

  // stream's typed kernel (u16 grey, and an RGBA8 batch, which takes it too): the instance, a block
  // of 4 warps, and its work per pixel of those values.
  const ImageDesc grey{.width = 64, .height = 48, .type = PixelType::U16, .channels = 1};
  const LaunchDescription stream = variant("stream").describeLaunch(paramsFor("gaussian", 2), grey);
  ASSERT_EQ(stream.passes.size(), 1u);
  EXPECT_EQ(stream.passes[0].kernel, "streamTypedKernel<u16, 1, 2>");
  EXPECT_EQ(stream.passes[0].threadsPerBlock, 128);
  EXPECT_EQ(stream.passes[0].note.find("not described"), std::string::npos) << stream.passes[0].note;
  // Clamp on rows of whole lanes: the values outside each row in registers; Wrap: apron lanes.
  EXPECT_NE(stream.passes[0].note.find("outside each row made in the registers"), std::string::npos)
      << stream.passes[0].note;
  FilterParams wrap = paramsFor("gaussian", 2);
  wrap.border = Border::Wrap;
  const std::string wrapNote = variant("stream").describeLaunch(wrap, grey).passes.at(0).note;
  EXPECT_NE(wrapNote.find("apron lanes hold the values outside"), std::string::npos) << wrapNote;
  ImageDesc rgbaBatch = ImageDesc::rgba8(64, 48);
  rgbaBatch.batch = 3;
  EXPECT_EQ(variant("stream").describeLaunch(paramsFor("gaussian", 1), rgbaBatch).passes.at(0).kernel,
            "streamTypedKernel<u8, 4, 1>");
  // u8 grey and RGB frames into u8 at r = 1, 2 whose fp16 sums keep 1 LSB: the fp16 instances, a lane
  // 16 values (a warp's strip 30 lanes of them; rows 16-byte aligned) or 8 where a row is at most 256
  // values; a mask whose
  // fp16 sums could pass 1 LSB (a row sum to 640), and u8 written as f32, the fp32 ones.
  auto streamKernelOf = [&](const FilterParams& p, const ImageDesc& d) {
    const PassLaunch pass = variant("stream").describeLaunch(p, d).passes.at(0);
    return pass.kernel + " | " + pass.note;
  };
  const ImageDesc grey8Wide{.width = 300, .height = 40, .type = PixelType::U8, .channels = 1, .pitch = 304};
  const ImageDesc grey8Narrow{.width = 256, .height = 40, .type = PixelType::U8, .channels = 1};
  const ImageDesc rgb8{.width = 300, .height = 40, .type = PixelType::U8, .channels = 3, .pitch = 912};
  EXPECT_EQ(streamKernelOf(paramsFor("gaussian", 1), grey8Wide).rfind("streamTypedKernel<u8, 1, 1, fp16 sums> | ", 0),
            0u);
  EXPECT_NE(streamKernelOf(paramsFor("gaussian", 1), grey8Wide).find("strip of 480 pixels"), std::string::npos);
  EXPECT_NE(streamKernelOf(paramsFor("box", 2), grey8Narrow).find("strip of 240 pixels"), std::string::npos);
  EXPECT_EQ(streamKernelOf(paramsFor("gaussian", 2), rgb8).rfind("streamTypedKernel<u8, 3, 2, fp16 sums> | ", 0), 0u);
  EXPECT_NE(streamKernelOf(paramsFor("gaussian", 2), rgb8).find("strips of 160 pixels"), std::string::npos);
  FilterParams coarse = paramsFor("gaussian", 2);
  coarse.filter = makeFilter("custom", {.rowWeights = "1,1,1,1,1", .colWeights = "0.2,0.2,0.2,0.2,0.2"});
  EXPECT_EQ(streamKernelOf(coarse, grey8Wide).rfind("streamTypedKernel<u8, 1, 2> | ", 0), 0u);
  FilterParams toF32 = paramsFor("gaussian", 1);
  toF32.outType = PixelType::F32;
  EXPECT_EQ(streamKernelOf(toF32, grey8Wide).rfind("streamTypedKernel<u8, 1, 1, f32> | ", 0), 0u);
  EXPECT_EQ(streamKernelOf(paramsFor("gaussian", 3), rgb8).rfind("streamTypedKernel<u8, 3, 3> | ", 0), 0u);
  // Rows 3000 bytes apart (1000 RGB pixels, packed): 8 a lane, whose 8-byte copies stay whole.
  const ImageDesc rgb8Packed{.width = 1000, .height = 40, .type = PixelType::U8, .channels = 3};
  EXPECT_NE(streamKernelOf(paramsFor("gaussian", 1), rgb8Packed).find("strips of 80 pixels"), std::string::npos)
      << streamKernelOf(paramsFor("gaussian", 1), rgb8Packed);
  ImageDesc rgb8Padded = rgb8Packed;
  rgb8Padded.pitch = 3008;
  EXPECT_NE(streamKernelOf(paramsFor("gaussian", 1), rgb8Padded).find("strips of 160 pixels"), std::string::npos)
      << streamKernelOf(paramsFor("gaussian", 1), rgb8Padded);

  const WorkModel model = variant("stream").workModel(paramsFor("gaussian", 2), grey);
  // A warp's unit of the default tile's 16 rows: 32 lanes of 8 u16 values down 16 + 4 staged rows for
  // (32 - 2 apron lanes) x 8 values down 16 rows.
  EXPECT_DOUBLE_EQ(model.globalReads, 32.0 * 8 * 20 / (30.0 * 8 * 16));
  EXPECT_DOUBLE_EQ(model.globalBytes, model.globalReads * 2);
  EXPECT_DOUBLE_EQ(model.dramBytes, 2.0 * 2);
  EXPECT_DOUBLE_EQ(model.flops, 2.0 * 5 * (20.0 / 16 + 1));
  ASSERT_FALSE(model.notes.empty());
  for (const std::string& note : model.notes) EXPECT_EQ(note.find("not described"), std::string::npos) << note;
  EXPECT_NE(model.notes[0].find("figures per pixel of 1 u16 values"), std::string::npos) << model.notes[0];

  // tensorstream on grey and RGB 8-bit frames: its typed kernel's instance (four 16-pixel strips a
  // warp on grey, two for a magnitude, one on RGB), a grid z a frame, the block of the tile's warps.
  ImageDesc grey8{.width = 300, .height = 70, .type = PixelType::U8, .channels = 1};
  grey8.batch = 5;
  const Variant& ts = variant("tensorstream");
  const FilterParams g8 = paramsFor("gaussian", 8);
  const LaunchDescription sep = ts.describeLaunch(g8, grey8);
  ASSERT_EQ(sep.passes.size(), 1u);
  EXPECT_EQ(sep.passes[0].kernel.rfind("tensorStreamTypedKernel<u8x1, 4 strips a warp, 1, ", 0), 0u)
      << sep.passes[0].kernel;
  const Tile t = ts.tileFor(g8);
  EXPECT_EQ(sep.passes[0].threadsPerBlock, 32 * (t.w / 16));
  EXPECT_EQ(sep.passes[0].grid.x, (300 + 64 * (t.w / 16) - 1) / (64 * (t.w / 16)));
  EXPECT_EQ(sep.passes[0].grid.y, (70 + t.h - 1) / t.h);
  EXPECT_EQ(sep.passes[0].grid.z, 5);
  EXPECT_NE(sep.passes[0].kernelFunction, nullptr);
  EXPECT_GT(sep.passes[0].dynamicShared, 0u);
  EXPECT_EQ(sep.passes[0].note.find("not described"), std::string::npos) << sep.passes[0].note;
  const LaunchDescription mag = ts.describeLaunch(paramsFor("sobel", 1), grey8);
  EXPECT_EQ(mag.passes.at(0).kernel.rfind("tensorStreamTypedKernel<u8x1, 2 strips a warp, 1, clamp, ", 0), 0u)
      << mag.passes[0].kernel;
  EXPECT_NE(mag.passes[0].kernel.find("magnitude>"), std::string::npos) << mag.passes[0].kernel;
  const ImageDesc rgb{.width = 64, .height = 48, .type = PixelType::U8, .channels = 3};
  const LaunchDescription sharpen = ts.describeLaunch(paramsFor("sharpen", 8), rgb);
  EXPECT_EQ(sharpen.passes.at(0).kernel.rfind("tensorStreamTypedKernel<u8x3, 1 strip a warp, ", 0), 0u)
      << sharpen.passes[0].kernel;
  EXPECT_NE(sharpen.passes[0].kernel.find(" terms)"), std::string::npos) << sharpen.passes[0].kernel;
  // Its work per pixel of the frame's values: at r = 8 (B0 = 1) a step stages 4 + 1 units for 4 made.
  const WorkModel work = ts.workModel(g8, grey8);
  EXPECT_DOUBLE_EQ(work.dramBytes, 2.0);
  const double steps = t.h / 16;
  EXPECT_DOUBLE_EQ(work.globalReads, 5.0 / 4 * (steps + 1) / steps);
  EXPECT_GT(work.matrixFlops, work.matrixUseful);
  for (const std::string& note : work.notes) EXPECT_EQ(note.find("not described"), std::string::npos) << note;
  EXPECT_NE(work.notes.at(0).find("figures per pixel of 1 u8 values"), std::string::npos) << work.notes[0];
  // u16 grey frames: the u16 instance (four strips a warp, B0 = 1 to r = 8 and 2 past it, the
  // factors as high + low parts), a grid z a frame; its model per pixel of 2-byte values, the error
  // plan's bound first among its notes.
  ImageDesc grey16{.width = 1000, .height = 77, .type = PixelType::U16, .channels = 1};
  grey16.batch = 3;
  for (const auto& [r, b0] : {std::pair{8, 1}, {9, 2}, {16, 2}}) {
    const FilterParams gr = paramsFor("gaussian", r);
    const LaunchDescription u16 = ts.describeLaunch(gr, grey16);
    ASSERT_EQ(u16.passes.size(), 1u);
    const PassLaunch& pass = u16.passes[0];
    EXPECT_EQ(
        pass.kernel.rfind(
            "tensorStreamTypedKernel<u16x1, 4 strips a warp, " + std::to_string(b0) + ", clamp, fp16 high + low>", 0),
        0u)
        << pass.kernel;
    EXPECT_NE(pass.kernel.find("each value's high and low bytes"), std::string::npos) << pass.kernel;
    const Tile tu = ts.tileFor(gr);
    EXPECT_EQ(pass.threadsPerBlock, 32 * (tu.w / 16));
    EXPECT_EQ(pass.grid.x, (1000 + 64 * (tu.w / 16) - 1) / (64 * (tu.w / 16)));
    EXPECT_EQ(pass.grid.y, (77 + tu.h - 1) / tu.h);
    EXPECT_EQ(pass.grid.z, 3);
    EXPECT_NE(pass.kernelFunction, nullptr);
    EXPECT_GT(pass.dynamicShared, 0u);
    EXPECT_EQ(pass.note.find("not described"), std::string::npos) << pass.note;
    const WorkModel w16 = ts.workModel(gr, grey16);
    EXPECT_DOUBLE_EQ(w16.dramBytes, 4.0) << "a 2-byte value read and one written";
    EXPECT_GT(w16.matrixFlops, w16.matrixUseful);
    ASSERT_GE(w16.notes.size(), 2u);
    EXPECT_EQ(w16.notes[0].rfind("u16: error bound ", 0), 0u) << w16.notes[0];
    for (const std::string& note : w16.notes) EXPECT_EQ(note.find("not described"), std::string::npos) << note;
  }
  // f16 grey frames and 16-bit frames of 4 channels: their instances (f16: the values as they are,
  // grey's B0 = 1 held to 128 registers; 4 channels: one strip a warp), the model per pixel of 2-byte values
  // (4 channels: 4 of them), the error plan's bound first among its notes.
  for (const auto& [type, c] : {std::pair{PixelType::F16, 1}, {PixelType::U16, 4}, {PixelType::F16, 4}}) {
    ImageDesc frames{.width = 1000, .height = 77, .type = type, .channels = c};
    frames.batch = 2;
    const std::string name = std::string(pixelTypeName(type)) + "x" + std::to_string(c);
    for (const auto& [r, b0] : {std::pair{8, 1}, {16, 2}}) {
      const FilterParams gr = paramsFor("gaussian", r);
      const LaunchDescription d = ts.describeLaunch(gr, frames);
      ASSERT_EQ(d.passes.size(), 1u) << name;
      const PassLaunch& pass = d.passes[0];
      const int strips = c == 1 ? 4 : 1;
      EXPECT_EQ(pass.kernel.rfind("tensorStreamTypedKernel<" + name + ", " + std::to_string(strips) +
                                      (strips == 1 ? " strip a warp, " : " strips a warp, ") + std::to_string(b0) +
                                      ", clamp, fp16 high + low>",
                                  0),
                0u)
          << pass.kernel;
      EXPECT_EQ(pass.kernel.find("held to 128 registers") != std::string::npos,
                type == PixelType::F16 && c == 1 && b0 == 1)
          << pass.kernel;
      EXPECT_EQ(pass.kernel.find("terms)"), std::string::npos) << "the parts are no terms of the mask: " << pass.kernel;
      const Tile tile = ts.tileFor(gr);
      EXPECT_EQ(pass.grid.x, (1000 + 16 * strips * (tile.w / 16) - 1) / (16 * strips * (tile.w / 16))) << name;
      EXPECT_EQ(pass.grid.z, 2);
      EXPECT_NE(pass.kernelFunction, nullptr);
      EXPECT_GT(pass.dynamicShared, 0u);
      const WorkModel work16 = ts.workModel(gr, frames);
      EXPECT_DOUBLE_EQ(work16.dramBytes, 4.0 * c) << name << ": each 2-byte value read and written";
      EXPECT_GT(work16.matrixFlops, work16.matrixUseful);
      ASSERT_GE(work16.notes.size(), 2u);
      EXPECT_EQ(work16.notes[0].rfind(std::string(pixelTypeName(type)) + ": error bound ", 0), 0u) << work16.notes[0];
      for (const std::string& note : work16.notes) EXPECT_EQ(note.find("not described"), std::string::npos) << note;
    }
  }
  // f32 grey frames: two strips a warp, each step's values scaled and split; blocks of 8 warps at
  // r <= 8 the instance held to 80 registers with a two-stage ring (less shared memory than 4-warp
  // blocks' three stages per warp), the others ptxas's own; the model per 4-byte value.
  {
    ImageDesc frames{.width = 1000, .height = 77, .type = PixelType::F32, .channels = 1};
    frames.batch = 3;
    for (const auto& [r, b0, tileW] : {std::tuple{8, 1, 64}, {8, 1, 128}, {16, 2, 128}}) {
      FilterParams gr = paramsFor("gaussian", r);
      gr.tile = Tile{tileW, 64};
      const LaunchDescription d = ts.describeLaunch(gr, frames);
      ASSERT_EQ(d.passes.size(), 1u);
      const PassLaunch& pass = d.passes[0];
      EXPECT_EQ(
          pass.kernel.rfind(
              "tensorStreamTypedKernel<f32x1, 2 strips a warp, " + std::to_string(b0) + ", clamp, fp16 high + low>", 0),
          0u)
          << pass.kernel;
      const bool held = tileW == 128 && b0 == 1;
      EXPECT_EQ(pass.kernel.find("held to 80 registers, a two-stage ring") != std::string::npos, held) << pass.kernel;
      EXPECT_EQ(pass.grid.x, (1000 + 32 * (tileW / 16) - 1) / (32 * (tileW / 16)));
      EXPECT_EQ(pass.grid.z, 3);
      EXPECT_EQ(pass.dynamicShared, kernels::tensorStreamTypedSharedBytes(frames, tileW / 16, r)) << pass.kernel;
      const WorkModel work = ts.workModel(gr, frames);
      EXPECT_DOUBLE_EQ(work.dramBytes, 8.0) << "a 4-byte value read and one written";
      ASSERT_GE(work.notes.size(), 2u);
      EXPECT_EQ(work.notes[0].rfind("f32: error bound ", 0), 0u) << work.notes[0];
    }
    // A warp's stage: 16 rows of 13 16-byte pieces (3 units of 16 4-byte values, and one for the
    // skew), padded to 52 words (4 mod 8): 3328 bytes; its patch plan 768; the two parts' weight
    // fragments 4096 a block. 4 warps, three stages each: 47104 bytes; 8 warps held, two: 63488.
    FilterParams gr = paramsFor("gaussian", 8);
    gr.tile = Tile{64, 64};
    EXPECT_EQ(ts.describeLaunch(gr, frames).passes.at(0).dynamicShared, 4096u + 4 * (3 * 3328u + 768u));
    gr.tile = Tile{128, 64};
    EXPECT_EQ(ts.describeLaunch(gr, frames).passes.at(0).dynamicShared, 4096u + 8 * (2 * 3328u + 768u))
        << "two stages a warp, not three";
  }
  // An RGBA8 batch runs the RGBA8 kernel in one launch, a frame a grid z, and says so.
  ImageDesc rgbaFrames = ImageDesc::rgba8(64, 48);
  rgbaFrames.batch = 4;
  for (const PassLaunch& pass : ts.describeLaunch(g8, rgbaFrames).passes) {
    EXPECT_EQ(pass.grid.z, 4);
    EXPECT_NE(pass.note.find("a frame of the batch a grid z"), std::string::npos) << pass.note;
  }

  // stream's RGBA8 kernel takes a batch of gradient magnitudes and masks of any rank the same way.
  for (const char* mask : {"sobel", "laplacian"}) {
    const LaunchDescription sb = variant("stream").describeLaunch(paramsFor(mask, 1), rgbaFrames);
    ASSERT_EQ(sb.passes.size(), 1u) << mask;
    EXPECT_EQ(sb.passes[0].kernel.rfind("streamKernel<1, ", 0), 0u) << sb.passes[0].kernel;
    EXPECT_EQ(sb.passes[0].grid.z, 4) << mask;
    EXPECT_NE(sb.passes[0].note.find("a frame of the batch a grid z"), std::string::npos) << sb.passes[0].note;
  }

  // One u8x4 frame: the size's description, as it was, with no such note.
  const LaunchDescription rgba = variant("stream").describeLaunch(paramsFor("gaussian", 2), ImageDesc::rgba8(64, 48));
  const LaunchDescription bySize = launchOf("stream", paramsFor("gaussian", 2));
  ASSERT_EQ(rgba.passes.size(), bySize.passes.size());
  EXPECT_EQ(rgba.passes[0].kernel, bySize.passes[0].kernel);
  EXPECT_EQ(rgba.passes[0].note, bySize.passes[0].note);
}

// Frames of another type: the figures of the kernel that filters them (u16 grey on tensorstream:
// its u16 instance, a model per 2-byte value), a runtime figure per pass; a variant that takes
// only RGBA8 frames has none and says which variant takes them.
TEST(Inspect, OtherFramesGetTheirKernelsFigures) {
  const ImageDesc grey16{.width = 320, .height = 200, .type = PixelType::U16, .channels = 1};
  const VariantInspection ts = inspectVariant(variant("tensorstream"), paramsFor("gaussian", 4), grey16);
  ASSERT_TRUE(ts.hasFigures()) << ts.why.text();
  ASSERT_EQ(ts.launch.passes.size(), 1u);
  EXPECT_EQ(ts.launch.passes[0].kernel.rfind("tensorStreamTypedKernel<u16x1", 0), 0u) << ts.launch.passes[0].kernel;
  EXPECT_EQ(ts.resources.size(), 1u);
  EXPECT_DOUBLE_EQ(ts.model.dramBytes, 4.0);
  EXPECT_EQ(ts.model.notes.at(0).rfind("u16: error bound ", 0), 0u) << ts.model.notes[0];
  const VariantInspection tiled = inspectVariant(variant("tiled"), paramsFor("gaussian", 4), grey16);
  EXPECT_FALSE(tiled.hasFigures());
  EXPECT_TRUE(tiled.launch.passes.empty());
  EXPECT_FALSE(tiled.why.fixValue.empty()) << tiled.why.text();
  // One RGBA8 frame: the same figures as by its size.
  const VariantInspection rgba = inspectVariant(variant("tiled"), paramsFor("gaussian", 2), ImageDesc::rgba8(64, 48));
  const VariantInspection bySize = inspectVariant(variant("tiled"), paramsFor("gaussian", 2), 64, 48);
  ASSERT_EQ(rgba.launch.passes.size(), bySize.launch.passes.size());
  EXPECT_EQ(rgba.launch.passes[0].kernel, bySize.launch.passes[0].kernel);
  EXPECT_EQ(rgba.launch.passes[0].grid, bySize.launch.passes[0].grid);
  EXPECT_DOUBLE_EQ(rgba.model.dramBytes, bySize.model.dramBytes);
  EXPECT_EQ(rgba.why.code, bySize.why.code);
}

TEST(Inspect, WithoutADeviceTheRuntimeFiguresSaySo) {
  if (deviceInfo().available) GTEST_SKIP() << "a CUDA device is here (tests/test_inspect_gpu.cpp checks its figures)";
  const VariantInspection in = inspectVariant(variant("tiled"), paramsFor("gaussian", 2), 64, 48);
  EXPECT_EQ(in.why.code, Problem::Code::NoDevice);
  ASSERT_EQ(in.resources.size(), 1u);
  EXPECT_FALSE(in.resources[0].available);
  EXPECT_NE(in.resources[0].why.find("needs a CUDA device"), std::string::npos) << in.resources[0].why;
}

TEST(Inspect, AVariantThatCannotRunHasNoFigures) {
  const VariantInspection in = inspectVariant(variant("separable"), paramsFor("sharpen", 2), 64, 48);
  EXPECT_EQ(in.why.code, Problem::Code::CannotRun);
  EXPECT_FALSE(in.hasFigures());
  EXPECT_TRUE(in.launch.passes.empty());
}

// naive: (2r+1)^2 taps, each a global load, and the centre again for alpha; its weights are global
// loads too. 4 channels, one FMA each per tap.
TEST(InspectWork, NaiveConstantAndTexture) {
  const WorkModel n = modelOf("naive", paramsFor("gaussian", 2));
  EXPECT_DOUBLE_EQ(n.globalReads, 25 + 1);
  EXPECT_DOUBLE_EQ(n.globalBytes, 4 * 26 + 4 * 25);
  EXPECT_DOUBLE_EQ(n.apron, 25);
  EXPECT_DOUBLE_EQ(n.sharedBytes, 0);
  EXPECT_DOUBLE_EQ(n.idleThreads, 0);
  EXPECT_DOUBLE_EQ(n.flops, 2 * 4 * 25);
  EXPECT_DOUBLE_EQ(n.dramBytes, 8);
  EXPECT_DOUBLE_EQ(n.intensity(), 200.0 / 8);
  const WorkModel c = modelOf("constant", paramsFor("gaussian", 2));
  EXPECT_DOUBLE_EQ(c.globalBytes, 4 * 26);
  EXPECT_DOUBLE_EQ(c.flops, 200);
  EXPECT_DOUBLE_EQ(modelOf("texture", paramsFor("gaussian", 1)).globalReads, 9 + 1);
  // A gradient magnitude: two masks over the same reads.
  const WorkModel s = modelOf("naive", paramsFor("sobel", 1));
  EXPECT_DOUBLE_EQ(s.globalReads, 10);
  EXPECT_DOUBLE_EQ(s.globalBytes, 4 * 10 + 4 * 9 * 2);
  EXPECT_DOUBLE_EQ(s.flops, 2 * 4 * 9 * 2);
}

// tiled: block = input tile T x T; (T - 2r)^2 of its threads compute, (T^2 - (T - 2r)^2) / T^2 idle.
TEST(InspectWork, TiledIdleThreadsAndApron) {
  const WorkModel m = modelOf("tiled", paramsFor("gaussian", 2, {16, 16}));
  EXPECT_DOUBLE_EQ(m.idleThreads, (256.0 - 144) / 256);
  EXPECT_DOUBLE_EQ(m.apron, 256.0 / 144);
  EXPECT_DOUBLE_EQ(m.globalReads, 256.0 / 144);
  EXPECT_DOUBLE_EQ(m.sharedBytes, 4 * (25 + 1));
  EXPECT_DOUBLE_EQ(m.flops, 200);
  // 32x8 at r=2: 28x4 outputs of 256 threads.
  EXPECT_DOUBLE_EQ(modelOf("tiled", paramsFor("gaussian", 2, {32, 8})).idleThreads, (256.0 - 28 * 4) / 256);
  // r=5 coarsens 32x8 to an input tile 32x24 (3 pixels a thread down): 22x14 outputs.
  const WorkModel big = modelOf("tiled", paramsFor("gaussian", 5, {32, 8}));
  EXPECT_DOUBLE_EQ(big.idleThreads, 1 - 22.0 * 14 / (32 * 24));
  EXPECT_DOUBLE_EQ(big.apron, 32.0 * 24 / (22 * 14));
}

TEST(InspectWork, TiledCoop) {
  const WorkModel m = modelOf("tiled-coop", paramsFor("gaussian", 2, {16, 16}));
  EXPECT_DOUBLE_EQ(m.apron, 20.0 * 20 / 256);
  EXPECT_DOUBLE_EQ(m.globalReads, 400.0 / 256);
  EXPECT_DOUBLE_EQ(m.idleThreads, 0);
  EXPECT_DOUBLE_EQ(m.sharedBytes, 4 * 26);
  EXPECT_DOUBLE_EQ(m.flops, 200);
}

// separable: each pass stages 4 + 2 halo blocks for 4 outputs a thread (halo = ceil(r / block
// side)); the column pass reads float4 values (16 bytes) of the intermediate plane, which goes
// through DRAM: written (16) and read back (16) per plane.
TEST(InspectWork, SeparableRowColumnAndIntermediate) {
  const WorkModel m = modelOf("separable", paramsFor("gaussian", 2, {32, 4}));
  EXPECT_DOUBLE_EQ(m.globalReads, 1.5 + 1.5 + 1);
  EXPECT_DOUBLE_EQ(m.globalBytes, 4 * 1.5 + 16 * 1.5 + 4);
  EXPECT_DOUBLE_EQ(m.sharedBytes, 16 * 5 + 16 * 5);
  EXPECT_DOUBLE_EQ(m.apron, 1.5);
  EXPECT_DOUBLE_EQ(m.flops, 2 * 4 * 5 * 2);
  EXPECT_DOUBLE_EQ(m.dramBytes, 8 + 32);
  EXPECT_DOUBLE_EQ(m.intensity(), 80.0 / 40);
  // r=9 with 16x8 blocks: the row halo is one block (16 >= 9), the column halo two (8 < 9).
  const WorkModel r9 = modelOf("separable", paramsFor("gaussian", 9, {16, 8}));
  EXPECT_DOUBLE_EQ(r9.globalReads, 6.0 / 4 + 8.0 / 4 + 1);
  EXPECT_DOUBLE_EQ(r9.apron, (1.5 + 2) / 2);
  // sobel: two planes.
  const WorkModel s = modelOf("separable", paramsFor("sobel", 1, {32, 4}));
  EXPECT_DOUBLE_EQ(s.globalReads, 1.5 + 2 * 1.5 + 1);
  EXPECT_DOUBLE_EQ(s.dramBytes, 8 + 64);
  EXPECT_DOUBLE_EQ(s.flops, 2 * 4 * 3 * 2 * 2);
}

// fused 64x32 at r=2: 36 rows of 18 chunks (the apron rounded to 4 pixels); the column factor over
// 144 items (18 chunk columns x 8 groups of 4 rows), the row factor over 512 (4 outputs each), on
// 256 threads.
TEST(InspectWork, Fused) {
  const WorkModel m = modelOf("fused", paramsFor("gaussian", 2, {64, 32}));
  const double chunks = 36 * 18, out = 64 * 32;
  EXPECT_DOUBLE_EQ(m.globalReads, 4 * chunks / out);
  EXPECT_DOUBLE_EQ(m.globalBytes, 16 * chunks / out);
  EXPECT_DOUBLE_EQ(m.sharedBytes, (144 * 8 * 16 + 512 * 9 * 16) / out);
  EXPECT_DOUBLE_EQ(m.flops, 40 * (1 + 72.0 / 64));
  const double column = 144 * 640, row = 512 * 160;
  EXPECT_DOUBLE_EQ(m.idleThreads, 1 - (column + row) / (256 * 640 + 512 * 160));
  EXPECT_DOUBLE_EQ(m.dramBytes, 8);
}

// stream at r=2: 4 pixels a lane, 1 apron lane a side, 120 outputs a warp row; a warp reads
// sh + 4 rows for sh outputs. Without a device each warp walks one segment of the tile's height.
TEST(InspectWork, Stream) {
  if (deviceInfo().available) GTEST_SKIP() << "here the segments are sized to the device (test_inspect_gpu)";
  const WorkModel m = modelOf("stream", paramsFor("gaussian", 2, {32, 16}));
  EXPECT_DOUBLE_EQ(m.globalReads, 128.0 * 20 / (120 * 16));
  EXPECT_DOUBLE_EQ(m.sharedBytes, 4 * m.globalReads);
  EXPECT_DOUBLE_EQ(m.idleThreads, 2.0 / 32);
  EXPECT_DOUBLE_EQ(m.flops, m.globalReads * 3 * 2 * 2 * 5);  // alpha kept: three channels
  const WorkModel alpha = modelOf("stream", paramsFor("gaussian", 2, {32, 16}, true));
  EXPECT_DOUBLE_EQ(alpha.flops, m.globalReads * 4 * 2 * 2 * 5);
  // r=3 with fp16 sums (a gaussian fits planHalfSums): still 4 pixels a lane, 1 apron lane a side.
  const WorkModel r3 = modelOf("stream", paramsFor("gaussian", 3, {32, 8}));
  EXPECT_DOUBLE_EQ(r3.globalReads, 128.0 * 14 / (120 * 8));
  EXPECT_DOUBLE_EQ(r3.idleThreads, 2.0 / 32);
  // r=3 with fp32 sums (factors summing to 3 in |w| do not fit): 2 pixels a lane, 2 apron lanes a side.
  FilterParams sharpen = paramsFor("gaussian", 3, {32, 8});
  std::vector<float> factor(7, -1.f / 6);
  factor[3] = 2.f;
  sharpen.filter.mask = Mask::fromFactors(factor, factor);
  ASSERT_FALSE(planHalfSums(sharpen.filter.mask).fits);
  const WorkModel r3f = modelOf("stream", sharpen);
  EXPECT_DOUBLE_EQ(r3f.globalReads, 64.0 * 14 / (56 * 8));
  EXPECT_DOUBLE_EQ(r3f.idleThreads, 4.0 / 32);
}

// tensor2d 64x16 at r=2 with alpha filtered: 4 output chunks of 16 pixels x 4 warps of 4 rows (4
// fp16 lines a pixel: 2 blocks of 8 lines a warp); a Toeplitz band 32 deep (two K chunks) per mask
// row: 5 mask rows x 4 chunks x 2 blocks x 2 products a warp, 4096 FLOPs each, for 4 rows x 64
// pixels; per mask row 5 B fragments of 2 blocks (ldmatrix.x4) and 2 x 3 weight pairs a lane.
// With alpha kept (the default) a pixel is 3 lines and a warp 8 rows: 2 warps, 3 blocks each.
TEST(InspectWork, Tensor2D) {
  FilterParams filtered = paramsFor("gaussian", 2, {64, 16});
  filtered.filterAlpha = true;
  const WorkModel m = modelOf("tensor2d", filtered);
  EXPECT_DOUBLE_EQ(m.apron, 68.0 * 20 / 1024);
  EXPECT_DOUBLE_EQ(m.globalReads, 68.0 * 20 / 1024);
  EXPECT_DOUBLE_EQ(m.matrixFlops, 4.0 * 5 * 4 * 2 * 2 * 4096 / 1024);
  EXPECT_DOUBLE_EQ(m.matrixUseful, 2 * 4 * 25);
  EXPECT_DOUBLE_EQ(m.matrixWaste(), 1 - 200.0 / 1280);
  EXPECT_DOUBLE_EQ(m.sharedBytes, (4 * 5 * (5 * 512 + 32 * 2 * 3 * 4) + 1024 * 4) / 1024.0);
  EXPECT_DOUBLE_EQ(m.flops, 0);
  EXPECT_DOUBLE_EQ(m.intensity(), 1280.0 / 8);
  const WorkModel kept = modelOf("tensor2d", paramsFor("gaussian", 2, {64, 16}));
  EXPECT_DOUBLE_EQ(kept.globalReads, 68.0 * 20 / 1024 + 1);  // alpha read again at the store
  EXPECT_DOUBLE_EQ(kept.matrixFlops, 2.0 * 5 * 4 * 3 * 2 * 4096 / 1024);
  EXPECT_DOUBLE_EQ(kept.matrixUseful, 2 * 3 * 25);
  EXPECT_DOUBLE_EQ(kept.sharedBytes, (2 * 5 * (5 * 768 + 32 * 2 * 3 * 4) + 1024 * 4) / 1024.0);
  // 128 pixels wide: two warps across, each with 8 chunks' B fragments of its 64 pixels and apron.
  const WorkModel wide = modelOf("tensor2d", paramsFor("gaussian", 2, {128, 32}));
  EXPECT_DOUBLE_EQ(wide.matrixFlops, 4.0 * 5 * 8 * 3 * 2 * 4096 / 4096);
  EXPECT_DOUBLE_EQ(wide.sharedBytes, (8 * 5 * (5 * 768 + 32 * 2 * 3 * 4) + 4096 * 4) / 4096.0);
  // r=3 emboss needs fp16 high + low weights: two products each.
  FilterParams emboss = paramsFor("emboss", 3, {64, 16});
  emboss.filterAlpha = true;
  const WorkModel split = modelOf("tensor2d", emboss);
  EXPECT_DOUBLE_EQ(split.matrixFlops, 2 * 7 * 2 * 4096 / 32.0);  // 32 outputs a product
  EXPECT_DOUBLE_EQ(split.matrixUseful, 2 * 2 * 4 * 49);
}

// tensorsep 32x32 at r=2: horizontal over 36 rows (9 groups of 4) x 4 chunks, one K chunk; vertical
// 2 x 8 units, 2 K chunks of 16 rows, 4 products each (high and low parts, two n halves).
TEST(InspectWork, TensorSep) {
  const WorkModel m = modelOf("tensorsep", paramsFor("gaussian", 2, {32, 32}));
  EXPECT_DOUBLE_EQ(m.matrixFlops, (36 * 1 + 16 * 2 * 4) * 4096 / 1024.0);
  EXPECT_DOUBLE_EQ(m.matrixUseful, 8 * 5 * 36 / 32.0 + 8 * 5 * 2);
  EXPECT_DOUBLE_EQ(m.apron, 36.0 * 36 / 1024);
  EXPECT_DOUBLE_EQ(m.sharedBytes, (36 * 512 + 256 * 8 + 16 * 2 * (384 + 1024) + 4096) / 1024.0);
}

// tensorstream 64x64 at r=2: a warp's 64 rows in 4 steps of 16 and one more to fill the window;
// a step stages 16 rows x 32 pixels and makes, per channel (3: alpha kept), 2 x 2 row products and
// 2 x 2 column products (two 8-pixel halves of two 16-row output blocks), for 16 rows x 16 pixels.
TEST(InspectWork, TensorStream) {
  const WorkModel m = modelOf("tensorstream", paramsFor("gaussian", 2, {64, 64}));
  EXPECT_DOUBLE_EQ(m.apron, 2 * 5.0 / 4);
  EXPECT_DOUBLE_EQ(m.globalReads, 2.5);  // the alpha comes back from the ring
  // Per step of 256 pixels: the staged 16 x 32 pixels read once (2 KB), per channel 2 row and 2
  // column weight fragments (4 x 512 bytes); then the stored pixels' input again, for their alpha.
  EXPECT_DOUBLE_EQ(m.sharedBytes, 5.0 / 4 * (2048 + 3 * (2 * 512 + 2 * 512)) / 256 + 4);
  EXPECT_DOUBLE_EQ(m.matrixFlops, 5.0 / 4 * 3 * (4 + 4) * 4096 / 256);
  EXPECT_DOUBLE_EQ(m.matrixUseful, 5.0 / 4 * 2 * 3 * 5 + 2 * 3 * 5);
  // r=9: three K chunks, six output blocks, two fill steps.
  const WorkModel r9 = modelOf("tensorstream", paramsFor("gaussian", 9, {64, 64}));
  EXPECT_DOUBLE_EQ(r9.apron, 3 * 6.0 / 4);
  EXPECT_DOUBLE_EQ(r9.matrixFlops, 6.0 / 4 * 3 * (6 + 6) * 4096 / 256);
  // r=20: four K chunks, eight output blocks, three fill steps.
  const WorkModel r20 = modelOf("tensorstream", paramsFor("gaussian", 20, {64, 64}));
  EXPECT_DOUBLE_EQ(r20.apron, 4 * 7.0 / 4);
  EXPECT_DOUBLE_EQ(r20.matrixFlops, 7.0 / 4 * 3 * (8 + 8) * 4096 / 256);
}

TEST(InspectWork, CpuVariants) {
  const WorkModel ref = modelOf("cpu", paramsFor("gaussian", 2));
  EXPECT_DOUBLE_EQ(ref.globalReads, 5 + 5 + 1);
  EXPECT_DOUBLE_EQ(ref.flops, 2 * 4 * 5 * 2);
  EXPECT_DOUBLE_EQ(ref.dramBytes, 8 + 64);  // a plane of doubles written and read back
  const WorkModel ref2d = modelOf("cpu", paramsFor("sharpen", 1));
  EXPECT_DOUBLE_EQ(ref2d.globalReads, 9 + 1);
  EXPECT_DOUBLE_EQ(ref2d.flops, 2 * 4 * 9);
  EXPECT_DOUBLE_EQ(ref2d.dramBytes, 8);
  const WorkModel simd = modelOf("cpu-simd", paramsFor("gaussian", 2));
  EXPECT_DOUBLE_EQ(simd.globalReads, 2 * 5);
  EXPECT_DOUBLE_EQ(simd.flops, 80);
  EXPECT_DOUBLE_EQ(simd.dramBytes, 8);
  EXPECT_DOUBLE_EQ(modelOf("cpu-simd", paramsFor("sharpen", 1)).flops, 2 * 4 * 9);
  EXPECT_TRUE(launchOf("cpu-simd", paramsFor("gaussian", 2)).passes.empty());
}

// Grids are ceil(frame / tile) (the tile of outputs each block makes).
TEST(InspectLaunch, DirectGridsCoverTheFrame) {
  for (const char* name : {"naive", "constant", "texture"}) {
    SCOPED_TRACE(name);
    const PassLaunch a = launchOf(name, paramsFor("gaussian", 1, {16, 16}), 1920, 1080).passes.at(0);
    EXPECT_EQ(a.grid, (Dims{120, 68, 1}));
    EXPECT_EQ(a.block, (Dims{16, 16, 1}));
    EXPECT_EQ(a.threadsPerBlock, 256);
    EXPECT_EQ(a.dynamicShared, 0u);
    EXPECT_EQ(a.inputTile, (Dims{18, 18, 1}));
    EXPECT_EQ(launchOf(name, paramsFor("gaussian", 1, {32, 8}), 17, 33).passes.at(0).grid, (Dims{1, 5, 1}));
    EXPECT_EQ(launchOf(name, paramsFor("gaussian", 1, {8, 8}), 1, 1).passes.at(0).grid, (Dims{1, 1, 1}));
  }
}

TEST(InspectLaunch, TiledGridsStepByTheOutputTile) {
  const PassLaunch t = launchOf("tiled", paramsFor("gaussian", 2, {16, 16})).passes.at(0);
  EXPECT_EQ(t.grid, (Dims{6, 4, 1}));  // 12x12 outputs a block: ceil(64/12), ceil(48/12)
  EXPECT_EQ(t.block, (Dims{16, 16, 1}));
  EXPECT_EQ(t.dynamicShared, 16u * 16 * 4);
  EXPECT_DOUBLE_EQ(t.outputsPerThread, 144.0 / 256);
  EXPECT_EQ(t.kernel, "tiledKernel<16, 16>");
  EXPECT_EQ(t.outputTile, (Dims{12, 12, 1}));  // what the overlay draws: output tiles and their apron
  EXPECT_EQ(t.inputTile, (Dims{16, 16, 1}));
  EXPECT_EQ(t.inputOffsetX, -2);
  EXPECT_EQ(t.inputOffsetY, -2);
  const PassLaunch big = launchOf("tiled", paramsFor("gaussian", 5, {32, 8})).passes.at(0);
  EXPECT_EQ(big.grid, (Dims{3, 4, 1}));  // 22x14 outputs
  EXPECT_EQ(big.dynamicShared, 32u * 24 * 4);
  const PassLaunch c = launchOf("tiled-coop", paramsFor("gaussian", 2, {16, 16})).passes.at(0);
  EXPECT_EQ(c.grid, (Dims{4, 3, 1}));
  EXPECT_EQ(c.dynamicShared, 20u * 20 * 4);
  EXPECT_EQ(launchOf("tiled-coop", paramsFor("gaussian", 2, {64, 4}), 100, 9).passes.at(0).grid, (Dims{2, 3, 1}));
}

TEST(InspectLaunch, SeparableHasARowAndAColumnPass) {
  const LaunchDescription d = launchOf("separable", paramsFor("gaussian", 2, {32, 4}));
  ASSERT_EQ(d.passes.size(), 2u);
  EXPECT_EQ(d.passes[0].pass, "row pass");
  EXPECT_EQ(d.passes[0].grid, (Dims{1, 12, 1}));  // 4 x 32 pixels a block row: ceil(64/128), ceil(48/4)
  EXPECT_EQ(d.passes[0].dynamicShared, 4u * 6 * 32 * 16);
  EXPECT_DOUBLE_EQ(d.passes[0].outputsPerThread, 4);
  EXPECT_EQ(d.passes[1].pass, "column pass");
  EXPECT_EQ(d.passes[1].grid, (Dims{2, 3, 1}));  // ceil(64/32), ceil(48/16)
  EXPECT_EQ(d.passes[1].dynamicShared, 32u * 6 * 4 * 16);
  EXPECT_EQ(d.passes[0].outputTile, (Dims{128, 4, 1}));
  EXPECT_EQ(d.passes[0].inputTile, (Dims{192, 4, 1}));  // a halo block of 32 on each side
  EXPECT_EQ(d.passes[0].inputOffsetX, -32);
  EXPECT_EQ(d.passes[1].outputTile, (Dims{32, 16, 1}));
  EXPECT_EQ(d.passes[1].inputTile, (Dims{32, 24, 1}));
  EXPECT_EQ(d.passes[1].inputOffsetY, -4);
  EXPECT_EQ(launchOf("separable", paramsFor("sobel", 1, {32, 4})).passes[1].dynamicShared, 2u * 32 * 6 * 4 * 16);
}

TEST(InspectLaunch, FusedAndTensorTiles) {
  const PassLaunch f = launchOf("fused", paramsFor("gaussian", 2, {64, 32})).passes.at(0);
  EXPECT_EQ(f.grid, (Dims{1, 2, 1}));
  EXPECT_EQ(f.block, (Dims{256, 1, 1}));
  EXPECT_DOUBLE_EQ(f.outputsPerThread, 8);
  EXPECT_EQ(f.dynamicShared, 36u * 18 * 16 + 32u * 73 * 16);
  EXPECT_EQ(f.inputTile, (Dims{72, 36, 1}));  // the apron's width rounded up to 4
  EXPECT_EQ(f.inputOffsetX, -4);
  FilterParams alphaFiltered = paramsFor("gaussian", 2, {128, 32});
  alphaFiltered.filterAlpha = true;
  const PassLaunch t = launchOf("tensor2d", alphaFiltered, 1000, 1000).passes.at(0);
  EXPECT_EQ(t.grid, (Dims{8, 32, 1}));
  EXPECT_EQ(t.block, (Dims{256, 1, 1}));  // 8 warps of 4 rows
  // tile width, warps, K chunks, split weights, fp16 lines a pixel
  EXPECT_EQ(t.kernel, "tensor2dKernel<128, 8, 2, false, 4, false>");
  const LaunchDescription kept = launchOf("tensor2d", paramsFor("gaussian", 2, {128, 32}), 1000, 1000);
  EXPECT_EQ(kept.passes.at(0).grid, (Dims{8, 32, 1}));
  // 8 warps: 4 of 8 rows x 2 of 64 pixels (no lines for alpha)
  EXPECT_EQ(kept.passes.at(0).block, (Dims{256, 1, 1}));
  EXPECT_EQ(kept.passes.at(0).kernel, "tensor2dKernel<128, 8, 2, false, 3, false>");
  // The tile of 36 rows of 3 fp16 lines (152 halves each), the weights.
  EXPECT_EQ(kept.passes.at(0).dynamicShared, 36u * 3 * 152 * 2 + 5 * 48 * 4);
  // At r = 12 a 16-row tile would fill more apron rows than it makes: the block walks rows, with a
  // ring of 40 rows of lines (104 halves) and the next step's 16 rows of 88 pixels (one step a
  // block without a device).
  const LaunchDescription walks = launchOf("tensor2d", paramsFor("gaussian", 12, {64, 16}), 1000, 1000);
  const PassLaunch& w = walks.passes.at(0);
  EXPECT_EQ(w.kernel.rfind("tensor2dStreamKernel<64, 2, 3, ", 0), 0u) << w.kernel;
  if (!deviceInfo().available)
    EXPECT_EQ(w.grid, (Dims{16, 63, 1}));  // one 16-row step a block
  else
    EXPECT_LE(w.grid.y, 63u);  // segments sized to the device
  EXPECT_NE(w.note.find("walks"), std::string::npos) << w.note;
  const std::size_t weights = w.kernel.find("true") == std::string::npos ? 25 * 64 * 4 : 2 * 25 * 64 * 4;
  EXPECT_EQ(w.dynamicShared, 40u * 3 * 104 * 2 + 16 * 88 * 4 + weights);
  EXPECT_NE(kept.passes.at(0).note.find("alpha is kept"), std::string::npos) << kept.passes.at(0).note;
  // An RGBA8 batch: the instance that takes its frame from grid z, one launch, and the note.
  ImageDesc batch = ImageDesc::rgba8(1000, 1000);
  batch.batch = 5;
  const PassLaunch b = variant("tensor2d").describeLaunch(paramsFor("gaussian", 2, {128, 32}), batch).passes.at(0);
  EXPECT_EQ(b.kernel, "tensor2dKernel<128, 8, 2, false, 3, true>");
  EXPECT_EQ(b.grid, (Dims{8, 32, 5}));
  EXPECT_NE(b.note.find("a frame of the batch a grid z"), std::string::npos) << b.note;
  const PassLaunch s = launchOf("tensorsep", paramsFor("gaussian", 2, {64, 16}), 65, 17).passes.at(0);
  EXPECT_EQ(s.grid, (Dims{2, 2, 1}));
  const PassLaunch ts = launchOf("tensorstream", paramsFor("gaussian", 2, {128, 64}), 1920, 1080).passes.at(0);
  // 17 entries x 17 segment rows: the 2 edge block columns first, each as two entries of 32-row
  // segments (every other one; without a device the grid is taken as one wave), then the 13
  // interior columns.
  EXPECT_EQ(ts.grid, (Dims{17, 17, 1}));
  EXPECT_EQ(ts.block, (Dims{256, 1, 1}));  // a warp per 16-pixel strip
  EXPECT_DOUBLE_EQ(ts.outputsPerThread, 32);
  // The weight fragments (2 x 512 + 4 x 256 bytes) and a ring of 3 steps of 16 rows x 128 bytes a warp.
  EXPECT_EQ(ts.dynamicShared, 2u * 512 + 4 * 256 + 8 * 3 * 16 * 128);
  EXPECT_EQ(ts.outputTile, (Dims{128, 64, 1}));
  EXPECT_EQ(ts.inputTile, (Dims{128 + 16, 64 + 16, 1}));  // two 16-pixel chunks a warp; 8 rows above and below
  EXPECT_EQ(ts.inputOffsetX, -4);
  EXPECT_EQ(ts.inputOffsetY, -8);
}

TEST(InspectLaunch, StreamWithoutADeviceWalksOneTileHeightAWarp) {
  if (deviceInfo().available) GTEST_SKIP() << "here the grid is sized to the device (test_inspect_gpu)";
  const PassLaunch s = launchOf("stream", paramsFor("gaussian", 2, {32, 16}), 1920, 1080).passes.at(0);
  // 16 strips of 120 pixels x 68 segments of 16 rows, 4 warps a block.
  EXPECT_EQ(s.grid, (Dims{16 * 68 / 4, 1, 1}));
  EXPECT_EQ(s.block, (Dims{128, 1, 1}));
  EXPECT_EQ(s.staticShared, 4u * 4 * 8 * 32 * 4);
  EXPECT_EQ(s.outputTile, (Dims{120, 16, 1}));  // a warp's unit: one strip, one segment
  EXPECT_EQ(s.inputTile, (Dims{128, 20, 1}));
  EXPECT_EQ(s.inputOffsetX, -4);
  EXPECT_NE(s.note.find("persistent"), std::string::npos);
}

TEST(InspectLaunch, ATileWithNoInstanceIsRefused) {
  EXPECT_THROW(launchOf("tiled", paramsFor("gaussian", 2, {8, 8})), std::invalid_argument);
  EXPECT_THROW(modelOf("fused", paramsFor("gaussian", 2, {32, 32})), std::invalid_argument);
}

// An H100-like SM: 2048 threads, 32 blocks, 64K registers in 4 partitions, 228 KiB of shared memory
// (227 a block), 1 KiB reserved a block.
SmResources h100() {
  SmResources sm;
  sm.maxThreadsPerSm = 2048;
  sm.maxBlocksPerSm = 32;
  sm.registersPerSm = sm.registersPerBlock = 65536;
  sm.sharedPerSm = 233472;
  sm.sharedPerBlockOptin = 232448;
  sm.reservedSharedPerBlock = 1024;
  return sm;
}

TEST(InspectOccupancy, EachResourceLimit) {
  const OccupancyLimits a = occupancyLimits(h100(), 256, 32, 0);
  EXPECT_EQ(a.registers, 8);  // 1024 registers a warp: 64 warps
  EXPECT_EQ(a.threads, 8);
  EXPECT_EQ(a.shared, 228);  // the reserve alone
  EXPECT_EQ(a.blocks, 32);
  EXPECT_EQ(a.min(), 8);
  EXPECT_EQ(a.limiter(), "registers and threads");
  const OccupancyLimits b = occupancyLimits(h100(), 256, 40, 47744);
  EXPECT_EQ(b.registers, 6);  // 1280 a warp: 12 warps a partition, 48 a SM
  EXPECT_EQ(b.shared, 4);     // 48768 bytes a block
  EXPECT_EQ(b.limiter(), "shared memory");
  EXPECT_EQ(occupancyLimits(h100(), 256, 72, 0).registers, 3);  // 2304 a warp: 7 a partition
  EXPECT_EQ(occupancyLimits(h100(), 128, 128, 0).registers, 4);
  EXPECT_EQ(occupancyLimits(h100(), 32, 16, 0).limiter(), "blocks per SM");
  EXPECT_EQ(occupancyLimits(h100(), 64, 16, 0).limiter(), "threads and blocks per SM");
  EXPECT_EQ(occupancyLimits(h100(), 256, 32, 240000).shared, 0);  // past what a block may have
}

TEST(InspectAchieved, FromTheModelAndATime) {
  WorkModel m;
  m.flops = 100;
  m.dramBytes = 8;
  const Achieved a = achieved(m, 1000, 1000, 1.0);
  EXPECT_DOUBLE_EQ(a.mpixPerS, 1000);
  EXPECT_DOUBLE_EQ(a.gbPerS, 8);
  EXPECT_DOUBLE_EQ(a.gflopPerS, 100);
}

TEST(InspectTiming, CpuVariantsAreTimedAndOthersSayWhyNot) {
  TimingFrame frame(64, 48);
  const Timing t = timeVariant(variant("cpu-simd"), paramsFor("gaussian", 2), frame, 5);
  EXPECT_TRUE(t.measured);
  EXPECT_GT(t.ms, 0);
  EXPECT_GE(t.runs, 3);
  const Timing no = timeVariant(variant("separable"), paramsFor("sharpen", 2), frame);
  EXPECT_FALSE(no.measured);
  EXPECT_EQ(no.why.code, Problem::Code::CannotRun);
}

// The table: a row per variant, each with its figures (or why it cannot run).
// fft's planes: the frame plus r on every side, rounded up to 2^a 3^b with b <= 4.
TEST(Fft, GoodSizesArePowersOfTwoTimesFewThrees) {
  EXPECT_EQ(fftGoodSize(1), 1);
  EXPECT_EQ(fftGoodSize(11), 12);
  EXPECT_EQ(fftGoodSize(13), 16);
  EXPECT_EQ(fftGoodSize(17), 18);
  EXPECT_EQ(fftGoodSize(3904), 4096);  // 4K width + 2 x 32 (3888 = 2^4 x 3^5 is just short)
  EXPECT_EQ(fftGoodSize(3856), 4096);  // 4K width + 2 x 8 (3888 = 2^4 x 3^5: too many threes)
  EXPECT_EQ(fftGoodSize(1208), 1296);  // 1080 + 2 x 64: 2^4 x 3^4
  EXPECT_EQ(fftGoodSize(4096), 4096);
  for (int n = 1; n < 3000; n += 37) {
    const int m = fftGoodSize(n);
    EXPECT_GE(m, n);
    int k = m;
    int threes = 0;
    while (k % 3 == 0) k /= 3, ++threes;
    EXPECT_EQ(k & (k - 1), 0) << n << " -> " << m;
    EXPECT_LE(threes, 4) << n << " -> " << m;
  }
}

TEST(Fft, GeometryPadsByTheRadius) {
  const FftGeometry g = fftGeometry(3840, 2160, 32, false, Combine::Identity);
  EXPECT_EQ(g.padW, 4096);
  EXPECT_EQ(g.padH, 2304);  // 2224 -> 2^8 x 3^2
  EXPECT_EQ(g.channels, 3);
  EXPECT_FALSE(g.magnitude);
  const FftGeometry m = fftGeometry(7, 5, 1, true, Combine::Magnitude);
  EXPECT_EQ(m.padW, 9);
  EXPECT_EQ(m.padH, 8);
  EXPECT_EQ(m.channels, 4);
  EXPECT_TRUE(m.magnitude);
  // Two sets of planes and spectra, and the two masks' spectra.
  EXPECT_EQ(m.deviceBytes(), 2 * 4 * (9 * 8 * 4 + 5 * 8 * 8) + 2 * 5 * 8 * 8);
}

// The error model scales with the weights' absolute sum: a blur is far inside the budget, a mask
// of large weights is not.
TEST(Fft, ErrorEstimateScalesWithTheWeights) {
  const FftGeometry g = fftGeometry(3840, 2160, 64, true, Combine::Identity);
  const double blur = fftErrorEstimate(gaussianMask(64), g);
  EXPECT_GT(blur, 0);
  EXPECT_LT(blur, 0.01);
  std::vector<float> big(25, 40.f);
  EXPECT_NEAR(fftErrorEstimate(Mask(2, big), g) / fftErrorEstimate(boxMask(2), g), 1000, 1);
  EXPECT_GT(fftErrorEstimate(Mask(2, big), g), kFftErrorBudget);
}

// Typed frames and batches: a plane a filtered channel (a copied 4th channel takes none), a
// batch's frames in groups whose planes stay within kFftGroupBytes, the last group what is left.
TEST(Fft, GeometryOfTypedFramesAndBatches) {
  ImageDesc grey{.width = 1920, .height = 1080, .type = PixelType::U16, .channels = 1};
  grey.batch = 16;
  const FftGeometry g = fftGeometry(grey, 8, false, Combine::Identity);
  EXPECT_EQ(g.padW, 2048);  // 1936: 1944 = 2^3 x 3^5 has five threes
  EXPECT_EQ(g.channels, 1);
  EXPECT_LE(g.deviceBytes(), kFftGroupBytes + g.deviceBytes() / g.frames);
  EXPECT_EQ(g.groups, (16 + g.frames - 1) / g.frames);
  ImageDesc padded{.width = 64, .height = 48, .type = PixelType::F32, .channels = 4, .alpha = false};
  padded.batch = 5;
  EXPECT_EQ(fftGeometry(padded, 2, true, Combine::Identity).channels, 3);  // padding is copied, not filtered
  padded.alpha = true;
  EXPECT_EQ(fftGeometry(padded, 2, true, Combine::Identity).channels, 4);
  EXPECT_EQ(fftGeometry(padded, 2, false, Combine::Identity).channels, 3);
  const FftGeometry small = fftGeometry(padded, 2, true, Combine::Magnitude);
  EXPECT_EQ(small.frames, 5);
  EXPECT_EQ(small.groups, 1);
  // Many large frames: groups of the most frames whose planes fit, the count rounded up.
  ImageDesc many{.width = 3840, .height = 2160, .type = PixelType::F16, .channels = 3};
  many.batch = 100;
  const FftGeometry m = fftGeometry(many, 4, false, Combine::Identity);
  EXPECT_GT(m.frames, 1);
  EXPECT_LT(m.frames, 100);
  EXPECT_EQ(m.groups, (100 + m.frames - 1) / m.frames);
  EXPECT_LE(m.deviceBytes(), kFftGroupBytes + m.deviceBytes() / m.frames);
}

// The error model in levels of each integer type, and as a fraction of the largest value for
// floats: far inside the contract's 1e-5 of sum|w| x max|x| for a 4K frame.
TEST(Fft, ErrorEstimateScalesWithTheType) {
  const FftGeometry g = fftGeometry(3840, 2160, 16, false, Combine::Identity);
  const Mask blur = gaussianMask(16);
  EXPECT_NEAR(fftErrorEstimate(blur, g, PixelType::U16) / fftErrorEstimate(blur, g, PixelType::U8), 65535.0 / 255,
              1e-9);
  EXPECT_LT(fftErrorEstimate(blur, g, PixelType::U16), kFftErrorBudget);
  EXPECT_NEAR(fftErrorEstimate(blur, g, PixelType::F32), fftErrorEstimate(blur, g, PixelType::U8) / 255, 1e-15);
  EXPECT_LT(fftErrorEstimate(blur, g, PixelType::F32), 1e-5 * absoluteSum(blur.weights()));
  std::vector<float> big(25, 0.2f);  // sum |w| 5: over the u16 budget, not u8's
  EXPECT_GT(fftErrorEstimate(Mask(2, big), g, PixelType::U16), kFftErrorBudget);
  EXPECT_LT(fftErrorEstimate(Mask(2, big), g, PixelType::U8), kFftErrorBudget);
}

// A batch of typed frames: the instances for the type and channels, a grid z a frame of the group,
// the transforms over every plane of the group.
TEST(Fft, TypedBatchesGetTheirKernelsAndPlaneCounts) {
  ImageDesc d{.width = 100, .height = 50, .type = PixelType::F32, .channels = 3};
  d.batch = 7;
  const Variant& v = *findVariant("fft");
  const LaunchDescription l = v.describeLaunch(paramsFor("gaussian", 8), d);
  ASSERT_EQ(l.passes.size(), 5u);
  EXPECT_EQ(l.passes[0].kernel, "fftPadKernel<f32, 3>");
  EXPECT_EQ(l.passes[0].grid, (Dims{4, 9, 7}));
  EXPECT_EQ(l.passes[1].kernel, "cuFFT R2C 128x72 x21");
  EXPECT_EQ(l.passes[3].kernel, "cuFFT C2R 128x72 x21");
  EXPECT_EQ(l.passes[4].kernel, "fftPackKernel<f32, 3>");
  EXPECT_EQ(l.passes[4].grid, (Dims{4, 7, 7}));
  EXPECT_EQ(l.passes[0].note.find("groups"), std::string::npos) << l.passes[0].note;
  EXPECT_EQ(v.imagesTaken(), "u8,u16,f32");  // not f16: its error is relative to the frame's largest value
  // Its work model counts the frames' own bytes: f32 x 3 channels in and out.
  const WorkModel m = v.workModel(paramsFor("gaussian", 8), d);
  const WorkModel rgba = v.workModel(paramsFor("gaussian", 8), ImageDesc::rgba8(100, 50));
  EXPECT_GT(m.dramBytes, rgba.dramBytes);
  for (const std::string& note : m.notes) EXPECT_EQ(note.find("not described"), std::string::npos) << note;
}

TEST(Fft, LaunchHasTheTransformsBetweenItsKernels) {
  const LaunchDescription d = launchOf("fft", paramsFor("gaussian", 8), 100, 50);
  ASSERT_EQ(d.passes.size(), 5u);
  EXPECT_EQ(d.passes[0].kernel, "fftPadKernel<u8, 4>");
  EXPECT_EQ(d.passes[0].grid, (Dims{4, 9, 1}));  // 100+16 -> 128 by 50+16 -> 72, in 32x8 blocks
  EXPECT_EQ(d.passes[0].inputOffsetX, -8);
  EXPECT_EQ(d.passes[1].kernel, "cuFFT R2C 128x72 x3");
  EXPECT_EQ(d.passes[1].kernelFunction, nullptr);
  EXPECT_EQ(d.passes[2].kernel, "fftMultiplyKernel");
  EXPECT_EQ(d.passes[3].kernel, "cuFFT C2R 128x72 x3");
  EXPECT_EQ(d.passes[4].kernel, "fftPackKernel<u8, 4>");
  EXPECT_EQ(d.passes[4].grid, (Dims{4, 7, 1}));  // the frame itself
  EXPECT_EQ(d.passes[4].outputTile, (Dims{32, 8, 1}));
  const WorkModel m = modelOf("fft", paramsFor("gaussian", 8), 100, 50);
  EXPECT_DOUBLE_EQ(m.apron, 128.0 * 72 / (100 * 50));
  // The cost does not depend on the radius once the padded size is the same.
  EXPECT_NEAR(modelOf("fft", paramsFor("gaussian", 1), 118, 68).flops * 118 * 68,
              modelOf("fft", paramsFor("gaussian", 2), 116, 66).flops * 116 * 66, 1e-3);
}

TEST(InspectCommand, DetailsTableHasARowPerVariant) {
  const auto r = testing::runConvliveWith("list variants --details --size 64x48 --radius 2");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const Variant& v : variants()) {
    const auto at = r.output.find("\n" + v.name + " ");
    ASSERT_NE(at, std::string::npos) << v.name << "\n" << r.output;
    const std::string row = r.output.substr(at + 1, r.output.find('\n', at + 1) - at - 1);
    std::istringstream cells(row);
    std::string name, tile, grid;
    cells >> name >> tile >> grid;
    EXPECT_EQ(name, v.name);
    EXPECT_NE(row.find_first_of("0123456789", name.size()), std::string::npos) << row;
    EXPECT_EQ(row.find("cannot run"), std::string::npos) << row;
  }
  EXPECT_NE(r.output.find("column pass"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("on 64x48"), std::string::npos) << r.output;
}

TEST(InspectCommand, VariantsThatCannotRunSayWhy) {
  const auto r = testing::runConvliveWith("list variants --details --size 64x48 --mask sharpen --radius 2");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto at = r.output.find("\nseparable ");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string row = r.output.substr(at + 1, r.output.find('\n', at + 1) - at - 1);
  EXPECT_NE(row.find("cannot run: "), std::string::npos) << row;
  EXPECT_NE(row.find("--variant tiled-coop"), std::string::npos) << row;  // worded for the command line
}

TEST(InspectCommand, OneVariantAndItsTile) {
  const auto r =
      testing::runConvliveWith("list variants --details --size 64x48 --radius 2 --variant tiled --tile 16x16");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("\ntiled         16x16  6x4"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("\nnaive "), std::string::npos) << r.output;
}

TEST(InspectCommand, ReportWritesTheFiguresAsJson) {
  const std::string path = ::testing::TempDir() + "convlive-details.json";
  std::remove(path.c_str());
  const auto r = testing::runConvliveWith("list variants --details --size 64x48 --radius 1 --report " + path);
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("width"), 64);
  ASSERT_EQ(doc.at("variants").size(), variants().size());
  const auto& tiled = doc.at("variants").at(2);
  EXPECT_EQ(tiled.at("variant"), "tiled");
  EXPECT_EQ(tiled.at("passes").at(0).at("grid"), nlohmann::json({3, 8, 1}));  // 30x6 outputs a 32x8 block
  EXPECT_DOUBLE_EQ(tiled.at("model").at("idle_threads").get<double>(), 1 - 30.0 * 6 / 256);
  std::remove(path.c_str());
}

// --frames: the kernels for frames of another type (u16 grey: tensorstream's u16 instance, 4 bytes a
// pixel), the RGBA8-only variants saying which variant takes them, no time (RGBA8 frames only), the
// report naming the frames; a name that is no type refused with the ones there are.
TEST(InspectCommand, FramesOfAnotherTypeGetTheirKernels) {
  const std::string path = ::testing::TempDir() + "convlive-details-u16.json";
  std::remove(path.c_str());
  const auto r =
      testing::runConvliveWith("list variants --details --size 640x360 --radius 8 --frames u16x1 --report " + path);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("on 640x360 u16x1 frames"), std::string::npos) << r.output;
  const auto at = r.output.find("\ntiled ");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string tiled = r.output.substr(at + 1, r.output.find('\n', at + 1) - at - 1);
  EXPECT_NE(tiled.find("cannot run: "), std::string::npos) << tiled;
  EXPECT_NE(tiled.find("u16x1"), std::string::npos) << tiled;
  EXPECT_NE(r.output.find("(4 bytes a pixel read and written"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("convlive-bench --types u16x1"), std::string::npos) << r.output;
  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("frames"), "u16x1");
  bool sawTensorStream = false;
  for (const auto& v : doc.at("variants")) {
    if (v.at("variant") != "tensorstream") continue;
    sawTensorStream = true;
    const std::string kernel = v.at("passes").at(0).at("kernel");
    EXPECT_EQ(kernel.rfind("tensorStreamTypedKernel<u16x1", 0), 0u) << kernel;
    EXPECT_DOUBLE_EQ(v.at("model").at("dram_bytes").get<double>(), 4.0);
    EXPECT_TRUE(v.at("time").is_null());
  }
  EXPECT_TRUE(sawTensorStream);
  std::remove(path.c_str());
  const auto bad = testing::runConvliveWith("list variants --details --frames u12x2");
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--frames 'u12x2' is not a pixel type"), std::string::npos) << bad.output;
  const auto alone = testing::runConvliveWith("list variants --frames u8x1");
  EXPECT_EQ(alone.code, 2) << alone.output;
  EXPECT_NE(alone.output.find("--frames goes with --details"), std::string::npos) << alone.output;
}

TEST(InspectCommand, DetailOptionsNeedDetails) {
  const auto r = testing::runConvliveWith("list variants --radius 2");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--radius goes with --details"), std::string::npos) << r.output;
  const auto legacy = testing::runConvliveWith("--list-variants --details --size 32x32");
  EXPECT_EQ(legacy.code, 0) << legacy.output;
  EXPECT_NE(legacy.output.find("\ntensorstream "), std::string::npos) << legacy.output;
}

// The placement the launches decode (cuda/kernels/schedules.hpp), host-side: every 16-pixel strip
// of every row is one tensorstream block's, and every stream strip of every row one unit's, in
// each order and segment height the edge divisors choose, for frames from 1x1 to 4K and every tile.
class Schedules : public ::testing::Test {
 protected:
  static std::vector<std::pair<int, int>> sizes() {
    std::vector<std::pair<int, int>> out;
    for (int w : {1, 5, 16, 17, 31, 33, 64, 65, 100, 127, 128, 129, 256, 259, 300, 517})
      for (int h : {1, 3, 16, 17, 47, 133}) out.emplace_back(w, h);
    out.emplace_back(1920, 1080);
    out.emplace_back(3840, 2160);
    return out;
  }
  static kernels::Launch launch(int w, int h, Tile t) {
    kernels::Launch l{};
    l.width = w;
    l.height = h;
    l.tileW = t.w;
    l.tileH = t.h;
    return l;
  }
  // Counts each (strip, row) a place covers; every one must be covered once.
  static std::string coverage(std::vector<int>& hits, int strips, int h, int strip, int y0, int rows) {
    if (strip < 0 || strip >= strips || y0 < 0 || y0 >= h)
      return "a place outside the frame: strip " + std::to_string(strip) + ", row " + std::to_string(y0);
    for (int y = y0; y < std::min(h, y0 + rows); ++y) ++hits[std::size_t(strip) * h + y];
    return {};
  }
  static std::string missedOrTwice(const std::vector<int>& hits, int h) {
    for (std::size_t i = 0; i < hits.size(); ++i)
      if (hits[i] != 1)
        return "strip " + std::to_string(i / h) + " row " + std::to_string(i % h) + " covered " +
               std::to_string(hits[i]) + " times";
    return {};
  }
  // Every value of a typed stream launch's row written by one lane of one of its strips: "" or what was not.
  static std::string rowWrittenOnce(const kernels::TypedStreamLaunch& l, int r, int strips) {
    const int tb = int(pixelTypeBytes(l.image.type)), c = l.image.channels, rowValues = l.image.width * c;
    const int half = kernels::typedStreamHalfLaneValues(l, r);
    const int v = kernels::typedStreamLaneValues(tb, c, r, half),
              lanes = kernels::typedStreamApronLanes(tb, c, r, half);
    const int outV = kernels::typedStreamOutValues(tb, c, r, half);
    const bool inRegisters = kernels::typedStreamEdgesInRegisters(l, r);
    std::vector<int> hits(static_cast<std::size_t>(rowValues));
    for (int s = 0; s < strips; ++s) {
      const int xw = kernels::typedStreamWarpStart(s, outV, v, lanes, inRegisters);
      for (int lane = 0; lane < 32; ++lane)
        if (kernels::typedStreamLaneWrites(lane, xw, v, lanes, rowValues, inRegisters))
          for (int j = 0; j < v; ++j)
            if (const int x = xw + v * lane + j; x >= 0 && x < rowValues) ++hits[std::size_t(x)];
    }
    for (int x = 0; x < rowValues; ++x)
      if (hits[std::size_t(x)] != 1)
        return "value " + std::to_string(x) + " of " + std::to_string(rowValues) + " written " +
               std::to_string(hits[std::size_t(x)]) + " times (" + std::to_string(strips) + " strips" +
               (inRegisters ? ", edges in registers)" : ")");
    return "";
  }
  // Every (strip, row) of a stream launch's units walked once: "" or what was not.
  static std::string walkedOnce(const kernels::StreamUnits& u, int h) {
    std::vector<int> hits(std::size_t(u.strips) * h);
    std::string why;
    for (int i = 0; i < u.units && why.empty(); ++i) {
      const kernels::UnitPlace p = kernels::unitPlace(u, i);
      why = coverage(hits, u.strips, h, p.strip, p.y0, p.rows);
    }
    return why.empty() ? missedOrTwice(hits, h) : why;
  }
};

TEST_F(Schedules, TensorStreamBlocksCoverEveryStripRowOnce) {
  int cases = 0;
  for (int divisor : {0, 1, 2, 4, 8})
    // slots: unknown (taken as one wave), always past one wave, the H200's at r <= 16, never past one.
    for (int slots : {0, 1, 528, 100000}) {
      for (const Tile& t : findVariant("tensorstream")->tiles)
        for (const auto& [w, h] : sizes())
          for (int r : {0, 1, 4, 5, 8, 9, 16, 17, 24, 25, 32}) {
            if (w * h > 600 * 200 && r % 8 != 0) continue;  // the large frames at r = 0, 8, 16, 24, 32
            const auto s = std::make_unique<kernels::StripSchedule>(
                kernels::tensorStreamSchedule(launch(w, h, t), r, slots, divisor));
            const int strips = (w + 15) / 16, warps = t.w / 16;
            std::vector<int> hits(std::size_t(strips) * h);
            std::string why;
            int idle = 0;  // blocks past the last row: an edge entry's last segments
            for (int by = 0; by < s->segments && why.empty(); ++by)
              for (int bx = 0; bx < s->entries && why.empty(); ++bx) {
                const kernels::BlockPlace p = kernels::placeOf(*s, bx, by);
                if (p.column * t.w >= w) why = "entry " + std::to_string(bx) + " lies right of the frame";
                if (p.y0 >= h) {
                  ++idle;
                  continue;
                }
                for (int k = 0; k < warps && why.empty(); ++k)
                  if (const int strip = p.column * warps + k; strip < strips)  // warps past the width return
                    why = coverage(hits, strips, h, strip, p.y0, p.rows);
              }
            if (why.empty()) why = missedOrTwice(hits, h);
            // Past one wave the edge columns go ahead; within one they spread over every row.
            const int wave = s->segments * (s->columns + (s->left + s->right) * ((1 << s->shift) - 1));
            if (why.empty() && s->left + s->right > 0 && s->step != s->shift + (slots > 0 && wave > slots ? 1 : 0))
              why = "step " + std::to_string(s->step) + " for " + std::to_string(wave) + " blocks";
            // An edge column's entries hold (1 << step) x segments blocks for its
            // ceil(h / (rows >> shift)) segments; every other block has work.
            const int edgeSegments = (h + (s->rows >> s->shift) - 1) / (s->rows >> s->shift);
            if (why.empty() && idle != (s->left + s->right) * ((s->segments << s->step) - edgeSegments))
              why = std::to_string(idle) + " idle blocks";
            ASSERT_EQ(why, "") << "edge divisor " << divisor << " slots " << slots << " tile " << t.str() << " r=" << r
                               << " " << w << "x" << h << " (" << s->segments << " x " << s->entries
                               << " blocks, edges " << s->left << "+" << s->right << ", shift " << s->shift << ", step "
                               << s->step << ")";
            ++cases;
          }
    }
  EXPECT_GT(cases, 20000);
}

// Where the grid is one round of the blocks the GPU holds, a launch splits its edge columns an
// eighth or a quarter of the tile's height, as long as the grid still fits the round; past one
// round, or with the GPU unknown, it halves them (kTensorStreamEdgeDivisor).
TEST_F(Schedules, TensorStreamSplitsEdgesFinerWithinOneRound) {
  auto blocks = [](const kernels::Launch& l, int r, int slots, int div) {
    const auto s = std::make_unique<kernels::StripSchedule>(kernels::tensorStreamSchedule(l, r, slots, div));
    return long(s->segments) * s->entries;  // within one round every entry's segments are blocks
  };
  int finer = 0, halved = 0;
  for (const Tile& t : findVariant("tensorstream")->tiles)
    for (const auto& [w, h] : sizes())
      for (int r : {1, 8, 9, 16, 24, 32})
        for (int slots : {0, 1, 132, 264, 396, 528, 792, 100000}) {
          const kernels::Launch l = launch(w, h, t);
          const int d = kernels::tensorStreamEdgeDivisor(l, r, slots);
          SCOPED_TRACE(::testing::Message()
                       << t.str() << " " << w << "x" << h << " r=" << r << " slots " << slots << ": divisor " << d);
          const bool oneRound = slots > 0 && blocks(l, r, slots, kernels::kTensorStreamEdgeDivisor) <= slots;
          if (!oneRound) {
            EXPECT_EQ(d, kernels::kTensorStreamEdgeDivisor);
            ++halved;
            continue;
          }
          ASSERT_TRUE(d == 8 || d == 4 || d == kernels::kTensorStreamEdgeDivisor);
          if (d != kernels::kTensorStreamEdgeDivisor) {
            EXPECT_LE(blocks(l, r, slots, d), slots);
          }
          if (d != 8) {
            EXPECT_GT(blocks(l, r, slots, 8), slots);
          }
          if (d == kernels::kTensorStreamEdgeDivisor) {
            EXPECT_GT(blocks(l, r, slots, 4), slots);
          }
          finer += d != kernels::kTensorStreamEdgeDivisor;
        }
  EXPECT_GT(finer, 1000);
  EXPECT_GT(halved, 1000);
  // Cases with the H100's places: 1080p on 64x192 fits an eighth at r=4 (6 blocks of 4 warps an SM:
  // 264 blocks for 792) and at r=32 (2 an SM: 264 blocks for 264, round 9's best at 1080p r=32);
  // 4K at r=4 on 64x192 only a quarter (888 blocks with an eighth, 792 with a quarter, for 792);
  // 4K at r=16 on 64x256 (4 an SM) is past one round.
  EXPECT_EQ(kernels::tensorStreamEdgeDivisor(launch(1920, 1080, {64, 192}), 4, 6 * 132), 8);
  EXPECT_EQ(kernels::tensorStreamEdgeDivisor(launch(1920, 1080, {64, 192}), 32, 2 * 132), 8);
  EXPECT_EQ(kernels::tensorStreamEdgeDivisor(launch(3840, 2160, {64, 192}), 4, 6 * 132), 4);
  EXPECT_EQ(kernels::tensorStreamEdgeDivisor(launch(3840, 2160, {64, 256}), 16, 4 * 132), 2);
}

// tensor2d's walking blocks: segments of whole steps, sized to the slots (blocks the GPU holds at
// once). At 4K and 1080p the rule keeps what one round of slots / columns segments gave (the
// segments timed in docs/perf/h200/tensor2d); where that left SMs idle (5120x2880 on 64x32 at r =
// 32: 80 columns on 132 slots, one round of 2880 + 64 rows) it takes 3 segments a column (two rounds
// of 960 + 64).
TEST_F(Schedules, Tensor2DSegmentsOfWholeStepsFillTheRounds) {
  EXPECT_EQ(kernels::tensor2dSegmentRows(3840, 2160, 128, 32, 32, 0), 32);  // no device: a step a block
  EXPECT_EQ(kernels::tensor2dSegmentRows(3840, 2160, 128, 32, 32, 132), 544);
  EXPECT_EQ(kernels::tensor2dSegmentRows(3840, 2160, 64, 16, 12, 792), 176);
  EXPECT_EQ(kernels::tensor2dSegmentRows(1920, 1080, 128, 16, 16, 396), 48);
  EXPECT_EQ(kernels::tensor2dSegmentRows(1920, 1080, 128, 32, 32, 132), 160);
  EXPECT_EQ(kernels::tensor2dSegmentRows(5120, 2880, 64, 32, 32, 132), 960);
  int cases = 0;
  for (const auto& [w, h] : sizes())
    for (int th : {16, 32})
      for (int r : {9, 32})
        for (int slots : {1, 7, 132, 528, 100000}) {
          const int rows = kernels::tensor2dSegmentRows(w, h, 64, th, r, slots), steps = (h + th - 1) / th;
          EXPECT_EQ(rows % th, 0) << w << "x" << h;
          EXPECT_GE(rows, th);
          EXPECT_LE(rows, steps * th) << w << "x" << h << " slots " << slots;
          ++cases;
        }
  EXPECT_GT(cases, 100);
}

TEST_F(Schedules, StreamUnitsCoverEveryStripRowOnceInOneWave) {
  int cases = 0;
  for (int divisor : {1, 2, 4}) {
    for (bool half : {false, true})
      for (const Tile& t : findVariant("stream")->tiles)
        for (const auto& [w, h] : sizes())
          for (int r = 0; r <= kernels::kStreamMaxRadius; ++r)
            for (int resident : {0, 24, 528, 3168, 4224}) {
              const kernels::StreamUnits u = kernels::streamUnits(launch(w, h, t), r, half, resident, divisor);
              std::string why = walkedOnce(u, h);
              // One wave wherever the GPU holds a warp for every strip and the edge strips' extra ones.
              const int edges = u.edgeLeft + u.edgeRight;
              if (why.empty() && resident >= u.strips + (divisor - 1) * edges && u.units > resident)
                why = std::to_string(u.units) + " units for " + std::to_string(resident) + " warps";
              ASSERT_EQ(why, "") << "edge divisor " << divisor << (half ? " fp16" : " fp32") << " tile " << t.str()
                                 << " r=" << r << " " << w << "x" << h << " resident " << resident << " (" << u.units
                                 << " units, edges " << u.edgeLeft << "+" << u.edgeRight << ", sh " << u.sh << "/"
                                 << u.edgeSh << ")";
              ++cases;
            }
  }
  EXPECT_GT(cases, 10000);
}

// stream's typed launches: every strip row of every frame walked once, in one wave where the GPU
// holds a warp a strip's segment and otherwise in a few; a batch with more strips than half the
// GPU's warps is cut into more segments than one a strip (16 1080p f32x4 frames at r = 4 on 2112
// warps: 3 of 360 rows, not 1 of 1080 filling 64% of them; measured 0.73x), while single 4K frames
// keep their one wave.
TEST_F(Schedules, TypedStreamUnitsCoverEveryStripRowInFewWaves) {
  auto typed = [](PixelType t, int c, int w, int h, int batch, int tileRows, Border b = Border::Clamp,
                  bool halfSums = false) {
    kernels::TypedStreamLaunch l{};
    l.image = ImageDesc{.width = w, .height = h, .type = t, .channels = c};
    l.image.batch = batch;
    l.tileRows = tileRows;
    l.border = b;
    l.halfSums = halfSums;  // u8 of 1 and 3 channels at r <= 2: 8 or 16 values a lane
    return l;
  };
  int cases = 0;
  for (PixelType t : {PixelType::U8, PixelType::U16, PixelType::F32})
    for (int c : {1, 3, 4})
      for (const auto& [w, h] : sizes())
        for (int batch : {1, 16})
          for (int tileRows : {4, 32})
            for (int r : {1, 2, 4})
              for (int resident : {0, 24, 2112, 4224}) {
                // Clamp: the edges in registers on rows of whole lanes; Wrap: the edge strips' apron lanes.
                // u8: fp16 sums every other case (16 values a lane at r <= 2 on 1 and 3 channels).
                const kernels::TypedStreamLaunch l =
                    typed(t, c, w, h, batch, tileRows, resident == 2112 ? Border::Wrap : Border::Clamp, cases % 2 != 0);
                const kernels::StreamUnits u = kernels::typedStreamUnits(l, r, resident);
                std::string why = walkedOnce(u, h);
                if (why.empty()) why = rowWrittenOnce(l, r, u.strips);
                if (why.empty() && u.sh < std::min(tileRows, h) && resident > 0) why = "segments under the tile's rows";
                const long long waves =
                    resident > 0 ? (static_cast<long long>(u.units) * batch + resident - 1) / resident : 0;
                // Where the GPU holds two warps a strip of the batch: a few waves at most.
                if (why.empty() && resident >= 2 * u.strips * batch && waves > 5)
                  why = std::to_string(waves) + " waves";
                ASSERT_EQ(why, "") << l.image.str() << " r=" << r << " tile rows " << tileRows << " resident "
                                   << resident << " (" << u.units << " units, sh " << u.sh << ")";
                ++cases;
              }
  EXPECT_GT(cases, 10000);
  const kernels::StreamUnits batch = kernels::typedStreamUnits(typed(PixelType::F32, 4, 1920, 1080, 16, 8), 4, 2112);
  EXPECT_EQ(batch.sh, 360);
  const kernels::StreamUnits one = kernels::typedStreamUnits(typed(PixelType::F32, 4, 3840, 2160, 1, 8), 4, 2112);
  EXPECT_EQ(one.sh, 167);
  EXPECT_LE(one.units, 2112);
}

}  // namespace
}  // namespace convlive

namespace convlive {
namespace {

// tensorstream's figures for a mask of low rank name its terms, their source and the error plan's
// bound, and where a centre-only term goes (added at the store with alpha kept and r <= 8).
TEST(Inspect, TensorStreamSaysAMaskOfLowRanksTermsAndBound) {
  const Variant& v = *findVariant("tensorstream");
  FilterParams p;
  p.filter = makeFilter("sharpen", {.radius = 4});
  const auto notes = [&] {
    std::string all;
    for (const std::string& n : v.workModel(p, 1280, 720).notes) all += n + "\n";
    return all;
  };
  EXPECT_NE(notes().find("low rank: 2 separable terms (the builder's factors); error bound"), std::string::npos)
      << notes();
  EXPECT_NE(notes().find("its centre-only term added at the store"), std::string::npos) << notes();
  // The launch as it runs: one term of products, in the instance compiled for one, and the centre.
  const PassLaunch one = v.describeLaunch(p, 1280, 720).passes.at(0);
  EXPECT_NE(one.kernel.find("(one term)"), std::string::npos) << one.kernel;
  EXPECT_NE(one.note.find("the centre-only term added at the store"), std::string::npos) << one.note;
  EXPECT_EQ(notes().find("(a mask of low rank)"), std::string::npos) << notes();  // one term of products
  p.filterAlpha = true;  // no stored rows' input read back: the centre stays a term
  EXPECT_EQ(notes().find("centre-only"), std::string::npos) << notes();
  EXPECT_NE(notes().find("2 row and column products"), std::string::npos) << notes();
  EXPECT_NE(v.describeLaunch(p, 1280, 720).passes.at(0).kernel.find("(2 terms)"), std::string::npos);
  p.filterAlpha = false;
  p.filter = makeFilter("emboss", {.radius = 8});  // three terms, two of products with alpha kept
  EXPECT_NE(notes().find("low rank: 3 separable terms"), std::string::npos) << notes();
  EXPECT_NE(notes().find("2 row and column products"), std::string::npos) << notes();
  EXPECT_NE(v.describeLaunch(p, 1280, 720).passes.at(0).kernel.find("(2 terms)"), std::string::npos);
  p.filter = makeFilter("laplacian", {.radius = 4});  // three terms, none centre-only
  EXPECT_NE(notes().find("low rank: 3 separable terms (the builder's factors)"), std::string::npos) << notes();
  EXPECT_EQ(notes().find("centre-only"), std::string::npos) << notes();
  EXPECT_NE(v.describeLaunch(p, 1280, 720).passes.at(0).kernel.find("(3 terms)"), std::string::npos);
  p.filter = makeFilter("laplacian", {.radius = 8});  // two of its three terms' own SVD hold it
  EXPECT_NE(notes().find("low rank: 2 separable terms (SVD)"), std::string::npos) << notes();
  EXPECT_NE(v.describeLaunch(p, 1280, 720).passes.at(0).kernel.find("(2 terms)"), std::string::npos);
  EXPECT_EQ(notes().find("times over"), std::string::npos) << notes();
  // Emboss r = 3's ramp j / 3 runs as the integers j, the sums times 1/3 at the store.
  p.filter = makeFilter("emboss", {.radius = 3});
  EXPECT_NE(notes().find("factors written 3 times over (integers fp16 holds exactly), the sums times 1/3 at the store"),
            std::string::npos)
      << notes();
  EXPECT_NE(v.describeLaunch(p, 1280, 720).passes.at(0).note.find("the sums times 1/3 at the store"),
            std::string::npos);
}

}  // namespace
}  // namespace convlive
