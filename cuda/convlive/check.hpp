// Checking CUDA calls: every failure becomes a CudaError that carries the call's text, file and line.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace convlive {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const char* call, const char* file, int line);
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// Throws CudaError when `code` is not cudaSuccess.
void checkCuda(cudaError_t code, const char* call, const char* file, int line);

}  // namespace convlive

#define CL_CUDA(call) ::convlive::checkCuda((call), #call, __FILE__, __LINE__)
// After a kernel launch: reports bad launch configurations (the launch itself returns nothing).
#define CL_CUDA_LAUNCHED(what) ::convlive::checkCuda(cudaGetLastError(), what, __FILE__, __LINE__)
