// The device's roofs: its copy bandwidth (what the panel's "% of the copy bandwidth" and the
// roofline's slope are measured against) and its FP32 and matrix peaks (the roofline's flat roofs,
// convlive/peaks.hpp), measured once per GPU and kept in a small JSON file beside auto's tuning
// cache (device-roofs.json in the folder of Tuner::defaultPath), so a viewer start does not copy
// 2 x 256 MB and run the peak kernels every time. Measured on the first call, which the viewer
// makes at its start on the render thread; later calls return the same figures.
#pragma once

#include <functional>
#include <string>

namespace convlive {

struct DeviceRoofs {
  double copyGBs = 0;       // device-to-device copy, bytes read + written per second; 0: unknown
  double fp32GFlops = 0;    // the FP32 FMA loop's rate; 0: unknown
  double matrixGFlops = 0;  // mma.sync m16n8k16 FP16 -> FP32; 0: unknown (no device, or before 8.0)
  std::string why;          // why a figure is unknown ("" when all are known)
};

// How each figure is measured (tests inject their own). A measure may throw: that figure is unknown.
struct RoofMeasures {
  std::function<double()> copyGBs, fp32GFlops, matrixGFlops;
  std::function<std::string()> whyMatrixUnknown;  // optional: why the matrix measure gave 0
};

// The figures for `gpu` cached in the file at `path`; each one missing (or cached by other peak
// kernels: kPeakKernelsVersion) is measured and stored when above 0 (the file is written whole: a
// temporary file renamed over it, other GPUs' entries kept). A measure that throws (out of device
// memory on a small GPU, any CUDA error) gives 0, "unknown", and is not stored. Never throws.
DeviceRoofs cachedDeviceRoofs(const std::string& path, const std::string& gpu, const RoofMeasures& measure);
// The copy figure alone, through the same file (the other figures in it are kept).
double cachedCopyBandwidthGBs(const std::string& path, const std::string& gpu, const std::function<double()>& measure);

// The file beside the tuning cache for this machine's GPU.
std::string deviceRoofsCachePath();
std::string copyBandwidthCachePath();  // the same file

// For this machine's GPU, measured (or read from the cache) on the first call: all 0 without a
// device, and `why` says so. Thread-safe (the first call measures; the others wait for it).
const DeviceRoofs& deviceRoofs();
// deviceRoofs().copyGBs.
double deviceCopyBandwidthGBs();

}  // namespace convlive
