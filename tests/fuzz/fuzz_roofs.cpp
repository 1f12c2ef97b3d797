// The device roofs cache's JSON reader (app/viewer/copy_bandwidth.cpp): any file gives figures
// that are 0 or positive (nothing is measured: no measures are given), and never throws.
#include "copy_bandwidth.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = convlive::fuzz::scratchFile(convlive::fuzz::bytesOf(data, size), "-roofs.json");
  const convlive::DeviceRoofs r = convlive::cachedDeviceRoofs(path, "Fuzz GPU", {});
  if (!(r.copyGBs >= 0 && r.fp32GFlops >= 0 && r.matrixGFlops >= 0)) __builtin_trap();
  return 0;
}
