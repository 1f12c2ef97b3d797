// Two reference launches for convlive-bench, timed the same way as the variants: an empty kernel
// (the fixed cost of one timed launch, which a small frame cannot spread over many pixels) and a
// plain kernel copy of the frame (16 bytes a thread, one read and one write: what any filter's
// kernel at that size is measured against).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace convlive::bench {

// One block of 32 threads that does nothing.
void launchEmptyKernel(cudaStream_t s);

// Copies a w x h RGBA8 frame, pitches in bytes (multiples of 16, as DeviceImage's are).
void launchCopyKernel(const void* src, std::size_t srcPitch, void* dst, std::size_t dstPitch, int w, int h,
                      cudaStream_t s);

// Copies `bytes` contiguous bytes (any count: the last partial 16-byte group is copied byte by
// byte by one thread), 16 bytes a thread: the typed benchmark's reference for frames of any type,
// channels and batch. Both pointers must be 16-byte aligned (cudaMalloc's are); throws
// std::invalid_argument otherwise, CudaError when the launch fails. Nothing is launched for 0 bytes.
void launchCopyBytes(const void* src, void* dst, std::size_t bytes, cudaStream_t s);

// The blocks and threads a block launchCopyBytes uses for `bytes` (one thread per 16-byte group,
// one more for a partial last group): arithmetic, no device needed.
struct CopyGrid {
  std::size_t groups = 0;  // whole 16-byte groups
  bool tail = false;       // bytes % 16 != 0: one more thread copies the rest byte by byte
  unsigned blocks = 0, threads = 256;
};
CopyGrid copyBytesGrid(std::size_t bytes);

}  // namespace convlive::bench
