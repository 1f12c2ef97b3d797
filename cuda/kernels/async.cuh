// cp.async helpers shared by the streaming kernels (stream, tensorstream): global memory copied
// into shared memory without passing through registers, in groups a warp waits for.
#pragma once

#include <cuda_runtime.h>

namespace convlive::kernels {

// Copies Bytes (4, 8 or 16) from global to shared memory. 16-byte copies bypass L1 (.cg) unless
// KeepInL1: neighbouring warps that read the same apron pixels then find them there.
template <int Bytes, bool KeepInL1 = false>
__device__ __forceinline__ void copyAsync(void* smem, const void* gmem) {
#if __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (Bytes == 16 && !KeepInL1)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(gmem), "n"(Bytes));
#else
  if constexpr (Bytes == 16)
    *static_cast<uint4*>(smem) = *static_cast<const uint4*>(gmem);
  else if constexpr (Bytes == 8)
    *static_cast<uint2*>(smem) = *static_cast<const uint2*>(gmem);
  else
    *static_cast<unsigned*>(smem) = *static_cast<const unsigned*>(gmem);
#endif
}
__device__ __forceinline__ void commitAsync() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Waits until at most Pending of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void waitAsync() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}

}  // namespace convlive::kernels
