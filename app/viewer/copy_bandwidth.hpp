// The device's copy bandwidth (what the panel's "% of the copy bandwidth" is measured against),
// measured once per GPU and kept in a small JSON file beside auto's tuning cache
// (copy-bandwidth.json in the folder of Tuner::defaultPath), so a viewer start does not copy
// 2 x 256 MB every time. Called once at viewer start, on the render thread.
#pragma once

#include <functional>
#include <string>

namespace convlive {

// The cached figure for `gpu` in the file at `path`, else `measure()`'s, stored when it is above 0
// (the file is written whole: a temporary file renamed over it, other GPUs' entries kept). A
// measure that throws (out of device memory on a small GPU, any CUDA error) gives 0, "unknown",
// and is not stored. Never throws.
double cachedCopyBandwidthGBs(const std::string& path, const std::string& gpu, const std::function<double()>& measure);

// The file beside the tuning cache for this machine's GPU.
std::string copyBandwidthCachePath();

// For this machine's GPU: 0 without a device.
double deviceCopyBandwidthGBs();

}  // namespace convlive
