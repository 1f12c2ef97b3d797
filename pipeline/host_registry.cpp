#include "host_registry.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <mutex>
#include <unordered_map>

namespace convlive {
namespace {

// Below this, copying into a pinned slot costs less than registering (and small blocks may share
// pages with other allocations, which cudaHostRegister refuses).
constexpr gsize kMinBytes = 1 << 20;

struct Registry {
  std::mutex mutex;
  std::unordered_map<GstMemory*, bool> known;  // memory -> registered (false: tried, refused)
};
Registry& registry() {
  static auto* r = new Registry;  // never destroyed: GStreamer may free memory during exit
  return *r;
}

struct Registration {
  GstMemory* mem;
  void* data;
  bool registered;
};

// Called by GStreamer when the memory block is finalised, before it is freed.
void onMemoryFreed(gpointer data, GstMiniObject*) {
  auto* reg = static_cast<Registration*>(data);
  if (reg->registered) {
    cudaHostUnregister(reg->data);
    cudaGetLastError();  // nothing to do about a failure here; keep it out of later checks
  }
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.known.erase(reg->mem);
  }
  delete reg;
}

}  // namespace

HostRegistration registerHostMemory(GstMemory* mem) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (auto it = r.known.find(mem); it != r.known.end()) return {it->second, false, 0};
  GstMapInfo map;
  if (!gst_memory_map(mem, &map, GST_MAP_READ)) return {};
  void* data = map.data;
  const gsize bytes = map.size;
  gst_memory_unmap(mem, &map);
  bool ok = false;
  const auto t0 = std::chrono::steady_clock::now();
  if (bytes >= kMinBytes) {
    // Default first: memory registered read-only cannot be written by a device, and a decoder
    // that downloads its frames into the pool (nvh264dec to system memory) then fails as soon as
    // a registered buffer comes round again. Read-only is the fallback for pages that refuse it.
    ok = cudaHostRegister(data, bytes, cudaHostRegisterDefault) == cudaSuccess ||
         cudaHostRegister(data, bytes, cudaHostRegisterReadOnly) == cudaSuccess;
    cudaGetLastError();  // a refusal is not an error: the caller copies instead
  }
  r.known.emplace(mem, ok);
  gst_mini_object_weak_ref(GST_MINI_OBJECT_CAST(mem), onMemoryFreed, new Registration{mem, data, ok});
  return {ok, true, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()};
}

}  // namespace convlive
