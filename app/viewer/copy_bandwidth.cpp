#include "copy_bandwidth.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "convlive/atomic_file.hpp"
#include "convlive/peaks.hpp"
#include "convlive/resources.hpp"
#include "convlive/tuner.hpp"

namespace convlive {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kVersion = 1;

json readCache(const std::string& path) {
  std::ifstream in(path);
  if (!in) return json::object();
  try {
    json doc = json::parse(in);
    if (doc.is_object() && doc.value("version", 0) == kVersion && doc.contains("gpus") && doc["gpus"].is_object())
      return doc;
  } catch (const std::exception&) {
  }
  return json::object();  // unreadable or another version: measured again and rewritten
}

void writeCache(const std::string& path, const json& doc) {
  writeFileAtomically(path, doc.dump(1) + "\n");  // when it fails: kept for this run only
}

// A positive number stored under `key` in `entry`, else 0.
double positive(const json& entry, const char* key) {
  if (!entry.is_object() || !entry.contains(key) || !entry[key].is_number()) return 0;
  const double v = entry[key].get<double>();
  return v > 0 ? v : 0;
}

// measure(), or 0 when there is none or it throws.
double measured(const std::function<double()>& measure) {
  if (!measure) return 0;
  try {
    const double v = measure();
    return v > 0 ? v : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

DeviceRoofs cachedDeviceRoofs(const std::string& path, const std::string& gpu, const RoofMeasures& measure) {
  json doc = readCache(path);
  json entry = doc.contains("gpus") && doc["gpus"].contains(gpu) && doc["gpus"][gpu].is_object() ? doc["gpus"][gpu]
                                                                                                 : json::object();
  // Any value but the current version's number (another type included) means figures of other kernels.
  const bool samePeakKernels = entry.contains("peak_kernels") && entry["peak_kernels"].is_number_integer() &&
                               entry["peak_kernels"].get<long long>() == kPeakKernelsVersion;
  DeviceRoofs r;
  r.copyGBs = positive(entry, "copy_gbs");
  r.fp32GFlops = samePeakKernels ? positive(entry, "fp32_gflops") : 0;
  r.matrixGFlops = samePeakKernels ? positive(entry, "matrix_gflops") : 0;
  bool changed = false;
  const auto fill = [&](double& figure, const std::function<double()>& m, const char* key) {
    if (figure > 0 || !m) return;
    figure = measured(m);
    if (figure > 0) {
      entry[key] = figure;
      changed = true;
    }
  };
  fill(r.copyGBs, measure.copyGBs, "copy_gbs");
  fill(r.fp32GFlops, measure.fp32GFlops, "fp32_gflops");
  fill(r.matrixGFlops, measure.matrixGFlops, "matrix_gflops");
  if (!samePeakKernels && (r.fp32GFlops > 0 || r.matrixGFlops > 0)) {
    if (r.fp32GFlops <= 0) entry.erase("fp32_gflops");  // another kernel's figure: not kept beside ours
    if (r.matrixGFlops <= 0) entry.erase("matrix_gflops");
    entry["peak_kernels"] = kPeakKernelsVersion;
    changed = true;
  }
  if (r.copyGBs <= 0 || r.fp32GFlops <= 0)
    r.why = "not measured (the measurement failed)";
  else if (r.matrixGFlops <= 0)
    r.why = measure.whyMatrixUnknown ? measure.whyMatrixUnknown() : "the matrix peak was not measured";
  if (changed) {
    doc["version"] = kVersion;
    doc["gpus"][gpu] = entry;
    writeCache(path, doc);
  }
  return r;
}

double cachedCopyBandwidthGBs(const std::string& path, const std::string& gpu, const std::function<double()>& measure) {
  RoofMeasures m;
  m.copyGBs = measure;
  return cachedDeviceRoofs(path, gpu, m).copyGBs;
}

std::string deviceRoofsCachePath() {
  const fs::path tune(Tuner::defaultPath(deviceInfo().name));
  return (tune.parent_path() / "device-roofs.json").string();
}

std::string copyBandwidthCachePath() { return deviceRoofsCachePath(); }

const DeviceRoofs& deviceRoofs() {
  static const DeviceRoofs roofs = [] {
    const DeviceInfo& dev = deviceInfo();
    if (!dev.available) {
      DeviceRoofs none;
      none.why = "no CUDA device (" + dev.reason + ")";
      return none;
    }
    RoofMeasures m;
    m.copyGBs = [&] {
      // A quarter of the device's memory at most for the two buffers (a small GPU gets a smaller
      // probe); an allocation that fails anyway throws, which means "unknown".
      std::size_t bytes = std::size_t(256) << 20;
      if (dev.globalMemory > 0) bytes = std::min(bytes, dev.globalMemory / 8);
      try {
        return measureCopyBandwidthGBs(bytes);
      } catch (...) {
        cudaGetLastError();  // the failed allocation is not left for the next checked call to report
        throw;
      }
    };
    std::string matrixWhy;
    m.fp32GFlops = [] { return measureFp32Peak().gflops; };
    m.matrixGFlops = [&] {
      const PeakRate r = measureMatrixPeak();
      matrixWhy = r.why;
      return r.gflops;
    };
    m.whyMatrixUnknown = [&] {
      return matrixWhy.empty() ? std::string("the matrix peak was not measured") : matrixWhy;
    };
    return cachedDeviceRoofs(deviceRoofsCachePath(), dev.name, m);
  }();
  return roofs;
}

double deviceCopyBandwidthGBs() { return deviceRoofs().copyGBs; }

}  // namespace convlive
