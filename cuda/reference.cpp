#include "convlive/reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <thread>
#include <vector>

namespace convlive {
namespace {

using Sums = std::array<double, 4>;

// Runs body(y0, y1) over row bands on up to `threads` threads.
template <class Body>
void parallelRows(int height, int threads, Body body) {
  int n = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  n = std::min(n, height);
  if (n <= 1) return body(0, height);
  std::vector<std::thread> pool;
  for (int i = 0; i < n; ++i) pool.emplace_back(body, height * i / n, height * (i + 1) / n);
  for (auto& t : pool) t.join();
}

std::uint8_t finish(double a, double b, Combine c) {
  return saturateToByte(combineValue(static_cast<float>(a), static_cast<float>(b), c));
}

void writePixel(std::uint8_t* o, const Sums& a, const Sums& b, Combine c, bool filterAlpha, std::uint8_t alpha) {
  for (int ch = 0; ch < 3; ++ch) o[ch] = finish(a[ch], b[ch], c);
  o[3] = filterAlpha ? finish(a[3], b[3], c) : alpha;
}

void direct(const Filter& f, Border border, bool filterAlpha, ConstImageView in, ImageView out, int threads) {
  const Mask& m = f.mask;
  const int r = m.radius();
  const bool magnitude = f.combine == Combine::Magnitude;
  parallelRows(in.height, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < in.width; ++x) {
        Sums a{}, b{};
        for (int dy = -r; dy <= r; ++dy) {
          const int sy = borderIndex(y + dy, in.height, border);
          if (sy < 0) continue;
          for (int dx = -r; dx <= r; ++dx) {
            const int sx = borderIndex(x + dx, in.width, border);
            if (sx < 0) continue;
            const std::uint8_t* p = in.row(sy) + 4 * sx;
            const double wa = m.at(dy, dx), wb = magnitude ? m.at(dx, dy) : 0.0;
            for (int ch = 0; ch < 4; ++ch) {
              a[ch] += wa * p[ch];
              b[ch] += wb * p[ch];
            }
          }
        }
        writePixel(out.row(y) + 4 * x, a, b, f.combine, filterAlpha, in.row(y)[4 * x + 3]);
      }
  });
}

// Horizontal pass with `h` into plane (doubles, 4 per pixel), then the vertical one with `v`.
void separablePlanes(const std::vector<float>& h, ConstImageView in, Border border, std::vector<double>& plane,
                     int threads) {
  const int r = static_cast<int>(h.size() / 2);
  plane.assign(std::size_t(in.width) * in.height * 4, 0.0);
  parallelRows(in.height, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < in.width; ++x) {
        double* o = &plane[(std::size_t(y) * in.width + x) * 4];
        for (int t = -r; t <= r; ++t) {
          const int sx = borderIndex(x + t, in.width, border);
          if (sx < 0) continue;
          const std::uint8_t* p = in.row(y) + 4 * sx;
          for (int ch = 0; ch < 4; ++ch) o[ch] += h[t + r] * p[ch];
        }
      }
  });
}

Sums verticalSum(const std::vector<float>& v, const std::vector<double>& plane, int width, int height, int x, int y,
                 Border border) {
  const int r = static_cast<int>(v.size() / 2);
  Sums s{};
  for (int t = -r; t <= r; ++t) {
    const int sy = borderIndex(y + t, height, border);
    if (sy < 0) continue;
    const double* p = &plane[(std::size_t(sy) * width + x) * 4];
    for (int ch = 0; ch < 4; ++ch) s[ch] += v[t + r] * p[ch];
  }
  return s;
}

void separable(const Filter& f, Border border, bool filterAlpha, ConstImageView in, ImageView out, int threads) {
  const Mask& m = f.mask;
  const bool magnitude = f.combine == Combine::Magnitude;
  std::vector<double> pa, pb;
  separablePlanes(m.row(), in, border, pa, threads);
  if (magnitude) separablePlanes(m.col(), in, border, pb, threads);  // gy: the transpose
  parallelRows(in.height, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < in.width; ++x) {
        const Sums a = verticalSum(m.col(), pa, in.width, in.height, x, y, border);
        const Sums b = magnitude ? verticalSum(m.row(), pb, in.width, in.height, x, y, border) : Sums{};
        writePixel(out.row(y) + 4 * x, a, b, f.combine, filterAlpha, in.row(y)[4 * x + 3]);
      }
  });
}

}  // namespace

void referenceFilter(const Filter& filter, Border border, bool filterAlpha, ConstImageView in, ImageView out,
                     int threads, bool directOnly) {
  if (filter.mask.separable() && !directOnly)
    separable(filter, border, filterAlpha, in, out, threads);
  else
    direct(filter, border, filterAlpha, in, out, threads);
}

}  // namespace convlive
