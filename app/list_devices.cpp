#include "list_devices.hpp"

#include <cuda_runtime_api.h>
#include <gst/gst.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <vector>

#include "convlive/resources.hpp"
#include "exit_codes.hpp"

namespace convlive {
namespace {

// The decoders GStreamer's nvcodec plugin registered, by the CUDA device each decodes on (its
// elements' read-only cuda-device-id, GStreamer 1.22), as codec names ("h264", "vp9").
struct NvdecRegistry {
  bool known = false;  // nvcodec is there to ask
  std::string why;     // when not
  std::map<int, std::set<std::string>> codecs;
};

// "video/x-h264" -> "h264": the media type of the decoder's sink template.
std::string codecOf(GstElementFactory* factory) {
  for (const GList* t = gst_element_factory_get_static_pad_templates(factory); t; t = t->next) {
    auto* tmpl = static_cast<GstStaticPadTemplate*>(t->data);
    if (tmpl->direction != GST_PAD_SINK) continue;
    GstCaps* caps = gst_static_caps_get(&tmpl->static_caps);
    std::string name = caps && gst_caps_get_size(caps) ? gst_structure_get_name(gst_caps_get_structure(caps, 0)) : "";
    if (caps) gst_caps_unref(caps);
    for (const char* prefix : {"video/x-", "video/", "image/"})
      if (name.rfind(prefix, 0) == 0) return name.substr(std::strlen(prefix));
    return name;
  }
  return gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory));
}

NvdecRegistry nvdecRegistry() {
  NvdecRegistry r;
  GError* error = nullptr;
  if (!gst_init_check(nullptr, nullptr, &error)) {
    r.why = std::string("GStreamer did not start: ") + (error ? error->message : "unknown error");
    if (error) g_error_free(error);
    return r;
  }
  GstPlugin* plugin = gst_registry_find_plugin(gst_registry_get(), "nvcodec");
  if (!plugin) {
    r.why = "GStreamer's nvcodec plugin (gstreamer1.0-plugins-bad) is not installed";
    return r;
  }
  gst_object_unref(plugin);
  r.known = true;
  GList* features = gst_registry_get_feature_list_by_plugin(gst_registry_get(), "nvcodec");
  for (GList* f = features; f; f = f->next) {
    if (!GST_IS_ELEMENT_FACTORY(f->data)) continue;
    auto* factory = GST_ELEMENT_FACTORY(f->data);
    const char* klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
    if (!klass || !std::strstr(klass, "Decoder") || !std::strstr(klass, "Video")) continue;
    GstElement* element = gst_element_factory_create(factory, nullptr);
    if (!element) continue;
    gst_object_ref_sink(element);
    GParamSpec* p = g_object_class_find_property(G_OBJECT_GET_CLASS(element), "cuda-device-id");
    if (p && G_PARAM_SPEC_VALUE_TYPE(p) == G_TYPE_UINT) {
      guint device = 0;
      g_object_get(element, "cuda-device-id", &device, nullptr);
      r.codecs[int(device)].insert(codecOf(factory));
    } else if (p && G_PARAM_SPEC_VALUE_TYPE(p) == G_TYPE_INT) {
      gint device = 0;
      g_object_get(element, "cuda-device-id", &device, nullptr);
      r.codecs[device].insert(codecOf(factory));
    }
    gst_object_unref(element);
  }
  gst_plugin_feature_list_free(features);
  return r;
}

std::string nvdecWords(const NvdecRegistry& r, int device) {
  if (!r.known) return "unknown (" + r.why + ")";
  const auto it = r.codecs.find(device);
  if (it == r.codecs.end()) return "no (nvcodec registered no decoder on this device)";
  std::string s;
  for (const auto& c : it->second) s += (s.empty() ? "" : ", ") + c;
  return "yes (" + s + ")";
}

std::string gib(std::size_t bytes) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << double(bytes) / double(std::size_t(1) << 30) << " GiB";
  return o.str();
}

// "1 CUDA device (0: NVIDIA H200)": the survey in the words of DeviceScope's refusals.
std::string describe(const DeviceSurvey& s) {
  if (s.rows.empty()) return "no CUDA device (" + s.none + ")";
  std::string d = std::to_string(s.rows.size()) + (s.rows.size() == 1 ? " CUDA device (" : " CUDA devices (");
  for (std::size_t i = 0; i < s.rows.size(); ++i)
    d += (i ? ", " : "") + std::to_string(s.rows[i].index) + ": " + s.rows[i].name;
  return d + ")";
}

// The survey as lines of tab-separated fields, to cross from the child process.
std::string serialize(const DeviceSurvey& s) {
  const auto clean = [](std::string t) {
    for (char& c : t)
      if (c == '\t' || c == '\n') c = ' ';
    return t;
  };
  std::ostringstream o;
  if (s.rows.empty()) o << "none\t" << clean(s.none) << "\n";
  for (const DeviceRow& r : s.rows)
    o << "device\t" << r.index << "\t" << clean(r.name) << "\t" << r.memory << "\t" << r.major << "\t" << r.minor
      << "\t" << r.multiprocessors << "\n";
  return o.str();
}

bool parse(const std::string& text, DeviceSurvey& s) {
  std::istringstream in(text);
  bool any = false;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
    if (f.size() == 2 && f[0] == "none") {
      s.none = f[1];
      any = true;
    } else if (f.size() == 7 && f[0] == "device") {
      DeviceRow r;
      r.index = std::atoi(f[1].c_str());
      r.name = f[2];
      r.memory = std::size_t(std::strtoull(f[3].c_str(), nullptr, 10));
      r.major = std::atoi(f[4].c_str());
      r.minor = std::atoi(f[5].c_str());
      r.multiprocessors = std::atoi(f[6].c_str());
      s.rows.push_back(r);
      any = true;
    } else {
      return false;
    }
  }
  return any;
}

// The devices counted in a child process, so that this one's CUDA has not started when the
// command narrows CUDA_VISIBLE_DEVICES. False (with `why`) when the child could not tell.
bool surveyApart(DeviceSurvey& s, std::string& why) {
  int fds[2];
  if (::pipe(fds) != 0) {
    why = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    why = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (child == 0) {
    ::close(fds[0]);
    const std::string text = serialize(surveyDevices());
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += std::size_t(n);
    }
    ::_exit(done == text.size() ? 0 : 1);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, std::size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !parse(text, s)) {
    why = "the process that counts the CUDA devices failed";
    return false;
  }
  return true;
}

}  // namespace

DeviceSurvey surveyDevices() {
  DeviceSurvey s;
  const int n = deviceCount();
  if (n == 0) s.none = deviceInfo().reason;
  for (int i = 0; i < n; ++i) {
    const DeviceInfo& d = deviceInfo(i);
    s.rows.push_back({i, d.name, d.globalMemory, d.major, d.minor, d.multiprocessors});
  }
  return s;
}

int listDevicesCommand(std::ostream& out, std::ostream&) {
  const DeviceSurvey s = surveyDevices();
  if (s.rows.empty()) {
    out << "no CUDA device: " << s.none << "\n";
    return kOk;
  }
  const NvdecRegistry nvdec = nvdecRegistry();
  std::vector<std::vector<std::string>> table{{"device", "name", "memory", "compute", "SMs", "NVDEC"}};
  for (const DeviceRow& r : s.rows)
    table.push_back({std::to_string(r.index), r.name, gib(r.memory),
                     std::to_string(r.major) + "." + std::to_string(r.minor), std::to_string(r.multiprocessors),
                     nvdecWords(nvdec, r.index)});
  std::vector<std::size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : table) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += c + 1 < row.size() ? row[c] + std::string(width[c] - row[c].size() + 2, ' ') : row[c];
    out << line << "\n";
  }
  out << "\n--device N (view, run, export, image, tune, demo, list variants) filters on device N";
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) out << " (as CUDA_VISIBLE_DEVICES=" << v << " numbers them)";
  out << "\n";
  return kOk;
}

DeviceChoice chooseDevice(int device, const DeviceSurvey& survey, const char* visibleDevices) {
  DeviceChoice c;
  const std::string option = "--device " + std::to_string(device);
  if (device < 0) {
    c.error = option + ": a device index is 0 or more (`convlive list devices` lists them)";
    return c;
  }
  if (survey.rows.empty()) {
    if (device == 0)
      c.note = "note: " + option + ": there is no CUDA device here (" + survey.none + "); the CPU variant runs";
    else
      c.error = option + ": this machine has " + describe(survey) + "; leave --device out and the CPU variant runs";
    return c;
  }
  if (std::size_t(device) >= survey.rows.size()) {
    c.error = option + ": this machine has " + describe(survey) + "; `convlive list devices` lists them";
    return c;
  }
  // Device N of what this process sees: the Nth entry of a CUDA_VISIBLE_DEVICES already set.
  c.visible = std::to_string(device);
  if (visibleDevices && *visibleDevices) {
    std::vector<std::string> entries;
    std::istringstream in(visibleDevices);
    for (std::string e; std::getline(in, e, ',');) {
      const auto a = e.find_first_not_of(" \t"), b = e.find_last_not_of(" \t");
      entries.push_back(a == std::string::npos ? "" : e.substr(a, b - a + 1));
    }
    if (std::size_t(device) >= entries.size() || entries[std::size_t(device)].empty()) {
      c.error = option + ": CUDA_VISIBLE_DEVICES=" + visibleDevices + " does not name a device " +
                std::to_string(device) + "; `convlive list devices` lists the devices there are";
      c.visible.clear();
      return c;
    }
    c.visible = entries[std::size_t(device)];
  }
  return c;
}

int applyDeviceOption(int device, std::ostream& err) {
  DeviceSurvey survey;
  std::string why;
  if (device >= 0 && !surveyApart(survey, why)) {
    err << "convlive: --device " << device << ": cannot count the CUDA devices (" << why << ")\n";
    return kFailed;
  }
  const DeviceChoice c = chooseDevice(device, survey, std::getenv("CUDA_VISIBLE_DEVICES"));
  if (!c.error.empty()) {
    err << "convlive: " << c.error << "\n";
    return kBadInput;
  }
  if (!c.note.empty()) err << c.note << "\n";
  if (!c.visible.empty()) ::setenv("CUDA_VISIBLE_DEVICES", c.visible.c_str(), 1);
  return -1;
}

}  // namespace convlive
