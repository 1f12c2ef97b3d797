// The device's compute roofs, measured rather than taken from a datasheet: what the roofline puts
// above the variants' points. Two small kernels (kernels/peaks.cu), each filling every SM with one
// wave of blocks:
//   FP32:   a loop of independent FMA chains (kFmaChains a thread), 2 FLOPs an FMA;
//   matrix: a loop of mma.sync m16n8k16 (FP16 in, FP32 sums, kMmaChains independent accumulators
//           a warp), 4096 FLOPs an mma: the instruction the tensor variants issue. Hopper's wgmma
//           goes faster than mma.sync; this is the roof for what convlive runs, not the chip's.
// Each is timed with CUDA events on a stream of its own, the best of a few launches after warm-up
// launches: a few milliseconds in all on any GPU (the work per SM is fixed). The viewer measures
// them once per GPU and caches them (app/viewer/copy_bandwidth.hpp). Any thread; one measurement
// at a time.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace convlive {

// One measured rate.
struct PeakRate {
  double gflops = 0;  // the best launch's rate; 0: not measured, `why` says why
  std::string why;
  int blocks = 0, threadsPerBlock = 0;  // the launch measured (a wave: SMs x blocks an SM allows)
};

// The FP32 FMA rate. Without a device: 0 and why. Throws CudaError when CUDA fails.
PeakRate measureFp32Peak(int runs = 5);
// The mma.sync m16n8k16 FP16 -> FP32 rate. Without a device, or before compute capability 8.0
// (no m16n8k16 FP16 mma there): 0 and why. Throws CudaError when CUDA fails.
PeakRate measureMatrixPeak(int runs = 5);

// What each measures, in a line (the panel's tooltips, the report).
const char* fp32PeakMethod();
const char* matrixPeakMethod();

// Bumped whenever the kernels change what they measure: cached figures of another version are
// measured again.
constexpr int kPeakKernelsVersion = 1;

// FP32 lanes an SM has (FMAs a clock): 64 on 7.x and 8.0, 128 on 8.6, 8.9 and 9.0 and later.
int fp32LanesPerSm(int major, int minor);
// The theoretical FP32 rate: SMs x clock x lanes x 2, in GFLOP/s (0 when a figure is missing).
double theoreticalFp32GFlops(int multiprocessors, int clockKHz, int major, int minor);

// The kernels' entry points (kernels/peaks.cu), for peaks.cpp. One checked launch on `stream`;
// each thread writes one float that depends on its whole loop to out[blockIdx.x * blockDim.x +
// threadIdx.x], so no work can be optimised away (out: grid x block floats of device memory).
namespace peak_kernels {
constexpr int kFmaChains = 8;   // independent FMA chains a thread
constexpr int kFmaUnroll = 32;  // FMAs of each chain an iteration: loop overhead below 1%
constexpr int kMmaChains = 8;   // independent accumulators a warp
constexpr int kBlock = 256;     // threads a block, both kernels
constexpr int kFmaIterations = 256;
constexpr int kMmaIterations = 512;
// FLOPs one thread (FMA) or one warp (mma) does in a launch of `iterations`.
constexpr double fmaFlopsPerThread(int iterations) { return 2.0 * kFmaChains * kFmaUnroll * iterations; }
constexpr double mmaFlopsPerWarp(int iterations) { return 4096.0 * kMmaChains * iterations; }

void launchFmaLoop(int grid, int iterations, float* out, cudaStream_t stream);
void launchMmaLoop(int grid, int iterations, float* out, cudaStream_t stream);
// The __global__ functions, for the occupancy API.
const void* fmaLoopKernel();
const void* mmaLoopKernel();
}  // namespace peak_kernels

}  // namespace convlive
