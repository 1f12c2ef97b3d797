#include "convlive/reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "convlive/half.hpp"
#include "typed_values.hpp"

namespace convlive {
namespace {

using Sums = std::array<double, 4>;

// The threads a call takes: `threads`, or the hardware's for 0.
int threadsFor(int threads) {
  return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Runs body(i0, i1) over bands of 0..count - 1 (rows, or frames) on up to threadsFor(threads) threads.
template <class Body>
void parallelRange(int count, int threads, Body body) {
  const int n = std::min(threadsFor(threads), count);
  if (n <= 1) return body(0, count);
  std::vector<std::thread> pool;
  for (int i = 0; i < n; ++i)
    pool.emplace_back(body, int(std::int64_t(count) * i / n), int(std::int64_t(count) * (i + 1) / n));
  for (auto& t : pool) t.join();
}

using typed::Half;
using typed::load;
using typed::store;

// One frame of `d`'s description: its pixels' addresses and channel rules; its output of od's
// (values of type TO, laid out as od says).
template <class T, class TO = T>
struct Frame {
  const ImageDesc& d;
  const unsigned char* in;
  unsigned char* out;
  const ImageDesc& od;
  const unsigned char* at(int x, int y) const {
    return in + std::size_t(y) * d.rowPitch() + std::size_t(x) * d.channels * sizeof(T);
  }
  unsigned char* outAt(int x, int y) const {
    return out + std::size_t(y) * od.rowPitch() + std::size_t(x) * d.channels * sizeof(TO);
  }
  bool copied(int ch, bool filterAlpha) const { return ch == 3 && d.copiesFourth(filterAlpha); }
  void write(int x, int y, const Sums& a, const Sums& b, Combine c, bool filterAlpha) const {
    unsigned char* o = outAt(x, y);
    for (int ch = 0; ch < d.channels; ++ch) {
      if (!copied(ch, filterAlpha))
        store<TO>(o + ch * sizeof(TO), a[ch], b[ch], c);
      else if constexpr (std::is_same_v<T, TO>)
        std::memcpy(o + ch * sizeof(T), at(x, y) + ch * sizeof(T), sizeof(T));
      else
        store<TO>(o + ch * sizeof(TO), load<T>(at(x, y) + ch * sizeof(T)), 0.0, Combine::Identity);
    }
  }
};

template <class T, class TO>
void direct(const Filter& f, Border border, bool filterAlpha, const Frame<T, TO>& fr, int threads) {
  const Mask& m = f.mask;
  const int r = m.radius(), w = fr.d.width, h = fr.d.height, C = fr.d.channels;
  const bool magnitude = f.combine == Combine::Magnitude;
  parallelRange(h, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < w; ++x) {
        Sums a{}, b{};
        for (int dy = -r; dy <= r; ++dy) {
          const int sy = borderIndex(y + dy, h, border);
          if (sy < 0) continue;
          for (int dx = -r; dx <= r; ++dx) {
            const int sx = borderIndex(x + dx, w, border);
            if (sx < 0) continue;
            const unsigned char* p = fr.at(sx, sy);
            const double wa = m.at(dy, dx), wb = magnitude ? m.at(dx, dy) : 0.0;
            for (int ch = 0; ch < C; ++ch) {
              const double v = load<T>(p + ch * sizeof(T));
              a[ch] += wa * v;
              b[ch] += wb * v;
            }
          }
        }
        fr.write(x, y, a, b, f.combine, filterAlpha);
      }
  });
}

// Horizontal pass with `hw` into plane (doubles, `channels` a pixel), then the vertical one.
template <class T, class TO>
void separablePlane(const std::vector<float>& hw, const Frame<T, TO>& fr, Border border, std::vector<double>& plane,
                    int threads) {
  const int r = static_cast<int>(hw.size() / 2), w = fr.d.width, h = fr.d.height, C = fr.d.channels;
  plane.assign(std::size_t(w) * h * C, 0.0);
  parallelRange(h, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < w; ++x) {
        double* o = &plane[(std::size_t(y) * w + x) * C];
        for (int t = -r; t <= r; ++t) {
          const int sx = borderIndex(x + t, w, border);
          if (sx < 0) continue;
          const unsigned char* p = fr.at(sx, y);
          for (int ch = 0; ch < C; ++ch) o[ch] += hw[t + r] * load<T>(p + ch * sizeof(T));
        }
      }
  });
}

Sums verticalSum(const std::vector<float>& v, const std::vector<double>& plane, int width, int height, int channels,
                 int x, int y, Border border) {
  const int r = static_cast<int>(v.size() / 2);
  Sums s{};
  for (int t = -r; t <= r; ++t) {
    const int sy = borderIndex(y + t, height, border);
    if (sy < 0) continue;
    const double* p = &plane[(std::size_t(sy) * width + x) * channels];
    for (int ch = 0; ch < channels; ++ch) s[ch] += v[t + r] * p[ch];
  }
  return s;
}

template <class T, class TO>
void separable(const Filter& f, Border border, bool filterAlpha, const Frame<T, TO>& fr, int threads) {
  const Mask& m = f.mask;
  const int w = fr.d.width, h = fr.d.height, C = fr.d.channels;
  const bool magnitude = f.combine == Combine::Magnitude;
  std::vector<double> pa, pb;
  separablePlane(m.row(), fr, border, pa, threads);
  if (magnitude) separablePlane(m.col(), fr, border, pb, threads);  // gy: the transpose
  parallelRange(h, threads, [&](int y0, int y1) {
    for (int y = y0; y < y1; ++y)
      for (int x = 0; x < w; ++x) {
        const Sums a = verticalSum(m.col(), pa, w, h, C, x, y, border);
        const Sums b = magnitude ? verticalSum(m.row(), pb, w, h, C, x, y, border) : Sums{};
        fr.write(x, y, a, b, f.combine, filterAlpha);
      }
  });
}

template <class T, class TO = T>
void filterFrames(const Filter& filter, Border border, bool filterAlpha, const ImageDesc& d, const void* in,
                  const ImageDesc& od, void* out, int threads, bool directOnly) {
  auto frames = [&](int f0, int f1, int rowThreads) {
    for (int i = f0; i < f1; ++i) {
      const Frame<T, TO> fr{d, static_cast<const unsigned char*>(in) + d.frameStride() * std::size_t(i),
                            static_cast<unsigned char*>(out) + od.frameStride() * std::size_t(i), od};
      if (filter.mask.separable() && !directOnly)
        separable(filter, border, filterAlpha, fr, rowThreads);
      else
        direct(filter, border, filterAlpha, fr, rowThreads);
    }
  };
  // A batch of at least a frame a thread: the frames in parallel, each on one thread (threads started
  // for each frame's rows cost more than a small frame's filtering: 65537 5x3 frames took 14 s).
  const int n = threadsFor(threads);
  if (d.batch >= n && n > 1) return parallelRange(d.batch, n, [&](int f0, int f1) { frames(f0, f1, 1); });
  frames(0, d.batch, threads);
}

}  // namespace

void referenceFrames(const Filter& filter, Border border, bool filterAlpha, const ImageDesc& image, const void* in,
                     void* out, int threads, bool directOnly) {
  referenceFrames(filter, border, filterAlpha, image, in, image, out, threads, directOnly);
}

void referenceFrames(const Filter& filter, Border border, bool filterAlpha, const ImageDesc& image, const void* in,
                     const ImageDesc& output, void* out, int threads, bool directOnly) {
  const auto& o = output;
  if (o.type != image.type) {
    if (!writableAs(image.type, o.type))
      throw std::invalid_argument("referenceFrames: " + outputTypeRefusal(image.type, o.type));
    return filterFrames<std::uint8_t, float>(filter, border, filterAlpha, image, in, o, out, threads, directOnly);
  }
  switch (image.type) {
    case PixelType::U8:
      return filterFrames<std::uint8_t>(filter, border, filterAlpha, image, in, o, out, threads, directOnly);
    case PixelType::U16:
      return filterFrames<std::uint16_t>(filter, border, filterAlpha, image, in, o, out, threads, directOnly);
    case PixelType::F16:
      return filterFrames<Half>(filter, border, filterAlpha, image, in, o, out, threads, directOnly);
    case PixelType::F32:
      return filterFrames<float>(filter, border, filterAlpha, image, in, o, out, threads, directOnly);
  }
}

void referenceFilter(const Filter& filter, Border border, bool filterAlpha, ConstImageView in, ImageView out,
                     int threads, bool directOnly) {
  // Output rows may be apart by another pitch than the input's: filter through a packed copy then.
  const ImageDesc d = ImageDesc::rgba8(in.width, in.height, in.pitch);
  if (in.pitch == out.pitch)
    return referenceFrames(filter, border, filterAlpha, d, in.data, out.data, threads, directOnly);
  std::vector<std::uint8_t> tmp(d.span());  // rows at the input's pitch, as d says
  referenceFrames(filter, border, filterAlpha, d, in.data, tmp.data(), threads, directOnly);
  for (int y = 0; y < in.height; ++y) std::memcpy(out.row(y), tmp.data() + std::size_t(y) * in.pitch, d.rowBytes());
}

double f32Bound(const Mask& mask, double maxAbs) { return 1e-5 * absoluteSum(mask.weights()) * maxAbs; }

}  // namespace convlive
