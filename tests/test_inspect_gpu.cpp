// The inspector's launch figures on a GPU (label gpu; each test skips with the reason without a
// CUDA device): the runtime figures against the CUDA runtime's own answers (cudaFuncGetAttributes,
// the occupancy API), the occupancy arithmetic against the occupancy API, and every described
// launch against the launch the variant really makes (captured into a CUDA graph).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/inspect.hpp"
#include "convlive/resources.hpp"
#include "convlive/variants.hpp"
#include "filter_cases.hpp"
#include "kernels/schedules.hpp"

namespace convlive {
namespace {

using testcases::paramsFor;

#define CL_SKIP_WITHOUT_DEVICE() \
  if (!deviceInfo().available) GTEST_SKIP() << "no CUDA device here (" << deviceInfo().reason << ")"

struct Case {
  const Variant* variant;
  FilterParams params;
  int width, height;
  std::string str() const {
    return variant->name + " " + variant->tileFor(params).str() + " r=" + std::to_string(params.filter.mask.radius()) +
           " " + (params.filter.combine == Combine::Magnitude ? "magnitude " : "") + std::to_string(width) + "x" +
           std::to_string(height) + (params.filterAlpha ? " alpha" : "");
  }
};

// Every GPU variant and tile, for a few filters and frames, where it can run.
std::vector<Case> cases() {
  std::vector<Case> all;
  for (const Variant& v : variants()) {
    if (!v.onGpu) continue;
    for (const Tile& t : v.tiles)
      for (const auto& [kind, r] :
           {std::pair<const char*, int>{"gaussian", 2}, {"gaussian", 9}, {"gaussian", 20}, {"sobel", 1}})
        for (const auto& [w, h] : {std::pair{1920, 1080}, std::pair{333, 77}})
          for (bool alpha : {false, true}) {
            Case c{&v, paramsFor(kind, r, t, alpha), w, h};
            if (!v.whyNot(c.params, w, h)) all.push_back(c);
          }
  }
  return all;
}

TEST(InspectGpu, RuntimeFiguresAreTheRuntimesAnswers) {
  CL_SKIP_WITHOUT_DEVICE();
  int checked = 0;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.str());
    const VariantInspection in = inspectVariant(*c.variant, c.params, c.width, c.height);
    ASSERT_FALSE(in.why) << in.why.text();
    ASSERT_EQ(in.resources.size(), in.launch.passes.size());
    for (std::size_t i = 0; i < in.launch.passes.size(); ++i) {
      const PassLaunch& pass = in.launch.passes[i];
      const PassResources& r = in.resources[i];
      SCOPED_TRACE(pass.kernel);
      ASSERT_TRUE(r.available) << r.why;
      cudaFuncAttributes a{};
      CL_CUDA(cudaFuncGetAttributes(&a, pass.kernelFunction));
      EXPECT_EQ(r.registers, a.numRegs);
      EXPECT_EQ(r.staticShared, a.sharedSizeBytes);
      EXPECT_EQ(pass.staticShared, a.sharedSizeBytes) << "the source's figure for the kernel's __shared__ arrays";
      EXPECT_LE(pass.threadsPerBlock, a.maxThreadsPerBlock);
      int blocks = 0;
      CL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, pass.kernelFunction, pass.threadsPerBlock,
                                                            pass.dynamicShared));
      EXPECT_EQ(r.blocksPerSm, blocks);
      EXPECT_GT(blocks, 0) << "the launch would not fit an SM";
      EXPECT_EQ(r.limits.min(), blocks) << "registers " << r.limits.registers << ", shared " << r.limits.shared
                                        << ", threads " << r.limits.threads << ", blocks " << r.limits.blocks;
      EXPECT_FALSE(r.limiter.empty());
      EXPECT_GT(r.occupancy, 0);
      EXPECT_LE(r.occupancy, 1);
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
}

// The kernel launches one run makes, captured into a graph.
struct CapturedLaunch {
  const void* function;
  Dims grid, block;
  std::size_t dynamicShared;
};

std::vector<CapturedLaunch> captureRun(const Case& c, const DeviceImage& in, DeviceImage& out, Workspace& ws,
                                       const Stream& s) {
  c.variant->run(c.params, in.view(), out.view(), ws, s.get());  // allocations and attributes first
  s.synchronize();
  cudaGraph_t graph = nullptr;
  CL_CUDA(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeRelaxed));
  c.variant->run(c.params, in.view(), out.view(), ws, s.get());
  CL_CUDA(cudaStreamEndCapture(s.get(), &graph));
  std::size_t count = 0;
  CL_CUDA(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CL_CUDA(cudaGraphGetNodes(graph, nodes.data(), &count));
  std::vector<CapturedLaunch> launches;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    CL_CUDA(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeKernel) continue;
    cudaKernelNodeParams k{};
    // A launch from another runtime (cuFFT's, inside fft) may not be readable here: kept, unnamed.
    if (cudaGraphKernelNodeGetParams(node, &k) != cudaSuccess) {
      (void)cudaGetLastError();
      launches.push_back({nullptr, {}, {}, 0});
      continue;
    }
    launches.push_back({k.func,
                        {int(k.gridDim.x), int(k.gridDim.y), int(k.gridDim.z)},
                        {int(k.blockDim.x), int(k.blockDim.y), int(k.blockDim.z)},
                        k.sharedMemBytes});
  }
  CL_CUDA(cudaGraphDestroy(graph));
  return launches;
}

TEST(InspectGpu, DescribedLaunchesAreTheLaunchesMade) {
  CL_SKIP_WITHOUT_DEVICE();
  const Stream s;
  int checked = 0;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.str());
    DeviceImage in(c.width, c.height), out(c.width, c.height);
    Workspace ws;
    const std::vector<CapturedLaunch> made = captureRun(c, in, out, ws, s);
    const LaunchDescription d = c.variant->describeLaunch(c.params, c.width, c.height);
    ASSERT_EQ(made.size(), d.passes.size());
    for (std::size_t i = 0; i < made.size(); ++i) {
      const PassLaunch& pass = d.passes[i];
      SCOPED_TRACE(pass.kernel);
      EXPECT_EQ(made[i].function, pass.kernelFunction);
      EXPECT_EQ(made[i].grid, pass.grid) << made[i].grid.str() << " launched, " << pass.grid.str() << " described";
      EXPECT_EQ(made[i].block, pass.block) << made[i].block.str() << " launched, " << pass.block.str() << " described";
      EXPECT_EQ(made[i].dynamicShared, pass.dynamicShared);
      const int columns = (c.width + pass.outputTile.x - 1) / std::max(1, pass.outputTile.x);
      const int segments = (c.height + pass.outputTile.y - 1) / std::max(1, pass.outputTile.y);
      // tensorstream: entries x segments, an edge column up to eight entries (an eighth of the tile
      // where the grid is one round; four past it: schedules.hpp).
      if (c.variant->name == "tensorstream") {
        EXPECT_EQ(made[i].grid.y, segments);
        EXPECT_GE(made[i].grid.x, columns);
        EXPECT_LE(made[i].grid.x, columns * 8);
      } else if (c.variant->name != "stream") {  // the tiles the overlay draws cover the frame, a block each
        EXPECT_EQ(made[i].grid.x, columns);
        EXPECT_EQ(made[i].grid.y, segments);
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 50);
}

// fft's own kernels (pad, product, pack) are among the launches one run makes, as described, and
// the runtime answers for each; cuFFT's transforms between them are its own (named, not described).
TEST(InspectGpu, FftKernelsAreTheLaunchesMade) {
  CL_SKIP_WITHOUT_DEVICE();
  const Variant& v = *findVariant("fft");
  const FilterParams p = paramsFor("gaussian", 9, {}, true);
  if (const std::string why = v.whyNot(p, 333, 77).text(); !why.empty()) GTEST_SKIP() << why;
  const Stream s;
  DeviceImage in(333, 77), out(333, 77);
  Workspace ws;
  const std::vector<CapturedLaunch> made = captureRun({&v, p, 333, 77}, in, out, ws, s);
  const LaunchDescription d = v.describeLaunch(p, 333, 77);
  const VariantInspection inspection = inspectVariant(v, p, 333, 77);
  int own = 0;
  for (std::size_t i = 0; i < d.passes.size(); ++i) {
    const PassLaunch& pass = d.passes[i];
    SCOPED_TRACE(pass.kernel);
    if (!pass.kernelFunction) {
      EXPECT_FALSE(inspection.resources[i].available);
      continue;
    }
    EXPECT_TRUE(inspection.resources[i].available) << inspection.resources[i].why;
    const auto it = std::find_if(made.begin(), made.end(),
                                 [&](const CapturedLaunch& c) { return c.function == pass.kernelFunction; });
    ASSERT_NE(it, made.end());
    EXPECT_EQ(it->grid, pass.grid);
    EXPECT_EQ(it->block, pass.block);
    ++own;
  }
  EXPECT_EQ(own, 3);
  EXPECT_GT(made.size(), 3u) << "cuFFT's transforms are launches too";
}

TEST(InspectGpu, GpuVariantsAreTimed) {
  CL_SKIP_WITHOUT_DEVICE();
  TimingFrame frame(1280, 720);
  for (const Variant& v : variants()) {
    if (!v.onGpu) continue;
    SCOPED_TRACE(v.name);
    const FilterParams p = paramsFor("gaussian", 2, {});
    const Timing t = timeVariant(v, p, frame, 10);
    if (v.whyNot(p, 1280, 720)) {
      EXPECT_FALSE(t.measured);
      continue;
    }
    EXPECT_TRUE(t.measured);
    EXPECT_EQ(t.runs, 10);
    EXPECT_GT(t.ms, 0);
    EXPECT_LT(t.ms, 100);
  }
}

}  // namespace
}  // namespace convlive
