// This process's memory, for the tests that check it stays flat: resident memory and the GPU
// memory in use on the current device (-1 where CUDA cannot say), in MB.
#pragma once

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstddef>
#include <fstream>

namespace convlive::process_memory {

inline double residentMb() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

inline double gpuUsedMb() {
  std::size_t freeBytes = 0, total = 0;
  return cudaMemGetInfo(&freeBytes, &total) == cudaSuccess ? double(total - freeBytes) / (1 << 20) : -1.0;
}

}  // namespace convlive::process_memory
