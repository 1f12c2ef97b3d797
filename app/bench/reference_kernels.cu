#include <cstdint>
#include <stdexcept>

#include "convlive/check.hpp"
#include "reference_kernels.hpp"

namespace convlive::bench {
namespace {

__global__ void emptyKernel() {}

// One thread a 16-byte group of 4 pixels; the last group of a row may be partial.
__global__ void copyKernel(const std::uint8_t* __restrict__ src, std::size_t srcPitch, std::uint8_t* __restrict__ dst,
                           std::size_t dstPitch, int w, int h) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  const int groups = (w + 3) / 4;
  if (g >= groups || y >= h) return;
  const auto* s = src + y * srcPitch;
  auto* d = dst + y * dstPitch;
  if (4 * g + 4 <= w) {
    reinterpret_cast<uint4*>(d)[g] = __ldcs(reinterpret_cast<const uint4*>(s) + g);
  } else {
    for (int x = 4 * g; x < w; ++x)
      reinterpret_cast<std::uint32_t*>(d)[x] = reinterpret_cast<const std::uint32_t*>(s)[x];
  }
}

// One thread a 16-byte group; thread `groups` (present when bytes % 16 != 0) copies the last
// bytes one by one.
__global__ void copyBytesKernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t groups,
                                std::size_t bytes) {
  const std::size_t g = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g < groups) {
    dst[g] = __ldcs(src + g);
  } else if (g == groups) {
    const auto* s = reinterpret_cast<const std::uint8_t*>(src);
    auto* d = reinterpret_cast<std::uint8_t*>(dst);
    for (std::size_t i = groups * 16; i < bytes; ++i) d[i] = s[i];
  }
}

}  // namespace

CopyGrid copyBytesGrid(std::size_t bytes) {
  CopyGrid g;
  g.groups = bytes / 16;
  g.tail = bytes % 16 != 0;
  const std::size_t threadsNeeded = g.groups + (g.tail ? 1 : 0);
  const std::size_t blocks = (threadsNeeded + g.threads - 1) / g.threads;
  if (blocks > 0x7fffffffu) throw std::invalid_argument("launchCopyBytes: too many bytes for one launch");
  g.blocks = static_cast<unsigned>(blocks);
  return g;
}

void launchCopyBytes(const void* src, void* dst, std::size_t bytes, cudaStream_t s) {
  if (bytes == 0) return;
  if (reinterpret_cast<std::uintptr_t>(src) % 16 != 0 || reinterpret_cast<std::uintptr_t>(dst) % 16 != 0)
    throw std::invalid_argument("launchCopyBytes: the pointers must be 16-byte aligned");
  const CopyGrid g = copyBytesGrid(bytes);
  copyBytesKernel<<<g.blocks, g.threads, 0, s>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), g.groups,
                                                 bytes);
  CL_CUDA(cudaGetLastError());
}

void launchEmptyKernel(cudaStream_t s) {
  emptyKernel<<<1, 32, 0, s>>>();
  CL_CUDA(cudaGetLastError());
}

void launchCopyKernel(const void* src, std::size_t srcPitch, void* dst, std::size_t dstPitch, int w, int h,
                      cudaStream_t s) {
  const int groups = (w + 3) / 4, threads = 128;
  const dim3 grid((groups + threads - 1) / threads, h);
  copyKernel<<<grid, threads, 0, s>>>(static_cast<const std::uint8_t*>(src), srcPitch, static_cast<std::uint8_t*>(dst),
                                      dstPitch, w, h);
  CL_CUDA(cudaGetLastError());
}

}  // namespace convlive::bench
