// Comparing RGBA8 frames in the tests: one place for "how far apart, and where first".
// Views are host memory; pitches may differ (padding is never compared here: a test that poisons
// the padding checks it itself).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "convlive/image.hpp"

namespace convlive::testcases {

struct ImageDifference {
  bool sizesDiffer = false;
  long over = 0;  // channel values further apart than the tolerance
  int worst = 0;  // the largest difference of any compared channel
  // The first channel value over the tolerance (row-major), when `over` > 0.
  int x = -1, y = -1, channel = 0, got = 0, want = 0;
};

// Channels 0..channels-1 of every pixel (channels 3: colour only, alpha not compared).
inline ImageDifference compareImages(ConstImageView got, ConstImageView want, int tolerance = 1, int channels = 4) {
  ImageDifference d;
  if (got.width != want.width || got.height != want.height) {
    d.sizesDiffer = true;
    return d;
  }
  for (int y = 0; y < got.height; ++y) {
    const std::uint8_t* g = got.row(y);
    const std::uint8_t* w = want.row(y);
    for (int x = 0; x < got.width; ++x)
      for (int c = 0; c < channels; ++c) {
        const int a = g[4 * x + c], b = w[4 * x + c], diff = std::abs(a - b);
        d.worst = std::max(d.worst, diff);
        if (diff <= tolerance) continue;
        if (d.over++ == 0) d.x = x, d.y = y, d.channel = c, d.got = a, d.want = b;
      }
  }
  return d;
}

// The largest channel difference; a large number (9999) when the sizes differ.
inline int maxDifference(ConstImageView a, ConstImageView b, int channels = 4) {
  const ImageDifference d = compareImages(a, b, 255, channels);
  return d.sizesDiffer ? 9999 : d.worst;
}

// Within `tolerance` in every channel (1 LSB: the project's bar against the reference); else how
// many values are off, the worst, and the first, by position and value.
inline ::testing::AssertionResult imagesMatch(ConstImageView got, ConstImageView want, int tolerance = 1,
                                              const char* wantName = "reference") {
  const ImageDifference d = compareImages(got, want, tolerance);
  if (d.sizesDiffer)
    return ::testing::AssertionFailure() << "sizes differ: " << got.width << "x" << got.height << " against "
                                         << want.width << "x" << want.height;
  if (d.over == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << d.over << " channel values differ by more than " << tolerance
                                       << " LSB (worst " << d.worst << "); first at x=" << d.x << " y=" << d.y
                                       << " channel " << d.channel << ": got " << d.got << ", " << wantName << " "
                                       << d.want;
}

}  // namespace convlive::testcases
