#include "convlive/peaks.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "convlive/check.hpp"
#include "convlive/resources.hpp"

namespace convlive {
namespace {

using namespace peak_kernels;

constexpr int kWarmups = 3;  // the first loads the module; the others bring the clocks up

// One full wave: every SM holds as many blocks as the kernel's resources allow.
int waveBlocks(const void* kernel) {
  int perSm = 0;
  CL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kBlock, 0));
  return deviceInfo().multiprocessors * std::max(perSm, 1);
}

// The shortest of `runs` launches (after the warm-ups), in milliseconds, each between two events.
double bestMs(const std::function<void(cudaStream_t)>& launch, int runs) {
  Stream stream;
  Event start, stop;
  for (int i = 0; i < kWarmups; ++i) launch(stream.get());
  stream.synchronize();
  double best = 0;
  for (int i = 0; i < std::max(1, runs); ++i) {
    start.record(stream.get());
    launch(stream.get());
    stop.record(stream.get());
    stop.synchronize();
    const double ms = stop.elapsedSince(start);
    if (ms > 0 && (best == 0 || ms < best)) best = ms;
  }
  return best;
}

PeakRate measure(const void* kernel, double flopsPerBlock,
                 const std::function<void(int grid, float* out, cudaStream_t)>& launch, int runs) {
  PeakRate r;
  r.threadsPerBlock = kBlock;
  r.blocks = waveBlocks(kernel);
  DeviceBuffer out(std::size_t(r.blocks) * kBlock * sizeof(float));
  const double ms = bestMs([&](cudaStream_t s) { launch(r.blocks, out.as<float>(), s); }, runs);
  if (ms > 0)
    r.gflops = flopsPerBlock * r.blocks / (ms * 1e6);
  else
    r.why = "the timed launches took no measurable time";
  return r;
}

}  // namespace

const char* fp32PeakMethod() {
  return "FP32: a loop of 8 independent FMA chains a thread on every SM (one wave), 2 FLOPs an FMA, best of 5";
}
const char* matrixPeakMethod() {
  return "matrix: mma.sync m16n8k16 FP16 in, FP32 sums (what the tensor variants issue; Hopper's wgmma goes "
         "faster), 8 accumulators a warp on every SM, best of 5";
}

PeakRate measureFp32Peak(int runs) {
  const DeviceInfo& d = deviceInfo();
  if (!d.available) return {0, "no CUDA device (" + d.reason + ")"};
  return measure(
      fmaLoopKernel(), fmaFlopsPerThread(kFmaIterations) * kBlock,
      [](int grid, float* out, cudaStream_t s) { launchFmaLoop(grid, kFmaIterations, out, s); }, runs);
}

PeakRate measureMatrixPeak(int runs) {
  const DeviceInfo& d = deviceInfo();
  if (!d.available) return {0, "no CUDA device (" + d.reason + ")"};
  if (d.major < 8)
    return {0, "mma.sync m16n8k16 with FP16 needs compute capability 8.0 (this GPU is " + std::to_string(d.major) +
                   "." + std::to_string(d.minor) + ")"};
  return measure(
      mmaLoopKernel(), mmaFlopsPerWarp(kMmaIterations) * (kBlock / 32),
      [](int grid, float* out, cudaStream_t s) { launchMmaLoop(grid, kMmaIterations, out, s); }, runs);
}

int fp32LanesPerSm(int major, int minor) {
  if (major <= 0) return 0;
  if (major < 8 || (major == 8 && minor == 0)) return 64;
  return 128;
}

double theoreticalFp32GFlops(int multiprocessors, int clockKHz, int major, int minor) {
  return double(multiprocessors) * clockKHz * 1e-6 * fp32LanesPerSm(major, minor) * 2;
}

}  // namespace convlive
