// What a variant launches and what it does per output pixel: the figures each variant computes
// next to its kernel (kernels/launch.hpp), read through convlive/inspect.hpp. C++17 and light: the
// kernels' .cu files include it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace convlive {

struct Dims {
  int x = 1, y = 1, z = 1;
  bool operator==(const Dims& o) const { return x == o.x && y == o.y && z == o.z; }
  long long count() const { return static_cast<long long>(x) * y * z; }
  std::string str() const;  // "60x90" (z only when it is not 1)
};

// One kernel launch of a variant (a separable variant has a row and a column pass; the others one),
// as its launch code computes it for a frame. Pure arithmetic: known without a device, except
// where `note` says the grid depends on the device (persistent kernels sized to what it holds).
struct PassLaunch {
  std::string pass;    // "row pass", "column pass"; "" when the variant has one launch
  std::string kernel;  // the kernel instance: "tiledKernel<32, 8>"
  Dims grid, block;
  int threadsPerBlock = 0;
  // Output values a thread makes (pixels; the row pass: intermediate values), in an interior block
  // (persistent kernels: the frame's pixels over the threads launched).
  double outputsPerThread = 0;
  // The frame area a block covers (stream: a warp's work unit, as its blocks are persistent): it
  // makes an outputTile of pixels (row pass: of intermediate values); tiles step by outputTile
  // from (0, 0). It reads the inputTile, whose top-left corner lies inputOffset from the output
  // tile's (negative: the apron above and to the left). Zero-sized ({0, 0, 0}) for a pass that
  // covers no frame area (fft's transforms and its product of spectra): nothing to draw.
  Dims outputTile, inputTile;
  int inputOffsetX = 0, inputOffsetY = 0;
  std::size_t staticShared = 0;   // bytes per block the kernel declares (__shared__ arrays)
  std::size_t dynamicShared = 0;  // bytes per block the launch asks for
  // The __global__ function (its host stub), for cudaFuncGetAttributes and the occupancy API.
  const void* kernelFunction = nullptr;
  std::string note;  // what the geometry assumes, when it assumes something
};

// Every launch of one filter on one frame; `passes` empty when the variant launches no kernel
// (the CPU variants), and `none` says so.
struct LaunchDescription {
  std::vector<PassLaunch> passes;
  std::string none;
};

// What a variant does per output pixel, counted from its own geometry for an interior tile (the
// frame's edge blocks aside). A pixel is RGBA8 (4 bytes, 4 channels).
struct WorkModel {
  double globalReads = 0;          // reads of input pixels (and intermediate values) from global memory
  double globalBytes = 0;          // the bytes of those reads (and of naive's weights)
  double sharedBytes = 0;          // bytes read from shared memory
  double apron = 1;                // input values staged per value made, the mean over the passes (1: none)
  double idleThreads = 0;          // share of the threads' compute slots that make no output (0..1)
  double flops = 0;                // FP32 FLOPs, a multiply-add counted as 2 (rounding and packing not counted)
  double matrixFlops = 0;          // tensor-core FLOPs executed (mma.sync m16n8k16: 4096 each)
  double matrixUseful = 0;         // the part of matrixFlops on the band's non-zero weights
  double dramBytes = 0;            // DRAM bytes assumed: each input read once and each output written once,
                                   // plus intermediate planes that go through DRAM
  std::vector<std::string> notes;  // what the counts assume

  double totalFlops() const { return flops + matrixFlops; }
  // FLOP per DRAM byte (what the roofline plots): executed FLOPs, the band's zeros included.
  double intensity() const { return dramBytes > 0 ? totalFlops() / dramBytes : 0; }
  // The share of matrixFlops spent on the zeros of the Toeplitz band (0 without matrix work).
  double matrixWaste() const { return matrixFlops > 0 ? 1 - matrixUseful / matrixFlops : 0; }
};

}  // namespace convlive
