// Shared by the colour conversion tests (cpu and gpu): frames in buffers with chosen pitches and
// offsets (so padding and misalignment can be checked), random fills, and comparisons that say
// where and by how much two frames differ.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "convlive/colour.hpp"

namespace convlive::colourtest {

// CONVLIVE_TEST_SEED replays a run; else a fresh seed, printed by the traces.
inline unsigned seedForRun() {
  static const unsigned seed = [] {
    if (const char* s = std::getenv("CONVLIVE_TEST_SEED")) return static_cast<unsigned>(std::strtoul(s, nullptr, 10));
    return static_cast<unsigned>(std::random_device{}());
  }();
  return seed;
}

// Row pitch and start offset of a test buffer: tight, or padded and misaligned on purpose.
struct Padding {
  std::size_t extraBytes = 0;  // added to every plane's row length
  std::size_t offset = 0;      // the frame starts this many bytes into its buffer
  std::size_t alignTo = 1;     // then rounded up to a multiple of this
  const char* name = "tight";
  std::size_t pitchFor(std::size_t rowBytes) const { return (rowBytes + extraBytes + alignTo - 1) / alignTo * alignTo; }
};

// An RGBA frame inside a byte buffer (the bytes outside the rows are padding).
struct RgbaBuffer {
  int width = 0, height = 0;
  std::size_t pitch = 0, offset = 0;
  std::vector<std::uint8_t> bytes;
  RgbaBuffer(int w, int h, Padding pad = {})
      : width(w),
        height(h),
        pitch(4 * std::size_t(w) + pad.extraBytes),
        offset(pad.offset),
        bytes(offset + pitch * std::size_t(h)) {}
  ImageView view() { return {bytes.data() + offset, width, height, pitch}; }
  ConstImageView view() const { return {bytes.data() + offset, width, height, pitch}; }
  std::size_t rowBytes() const { return 4 * std::size_t(width); }
};

// A YUV frame inside a byte buffer, planes one after another at the given padding.
struct YuvBuffer {
  YuvLayout layout;
  std::vector<std::uint8_t> bytes;
  YuvBuffer(YuvFormat f, int w, int h, Padding pad = {}) {
    layout.format = f, layout.width = w, layout.height = h;
    std::size_t at = pad.offset;
    for (int p = 0; p < yuvPlaneCount(f); ++p) {
      layout.offsets[p] = at;
      layout.pitches[p] = pad.pitchFor(yuvRowBytes(f, w, p));
      at += layout.pitches[p] * std::size_t(yuvPlaneRows(h, p));
    }
    layout.bytes = at;
    bytes.resize(at);
  }
  YuvView view() { return yuvViewAt(layout, bytes.data()); }
  ConstYuvView view() const { return yuvViewAt(layout, bytes.data()); }
};

inline void fillRandom(std::vector<std::uint8_t>& bytes, std::mt19937& rng) {
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng() >> 24);
}

// How two frames' samples differ: the worst difference, how many differ at all, and the first
// sample beyond the tolerance.
struct Difference {
  int worst = 0;
  long differing = 0, beyond = 0, samples = 0;
  std::string firstBeyond;
};

inline void note(Difference& d, int got, int want, int tolerance, const std::string& where) {
  const int diff = std::abs(got - want);
  ++d.samples;
  if (!diff) return;
  ++d.differing;
  d.worst = std::max(d.worst, diff);
  if (diff > tolerance && d.beyond++ == 0)
    d.firstBeyond = where + ": got " + std::to_string(got) + ", want " + std::to_string(want);
}

// RGBA samples (alpha included) of two frames of the same size.
inline Difference compareRgba(ConstImageView got, ConstImageView want, int tolerance) {
  Difference d;
  static const char* channels = "RGBA";
  for (int y = 0; y < want.height; ++y)
    for (int x = 0; x < want.width; ++x)
      for (int c = 0; c < 4; ++c)
        note(d, got.row(y)[4 * x + c], want.row(y)[4 * x + c], tolerance,
             "x=" + std::to_string(x) + " y=" + std::to_string(y) + " " + channels[c]);
  return d;
}

inline Difference compareYuv(const ConstYuvView& got, const ConstYuvView& want, int tolerance) {
  Difference d;
  for (int p = 0; p < yuvPlaneCount(want.format); ++p)
    for (int y = 0; y < yuvPlaneRows(want.height, p); ++y)
      for (std::size_t i = 0; i < yuvRowBytes(want.format, want.width, p); ++i)
        note(d, got.planes[p][y * got.pitches[p] + i], want.planes[p][y * want.pitches[p] + i], tolerance,
             "plane " + std::to_string(p) + " byte " + std::to_string(i) + " row " + std::to_string(y));
  return d;
}

// At most `tolerance` apart everywhere, and at most `maxDifferingPerMillion` samples differing at
// all (0: no limit).
inline testing::AssertionResult within(const Difference& d, int tolerance, long maxDifferingPerMillion = 0) {
  std::ostringstream s;
  s << d.differing << " of " << d.samples << " samples differ, worst by " << d.worst;
  if (d.beyond)
    return testing::AssertionFailure() << s.str() << "; " << d.beyond << " by more than " << tolerance << ", first at "
                                       << d.firstBeyond;
  // A few differing samples are allowed in any frame, however small (see colour.cu on precision).
  if (maxDifferingPerMillion && d.differing > 4 + d.samples * maxDifferingPerMillion / 1000000)
    return testing::AssertionFailure() << s.str() << ": more than " << maxDifferingPerMillion
                                       << " per million differ at all";
  return testing::AssertionSuccess() << s.str();
}

// Every byte of `bytes` outside the frame's rows still equals `poison`; else where the first is.
inline testing::AssertionResult paddingUntouched(const std::vector<std::uint8_t>& bytes, const RgbaBuffer& f,
                                                 std::uint8_t poison) {
  std::vector<bool> inside(bytes.size(), false);
  for (int y = 0; y < f.height; ++y) std::fill_n(inside.begin() + long(f.offset + y * f.pitch), f.rowBytes(), true);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (!inside[i] && bytes[i] != poison)
      return testing::AssertionFailure() << "padding byte " << i << " was written (" << int(bytes[i]) << ")";
  return testing::AssertionSuccess();
}

inline testing::AssertionResult paddingUntouched(const std::vector<std::uint8_t>& bytes, const YuvBuffer& f,
                                                 std::uint8_t poison) {
  std::vector<bool> inside(bytes.size(), false);
  const YuvLayout& l = f.layout;
  for (int p = 0; p < yuvPlaneCount(l.format); ++p)
    for (int y = 0; y < yuvPlaneRows(l.height, p); ++y)
      std::fill_n(inside.begin() + long(l.offsets[p] + y * l.pitches[p]), yuvRowBytes(l.format, l.width, p), true);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (!inside[i] && bytes[i] != poison)
      return testing::AssertionFailure() << "padding byte " << i << " was written (" << int(bytes[i]) << ")";
  return testing::AssertionSuccess();
}

inline std::vector<ColourSpec> allSpecs() {
  std::vector<ColourSpec> specs;
  for (ColourMatrix m : {ColourMatrix::Bt601, ColourMatrix::Bt709, ColourMatrix::Bt2020})
    for (ColourRange r : {ColourRange::Limited, ColourRange::Full}) specs.push_back({m, r});
  return specs;
}

}  // namespace convlive::colourtest
