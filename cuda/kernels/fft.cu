// The fft variant's own kernels, around cuFFT's transforms (cuda/fft.cpp runs them in order), on
// frames of any pixel type and 1, 3 or 4 channels, a group of a batch's frames at a time:
//   fftPadKernel:      each frame, extended by the border mode by r on every side, into one float
//                      plane per filtered channel (padW x padH; zeros past the extended frame). A
//                      float frame holding Inf, NaN or a value past kFftLargestTransformed is
//                      flagged: its transforms would spread that value over the whole plane.
//   fftMultiplyKernel: each plane's spectrum times the mask's (and, for a gradient magnitude,
//                      times the transposed mask's into a second set of planes).
//   fftPackKernel:     the interior of the transformed-back planes, combined, rounded and saturated
//                      into the output; a flagged frame filtered directly from its input (double
//                      sums over the mask's taps, as the reference does); a copied 4th channel
//                      copied.
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "common.cuh"
#include "fft.hpp"
#include "values.cuh"

namespace convlive::kernels {
namespace {

constexpr int kBlockW = 32, kBlockH = 8;

// The launch as the kernels read it: its strides worked out on the host.
struct Args {
  const char* in;
  char* out;
  std::size_t pitch, frameStride, outPitch, outFrameStride;
  int width, height;
  Border border;
  Combine combine;
  bool whole;  // pixels of 4, 8 or 16 bytes at multiples of their size: one load or store a pixel
};
Args argsOf(const FftLaunch& l) {
  const ImageDesc& d = l.image;
  Args a{static_cast<const char*>(l.in),
         static_cast<char*>(l.out),
         d.rowPitch(),
         d.frameStride(),
         l.outPitch ? l.outPitch : d.rowPitch(),
         l.outFrameStride ? l.outFrameStride : d.frameStride(),
         d.width,
         d.height,
         l.border,
         l.combine,
         false};
  const std::size_t pb = d.pixelBytes();
  const std::size_t places = reinterpret_cast<std::size_t>(l.in) | reinterpret_cast<std::size_t>(l.out) | a.pitch |
                             a.outPitch | (d.batch > 1 ? a.frameStride | a.outFrameStride : 0);
  a.whole = (pb == 4 || pb == 8 || pb == 16) && places % pb == 0;
  return a;
}

// A frame's first input and output bytes.
struct FrameAt {
  const char* in;
  char* out;
};
__device__ __forceinline__ FrameAt frameAt(const Args& a, int frame) {
  return {a.in + a.frameStride * std::size_t(frame), a.out + a.outFrameStride * std::size_t(frame)};
}

// Values as bit patterns (an element's; Plan::run refuses frames not at a multiple of the element
// size). f16 values are made as half of a __half2, one 32-bit register: a __half from
// __float2half_rn stored byte by byte lost its low byte (the byte store took the register beside the
// F2F result: nvcc 13.0, sm_90).
template <class T>
struct Bits {
  using U = T;  // u8, u16: the value is its bits
};
template <>
struct Bits<__half> {
  using U = unsigned short;
};
template <>
struct Bits<float> {
  using U = unsigned;
};
// The sums a (the mask) and b (its transpose) as the output type holds them: combined, then u8 and
// u16 rounded to nearest and saturated, f16 rounded, f32 as they are; in the low bits.
template <class T>
__device__ __forceinline__ unsigned toBits(float a, float b, Combine c) {
  const float s = combineValue(a, b, c);
  if constexpr (std::is_same_v<T, unsigned char>) {
    return saturateToByte(s);
  } else if constexpr (std::is_same_v<T, unsigned short>) {
    return static_cast<unsigned>(rintf(fminf(fmaxf(s, 0.f), 65535.f)));
  } else if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(s, 0.f);
    unsigned w;
    std::memcpy(&w, &h, sizeof w);
    return w & 0xffffu;
  } else {
    return __float_as_uint(s);
  }
}

// A pixel's C values as bit patterns: one load where whole, else C element loads.
template <class T, int C>
__device__ __forceinline__ void loadPixel(const char* p, bool whole, unsigned* bits) {
  constexpr int PB = C * int(sizeof(T)), per = 4 / int(sizeof(T));  // values a 32-bit word
  if constexpr (PB == 4 || PB == 8 || PB == 16) {
    if (whole) {
      unsigned w[PB / 4];
      if constexpr (PB == 4) {
        w[0] = *reinterpret_cast<const unsigned*>(p);
      } else if constexpr (PB == 8) {
        const uint2 q = *reinterpret_cast<const uint2*>(p);
        w[0] = q.x, w[1] = q.y;
      } else {
        const uint4 q = *reinterpret_cast<const uint4*>(p);
        w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
      }
#pragma unroll
      for (int c = 0; c < C; ++c) bits[c] = per == 1 ? w[c] : w[c / per] >> (8 * int(sizeof(T)) * (c % per));
      return;
    }
  }
  using U = typename Bits<T>::U;
#pragma unroll
  for (int c = 0; c < C; ++c) bits[c] = reinterpret_cast<const U*>(p)[c];
}
// And back (bits[c] in the low bits of each).
template <class T, int C>
__device__ __forceinline__ void storePixel(char* p, bool whole, const unsigned* bits) {
  constexpr int PB = C * int(sizeof(T)), per = 4 / int(sizeof(T));
  if constexpr (PB == 4 || PB == 8 || PB == 16) {
    if (whole) {
      unsigned w[PB / 4] = {};
#pragma unroll
      for (int c = 0; c < C; ++c) w[c / per] |= per == 1 ? bits[c] : bits[c] << (8 * int(sizeof(T)) * (c % per));
      if constexpr (PB == 4)
        *reinterpret_cast<unsigned*>(p) = w[0];
      else if constexpr (PB == 8)
        *reinterpret_cast<uint2*>(p) = make_uint2(w[0], w[1]);
      else
        *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
      return;
    }
  }
  using U = typename Bits<T>::U;
#pragma unroll
  for (int c = 0; c < C; ++c) reinterpret_cast<U*>(p)[c] = static_cast<U>(bits[c]);
}

// Whether channel c has a plane: always below C - 1 (only a 4th channel may be copied instead), so
// that the plane loads and stores of those channels carry no branch between them.
template <int C>
__device__ __forceinline__ bool hasPlane(const FftPlanes& f, int c) {
  return c < (C == 4 ? 3 : C) || c < f.channels;
}

template <class T, int C>
__global__ void fftPadKernel(const __grid_constant__ Args l, const __grid_constant__ FftPlanes f, int first) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const int g = blockIdx.z;  // the frame in the group
  if (x >= f.padW || y >= f.padH) return;
  const int w = l.width, h = l.height, r = f.radius;
  float v[C] = {};
  if (x < w + 2 * r && y < h + 2 * r) {
    const int sx = borderIndex(x - r, w, l.border), sy = borderIndex(y - r, h, l.border);
    if (sx >= 0 && sy >= 0) {
      const FrameAt fr = frameAt(l, first + g);
      unsigned bits[C];
      loadPixel<T, C>(fr.in + std::size_t(sy) * l.pitch + std::size_t(sx) * C * sizeof(T), l.whole, bits);
#pragma unroll
      for (int c = 0; c < C; ++c) v[c] = Values<T>::get(bits[c], 0);
      if constexpr (!std::is_integral_v<T>) {
        // Each value once: the thread whose place is the value's own.
        bool bad = false;
#pragma unroll
        for (int c = 0; c < C; ++c) bad |= hasPlane<C>(f, c) && !(fabsf(v[c]) <= kFftLargestTransformed);
        if (bad && sx == x - r && sy == y - r) f.direct[g] = f.stamp;
      }
    }
  }
  const std::size_t plane = f.planeValues(), i = std::size_t(y) * f.padW + x;
  float* planes = f.real + plane * std::size_t(g) * f.channels;
#pragma unroll
  for (int c = 0; c < C; ++c)
    if (hasPlane<C>(f, c)) planes[plane * c + i] = v[c];
}

__global__ void fftMultiplyKernel(const __grid_constant__ FftPlanes f) {
  const std::size_t n = f.spectrumValues();
  const int planes = f.planes();
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float2 s = f.spectrum[i];
    const float2 t = f.magnitude ? f.spectrum[n + i] : make_float2(0, 0);
    for (int c = 0; c < planes; ++c) {
      const float2 d = f.complex[c * n + i];
      f.complex[c * n + i] = make_float2(d.x * s.x - d.y * s.y, d.x * s.y + d.y * s.x);
      if (f.magnitude) f.complex2[c * n + i] = make_float2(d.x * t.x - d.y * t.y, d.x * t.y + d.y * t.x);
    }
  }
}

// An output pixel's sums: the mask's (a) and, for a gradient magnitude, its transpose's (b).
template <int C>
struct PixelSums {
  float a[C], b[C];
};

// A frame the transforms cannot take: the output pixel's sums straight from the input, every tap
// (zero weights too, so that Inf and NaN reach the outputs the reference's reach), in double.
// Inlined under the launch-wide branch: a call taking the sums by pointer gave every thread of the
// pack kernel a 32-byte stack frame, and the fast path its local-memory traffic.
template <class T, int C>
__device__ __forceinline__ PixelSums<C> directSums(const Args& l, const FftPlanes& f, const char* in, int x, int y) {
  const int r = f.radius, n = 2 * r + 1, w = l.width, h = l.height;
  double sa[C] = {}, sb[C] = {};
  for (int dy = -r; dy <= r; ++dy) {
    const int sy = borderIndex(y + dy, h, l.border);
    if (sy < 0) continue;
    const char* row = in + std::size_t(sy) * l.pitch;
    for (int dx = -r; dx <= r; ++dx) {
      const int sx = borderIndex(x + dx, w, l.border);
      if (sx < 0) continue;
      const double wa = f.weights[(dy + r) * n + dx + r];
      const double wb = f.magnitude ? f.weights[(dx + r) * n + dy + r] : 0.0;  // gy: the transpose
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const double v = Values<T>::get(reinterpret_cast<const typename Bits<T>::U*>(row)[std::size_t(sx) * C + c], 0);
        sa[c] += wa * v;
        if (f.magnitude) sb[c] += wb * v;
      }
    }
  }
  PixelSums<C> out;
#pragma unroll
  for (int c = 0; c < C; ++c) out.a[c] = float(sa[c]), out.b[c] = float(sb[c]);
  return out;
}

template <class T, int C>
__global__ void fftPackKernel(const __grid_constant__ Args l, const __grid_constant__ FftPlanes f, int first) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const int g = blockIdx.z;
  if (x >= l.width || y >= l.height) return;
  const FrameAt fr = frameAt(l, first + g);
  PixelSums<C> s{};
  // Only float frames are ever flagged: the integer instances leave the direct path out, which
  // keeps them at the registers of the plain pack (22 against 40 for RGBA8).
  bool direct = false;
  if constexpr (!std::is_integral_v<T>) {
    direct = f.direct[g] == f.stamp;
    if (direct) s = directSums<T, C>(l, f, fr.in, x, y);
  }
  if (!direct) {
    const std::size_t plane = f.planeValues(), i = std::size_t(y + f.radius) * f.padW + std::size_t(x + f.radius);
    const std::size_t at = plane * std::size_t(g) * f.channels + i;
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (hasPlane<C>(f, c)) s.a[c] = f.real[at + plane * c];
    if (f.magnitude) {
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (hasPlane<C>(f, c)) s.b[c] = f.real2[at + plane * c];
    }
  }
  unsigned bits[C];
  if (C == 4 && f.channels == 3)  // the copied 4th channel
    loadPixel<T, C>(fr.in + std::size_t(y) * l.pitch + std::size_t(x) * C * sizeof(T), l.whole, bits);
#pragma unroll
  for (int c = 0; c < C; ++c)
    if (hasPlane<C>(f, c)) bits[c] = toBits<T>(s.a[c], s.b[c], l.combine);
  storePixel<T, C>(fr.out + std::size_t(y) * l.outPitch + std::size_t(x) * C * sizeof(T), l.whole, bits);
}

dim3 padGrid(const FftPlanes& f) { return dim3(ceilDiv(f.padW, kBlockW), ceilDiv(f.padH, kBlockH), f.frames); }
dim3 packGrid(const FftLaunch& l, const FftPlanes& f) {
  return dim3(ceilDiv(l.image.width, kBlockW), ceilDiv(l.image.height, kBlockH), f.frames);
}
unsigned multiplyBlocks(const FftPlanes& f) {
  return static_cast<unsigned>(std::min<std::size_t>((f.spectrumValues() + 255) / 256, 132 * 16));
}

// f(pad, pack): the kernels' instances for l's type and channel count.
template <class F>
auto withKernels(const FftLaunch& l, F&& f) {
  auto forType = [&](auto type) {
    using T = decltype(type);
    switch (l.image.channels) {
      case 1:
        return f(&fftPadKernel<T, 1>, &fftPackKernel<T, 1>);
      case 3:
        return f(&fftPadKernel<T, 3>, &fftPackKernel<T, 3>);
      case 4:
        return f(&fftPadKernel<T, 4>, &fftPackKernel<T, 4>);
    }
    throw std::invalid_argument("fft: " + std::to_string(l.image.channels) + " channels (1, 3 or 4)");
  };
  switch (l.image.type) {
    case PixelType::U8:
      return forType((unsigned char)0);
    case PixelType::U16:
      return forType((unsigned short)0);
    case PixelType::F16:
      return forType(__half());
    case PixelType::F32:
      return forType(0.f);
  }
  throw std::invalid_argument("fft: unknown pixel type");
}

}  // namespace

void fftPad(const FftLaunch& l, const FftPlanes& f, int first) {
  withKernels(l, [&](auto pad, auto) {
    pad<<<padGrid(f), dim3(kBlockW, kBlockH), 0, l.stream>>>(argsOf(l), f, first);
    return 0;
  });
  CL_CUDA_LAUNCHED("fftPadKernel<<<>>>");
}

void fftMultiply(const FftLaunch& l, const FftPlanes& f) {
  fftMultiplyKernel<<<multiplyBlocks(f), 256, 0, l.stream>>>(f);
  CL_CUDA_LAUNCHED("fftMultiplyKernel<<<>>>");
}

void fftPack(const FftLaunch& l, const FftPlanes& f, int first) {
  withKernels(l, [&](auto, auto pack) {
    pack<<<packGrid(l, f), dim3(kBlockW, kBlockH), 0, l.stream>>>(argsOf(l), f, first);
    return 0;
  });
  CL_CUDA_LAUNCHED("fftPackKernel<<<>>>");
}

// Five steps a group of frames: the pad, cuFFT's forward transform (real to complex, every plane of
// the group in one batched plan), the product, cuFFT's inverse (two for a gradient magnitude), the
// pack. cuFFT's own kernels are its business: their passes name the transform and carry no kernel to
// ask about.
LaunchDescription describeFft(const FftLaunch& l, const FftPlanes& f, int groups) {
  const std::string size = std::to_string(f.padW) + "x" + std::to_string(f.padH);
  const std::string type = std::string(pixelTypeName(l.image.type)) + ", " + std::to_string(l.image.channels);
  const std::string planes = " x" + std::to_string(f.planes());
  const std::string eachGroup =
      groups > 1 ? "; " + std::to_string(groups) + " groups of up to " + std::to_string(f.frames) + " frames, in turn"
                 : "";
  const std::string ofFrames = f.frames > 1 ? " of each of " + std::to_string(f.frames) + " frames" : "";
  auto [pad, pack] = withKernels(l, [&](auto padFn, auto packFn) {
    return std::pair{passOf("pad", "fftPadKernel<" + type + ">", padGrid(f), dim3(kBlockW, kBlockH),
                            reinterpret_cast<const void*>(padFn)),
                     passOf("pack", "fftPackKernel<" + type + ">", packGrid(l, f), dim3(kBlockW, kBlockH),
                            reinterpret_cast<const void*>(packFn))};
  });
  pad.outputsPerThread = f.channels;  // plane values
  // In padded coordinates a block writes a 32x8 patch; in the frame's it reads the same patch r
  // up and to the left (the apron is the padding itself).
  setFootprint(pad, kBlockW, kBlockH, kBlockW, kBlockH, -f.radius, -f.radius);
  pad.note = "the frame" + ofFrames + " extended by the border mode by " + std::to_string(f.radius) +
             " on every side, into " + std::to_string(f.channels) + " float plane" + (f.channels == 1 ? "" : "s") +
             " of " + size + " a frame" + eachGroup;
  PassLaunch forward;
  forward.pass = "forward transform";
  forward.kernel = "cuFFT R2C " + size + planes;
  forward.note = "cuFFT's kernels: launches chosen by cuFFT for this size";
  forward.outputTile = forward.inputTile = {0, 0, 0};  // works on the spectrum, not frame tiles
  PassLaunch multiply = passOf("product", "fftMultiplyKernel", dim3(multiplyBlocks(f)), dim3(256),
                               reinterpret_cast<const void*>(&fftMultiplyKernel));
  multiply.outputTile = multiply.inputTile = {0, 0, 0};
  multiply.outputsPerThread =
      double(f.spectrumValues()) * f.planes() * (f.magnitude ? 2 : 1) / (double(multiplyBlocks(f)) * 256);
  multiply.note = "spectrum values, every plane times the mask's";
  PassLaunch inverse = forward;
  inverse.pass = "inverse transform";
  inverse.kernel = "cuFFT C2R " + size + planes + (f.magnitude ? " (twice)" : "");
  pack.outputsPerThread = 1;
  setFootprint(pack, kBlockW, kBlockH, kBlockW, kBlockH, 0, 0);
  pack.note = "a float frame holding Inf, NaN or a value past 1e30 is filtered directly from its input instead";
  return {{pad, forward, multiply, inverse, pack}, ""};
}

// Per output pixel, from the plane sizes. cuFFT's transforms are counted as 2.5 N log2 N FLOPs
// for N real values, and as two passes over the data each way (rows, then columns): an
// assumption, as cuFFT chooses its own kernels. Bytes of the frame's own values: e a value.
WorkModel modelFft(const FftLaunch& l, const FftPlanes& f) {
  const double pixels = double(l.image.width) * l.image.height, padded = double(f.padW) * f.padH;
  const double spectrum = double(f.spectrumValues()), sets = f.magnitude ? 2 : 1, c = f.channels;
  const double e = double(pixelTypeBytes(l.image.type)), channels = l.image.channels;
  const double frameBytes = e * channels, copied = e * (channels - c);
  const double planeBytes = 4 * c * padded / pixels, spectrumBytes = 8 * c * spectrum / pixels;
  const double maskBytes = 8 * sets * spectrum / pixels;
  const double forward = planeBytes + 3 * spectrumBytes, inverse = 3 * spectrumBytes + planeBytes;
  const double product = spectrumBytes * (1 + sets) + maskBytes;
  WorkModel m;
  m.dramBytes = frameBytes + planeBytes + forward + product + sets * inverse + sets * 4 * c + frameBytes;
  const double reads = frameBytes + planeBytes + 2 * spectrumBytes + spectrumBytes + maskBytes +
                       sets * (2 * spectrumBytes + spectrumBytes) + sets * 4 * c + copied;
  m.globalBytes = reads;
  m.globalReads = reads / 4;
  m.apron = padded / pixels;
  m.flops = (2.5 * padded * std::log2(std::max(2.0, padded)) * c * (1 + sets) + 6 * spectrum * c * sets) / pixels;
  m.notes.push_back("the cost does not grow with the radius: r only pads the planes (" + std::to_string(f.padW) + "x" +
                    std::to_string(f.padH) + " for this frame)");
  m.notes.push_back("cuFFT's transforms counted as 2.5 N log2 N FLOPs and two passes over the data each way");
  return m;
}

}  // namespace convlive::kernels
