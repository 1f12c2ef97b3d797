// The direct 2D variants: one thread per output pixel, every tap read from memory.
//   naive:    input and weights in global memory.
//   constant: weights in the launch's constant bank (a __grid_constant__ parameter).
//   texture:  input read through a texture object (hardware border addressing where it matches).
#include "common.cuh"

namespace convlive::kernels {
namespace {

// Sums for one output pixel. Load(x, y) returns the bordered input pixel as float4.
template <class Load>
__device__ __forceinline__ uchar4 directPixel(const Launch& l, int x, int y, const float* w, int r, Load load,
                                              unsigned char alpha) {
  const int k = 2 * r + 1;
  float4 a = make_float4(0, 0, 0, 0), b = a;
  const bool magnitude = l.combine == Combine::Magnitude;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      const float4 v = load(x + dx, y + dy);
      fma4(a, w[(dy + r) * k + dx + r], v);
      if (magnitude) fma4(b, w[(dx + r) * k + dy + r], v);
    }
  return finishPixel(a, b, l.combine, l.filterAlpha, alpha);
}

__global__ void naiveKernel(const __grid_constant__ Launch l, const float* __restrict__ w, int r) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= l.width || y >= l.height) return;
  auto load = [&](int px, int py) { return toFloat4(loadBordered(l, px, py)); };
  storeOut(l, x, y, directPixel(l, x, y, w, r, load, rowPtr(l.in, l.inPitch, y)[x].w));
}

__global__ void constantKernel(const __grid_constant__ Launch l, const __grid_constant__ Mask2D m) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= l.width || y >= l.height) return;
  auto load = [&](int px, int py) { return toFloat4(loadBordered(l, px, py)); };
  storeOut(l, x, y, directPixel(l, x, y, m.w, m.radius, load, rowPtr(l.in, l.inPitch, y)[x].w));
}

__global__ void textureKernel(const __grid_constant__ Launch l, cudaTextureObject_t tex, bool normalized,
                              const __grid_constant__ Mask2D m) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= l.width || y >= l.height) return;
  const float sx = 1.f / static_cast<float>(l.width), sy = 1.f / static_cast<float>(l.height);
  const bool mirror = l.border == Border::Mirror;
  auto load = [&](int px, int py) {
    if (normalized) return toFloat4(tex2D<uchar4>(tex, (px + 0.5f) * sx, (py + 0.5f) * sy));
    if (mirror) {  // reflect-101 has no hardware address mode
      px = borderIndex(px, l.width, Border::Mirror);
      py = borderIndex(py, l.height, Border::Mirror);
    }
    return toFloat4(tex2D<uchar4>(tex, px + 0.5f, py + 0.5f));
  };
  storeOut(l, x, y,
           directPixel(
               l, x, y, m.w, m.radius, load,
               tex2D<uchar4>(tex, normalized ? (x + 0.5f) * sx : x + 0.5f, normalized ? (y + 0.5f) * sy : y + 0.5f).w));
}

dim3 directBlock(const Launch& l) { return dim3(l.tileW, l.tileH); }
dim3 gridFor(const Launch& l, dim3 block) { return dim3(ceilDiv(l.width, block.x), ceilDiv(l.height, block.y)); }

LaunchDescription describeDirect(const Launch& l, int r, const char* kernel, const void* function) {
  const dim3 block = directBlock(l), grid = gridFor(l, block);
  PassLaunch p;
  p.kernel = kernel;
  p.grid = dimsOf(grid.x, grid.y);
  p.block = dimsOf(block.x, block.y);
  p.threadsPerBlock = static_cast<int>(block.x * block.y);
  p.outputsPerThread = 1;
  setFootprint(p, l.tileW, l.tileH, l.tileW + 2 * r, l.tileH + 2 * r, -r, -r);
  p.kernelFunction = function;
  return {{p}, ""};
}

}  // namespace

void naive(const Launch& l, const float* deviceWeights, int radius) {
  const dim3 block = directBlock(l);
  naiveKernel<<<gridFor(l, block), block, 0, l.stream>>>(l, deviceWeights, radius);
  CL_CUDA_LAUNCHED("naiveKernel<<<>>>");
}

void constant(const Launch& l, const Mask2D& m) {
  const dim3 block = directBlock(l);
  constantKernel<<<gridFor(l, block), block, 0, l.stream>>>(l, m);
  CL_CUDA_LAUNCHED("constantKernel<<<>>>");
}

void texture(const Launch& l, cudaTextureObject_t tex, bool normalized, const Mask2D& m) {
  const dim3 block = directBlock(l);
  textureKernel<<<gridFor(l, block), block, 0, l.stream>>>(l, tex, normalized, m);
  CL_CUDA_LAUNCHED("textureKernel<<<>>>");
}

LaunchDescription describeNaive(const Launch& l, int radius) {
  return describeDirect(l, radius, "naiveKernel", reinterpret_cast<const void*>(&naiveKernel));
}
LaunchDescription describeConstant(const Launch& l, int radius) {
  return describeDirect(l, radius, "constantKernel", reinterpret_cast<const void*>(&constantKernel));
}
LaunchDescription describeTexture(const Launch& l, int radius) {
  return describeDirect(l, radius, "textureKernel", reinterpret_cast<const void*>(&textureKernel));
}

// directPixel: every tap one read of the input, one FMA per channel (all four), per mask.
WorkModel modelDirect(const Launch& l, int radius, DirectVariant which) {
  const double taps = double(2 * radius + 1) * (2 * radius + 1), masks = l.combine == Combine::Magnitude ? 2 : 1;
  WorkModel m;
  m.globalReads = taps + 1;  // the taps, and the centre pixel again for its alpha
  m.globalBytes = 4 * m.globalReads + (which == DirectVariant::Naive ? 4 * taps * masks : 0);
  m.apron = taps;
  m.flops = 2 * 4 * taps * masks;
  m.dramBytes = 8;
  m.notes.push_back("every tap is a load; the caches serve all but the first read of each pixel");
  if (which == DirectVariant::Naive) m.notes.push_back("the weights are global loads too (the same for every thread)");
  if (which == DirectVariant::Texture) m.notes.push_back("reads go through the texture unit");
  return m;
}

}  // namespace convlive::kernels
