#include "copy_bandwidth.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "convlive/atomic_file.hpp"
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

}  // namespace

double cachedCopyBandwidthGBs(const std::string& path, const std::string& gpu, const std::function<double()>& measure) {
  json doc = readCache(path);
  if (doc.contains("gpus") && doc["gpus"].contains(gpu)) {
    const json& e = doc["gpus"][gpu];
    if (e.is_object() && e.contains("copy_gbs") && e["copy_gbs"].is_number() && e["copy_gbs"].get<double>() > 0)
      return e["copy_gbs"].get<double>();
  }
  double gbs = 0;
  try {
    gbs = measure();
  } catch (const std::exception&) {
    gbs = 0;
  }
  if (!(gbs > 0)) return 0;
  doc["version"] = kVersion;
  doc["gpus"][gpu] = json{{"copy_gbs", gbs}};
  writeCache(path, doc);
  return gbs;
}

std::string copyBandwidthCachePath() {
  const fs::path tune(Tuner::defaultPath(deviceInfo().name));
  return (tune.parent_path() / "copy-bandwidth.json").string();
}

double deviceCopyBandwidthGBs() {
  const DeviceInfo& dev = deviceInfo();
  if (!dev.available) return 0;
  return cachedCopyBandwidthGBs(copyBandwidthCachePath(), dev.name, [&] {
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
  });
}

}  // namespace convlive
