// The fft variant's own kernels, around cuFFT's transforms (cuda/fft.cpp runs them in order):
//   fftPadKernel:      the RGBA8 frame, extended by the border mode by r on every side, into one
//                      float plane per channel (padW x padH; zeros past the extended frame).
//   fftMultiplyKernel: each channel's spectrum times the mask's (and, for a gradient magnitude,
//                      times the transposed mask's into a second set of planes).
//   fftPackKernel:     the interior of the transformed-back planes, combined, rounded and
//                      saturated, into the RGBA8 output; alpha kept from the input unless filtered.
#include <cmath>

#include "common.cuh"

namespace convlive::kernels {
namespace {

constexpr int kBlockW = 32, kBlockH = 8;

__global__ void fftPadKernel(const __grid_constant__ Launch l, const __grid_constant__ FftPlanes f) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= f.padW || y >= f.padH) return;
  float4 v = make_float4(0, 0, 0, 0);
  if (x < l.width + 2 * f.radius && y < l.height + 2 * f.radius)
    v = toFloat4(loadBordered(l, x - f.radius, y - f.radius));
  const std::size_t plane = std::size_t(f.padW) * f.padH, i = std::size_t(y) * f.padW + x;
  f.real[i] = v.x;
  f.real[plane + i] = v.y;
  f.real[2 * plane + i] = v.z;
  if (f.channels == 4) f.real[3 * plane + i] = v.w;
}

__global__ void fftMultiplyKernel(const __grid_constant__ FftPlanes f) {
  const std::size_t n = f.spectrumValues();
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float2 s = f.spectrum[i];
    const float2 t = f.magnitude ? f.spectrum[n + i] : make_float2(0, 0);
    for (int c = 0; c < f.channels; ++c) {
      const float2 d = f.complex[c * n + i];
      f.complex[c * n + i] = make_float2(d.x * s.x - d.y * s.y, d.x * s.y + d.y * s.x);
      if (f.magnitude) f.complex2[c * n + i] = make_float2(d.x * t.x - d.y * t.y, d.x * t.y + d.y * t.x);
    }
  }
}

__global__ void fftPackKernel(const __grid_constant__ Launch l, const __grid_constant__ FftPlanes f) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= l.width || y >= l.height) return;
  const std::size_t plane = std::size_t(f.padW) * f.padH,
                    i = std::size_t(y + f.radius) * f.padW + std::size_t(x + f.radius);
  auto planes = [&](const float* p) {
    return make_float4(p[i], p[plane + i], p[2 * plane + i], f.channels == 4 ? p[3 * plane + i] : 0.f);
  };
  const float4 a = planes(f.real), b = f.magnitude ? planes(f.real2) : make_float4(0, 0, 0, 0);
  const unsigned char alpha = l.filterAlpha ? 0 : rowPtr(l.in, l.inPitch, y)[x].w;
  storeOut(l, x, y, finishPixel(a, b, l.combine, l.filterAlpha, alpha));
}

dim3 padGrid(const FftPlanes& f) { return dim3(ceilDiv(f.padW, kBlockW), ceilDiv(f.padH, kBlockH)); }
dim3 packGrid(const Launch& l) { return dim3(ceilDiv(l.width, kBlockW), ceilDiv(l.height, kBlockH)); }
unsigned multiplyBlocks(const FftPlanes& f) {
  return static_cast<unsigned>(std::min<std::size_t>((f.spectrumValues() + 255) / 256, 132 * 16));
}

}  // namespace

void fftPad(const Launch& l, const FftPlanes& f) {
  fftPadKernel<<<padGrid(f), dim3(kBlockW, kBlockH), 0, l.stream>>>(l, f);
  CL_CUDA_LAUNCHED("fftPadKernel<<<>>>");
}

void fftMultiply(const Launch& l, const FftPlanes& f) {
  fftMultiplyKernel<<<multiplyBlocks(f), 256, 0, l.stream>>>(f);
  CL_CUDA_LAUNCHED("fftMultiplyKernel<<<>>>");
}

void fftPack(const Launch& l, const FftPlanes& f) {
  fftPackKernel<<<packGrid(l), dim3(kBlockW, kBlockH), 0, l.stream>>>(l, f);
  CL_CUDA_LAUNCHED("fftPackKernel<<<>>>");
}

// Five steps: the pad, cuFFT's forward transform (real to complex, one plane per channel in one
// batched plan), the product, cuFFT's inverse (two for a gradient magnitude), the pack. cuFFT's
// own kernels are its business: their passes name the transform and carry no kernel to ask about.
LaunchDescription describeFft(const Launch& l, const FftPlanes& f) {
  const std::string size = std::to_string(f.padW) + "x" + std::to_string(f.padH);
  PassLaunch pad =
      passOf("pad", "fftPadKernel", padGrid(f), dim3(kBlockW, kBlockH), reinterpret_cast<const void*>(&fftPadKernel));
  pad.outputsPerThread = f.channels;  // plane values
  // In padded coordinates a block writes a 32x8 patch; in the frame's it reads the same patch r
  // up and to the left (the apron is the padding itself).
  setFootprint(pad, kBlockW, kBlockH, kBlockW, kBlockH, -f.radius, -f.radius);
  pad.note = "the frame extended by the border mode by " + std::to_string(f.radius) + " on every side, into " +
             std::to_string(f.channels) + " float planes of " + size;
  PassLaunch forward;
  forward.pass = "forward transform";
  forward.kernel = "cuFFT R2C " + size + " x" + std::to_string(f.channels);
  forward.note = "cuFFT's kernels: launches chosen by cuFFT for this size";
  forward.outputTile = forward.inputTile = {0, 0, 0};  // works on the spectrum, not frame tiles
  PassLaunch multiply = passOf("product", "fftMultiplyKernel", dim3(multiplyBlocks(f)), dim3(256),
                               reinterpret_cast<const void*>(&fftMultiplyKernel));
  multiply.outputTile = multiply.inputTile = {0, 0, 0};
  multiply.outputsPerThread =
      double(f.spectrumValues()) * f.channels * (f.magnitude ? 2 : 1) / (double(multiplyBlocks(f)) * 256);
  multiply.note = "spectrum values, every channel times the mask's";
  PassLaunch inverse = forward;
  inverse.pass = "inverse transform";
  inverse.kernel = "cuFFT C2R " + size + " x" + std::to_string(f.channels) + (f.magnitude ? " (twice)" : "");
  PassLaunch pack = passOf("pack", "fftPackKernel", packGrid(l), dim3(kBlockW, kBlockH),
                           reinterpret_cast<const void*>(&fftPackKernel));
  pack.outputsPerThread = 1;
  setFootprint(pack, kBlockW, kBlockH, kBlockW, kBlockH, 0, 0);
  return {{pad, forward, multiply, inverse, pack}, ""};
}

// Per output pixel, from the plane sizes. cuFFT's transforms are counted as 2.5 N log2 N FLOPs
// for N real values, and as two passes over the data each way (rows, then columns): an
// assumption, as cuFFT chooses its own kernels.
WorkModel modelFft(const Launch& l, const FftPlanes& f) {
  const double pixels = double(l.width) * l.height, padded = double(f.padW) * f.padH;
  const double spectrum = double(f.spectrumValues()), sets = f.magnitude ? 2 : 1, c = f.channels;
  const double planeBytes = 4 * c * padded / pixels, spectrumBytes = 8 * c * spectrum / pixels;
  const double maskBytes = 8 * sets * spectrum / pixels;
  const double forward = planeBytes + 3 * spectrumBytes, inverse = 3 * spectrumBytes + planeBytes;
  const double product = spectrumBytes * (1 + sets) + maskBytes;
  WorkModel m;
  m.dramBytes = 4 + planeBytes + forward + product + sets * inverse + sets * 4 * c + 4;
  const double reads = 4 + planeBytes + 2 * spectrumBytes + spectrumBytes + maskBytes +
                       sets * (2 * spectrumBytes + spectrumBytes) + sets * 4 * c + (l.filterAlpha ? 0 : 1);
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
