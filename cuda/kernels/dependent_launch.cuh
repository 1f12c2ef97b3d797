// Programmatic dependent launch (compute capability 9.0): a kernel launched this way may start
// its blocks while the kernel before it on the stream finishes, and waits for that kernel's
// results only where it first touches global memory. Back to back, a frame's launch and its
// blocks' set-up (weights into shared memory) then overlap the previous frame's last blocks
// instead of following them. tensor2d and tensorstream launch so; stream, whose grid
// fills the GPU and whose blocks share out its work when they start, was slower so (1080p r=1
// 1.30x back to back: the dependent grid's blocks waited for places the previous grid still held).
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "convlive/check.hpp"
#include "convlive/resources.hpp"

namespace convlive::kernels {

// Lets the next kernel on the stream, if launched as a dependent, start its blocks once every
// block of this grid has started or ended. Nothing happens before compute capability 9.0.
__device__ __forceinline__ void allowDependentLaunch() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::);
#endif
}
// Waits until the kernels this grid depends on have finished and their writes are visible: call it
// before the first global memory read or write. Returns at once when the launch was not dependent.
__device__ __forceinline__ void waitForPrerequisites() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// Launches `kernel` as a programmatic dependent of the previous work on `stream`: the kernel must
// call waitForPrerequisites() before it touches global memory. Below compute capability 9.0 it is
// an ordinary launch (the attribute is not set there; the kernels' griddepcontrol is sm_90 code).
template <class... Params, class... Args>
void launchDependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream,
                     Args&&... args) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = &attr;
  config.numAttrs = deviceInfo().major >= 9 ? 1 : 0;
  CL_CUDA(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace convlive::kernels
