// The peak-rate kernels of convlive/peaks.hpp. Both keep every operand in registers and make each
// step depend on the previous one of its chain (so the compiler can neither drop nor merge steps),
// with enough independent chains a thread (FMA) or a warp (mma) to cover the pipelines' latency,
// and end by writing a value that depends on every step.
#include <cuda_runtime.h>

#include "convlive/check.hpp"
#include "convlive/peaks.hpp"
#include "mma.cuh"

namespace convlive::peak_kernels {
namespace {

// a = a * mul + add, kFmaChains chains, kFmaUnroll steps each an iteration. mul and add are kernel
// parameters (unknown to the compiler); with mul < 1 the chains converge: no overflow, no NaN.
__global__ void __launch_bounds__(kBlock) fmaLoop(int iterations, float mul, float add, float* out) {
  float a[kFmaChains];
#pragma unroll
  for (int j = 0; j < kFmaChains; ++j) a[j] = static_cast<float>(threadIdx.x + j) * 1e-3f;
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < kFmaUnroll; ++k) {
#pragma unroll
      for (int j = 0; j < kFmaChains; ++j) a[j] = fmaf(a[j], mul, add);
    }
  }
  float sum = 0.f;
#pragma unroll
  for (int j = 0; j < kFmaChains; ++j) sum += a[j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// c[j] += A x B (m16n8k16, FP16 in, FP32 sums), kMmaChains accumulators a warp. A and B come from
// `seed` (a kernel parameter): small values, so 512 iterations of sums stay far from overflow.
__global__ void __launch_bounds__(kBlock) mmaLoop(int iterations, float seed, float* out) {
  float sum = 0.f;
#if __CUDA_ARCH__ >= 800
  const float lane = static_cast<float>(threadIdx.x % 32);
  const unsigned a[4] = {kernels::halfPair(seed, seed + lane * 1e-4f), kernels::halfPair(seed * 0.5f, seed),
                         kernels::halfPair(seed, seed * 0.25f), kernels::halfPair(seed * 0.75f, seed)};
  const unsigned b0 = kernels::halfPair(seed, seed * 0.5f), b1 = kernels::halfPair(seed * 0.25f, seed);
  // Each accumulator starts apart, so no two chains are the same computation (which a compiler
  // could merge).
  float c[kMmaChains][4];
#pragma unroll
  for (int j = 0; j < kMmaChains; ++j) c[j][0] = c[j][1] = c[j][2] = c[j][3] = seed * static_cast<float>(j);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int j = 0; j < kMmaChains; ++j) kernels::mma16816(c[j], a, b0, b1);
  }
#pragma unroll
  for (int j = 0; j < kMmaChains; ++j) sum += c[j][0] + c[j][1] + c[j][2] + c[j][3];
#else
  // No m16n8k16 FP16 mma before 8.0: peaks.cpp never launches this there.
  (void)iterations;
  (void)seed;
#endif
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

}  // namespace

void launchFmaLoop(int grid, int iterations, float* out, cudaStream_t stream) {
  fmaLoop<<<grid, kBlock, 0, stream>>>(iterations, 0.9999f, 1e-4f, out);
  CL_CUDA_LAUNCHED("fmaLoop<<<>>>");
}

void launchMmaLoop(int grid, int iterations, float* out, cudaStream_t stream) {
  mmaLoop<<<grid, kBlock, 0, stream>>>(iterations, 0.01f, out);
  CL_CUDA_LAUNCHED("mmaLoop<<<>>>");
}

const void* fmaLoopKernel() { return reinterpret_cast<const void*>(&fmaLoop); }
const void* mmaLoopKernel() { return reinterpret_cast<const void*>(&mmaLoop); }

}  // namespace convlive::peak_kernels
