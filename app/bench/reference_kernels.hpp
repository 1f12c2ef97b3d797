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

}  // namespace convlive::bench
