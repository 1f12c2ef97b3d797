// A C++ program that uses the installed convlive package and nothing else of this repository: a
// gaussian blur of one RGBA8 frame through a convlive::Plan, checked against the CPU reference.
// With a CUDA device the frame is in device memory and filtered on a stream of ours; without one,
// in host memory by the CPU variant the plan falls back to. `--device`: exit 77 (skipped) without a
// device. Built against an installed tree by run-consumer.sh (find_package and pkg-config).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "convlive/check.hpp"
#include "convlive/plan.hpp"
#include "convlive/reference.hpp"
#include "convlive/resources.hpp"
#include "convlive/version.hpp"

int main(int argc, char** argv) {
  const bool deviceOnly = argc > 1 && std::string(argv[1]) == "--device";
  const convlive::DeviceInfo& gpu = convlive::deviceInfo();
  if (deviceOnly && !gpu.available) {
    std::printf("skipped: no CUDA device (%s)\n", gpu.reason.c_str());
    return 77;
  }
  const int w = 640, h = 360;
  convlive::HostImage in(w, h), out(w, h), expected(w, h);
  for (std::size_t i = 0; i < in.pixels().size(); ++i) in.pixels()[i] = std::uint8_t((i * 7919 + i / 2560) % 251);

  convlive::FilterSpec spec;  // a gaussian; variant auto
  spec.set("radius", "4");
  const auto image = convlive::ImageDesc::rgba8(w, h);
  std::string where;
  try {
    if (gpu.available) {  // device memory, our stream: run() only launches
      convlive::Plan plan = convlive::Plan::make(spec, image, {.memory = convlive::Memory::Device});
      void *dIn = nullptr, *dOut = nullptr;
      cudaStream_t stream = nullptr;
      CL_CUDA(cudaMalloc(&dIn, image.span()));
      CL_CUDA(cudaMalloc(&dOut, image.span()));
      CL_CUDA(cudaStreamCreate(&stream));
      CL_CUDA(cudaMemcpyAsync(dIn, in.pixels().data(), image.span(), cudaMemcpyHostToDevice, stream));
      plan.run(dIn, dOut, stream);
      CL_CUDA(cudaMemcpyAsync(out.pixels().data(), dOut, image.span(), cudaMemcpyDeviceToHost, stream));
      CL_CUDA(cudaStreamSynchronize(stream));
      CL_CUDA(cudaStreamDestroy(stream));
      CL_CUDA(cudaFree(dIn));
      CL_CUDA(cudaFree(dOut));
      where = plan.describe() + ", device memory on " + gpu.name;
    } else {  // host memory: the plan runs a CPU variant and says so in note()
      convlive::Plan plan = convlive::Plan::make(spec, image, {.memory = convlive::Memory::Host});
      plan.run(in.view(), out.view());
      where = plan.describe() + ", host memory: " + plan.note();
    }
  } catch (const convlive::ProblemError& e) {
    std::fprintf(stderr, "consumer: cannot filter: %s\n", e.problem().text().c_str());
    return 1;
  } catch (const convlive::CudaError& e) {
    std::fprintf(stderr, "consumer: CUDA failed: %s\n", e.what());
    return 1;
  }

  convlive::referenceFilter(spec.params().filter, spec.border, spec.filterAlpha, in.view(), expected.view());
  int worst = 0;
  for (std::size_t i = 0; i < out.pixels().size(); ++i)
    worst = std::max(worst, std::abs(int(out.pixels()[i]) - int(expected.pixels()[i])));
  const bool ok = worst <= 1;
  std::printf("convlive %s consumer: %s; largest difference from the CPU reference %d LSB: %s\n",
              CONVLIVE_VERSION_STRING, where.c_str(), worst, ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
