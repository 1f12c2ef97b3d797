// The Python module `convlive`: the filter spec and every variant of the table on NumPy arrays (host
// memory) and, without a copy, on CUDA arrays (__cuda_array_interface__ or DLPack: CuPy, PyTorch,
// Numba). The keywords of filter() are the spec's settings (specSettings(), dashes as underscores),
// read from the table at every call, so the module cannot drift from the command line.
//
// Threads: filter() releases the GIL while it filters. Calls on one (device, stream) share its plans
// (convlive/plan.hpp) and are serialised on them; calls on different streams run side by side.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/plan.hpp"
#include "convlive/problem.hpp"
#include "convlive/resources.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"
#include "dlpack_abi.hpp"

#ifndef CONVLIVE_VERSION
#define CONVLIVE_VERSION "0+unknown"
#endif

namespace py = pybind11;

namespace convlive {
namespace {

// ---- Names and wording ------------------------------------------------------------------------

std::string keywordOf(std::string setting) {  // "filter-alpha" -> "filter_alpha"
  std::replace(setting.begin(), setting.end(), '-', '_');
  return setting;
}
std::string settingOf(std::string keyword) {  // "filter_alpha" -> "filter-alpha"
  std::replace(keyword.begin(), keyword.end(), '_', '-');
  return keyword;
}
std::string pythonSetting(const std::string& name) { return keywordOf(name); }
std::string pythonFix(const std::string& setting, const std::string& value) {
  return "use " + keywordOf(setting) + "='" + value + "'";
}
const Wording& pythonWording() {
  static const Wording w{pythonSetting, pythonFix};
  return w;
}
std::string forPython(const Problem& p) { return words(p, pythonWording()); }

std::string typeName(py::handle v) { return py::str(py::type::of(v).attr("__name__")); }

std::string keywordList() {
  std::string s;
  for (const Setting& x : specSettings()) {
    if (!s.empty()) s += ", ";
    s += keywordOf(x.name);
  }
  return s + ", out, stream";
}

// ---- Keyword values as the text FilterSpec::set reads ----------------------------------------

std::string numberText(double d) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest text that reads back as d
  return std::string(buf, r.ptr);
}

// A number, or a 1D / 2D array-like of numbers, as "a,b;c,d" (rows by ';', values by ',').
std::string gridText(const std::string& keyword, py::handle v, int maxDims) {
  py::array_t<double, py::array::c_style | py::array::forcecast> a;
  try {
    a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(v);
  } catch (const py::error_already_set&) {
  }
  if (!a) throw py::type_error(keyword + ": expected text or an array of numbers, got " + typeName(v));
  if (a.ndim() > maxDims)
    throw py::value_error(keyword + ": expected " + (maxDims == 1 ? "a 1D" : "a 1D or 2D") + " array of numbers, got " +
                          std::to_string(a.ndim()) + " dimensions");
  const py::ssize_t rows = a.ndim() == 2 ? a.shape(0) : 1;
  const py::ssize_t cols = a.ndim() == 0 ? 1 : a.shape(a.ndim() - 1);
  const double* d = a.data();
  std::string s;
  for (py::ssize_t i = 0; i < rows; ++i) {
    if (i) s += ';';
    for (py::ssize_t j = 0; j < cols; ++j) {
      if (j) s += ',';
      s += numberText(d[i * cols + j]);
    }
  }
  return s;
}

// The text for setting `s` from a Python value; nullopt for None (the setting keeps its default).
std::optional<std::string> settingText(const Setting& s, py::handle v) {
  const std::string kw = keywordOf(s.name);
  if (v.is_none()) return std::nullopt;
  const bool isBool = PyBool_Check(v.ptr()) || py::isinstance(v, py::module_::import("numpy").attr("bool_"));
  const bool isStr = py::isinstance<py::str>(v);
  switch (s.type) {
    case Setting::Type::Flag:
      if (!isBool) throw py::type_error(kw + ": expected True or False, got " + typeName(v));
      return py::bool_(py::reinterpret_borrow<py::object>(v)) ? "true" : "false";
    case Setting::Type::Int:
      if (isBool || !PyIndex_Check(v.ptr())) throw py::type_error(kw + ": expected an int, got " + typeName(v));
      return std::string(py::str(py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()))));
    case Setting::Type::Float:
      if (isStr && s.name == "sigma") return std::string(py::str(v));  // "auto"
      if (isBool || isStr || !PyNumber_Check(v.ptr()))
        throw py::type_error(kw + ": expected a number" + (s.name == "sigma" ? " or 'auto'" : "") + ", got " +
                             typeName(v));
      return numberText(py::float_(py::reinterpret_borrow<py::object>(v)));
    case Setting::Type::Choice:
      if (!isStr) throw py::type_error(kw + ": expected a str, got " + typeName(v));
      return std::string(py::str(v));
    case Setting::Type::Text:
      break;
  }
  if (isStr) return std::string(py::str(v));
  if (s.name == "tile") {
    if (py::isinstance<py::sequence>(v) && py::len(v) == 2) {
      py::sequence t = py::reinterpret_borrow<py::sequence>(v);
      if (PyIndex_Check(t[0].ptr()) && PyIndex_Check(t[1].ptr()))
        return std::string(py::str(t[0])) + "x" + std::string(py::str(t[1]));
    }
    throw py::type_error(kw + ": expected 'WxH' or a (width, height) pair of ints, got " + typeName(v));
  }
  if (s.name == "weights-file") {
    try {
      return std::string(py::str(py::module_::import("os").attr("fspath")(v)));
    } catch (const py::error_already_set&) {
      throw py::type_error(kw + ": expected a path (str or os.PathLike), got " + typeName(v));
    }
  }
  if (s.name == "weights") return gridText(kw, v, 2);
  if (s.name == "row-weights" || s.name == "col-weights") return gridText(kw, v, 1);
  throw py::type_error(kw + ": expected a str, got " + typeName(v));
}

// A spec from keywords; `ignored` names keywords that are not settings (out, stream).
FilterSpec specFrom(const py::kwargs& kw, std::initializer_list<const char*> ignored = {}) {
  for (auto item : kw) {
    const std::string key = py::str(item.first);
    if (std::find_if(ignored.begin(), ignored.end(), [&](const char* k) { return key == k; }) != ignored.end())
      continue;
    if (key.find('-') != std::string::npos || !findSetting(settingOf(key)))
      throw py::value_error("unknown keyword '" + key + "': use one of " + keywordList());
  }
  FilterSpec spec;
  for (const Setting& s : specSettings()) {  // the table's order: mask before what depends on it
    const std::string key = keywordOf(s.name);
    if (!kw.contains(key)) continue;
    const auto text = settingText(s, kw[key.c_str()]);
    if (!text) continue;
    if (Problem p = spec.set(s.name, *text)) throw py::value_error(forPython(p));
  }
  if (Problem p = spec.validate()) throw py::value_error(forPython(p));
  return spec;
}

// ---- Frames: the memory a Python object holds ------------------------------------------------

struct Frame {
  std::uintptr_t data = 0;
  int width = 0, height = 0;
  std::size_t pitch = 0;
  bool readonly = false;
  bool onDevice = false;
  int device = -1;
  std::optional<std::intptr_t> stream;  // CAI v3: work on this stream must finish before the data is used
  std::size_t span() const { return pitch * std::size_t(height - 1) + std::size_t(width) * 4; }
  ImageView view() const { return {reinterpret_cast<std::uint8_t*>(data), width, height, pitch}; }
};

std::string tupleText(const std::vector<std::int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + (v.size() == 1 ? ",)" : ")");
}

// Checks the layout convlive filters (uint8, height x width x 4, channels adjacent, pixels 4 bytes
// apart, rows a multiple of 4 bytes apart) and fills the frame's size; strides in bytes, nullopt
// when C-contiguous.
void checkLayout(Frame& f, const char* what, const std::vector<std::int64_t>& shape,
                 const std::optional<std::vector<std::int64_t>>& stridesIn, bool isUint8, const std::string& dtype) {
  std::vector<std::int64_t> strides;
  if (stridesIn) {
    strides = *stridesIn;
  } else {
    strides.assign(shape.size(), 1);
    for (int i = int(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  }
  const bool ok = shape.size() == 3 && shape[2] == 4 && isUint8 && shape[0] >= 1 && shape[1] >= 1 &&
                  shape[0] <= 1 << 30 && shape[1] <= 1 << 28 && strides[2] == 1 && (shape[1] == 1 || strides[1] == 4) &&
                  (shape[0] == 1 || (strides[0] % 4 == 0 && strides[0] >= 4 * shape[1]));
  if (!ok) {
    std::string msg = std::string(what) +
                      ": convlive filters RGBA8 frames: a uint8 array of shape (height, width, 4), C-contiguous "
                      "or with rows a multiple of 4 bytes apart (pixels 4 bytes apart, channels adjacent); got "
                      "shape " +
                      tupleText(shape) + ", dtype " + dtype + ", strides " + tupleText(strides) + " (bytes)";
    if ((shape.size() == 2 || (shape.size() == 3 && shape[2] == 3)) && isUint8)
      msg += "; add an alpha channel first, e.g. numpy.dstack([rgb, numpy.full(rgb.shape[:2], 255, numpy.uint8)])";
    throw py::value_error(msg);
  }
  f.height = int(shape[0]);
  f.width = int(shape[1]);
  f.pitch = shape[0] == 1 ? std::size_t(4 * shape[1]) : std::size_t(strides[0]);
}

bool isNumpyArray(py::handle v) { return py::isinstance(v, py::module_::import("numpy").attr("ndarray")); }

Frame hostFrame(const char* what, const py::array& a) {
  Frame f;
  std::vector<std::int64_t> shape, strides;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    shape.push_back(a.shape(i));
    strides.push_back(a.strides(i));
  }
  // Through Python attributes, not pybind11's dtype accessors: pybind11 2.10 (Debian 12) reads
  // the descriptor's C struct, whose layout NumPy 2 changed (its itemsize() is wrong there).
  const py::object dt = a.attr("dtype");
  const bool u8 = py::str(dt.attr("kind")).cast<std::string>() == "u" && dt.attr("itemsize").cast<int>() == 1;
  checkLayout(f, what, shape, strides, u8, py::str(dt));
  f.data = reinterpret_cast<std::uintptr_t>(a.data());
  f.readonly = !a.writeable();
  return f;
}

bool hasCudaArrayInterface(py::handle v) { return py::hasattr(v, "__cuda_array_interface__"); }
bool hasCudaDlpack(py::handle v) {
  if (!py::hasattr(v, "__dlpack_device__") || !py::hasattr(v, "__dlpack__")) return false;
  py::tuple dev = v.attr("__dlpack_device__")();
  return dev.size() == 2 && dev[0].cast<int>() == dlpack::kCUDA;
}
bool isDeviceArray(py::handle v) { return hasCudaArrayInterface(v) || hasCudaDlpack(v); }

int deviceOfPointer(std::uintptr_t p) {
  cudaPointerAttributes attr{};
  CL_CUDA(cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(p)));
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    throw py::value_error("__cuda_array_interface__ gives a pointer that is not CUDA device memory");
  return attr.device;
}

Frame caiFrame(const char* what, py::handle obj) {
  py::dict cai = obj.attr("__cuda_array_interface__");
  if (cai.contains("mask") && !cai["mask"].is_none())
    throw py::value_error(std::string(what) + ": masked arrays (__cuda_array_interface__ 'mask') are not supported");
  std::vector<std::int64_t> shape;
  for (auto d : py::tuple(cai["shape"])) shape.push_back(d.cast<std::int64_t>());
  std::optional<std::vector<std::int64_t>> strides;
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    strides.emplace();
    for (auto d : py::tuple(cai["strides"])) strides->push_back(d.cast<std::int64_t>());
  }
  const std::string typestr = py::str(cai["typestr"]);
  Frame f;
  checkLayout(f, what, shape, strides, typestr.size() == 3 && typestr.substr(1) == "u1", "'" + typestr + "'");
  py::tuple data = cai["data"];
  f.data = data[0].cast<std::uintptr_t>();
  f.readonly = data[1].cast<bool>();
  f.onDevice = true;
  f.device = deviceOfPointer(f.data);
  if (cai.contains("stream") && !cai["stream"].is_none()) f.stream = cai["stream"].cast<std::intptr_t>();
  return f;
}

// A DLPack tensor taken from its capsule, for as long as this lives.
class DlpackTensor {
 public:
  DlpackTensor(const char* what, py::handle obj, cudaStream_t stream) {
    // The stream the data will be read on, so that the producer orders its work before it; 1 is
    // the legacy default stream (0 is not allowed by the protocol).
    const std::intptr_t s = stream == nullptr ? 1 : reinterpret_cast<std::intptr_t>(stream);
    py::object cap = obj.attr("__dlpack__")(py::arg("stream") = s);
    const dlpack::Tensor* t = nullptr;
    bool readonly = false;
    if (PyCapsule_IsValid(cap.ptr(), "dltensor")) {
      legacy_.reset(static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor")));
      PyCapsule_SetName(cap.ptr(), "used_dltensor");  // ours now: the capsule will not delete it
      t = &legacy_->tensor;
    } else if (PyCapsule_IsValid(cap.ptr(), "dltensor_versioned")) {
      versioned_.reset(
          static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(cap.ptr(), "dltensor_versioned")));
      PyCapsule_SetName(cap.ptr(), "used_dltensor_versioned");
      if (versioned_->version.major != 1)
        throw py::value_error(std::string(what) + ": DLPack " + std::to_string(versioned_->version.major) +
                              ".x is not supported (1.x is)");
      t = &versioned_->tensor;
      readonly = versioned_->flags & dlpack::kFlagReadOnly;
    } else {
      throw py::type_error(std::string(what) + ": __dlpack__() did not return a DLPack capsule");
    }
    std::vector<std::int64_t> shape(t->shape, t->shape + t->ndim);
    std::optional<std::vector<std::int64_t>> strides;
    if (t->strides) strides.emplace(t->strides, t->strides + t->ndim);  // elements = bytes for uint8
    const dlpack::DataType& dt = t->dtype;
    const bool u8 = dt.code == dlpack::kUInt && dt.bits == 8 && dt.lanes == 1;
    std::string dtype = dt.code == dlpack::kUInt    ? "uint"
                        : dt.code == dlpack::kInt   ? "int"
                        : dt.code == dlpack::kFloat ? "float"
                                                    : "type code " + std::to_string(dt.code) + " of ";
    dtype += std::to_string(dt.bits);
    if (dt.lanes != 1) dtype += "x" + std::to_string(dt.lanes);
    checkLayout(frame_, what, shape, strides, u8, dtype);
    frame_.data = reinterpret_cast<std::uintptr_t>(t->data) + t->byteOffset;
    frame_.readonly = readonly;
    frame_.onDevice = true;
    frame_.device = t->device.deviceId;
  }
  const Frame& frame() const { return frame_; }

 private:
  // The producer's deleter runs when the tensor goes, also when the constructor throws (GIL held).
  struct Release {
    void operator()(dlpack::ManagedTensor* m) const {
      if (m->deleter) m->deleter(m);
    }
    void operator()(dlpack::ManagedTensorVersioned* m) const {
      if (m->deleter) m->deleter(m);
    }
  };
  std::unique_ptr<dlpack::ManagedTensor, Release> legacy_;
  std::unique_ptr<dlpack::ManagedTensorVersioned, Release> versioned_;
  Frame frame_;
};

// A device array by its interface: __cuda_array_interface__ first (no capsule to manage), else DLPack.
struct DeviceArg {
  Frame frame;
  std::unique_ptr<DlpackTensor> dl;
};
DeviceArg deviceFrame(const char* what, py::handle obj, cudaStream_t stream) {
  DeviceArg a;
  if (hasCudaArrayInterface(obj)) {
    a.frame = caiFrame(what, obj);
  } else {
    a.dl = std::make_unique<DlpackTensor>(what, obj, stream);
    a.frame = a.dl->frame();
  }
  return a;
}

// ---- Streams ----------------------------------------------------------------------------------

cudaStream_t streamFrom(py::handle s) {
  if (s.is_none()) return nullptr;  // the legacy default stream
  py::object handle;
  if (py::hasattr(s, "__cuda_stream__")) {
    py::tuple t = s.attr("__cuda_stream__")();
    handle = t[1];
  } else if (py::hasattr(s, "cuda_stream")) {  // torch.cuda.Stream
    handle = s.attr("cuda_stream");
  } else if (py::hasattr(s, "ptr")) {  // cupy.cuda.Stream
    handle = s.attr("ptr");
  } else if (!PyBool_Check(s.ptr()) && PyIndex_Check(s.ptr())) {
    handle = py::reinterpret_borrow<py::object>(s);
  }
  if (!handle || PyBool_Check(handle.ptr()) || !PyIndex_Check(handle.ptr()))
    throw py::type_error(
        "stream: expected an int (a cudaStream_t handle; 0 is the legacy default stream), a stream object "
        "(__cuda_stream__, .cuda_stream as PyTorch's, .ptr as CuPy's), or None; got " +
        typeName(s));
  const auto v = handle.cast<std::intptr_t>();
  if (v < 0) throw py::value_error("stream: a handle is not negative, got " + std::to_string(v));
  return reinterpret_cast<cudaStream_t>(v);
}

// CAI's stream key as a handle: 1 is the legacy default stream, 2 the per-thread one.
cudaStream_t caiStream(std::intptr_t key) {
  if (key == 1) return cudaStreamLegacy;
  if (key == 2) return cudaStreamPerThread;
  return reinterpret_cast<cudaStream_t>(key);
}
bool sameStream(cudaStream_t a, cudaStream_t b) {
  auto norm = [](cudaStream_t s) { return s == nullptr ? cudaStreamLegacy : s; };
  return norm(a) == norm(b);
}
// Makes `consumer` wait (on the GPU, the host does not block) for the work queued on `producer`.
void streamWaits(cudaStream_t consumer, cudaStream_t producer) {
  if (sameStream(consumer, producer)) return;
  cudaEvent_t e = nullptr;
  CL_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  const cudaError_t rec = cudaEventRecord(e, producer);
  const cudaError_t wait = rec == cudaSuccess ? cudaStreamWaitEvent(consumer, e, 0) : rec;
  cudaEventDestroy(e);  // released when the wait is done
  CL_CUDA(wait);
}

// The plans of one (device, stream), kept for the process (never freed: freeing at interpreter exit
// may come after the CUDA runtime has gone). A call with the settings, frame size and memory of one
// of the last few reuses its plan: making one resolves auto and prepares the variant.
struct PlanSlot {
  std::mutex mutex;
  struct Kept {
    FilterSpec spec;
    ImageDesc image;
    Memory memory;
    Plan plan;
  };
  std::vector<Kept> plans;  // the most recently used last
  DeviceImage staging;      // the texture variant's input, when the caller's frame is not aligned for it

  // Caller holds `mutex`. Throws ProblemError when the plan cannot be made.
  Plan& planFor(const FilterSpec& spec, const ImageDesc& image, Memory memory, int device) {
    auto it = std::find_if(plans.begin(), plans.end(),
                           [&](const Kept& k) { return k.memory == memory && k.image == image && k.spec == spec; });
    if (it == plans.end()) {
      // A named GPU variant is refused without a device, as on the command line; auto runs on the CPU.
      Plan made = Plan::make(spec, image, {.memory = memory, .device = device, .cpuFallback = false});
      if (plans.size() >= 4) plans.erase(plans.begin());
      plans.push_back({spec, image, memory, std::move(made)});
      it = plans.end() - 1;
    } else {
      std::rotate(it, it + 1, plans.end());
      it = plans.end() - 1;
    }
    return it->plan;
  }
};
PlanSlot& slotFor(int device, cudaStream_t s) {
  static std::mutex mutex;
  static auto* slots = new std::map<std::pair<int, std::uintptr_t>, std::unique_ptr<PlanSlot>>;
  std::lock_guard lock(mutex);
  auto& slot = (*slots)[{device, reinterpret_cast<std::uintptr_t>(s)}];
  if (!slot) slot = std::make_unique<PlanSlot>();
  return *slot;
}

// The texture variant reads its input through a pitch-linear texture object, whose base and row pitch
// must meet the device's texture alignments (cudaCreateTextureObject refuses others); whyNot sees
// neither. A caller's frame that does not (a CuPy array 37 pixels wide: rows 148 bytes apart) is
// copied on the stream into the library's own pitched frame, which does.
bool textureCannotRead(const Variant& v, const Frame& f, int device) {
  if (v.name != "texture") return false;
  int base = 0, pitch = 0;
  CL_CUDA(cudaDeviceGetAttribute(&base, cudaDevAttrTextureAlignment, device));
  CL_CUDA(cudaDeviceGetAttribute(&pitch, cudaDevAttrTexturePitchAlignment, device));
  return f.data % std::uintptr_t(std::max(base, 1)) != 0 || f.pitch % std::size_t(std::max(pitch, 1)) != 0;
}

bool overlaps(const Frame& a, const Frame& b) {
  return a.onDevice == b.onDevice && a.data < b.data + b.span() && b.data < a.data + a.span();
}
void checkOut(const Frame& in, const Frame& out) {
  if (out.width != in.width || out.height != in.height)
    throw py::value_error("out: shape (" + std::to_string(out.height) + ", " + std::to_string(out.width) +
                          ", 4) differs from img's (" + std::to_string(in.height) + ", " + std::to_string(in.width) +
                          ", 4)");
  if (out.readonly) throw py::value_error("out: the array is read-only");
  if (overlaps(in, out))
    throw py::value_error("out: shares memory with img; convlive does not filter in place: pass another array");
}

// ---- filter() ---------------------------------------------------------------------------------

py::object filterHost(py::handle img, py::handle outArg, cudaStream_t stream, const FilterSpec& spec) {
  py::array a = py::module_::import("numpy").attr("asarray")(img);
  const Frame in = hostFrame("img", a);
  py::array result;
  if (outArg.is_none()) {
    // Strides given: pybind11 2.10 would compute them from the dtype's itemsize, wrong under NumPy 2.
    result = py::array_t<std::uint8_t>({py::ssize_t(in.height), py::ssize_t(in.width), py::ssize_t(4)},
                                       {py::ssize_t(in.width) * 4, py::ssize_t(4), py::ssize_t(1)});
  } else {
    if (!isNumpyArray(outArg))
      throw py::type_error("out: expected a numpy.ndarray for a host img, got " + typeName(outArg));
    result = py::reinterpret_borrow<py::array>(outArg);
  }
  const Frame out = hostFrame("out", result);
  checkOut(in, out);
  {
    py::gil_scoped_release released;
    int device = -1;
    if (deviceInfo().available) CL_CUDA(cudaGetDevice(&device));
    PlanSlot& slot = slotFor(device, stream);
    std::lock_guard lock(slot.mutex);
    slot.planFor(spec, ImageDesc::rgba8(in.width, in.height), Memory::Host, device).run(in.view(), out.view(), stream);
  }
  return result;
}

py::object filterDevice(py::handle img, py::handle outArg, cudaStream_t stream, const FilterSpec& spec) {
  if (outArg.is_none())
    throw py::value_error(
        "out: a CUDA img needs out=, a device array of the same shape (height, width, 4) and dtype uint8 (for "
        "example cupy.empty_like(img) or torch.empty_like(img)) that the result is written into");
  if (!isDeviceArray(outArg))
    throw py::type_error("out: expected a CUDA array (__cuda_array_interface__ or DLPack) for a CUDA img, got " +
                         typeName(outArg));
  const DeviceArg in = deviceFrame("img", img, stream);
  const DeviceArg out = deviceFrame("out", outArg, stream);
  if (in.frame.device != out.frame.device)
    throw py::value_error("out: on CUDA device " + std::to_string(out.frame.device) + ", img on device " +
                          std::to_string(in.frame.device) + ": both must be on one device");
  checkOut(in.frame, out.frame);
  if (in.frame.data % 4 != 0 || out.frame.data % 4 != 0)
    throw py::value_error("img and out must start on a 4-byte boundary (one RGBA8 pixel)");
  {
    py::gil_scoped_release released;
    const DeviceScope current(in.frame.device);
    PlanSlot& slot = slotFor(in.frame.device, stream);
    std::lock_guard lock(slot.mutex);
    Plan& plan = slot.planFor(spec, ImageDesc::rgba8(in.frame.width, in.frame.height), Memory::Device, in.frame.device);
    for (const Frame* f : {&in.frame, &out.frame})
      if (f->stream) streamWaits(stream, caiStream(*f->stream));
    ConstImageView src = in.frame.view();
    if (textureCannotRead(plan.variant(), in.frame, in.frame.device)) {
      if (slot.staging.width() != src.width || slot.staging.height() != src.height)
        slot.staging = DeviceImage(src.width, src.height);
      const ImageView st = slot.staging.view();
      CL_CUDA(cudaMemcpy2DAsync(st.data, st.pitch, src.data, src.pitch, std::size_t(src.width) * 4, src.height,
                                cudaMemcpyDeviceToDevice, stream));
      src = st;
    }
    plan.run(src, out.frame.view(), stream);
  }
  return py::reinterpret_borrow<py::object>(outArg);
}

py::object filter(py::handle img, const py::kwargs& kw) {
  const FilterSpec spec = specFrom(kw, {"out", "stream"});
  const py::object out = kw.contains("out") ? py::object(kw["out"]) : py::none();
  const cudaStream_t stream = streamFrom(kw.contains("stream") ? py::object(kw["stream"]) : py::none());
  if (isDeviceArray(img)) return filterDevice(img, out, stream, spec);
  if (!out.is_none() && isDeviceArray(out))
    throw py::type_error("out: a CUDA array, and img is in host memory: pass both in host memory or both on the GPU");
  return filterHost(img, out, stream, spec);
}

// ---- The tables ---------------------------------------------------------------------------------

const char* typeWord(Setting::Type t) {
  switch (t) {
    case Setting::Type::Choice:
      return "choice";
    case Setting::Type::Int:
      return "int";
    case Setting::Type::Float:
      return "float";
    case Setting::Type::Flag:
      return "flag";
    case Setting::Type::Text:
    default:
      return "text";
  }
}

py::object defaultValue(const Setting& s) {
  const FilterSpec d;
  switch (s.type) {
    case Setting::Type::Int:
      return py::int_(d.radius);
    case Setting::Type::Float:
      if (s.name == "sigma") return d.sigma > 0.f ? py::object(py::float_(d.sigma)) : py::object(py::str("auto"));
      return py::float_(d.pitch);
    case Setting::Type::Flag:
      return py::bool_(d.get(s.name) == "true");
    default:
      return py::str(d.get(s.name));
  }
}

py::list settingTable() {
  py::list out;
  for (const Setting& s : specSettings()) {
    py::dict d;
    d["keyword"] = keywordOf(s.name);
    d["name"] = s.name;
    d["label"] = s.label;
    d["type"] = typeWord(s.type);
    d["default"] = defaultValue(s);
    if (s.type == Setting::Type::Int || s.type == Setting::Type::Float) {
      d["min"] = s.min;
      d["max"] = s.max;
      d["step"] = s.step;
    }
    py::list choices, masks;
    for (const auto& c : s.choices) choices.append(c);
    for (const auto& m : s.masks) masks.append(m);
    d["choices"] = choices;
    d["masks"] = masks;
    d["help"] = s.help;
    out.append(d);
  }
  return out;
}

py::list variantTable() {
  py::list out;
  for (const Variant& v : variants()) {
    py::dict d;
    d["name"] = v.name;
    d["description"] = v.description;
    d["on_gpu"] = v.onGpu;
    d["max_radius"] = v.maxRadius;
    py::list tiles;
    for (const Tile& t : v.tiles) tiles.append(py::make_tuple(t.w, t.h));
    d["tiles"] = tiles;
    d["tile_meaning"] = v.tileMeaning;
    out.append(d);
  }
  return out;
}

py::object deviceDescription() {
  const DeviceInfo& d = deviceInfo();
  py::dict f;
  f["available"] = d.available;
  f["name"] = d.name;
  f["reason"] = d.reason;
  f["compute_capability"] = py::make_tuple(d.major, d.minor);
  f["multiprocessors"] = d.multiprocessors;
  f["memory_bytes"] = d.globalMemory;
  return py::module_::import("types").attr("SimpleNamespace")(**f);
}

// What filter() would run for these settings on a width x height frame (auto: measured on a GPU).
py::dict choose(int width, int height, const py::kwargs& kw) {
  const FilterSpec spec = specFrom(kw);
  Problem why;
  Plan plan;
  {
    py::gil_scoped_release released;
    plan = Plan::make(spec, ImageDesc::rgba8(width, height), {.memory = Memory::Host, .cpuFallback = false}, why);
  }
  py::dict d;
  d["variant"] = plan ? plan.variant().name : spec.variant;
  d["tile"] = !plan || plan.variant().tiles.empty() ? py::object(py::none())
                                                    : py::object(py::make_tuple(plan.tile().w, plan.tile().h));
  d["why"] = plan ? plan.autoWhy() : std::string();
  d["why_not"] = why ? py::object(py::str(forPython(why))) : py::object(py::none());
  return d;
}

std::string filterDoc() {
  std::string s =
      "filter(img, *, out=None, stream=None, **settings) -> the filtered frame\n\n"
      "img: an RGBA8 frame of shape (height, width, 4), dtype uint8, C-contiguous or with rows a multiple of 4\n"
      "bytes apart. A NumPy array (host memory): the result is a new array, or `out` (a NumPy array of the same\n"
      "shape, never img itself); a GPU variant uploads, filters and downloads, then returns. A CUDA array\n"
      "(__cuda_array_interface__ or DLPack: CuPy, PyTorch, Numba): filtered where it is, without a copy, into\n"
      "`out`, a CUDA array of the same shape (required), which is returned; the launch is asynchronous on\n"
      "`stream`.\n"
      "stream: an int (a cudaStream_t handle), a stream object (torch.cuda.Stream, cupy.cuda.Stream, or one with\n"
      "__cuda_stream__), or None: the legacy default stream (0). The stream in an array's\n"
      "__cuda_array_interface__ is waited for on it (on the GPU); DLPack producers are told the stream.\n\n"
      "Settings (the command line's options, dashes as underscores; left out: the default shown):\n";
  for (const Setting& x : specSettings()) {
    s += "  " + keywordOf(x.name) + "=" + std::string(py::repr(defaultValue(x))) + ": " + x.help;
    if (x.type == Setting::Type::Int || x.type == Setting::Type::Float)
      s += " [" + numberText(x.min) + ".." + numberText(x.max) + "]";
    if (!x.masks.empty() && x.masks.size() < filterKinds().size()) {
      s += " (mask";
      for (std::size_t i = 0; i < x.masks.size(); ++i) {
        s += i ? ", " : " ";
        s += x.masks[i];
      }
      s += ")";
    }
    s += "\n";
  }
  s += "weights takes text or a 2D array of numbers, row_weights and col_weights text or a 1D array, tile 'WxH'\n"
       "or (w, h). A bad keyword or value raises ValueError (TypeError for a value of the wrong type).";
  return s;
}

}  // namespace
}  // namespace convlive

PYBIND11_MODULE(convlive, m) {
  using namespace convlive;
  py::options options;
  options.disable_function_signatures();  // each docstring starts with its own, in Python's words
  m.doc() = "convlive: real-time 2D convolution of RGBA8 frames on NVIDIA GPUs (and the CPU), from Python";
  m.attr("__version__") = CONVLIVE_VERSION;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ProblemError& e) {
      PyErr_SetString(PyExc_ValueError, forPython(e.problem()).c_str());
    }
  });
  static const std::string filterDocText = filterDoc();
  m.def("filter", &filter, py::arg("img"), filterDocText.c_str());
  m.def("variants", &variantTable,
        "variants() -> list of dict\n\nThe variant table: a list of dicts (name, description, on_gpu, max_radius, "
        "tiles as (w, h), tile_meaning)");
  m.def("spec_settings", &settingTable,
        "spec_settings() -> list of dict\n\nThe filter spec's settings as dicts (keyword, name, label, type, default, "
        "min/max/step for numbers, "
        "choices, masks it applies to, help): filter()'s keywords");
  m.def(
      "describe", [](const py::kwargs& kw) { return specFrom(kw).describe(); },
      "describe(**settings) -> str\n\nOne line for the settings, as the command line's reports write it: "
      "describe(mask='box', radius=2)");
  m.def("device", &deviceDescription,
        "device() -> types.SimpleNamespace\n\nThe CUDA device: a namespace with available, name, reason (why not "
        "available), compute_capability, "
        "multiprocessors, memory_bytes");
  m.def("choose", &choose, py::arg("width"), py::arg("height"),
        "choose(width, height, **settings) -> dict\n\nWhat filter() runs for these settings on a width x height frame: "
        "a dict with variant, tile, why (auto's "
        "reason) and why_not (None when it can run)");
}
