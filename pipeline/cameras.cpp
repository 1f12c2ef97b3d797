// Device listing: the V4L2 cameras GStreamer's device monitor reports, and the device nodes.
#include "cameras.hpp"

#include <gst/gst.h>

#include <algorithm>
#include <filesystem>

#include "convlive/source.hpp"
#include "gst_ptr.hpp"
#include "source_messages.hpp"

namespace convlive {
namespace {

namespace fs = std::filesystem;

struct DeviceMonitorUnref {
  void operator()(GstDeviceMonitor* m) const {
    if (m) gst_object_unref(m);
  }
};

bool isVideoNode(const std::string& path) { return path.rfind("/dev/video", 0) == 0; }

void addFromMonitor(std::vector<CameraInfo>& out) {
  std::unique_ptr<GstDeviceMonitor, DeviceMonitorUnref> monitor(gst_device_monitor_new());
  if (!monitor) return;
  if (gst_device_monitor_add_filter(monitor.get(), "Video/Source", nullptr) == 0) return;
  if (!gst_device_monitor_start(monitor.get())) return;
  GList* devices = gst_device_monitor_get_devices(monitor.get());
  for (GList* d = devices; d; d = d->next) {
    GstDevice* dev = GST_DEVICE(d->data);
    gst::CharPtr name(gst_device_get_display_name(dev));
    std::string path;
    if (GstStructure* props = gst_device_get_properties(dev)) {
      for (const char* key : {"device.path", "api.v4l2.path", "object.path"})
        if (const gchar* v = gst_structure_get_string(props, key); v && path.empty()) path = v;
      gst_structure_free(props);
    }
    if (isVideoNode(path)) out.push_back({path, gst::str(name.get())});
  }
  g_list_free_full(devices, gst_object_unref);
  gst_device_monitor_stop(monitor.get());
}

}  // namespace

std::vector<CameraInfo> listCameras() {
  initGStreamer();
  std::vector<CameraInfo> out;
  addFromMonitor(out);
  // Without a device provider (or when it found nothing), fall back on the device nodes.
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev", ec)) {
    const std::string p = e.path().string();
    if (isVideoNode(p) && std::none_of(out.begin(), out.end(), [&](const CameraInfo& c) { return c.device == p; }))
      out.push_back({p, "V4L2 device"});
  }
  std::sort(out.begin(), out.end(), [](const CameraInfo& a, const CameraInfo& b) { return a.device < b.device; });
  return out;
}

std::string resolveCameraDevice(const std::string& requested) {
  const auto cams = listCameras();
  if (requested.empty()) {
    if (cams.empty())
      throw SourceError(
          "no camera found: no V4L2 device (/dev/video*) is present; plug one in, or choose a test pattern or an "
          "input file");
    return cams.front().device;
  }
  std::error_code ec;
  if (!fs::exists(requested, ec)) {
    std::string present;
    for (const auto& c : cams) present += (present.empty() ? "" : ", ") + c.device;
    throw SourceError("camera " + quoted(requested) +
                      " does not exist (cameras present: " + (present.empty() ? "none" : present) + "): " +
                      (present.empty() ? "plug one in, or choose a test pattern or an input file"
                                       : "choose one of the cameras present"));
  }
  return requested;
}

}  // namespace convlive
