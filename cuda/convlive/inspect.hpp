// The variant inspector's data: how a variant launches (grid, block, shared memory, the kernel) and
// what it does per output pixel (loads, apron, idle threads, FLOPs, DRAM bytes), each computed by
// the variant itself from the geometry its launch uses (the kernels' files: kernels/launch.hpp),
// so the figures cannot drift from what runs. The command line (`convlive list variants
// --details`), the panel's inspector and roofline, and the tests read them.
//
// The launch and work-model values themselves are in convlive/work_model.hpp (C++17, for the
// kernels). Plain values; any thread may compute them. The functions that ask the CUDA runtime
// (passResources, inspectVariant, timeVariant) say so.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "convlive/image.hpp"
#include "convlive/problem.hpp"
#include "convlive/tile.hpp"
#include "convlive/work_model.hpp"

namespace convlive {

struct Variant;
struct FilterParams;

// Blocks per SM each resource allows, for one kernel on one device (the CUDA occupancy rules).
struct OccupancyLimits {
  int registers = 0, shared = 0, threads = 0, blocks = 0;
  int min() const;
  // The resources whose limit is min(): "registers", "shared memory", "threads", "blocks per SM"
  // (ties joined by " and ").
  std::string limiter() const;
};

// What a device gives an SM and a block (cudaDeviceProp, cudaDevAttrReservedSharedMemoryPerBlock).
struct SmResources {
  int maxThreadsPerSm = 0, maxBlocksPerSm = 0;
  int registersPerSm = 0, registersPerBlock = 0;
  std::size_t sharedPerSm = 0, sharedPerBlockOptin = 0, reservedSharedPerBlock = 0;
  int registerAllocationUnit = 256;  // registers per warp are allocated in these
  int registerSubPartitions = 4;     // an SM's register file is split among these
  int sharedAllocationUnit = 128;    // bytes
};
// Pure arithmetic (testable anywhere): the limit of each resource for blocks of `threads`
// threads using `registers` registers a thread and `shared` bytes of shared memory (static +
// dynamic) a block.
OccupancyLimits occupancyLimits(const SmResources& sm, int threads, int registers, std::size_t shared);
// This device's figures (empty without a device). Queried once.
const SmResources& deviceSmResources();

// A pass's figures from the CUDA runtime: cudaFuncGetAttributes and the occupancy API.
struct PassResources {
  bool available = false;  // false: `why` says why (no device; a CPU variant)
  std::string why;
  int registers = 0;             // per thread
  std::size_t staticShared = 0;  // bytes per block, as compiled
  std::size_t localBytes = 0;    // per thread (spills and local arrays)
  int blocksPerSm = 0;           // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  double occupancy = 0;          // resident warps over the SM's maximum (0..1)
  OccupancyLimits limits;        // blocks per SM each resource allows
  std::string limiter;           // limits.limiter()
};
// Asks the runtime about pass.kernelFunction (without a device: available = false, "needs a CUDA
// device: ..."). Sets the kernel's dynamic shared memory attribute where the pass needs over
// 48 KiB, as its launch does. Throws CudaError when CUDA fails otherwise. Call from one thread at a
// time per kernel.
PassResources passResources(const PassLaunch& pass);

// What a measured time means against the work model: MPix/s, effective GB/s (dramBytes per pixel)
// and GFLOP/s (FP32 and matrix together).
struct Achieved {
  double mpixPerS = 0, gbPerS = 0, gflopPerS = 0;
};
Achieved achieved(const WorkModel& m, int width, int height, double ms);

// Everything the inspector shows for one variant, filter and frame size.
struct VariantInspection {
  const Variant* variant = nullptr;
  Tile tile{};  // the tile it runs with ({0,0}: it has none)
  // Why it cannot run (whyNot). A GPU variant on a machine without a device has a NoDevice problem
  // and still has its launch and work model (they are arithmetic); with any other problem, `launch`
  // and `model` are empty.
  Problem why;
  LaunchDescription launch;
  WorkModel model;
  std::vector<PassResources> resources;  // one per launch pass (available = false without a device)
  bool hasFigures() const { return !why || why.code == Problem::Code::NoDevice; }
};
// p on a width x height frame (p.tile where the variant offers it, else its default: one p serves
// every variant).
// Asks the runtime for the resources where there is a device. Throws CudaError when CUDA fails.
VariantInspection inspectVariant(const Variant& v, const FilterParams& p, int width, int height);
// The same for frames `image` describes (its type and channels; the launch and model of the kernel
// that filters them, as Variant::describeLaunch(p, image) gives it).
VariantInspection inspectVariant(const Variant& v, const FilterParams& p, const ImageDesc& image);
// Every variant of the table, in its order.
std::vector<VariantInspection> inspectVariants(const FilterParams& p, int width, int height);

// A random frame of one size, in host memory and (with a device) device memory, that variants are
// timed on. Made once, used for every variant; not thread-safe.
class TimingFrame {
 public:
  TimingFrame(int width, int height);
  ~TimingFrame();
  TimingFrame(TimingFrame&&) noexcept;
  TimingFrame& operator=(TimingFrame&&) noexcept;
  int width() const;
  int height() const;
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

struct Timing {
  bool measured = false;
  double ms = 0;  // the median
  int runs = 0;   // timed runs behind the median
  Problem why;    // not measured: why (whyNot's problem)
};
// The median time of v filtering the frame, after warm-up runs: GPU variants with CUDA events on a
// stream of their own (`runs` launches), CPU variants with the steady clock (fewer, as they are
// slower). A GPU variant without a device, or one that cannot run p: not measured, and why.
// Throws CudaError when CUDA fails.
Timing timeVariant(const Variant& v, const FilterParams& p, TimingFrame& frame, int runs = 20);

}  // namespace convlive
