#include "convlive/check.hpp"

namespace convlive {

CudaError::CudaError(cudaError_t code, const char* call, const char* file, int line)
    : std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                         cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")"),
      code_(code) {}

void checkCuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();  // so a later, unrelated check does not report this one again
    throw CudaError(code, call, file, line);
  }
}

}  // namespace convlive
