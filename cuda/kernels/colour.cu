// YUV 4:2:0 <-> RGBA8 on the GPU. One thread per chroma sample: it reads and writes the 2x2 luma
// block that sample covers (MPEG-2 siting, the filters of convlive/colour.hpp), so each byte of the
// frame is written by exactly one thread and the chroma neighbours come from L1.
//
// Vectorised path (every plane pointer and pitch aligned: RGBA to 8 bytes, Y and NV12's UV to 2):
// one 8-byte RGBA load or store and one 2-byte Y access per row. Otherwise (odd pitches, planes at
// odd addresses) the same arithmetic with byte accesses. The last column of an odd width and the
// last row of an odd height take the byte path for that block, so nothing past the frame's rows is
// ever touched (pitch padding stays as it was).
//
// Precision: float, coefficients folded from the double model on the host. The chroma filters are
// exact in float (sums of bytes times 1/8 or 1/16); only the matrix rounds, with an error near
// 1e-4 of a level, so a result differs from the double reference only when the exact value lies
// that close to a rounding boundary: then by 1 level. That happens to about 50 samples in a
// million: with decimal luma weights (0.2126, ...) a weighted sum of bytes falls exactly on a half
// about once in 10^4, and double and float noise pick different sides of it. Exact agreement would
// need exact (rational, 64-bit integer) arithmetic on both sides; 1 level is what the tests allow.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "convlive/check.hpp"
#include "convlive/colour.hpp"

namespace convlive {
namespace {

constexpr int kBlockX = 32, kBlockY = 8;  // threads per block: 64x16 luma pixels

struct ToRgbaCoefficients {
  float yOffset, yMul;       // RGB = yMul * (Y - yOffset) + ...
  float rCr, gCb, gCr, bCb;  // ... times (Cb - 128), (Cr - 128)
};
struct ToYuvCoefficients {
  float yOffset, yR, yG, yB;  // Y = yOffset + yR R + yG G + yB B
  float uR, uG, uB;           // Cb = 128 + ...
  float vR, vG, vB;           // Cr = 128 + ...
};

ToRgbaCoefficients toRgbaCoefficients(ColourSpec spec) {
  const ColourCoefficients k = colourCoefficients(spec);
  const double cMul = 255.0 / k.cScale, rCr = cMul * 2.0 * (1.0 - k.kr), bCb = cMul * 2.0 * (1.0 - k.kb);
  return {float(k.yOffset),          float(255.0 / k.yScale),   float(rCr),
          float(-k.kb * bCb / k.kg), float(-k.kr * rCr / k.kg), float(bCb)};
}

ToYuvCoefficients toYuvCoefficients(ColourSpec spec) {
  const ColourCoefficients k = colourCoefficients(spec);
  const double y = k.yScale / 255.0, u = k.cScale / (255.0 * 2.0 * (1.0 - k.kb)),
               v = k.cScale / (255.0 * 2.0 * (1.0 - k.kr));
  return {float(k.yOffset), float(y * k.kr),       float(y * k.kg),       float(y * k.kb),  float(-u * k.kr),
          float(-u * k.kg), float(u * (1 - k.kb)), float(v * (1 - k.kr)), float(-v * k.kg), float(-v * k.kb)};
}

// To nearest, halves up, saturated (as the reference).
__device__ __forceinline__ unsigned char toByte(float v) {
  return static_cast<unsigned char>(min(max(__float2int_rd(v + 0.5f), 0), 255));
}

__device__ __forceinline__ const unsigned char* at(const unsigned char* plane, std::size_t pitch, int x, int y) {
  return plane + static_cast<std::size_t>(y) * pitch + x;
}
__device__ __forceinline__ unsigned char* at(unsigned char* plane, std::size_t pitch, int x, int y) {
  return plane + static_cast<std::size_t>(y) * pitch + x;
}

struct Planes {
  const unsigned char* p[3];
  std::size_t pitch[3];
};
struct OutPlanes {
  unsigned char* p[3];
  std::size_t pitch[3];
};

// U and V of chroma sample (cx, cy).
template <YuvFormat F, bool Vec>
__device__ __forceinline__ float2 chromaAt(const Planes& in, int cx, int cy) {
  if constexpr (F == YuvFormat::NV12) {
    const unsigned char* uv = at(in.p[1], in.pitch[1], 2 * cx, cy);
    if constexpr (Vec) {
      const uchar2 c = __ldg(reinterpret_cast<const uchar2*>(uv));
      return make_float2(c.x, c.y);
    }
    return make_float2(__ldg(uv), __ldg(uv + 1));
  } else {
    return make_float2(__ldg(at(in.p[1], in.pitch[1], cx, cy)), __ldg(at(in.p[2], in.pitch[2], cx, cy)));
  }
}

__device__ __forceinline__ float2 mix(float2 a, float2 b, float wa, float wb) {
  return make_float2(wa * a.x + wb * b.x, wa * a.y + wb * b.y);
}

__device__ __forceinline__ uchar4 toRgba(const ToRgbaCoefficients& k, float y, float2 c) {
  const float l = k.yMul * (y - k.yOffset), cb = c.x - 128.f, cr = c.y - 128.f;
  return make_uchar4(toByte(fmaf(k.rCr, cr, l)), toByte(fmaf(k.gCr, cr, fmaf(k.gCb, cb, l))),
                     toByte(fmaf(k.bCb, cb, l)), 255);
}

__device__ __forceinline__ void storeBytes(unsigned char* p, uchar4 v) {
  p[0] = v.x, p[1] = v.y, p[2] = v.z, p[3] = v.w;
}
__device__ __forceinline__ unsigned pack(uchar4 v) {
  return unsigned(v.x) | unsigned(v.y) << 8 | unsigned(v.z) << 16 | unsigned(v.w) << 24;
}

// One luma row of the block: its chroma (even and odd column), written as one or two pixels.
template <bool Vec>
__device__ __forceinline__ void yuvRow(const ToRgbaCoefficients& k, const unsigned char* y, unsigned char* out,
                                       bool two, float2 cEven, float2 cOdd) {
  if (Vec && two) {
    const uchar2 l = *reinterpret_cast<const uchar2*>(y);
    *reinterpret_cast<uint2*>(out) = make_uint2(pack(toRgba(k, l.x, cEven)), pack(toRgba(k, l.y, cOdd)));
    return;
  }
  storeBytes(out, toRgba(k, y[0], cEven));
  if (two) storeBytes(out + 4, toRgba(k, y[1], cOdd));
}

template <YuvFormat F, bool Vec>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    yuvToRgbaKernel(Planes in, unsigned char* out, std::size_t outPitch, int width, int height, ToRgbaCoefficients k) {
  const int cw = (width + 1) / 2, ch = (height + 1) / 2;
  const int cx = blockIdx.x * kBlockX + threadIdx.x, cy = blockIdx.y * kBlockY + threadIdx.y;
  if (cx >= cw || cy >= ch) return;
  const int nx = min(cx + 1, cw - 1), up = max(cy - 1, 0), down = min(cy + 1, ch - 1);
  // Horizontal first: even columns sit on the sample, odd ones between it and the next.
  const float2 mid = chromaAt<F, Vec>(in, cx, cy), midR = chromaAt<F, Vec>(in, nx, cy);
  const float2 above = chromaAt<F, Vec>(in, cx, up), aboveR = chromaAt<F, Vec>(in, nx, up);
  const float2 below = chromaAt<F, Vec>(in, cx, down), belowR = chromaAt<F, Vec>(in, nx, down);
  const float2 midOdd = mix(mid, midR, 0.5f, 0.5f);
  const int x = 2 * cx, y = 2 * cy;
  const bool two = x + 1 < width;
  yuvRow<Vec>(k, at(in.p[0], in.pitch[0], x, y), at(out, outPitch, 4 * x, y), two, mix(mid, above, 0.75f, 0.25f),
              mix(midOdd, mix(above, aboveR, 0.5f, 0.5f), 0.75f, 0.25f));
  if (y + 1 < height)
    yuvRow<Vec>(k, at(in.p[0], in.pitch[0], x, y + 1), at(out, outPitch, 4 * x, y + 1), two,
                mix(mid, below, 0.75f, 0.25f), mix(midOdd, mix(below, belowR, 0.5f, 0.5f), 0.75f, 0.25f));
}

// ---- RGBA -> YUV ------------------------------------------------------------------------------------

__device__ __forceinline__ float3 unpack(unsigned w) {
  return make_float3(float(w & 0xFFu), float(w >> 8 & 0xFFu), float(w >> 16 & 0xFFu));
}
__device__ __forceinline__ unsigned loadPixel(const unsigned char* p) {
  return unsigned(p[0]) | unsigned(p[1]) << 8 | unsigned(p[2]) << 16;
}
__device__ __forceinline__ unsigned char lumaOf(const ToYuvCoefficients& k, float3 c) {
  return toByte(k.yOffset + fmaf(k.yR, c.x, fmaf(k.yG, c.y, k.yB * c.z)));
}

struct RowPixels {
  float3 left, even, odd;  // columns 2cx-1, 2cx, 2cx+1 (clamped to the frame)
};

// One row of the block: its three pixels for the chroma filter; writes their luma (one or two).
template <bool Vec>
__device__ __forceinline__ RowPixels rgbaRow(const ToYuvCoefficients& k, const unsigned char* row, int x, bool two,
                                             unsigned char* yOut) {
  RowPixels r;
  if (Vec && two) {
    const uint2 p = __ldg(reinterpret_cast<const uint2*>(row + 4 * x));
    r.even = unpack(p.x), r.odd = unpack(p.y);
  } else {
    r.even = unpack(loadPixel(row + 4 * x));
    r.odd = two ? unpack(loadPixel(row + 4 * x + 4)) : r.even;
  }
  r.left = x > 0 ? (Vec ? unpack(__ldg(reinterpret_cast<const unsigned*>(row + 4 * x - 4)))
                        : unpack(loadPixel(row + 4 * x - 4)))
                 : r.even;
  const unsigned char y0 = lumaOf(k, r.even);
  if (Vec && two) {
    *reinterpret_cast<uchar2*>(yOut) = make_uchar2(y0, lumaOf(k, r.odd));
  } else {
    yOut[0] = y0;
    if (two) yOut[1] = lumaOf(k, r.odd);
  }
  return r;
}

// [1 2 1] across a row, not yet divided.
__device__ __forceinline__ float3 across(const RowPixels& r) {
  return make_float3(r.left.x + 2.f * r.even.x + r.odd.x, r.left.y + 2.f * r.even.y + r.odd.y,
                     r.left.z + 2.f * r.even.z + r.odd.z);
}

template <YuvFormat F, bool Vec>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    rgbaToYuvKernel(const unsigned char* in, std::size_t inPitch, OutPlanes out, int width, int height,
                    ToYuvCoefficients k) {
  const int cw = (width + 1) / 2, ch = (height + 1) / 2;
  const int cx = blockIdx.x * kBlockX + threadIdx.x, cy = blockIdx.y * kBlockY + threadIdx.y;
  if (cx >= cw || cy >= ch) return;
  const int x = 2 * cx, y = 2 * cy;
  const bool two = x + 1 < width;
  const RowPixels top = rgbaRow<Vec>(k, at(in, inPitch, 0, y), x, two, at(out.p[0], out.pitch[0], x, y));
  const RowPixels bottom =
      y + 1 < height ? rgbaRow<Vec>(k, at(in, inPitch, 0, y + 1), x, two, at(out.p[0], out.pitch[0], x, y + 1)) : top;
  const float3 a = across(top), b = across(bottom);
  const float3 c = make_float3((a.x + b.x) * 0.125f, (a.y + b.y) * 0.125f, (a.z + b.z) * 0.125f);
  const unsigned char u = toByte(128.f + fmaf(k.uR, c.x, fmaf(k.uG, c.y, k.uB * c.z)));
  const unsigned char v = toByte(128.f + fmaf(k.vR, c.x, fmaf(k.vG, c.y, k.vB * c.z)));
  if constexpr (F == YuvFormat::NV12) {
    unsigned char* uv = at(out.p[1], out.pitch[1], 2 * cx, cy);
    if constexpr (Vec)
      *reinterpret_cast<uchar2*>(uv) = make_uchar2(u, v);
    else
      uv[0] = u, uv[1] = v;
  } else {
    *at(out.p[1], out.pitch[1], cx, cy) = u;
    *at(out.p[2], out.pitch[2], cx, cy) = v;
  }
}

// ---- Grey -> RGBA8 ----------------------------------------------------------------------------------

// One pixel a thread: the value (u16 scaled to 8 bits, to nearest) in R, G and B, alpha 255.
template <typename T>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    greyToRgbaKernel(const unsigned char* in, std::size_t inPitch, unsigned char* out, std::size_t outPitch, int width,
                     int height, bool words) {
  const int x = blockIdx.x * kBlockX + threadIdx.x, y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= width || y >= height) return;
  unsigned v = reinterpret_cast<const T*>(in + std::size_t(y) * inPitch)[x];
  if (sizeof(T) == 2) v = (v * 255u + 32767u) / 65535u;  // round(v / 257), halves up (none occur)
  unsigned char* o = out + std::size_t(y) * outPitch + 4 * std::size_t(x);
  const uchar4 px = make_uchar4(v, v, v, 255);
  if (words)
    *reinterpret_cast<uchar4*>(o) = px;
  else
    storeBytes(o, px);
}

// ---- Launch -----------------------------------------------------------------------------------------

bool aligned(const void* p, std::size_t pitch, std::size_t to) {
  return reinterpret_cast<std::uintptr_t>(p) % to == 0 && pitch % to == 0;
}

// Whether every access of the vectorised path is aligned.
bool vectorisable(const ConstYuvView& yuv, const ConstImageView& rgba) {
  return aligned(rgba.data, rgba.pitch, 8) && aligned(yuv.planes[0], yuv.pitches[0], 2) &&
         (yuv.format != YuvFormat::NV12 || aligned(yuv.planes[1], yuv.pitches[1], 2));
}

// The grid's rows of blocks are at most 65535: frames up to 65535 x 16 rows (two luma rows a chroma
// row, kBlockY chroma rows a block). Throws std::invalid_argument for a taller one, before any launch.
void checkGridRows(int height, const char* what) {
  if (long(chromaHeight(height) + kBlockY - 1) / kBlockY <= 65535) return;
  throw std::invalid_argument(std::string(what) + ": the frame is " + std::to_string(height) +
                              " rows tall, more than the GPU conversion takes (" +
                              std::to_string(65535L * 2 * kBlockY) +
                              " rows): convert it on the CPU (referenceYuvToRgba, or an RGBA source)");
}

dim3 gridFor(int width, int height) {
  return dim3(static_cast<unsigned>((chromaWidth(width) + kBlockX - 1) / kBlockX),
              static_cast<unsigned>((chromaHeight(height) + kBlockY - 1) / kBlockY));
}

template <YuvFormat F, bool Vec>
void launchToRgba(const ConstYuvView& in, ImageView out, ColourSpec spec, cudaStream_t stream) {
  const Planes planes{{in.planes[0], in.planes[1], in.planes[2]}, {in.pitches[0], in.pitches[1], in.pitches[2]}};
  yuvToRgbaKernel<F, Vec><<<gridFor(in.width, in.height), dim3(kBlockX, kBlockY), 0, stream>>>(
      planes, out.data, out.pitch, in.width, in.height, toRgbaCoefficients(spec));
  CL_CUDA_LAUNCHED("yuvToRgbaKernel");
}

template <YuvFormat F, bool Vec>
void launchToYuv(ConstImageView in, const YuvView& out, ColourSpec spec, cudaStream_t stream) {
  const OutPlanes planes{{out.planes[0], out.planes[1], out.planes[2]},
                         {out.pitches[0], out.pitches[1], out.pitches[2]}};
  rgbaToYuvKernel<F, Vec><<<gridFor(in.width, in.height), dim3(kBlockX, kBlockY), 0, stream>>>(
      in.data, in.pitch, planes, in.width, in.height, toYuvCoefficients(spec));
  CL_CUDA_LAUNCHED("rgbaToYuvKernel");
}

}  // namespace

void yuvToRgba(const ConstYuvView& in, ImageView out, ColourSpec spec, cudaStream_t stream) {
  checkConvertible(in, out, "yuvToRgba");
  checkGridRows(in.height, "yuvToRgba");
  const bool vec = vectorisable(in, out), nv12 = in.format == YuvFormat::NV12;
  if (nv12 && vec) launchToRgba<YuvFormat::NV12, true>(in, out, spec, stream);
  if (nv12 && !vec) launchToRgba<YuvFormat::NV12, false>(in, out, spec, stream);
  if (!nv12 && vec) launchToRgba<YuvFormat::I420, true>(in, out, spec, stream);
  if (!nv12 && !vec) launchToRgba<YuvFormat::I420, false>(in, out, spec, stream);
}

void rgbaToYuv(ConstImageView in, const YuvView& out, ColourSpec spec, cudaStream_t stream) {
  checkConvertible(out, in, "rgbaToYuv");
  checkGridRows(in.height, "rgbaToYuv");
  const bool vec = vectorisable(out, in), nv12 = out.format == YuvFormat::NV12;
  if (nv12 && vec) launchToYuv<YuvFormat::NV12, true>(in, out, spec, stream);
  if (nv12 && !vec) launchToYuv<YuvFormat::NV12, false>(in, out, spec, stream);
  if (!nv12 && vec) launchToYuv<YuvFormat::I420, true>(in, out, spec, stream);
  if (!nv12 && !vec) launchToYuv<YuvFormat::I420, false>(in, out, spec, stream);
}

void greyToRgba(const void* in, const ImageDesc& grey, ImageView out, cudaStream_t stream) {
  if (std::string why = whyNotExpandGrey(grey, out); !why.empty()) throw std::invalid_argument("greyToRgba: " + why);
  if (!in) throw std::invalid_argument("greyToRgba: the grey frame has no memory");
  if (long(grey.height + kBlockY - 1) / kBlockY > 65535)
    throw std::invalid_argument("greyToRgba: the frame is " + std::to_string(grey.height) +
                                " rows tall, more than the GPU expansion takes (" + std::to_string(65535L * kBlockY) +
                                " rows): expand it on the CPU (referenceGreyToRgba)");
  const dim3 grid(static_cast<unsigned>((grey.width + kBlockX - 1) / kBlockX),
                  static_cast<unsigned>((grey.height + kBlockY - 1) / kBlockY));
  const bool words = aligned(out.data, out.pitch, 4);
  const auto* from = static_cast<const unsigned char*>(in);
  if (grey.type == PixelType::U16 && (reinterpret_cast<std::uintptr_t>(in) % 2 || grey.rowPitch() % 2))
    throw std::invalid_argument("greyToRgba: a u16 frame's memory and pitch must be 2-byte aligned");
  if (grey.type == PixelType::U8)
    greyToRgbaKernel<unsigned char><<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(
        from, grey.rowPitch(), out.data, out.pitch, grey.width, grey.height, words);
  else
    greyToRgbaKernel<unsigned short><<<grid, dim3(kBlockX, kBlockY), 0, stream>>>(
        from, grey.rowPitch(), out.data, out.pitch, grey.width, grey.height, words);
  CL_CUDA_LAUNCHED("greyToRgbaKernel");
}

}  // namespace convlive
