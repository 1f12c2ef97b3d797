// The Python module `convlive`: the filter spec and every variant of the table on NumPy arrays (host
// memory) and, without a copy, on CUDA arrays (__cuda_array_interface__ or DLPack: CuPy, PyTorch,
// Numba): uint8, uint16, float16 or float32 frames, channels-last or channels-first (docs/python.md).
// The keywords of filter() are the spec's settings (specSettings(), dashes as underscores), read from
// the table at every call, so the module cannot drift from the command line.
//
// Threads: filter() releases the GIL while it filters. Calls on one (device, stream) share its plans
// (convlive/plan.hpp) and are serialised on them; calls on different streams run side by side.
#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/plan.hpp"
#include "convlive/problem.hpp"
#include "convlive/resources.hpp"
#include "convlive/spec.hpp"
#include "convlive/variants.hpp"
#include "convlive/weights_file.hpp"
#include "dlpack_abi.hpp"
#include "npy_header.hpp"

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

// NumPy, imported once (an import per use is a trip through the import machinery each call).
// Never freed, as the plans: the module outlives the interpreter's teardown of its own objects.
// Not a guarded static: the import may hand the GIL to a thread that would then wait on the guard
// holding it. The GIL orders the reads and writes; two threads may both import (the same module).
const py::module_& numpy() {
  static py::module_* np = nullptr;
  if (!np) np = new py::module_(py::module_::import("numpy"));
  return *np;
}

std::string settingKeywords() {
  std::string s;
  for (const Setting& x : specSettings()) {
    if (!s.empty()) s += ", ";
    s += keywordOf(x.name);
  }
  return s;
}
std::string keywordList() { return settingKeywords() + ", out, dtype, stream, layout, device"; }
// Whether a keyword names a setting (underscores: "filter_alpha", not "filter-alpha").
bool isSettingKeyword(const std::string& key) {
  return key.find('-') == std::string::npos && findSetting(settingOf(key));
}

// ---- Keyword values as the text FilterSpec::set reads ----------------------------------------

// The shortest text that reads back as v, in v's own type (0.1f as "0.1").
template <class T>
requires std::is_floating_point_v<T> std::string numberText(T v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
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
  const bool isBool = PyBool_Check(v.ptr()) || py::isinstance(v, numpy().attr("bool_"));
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
      return numberText(py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>());
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

// spec.validate(), remembered for the last few specs that passed: validate() parses every setting
// again and builds the filter, the same answer each time for the same spec, and for custom weights
// it was most of a call's host work (tens of microseconds, as long as a small batch's kernel). A
// spec naming a weights file is checked every time: the file is read then, and may have changed.
Problem validated(const FilterSpec& spec) {
  if (!spec.weightsFile.empty()) return spec.validate();
  static std::mutex mutex;
  static auto* passed = new std::vector<FilterSpec>;  // never freed, as the plans (interpreter exit)
  {
    std::lock_guard lock(mutex);
    if (std::find(passed->begin(), passed->end(), spec) != passed->end()) return {};
  }
  Problem p = spec.validate();
  if (!p) {
    std::lock_guard lock(mutex);
    if (passed->size() >= 8) passed->erase(passed->begin());
    passed->push_back(spec);
  }
  return p;
}

bool oneOf(std::span<const char* const> keys, const std::string& key) {
  return std::find_if(keys.begin(), keys.end(), [&](const char* k) { return key == k; }) != keys.end();
}

// A spec from keywords; `ignored` names keywords that are not settings (out, stream).

FilterSpec specFrom(const py::kwargs& kw, std::span<const char* const> ignored = {}) {
  for (auto item : kw) {
    const std::string key = py::str(item.first);
    if (oneOf(ignored, key)) continue;
    if (!isSettingKeyword(key)) throw py::value_error("unknown keyword '" + key + "': use one of " + keywordList());
  }
  FilterSpec spec;
  for (const Setting& s : specSettings()) {  // the table's order: mask before what depends on it
    const std::string key = keywordOf(s.name);
    if (!kw.contains(key)) continue;
    const auto text = settingText(s, kw[key.c_str()]);
    if (!text) continue;
    if (Problem p = spec.set(s.name, *text)) throw py::value_error(forPython(p));
  }
  if (Problem p = validated(spec)) throw py::value_error(forPython(p));
  return spec;
}

// ---- Arrays: what a Python object says about its memory ----------------------------------------

enum class Framework { NumPy, CuPy, Torch, Other };  // for hints in its own words

Framework frameworkOf(py::handle obj) {
  const std::string mod = py::str(py::type::of(obj).attr("__module__"));
  const std::string top = mod.substr(0, mod.find('.'));
  if (top == "numpy" || py::isinstance<py::memoryview>(obj)) return Framework::NumPy;
  if (top == "cupy") return Framework::CuPy;
  if (top == "torch") return Framework::Torch;
  return Framework::Other;
}

// How to fix an array, in its framework's words: `what` is the argument's name (img, out).
struct Fix {
  Framework fw;
  std::string what;
  std::string cast(const std::string& dtype) const {
    if (what == "dtype") return "dtype='" + dtype + "'";  // choose()'s keyword
    switch (fw) {
      case Framework::Torch:
        return what + ".to(torch." + dtype + ")";
      case Framework::CuPy:
        return what + ".astype(cupy." + dtype + ")";
      case Framework::NumPy:
        return what + ".astype(numpy." + dtype + ")";
      case Framework::Other:
      default:
        return "a " + dtype + " copy of " + what + " (" + what + ".astype(" + dtype + ") in NumPy or CuPy)";
    }
  }
  std::string contiguous() const {
    switch (fw) {
      case Framework::Torch:
        return what + ".contiguous()";
      case Framework::CuPy:
        return "cupy.ascontiguousarray(" + what + ")";
      case Framework::NumPy:
        return "numpy.ascontiguousarray(" + what + ")";
      case Framework::Other:
      default:
        return "a C-contiguous copy of " + what;
    }
  }
  std::string addChannel() const {  // (..., 2) -> (..., 3)
    if (fw == Framework::Torch) return "torch.cat([" + what + ", torch.zeros_like(" + what + "[..., :1])], dim=-1)";
    const std::string np = fw == Framework::CuPy ? "cupy" : "numpy";
    return np + ".concatenate([" + what + ", " + np + ".zeros_like(" + what + "[..., :1])], axis=-1)";
  }
};

// A dtype as the module reads it, whatever the interface.
struct Element {
  char kind = '?';  // 'u', 'i', 'f', 'b' (bool), 'c' (complex), 'B' (bfloat16), '?' (other)
  int bytes = 0;
  bool native = true;  // byte order
  std::string name;    // "float32", ">f4", "bfloat16"
};

std::string elementName(char kind, int bytes) {
  return npy::kindName(kind, bytes).value_or("an unknown type of " + std::to_string(8 * bytes) + " bits");
}

// The array's memory as an interface describes it; strides in bytes, always given.
struct Array {
  std::uintptr_t data = 0;
  std::vector<std::int64_t> shape, strides;
  Element element;
  bool readonly = false, onDevice = false;
  int device = -1;
  std::optional<std::intptr_t> stream;  // CAI v3: work on this stream must finish before the data is used
  Framework framework = Framework::Other;
};

std::string tupleText(const std::vector<std::int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + (v.size() == 1 ? ",)" : ")");
}

std::vector<std::int64_t> packedStrides(const std::vector<std::int64_t>& shape, std::int64_t itemBytes) {
  std::vector<std::int64_t> s(shape.size(), itemBytes);
  for (int i = int(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

// The pixel type of an element, or a refusal with a cast that works.
PixelType pixelTypeOf(const Element& e, const Fix& fix) {
  if (e.native) {
    if (e.kind == 'u' && e.bytes == 1) return PixelType::U8;
    if (e.kind == 'u' && e.bytes == 2) return PixelType::U16;
    if (e.kind == 'f' && e.bytes == 2) return PixelType::F16;
    if (e.kind == 'f' && e.bytes == 4) return PixelType::F32;
  }
  std::string msg = fix.what + ": dtype " + e.name + " is not taken (uint8, uint16, float16 and float32 are)";
  if (!e.native)
    throw py::value_error(msg + ": its byte order is not this machine's; pass " +
                          fix.cast(elementName(e.kind, e.bytes)));
  if (e.kind == 'c') throw py::value_error(msg + ": filter the real and imaginary parts apart, as float32");
  if (e.kind == 'b') throw py::value_error(msg + ": pass " + fix.cast("uint8"));
  if (e.kind == 'u' || e.kind == 'i' || e.kind == 'f' || e.kind == 'B') {
    const bool wide = e.kind != 'f' && e.kind != 'B' && e.bytes > 2;
    throw py::value_error(msg + ": pass " + fix.cast("float32") + (wide ? " (exact up to 2**24)" : ""));
  }
  throw py::value_error(msg);
}

bool isNumpyArray(py::handle v) { return py::isinstance(v, numpy().attr("ndarray")); }

Array hostArray(const py::array& a, Framework fw) {
  Array r;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    r.shape.push_back(a.shape(i));
    r.strides.push_back(a.strides(i));
  }
  // Through Python attributes, not pybind11's dtype accessors: pybind11 2.10 (Debian 12) reads
  // the descriptor's C struct, whose layout NumPy 2 changed (its itemsize() is wrong there).
  const py::object dt = a.attr("dtype");
  const std::string kind = py::str(dt.attr("kind"));
  const std::string order = py::str(dt.attr("byteorder"));
  constexpr bool little = std::endian::native == std::endian::little;
  r.element.kind = kind.empty() ? '?' : kind[0];
  r.element.bytes = dt.attr("itemsize").cast<int>();
  r.element.native = order == "=" || order == "|" || order == (little ? "<" : ">");
  r.element.name = py::str(dt);
  r.data = reinterpret_cast<std::uintptr_t>(a.data());
  r.readonly = !a.writeable();
  r.framework = fw;
  return r;
}

bool hasCudaDlpack(py::handle v) {
  if (!py::hasattr(v, "__dlpack_device__") || !py::hasattr(v, "__dlpack__")) return false;
  py::tuple dev = v.attr("__dlpack_device__")();
  return dev.size() == 2 && dev[0].cast<int>() == dlpack::kCUDA;
}

// Where an object's data is, asked once a call: its __cuda_array_interface__ (CuPy builds the dict at
// each read, PyTorch in Python: reading it once is most of a call's host work saved), else whether
// it is a DLPack tensor on a CUDA device. A getter that raises (PyTorch's, for a tensor that requires
// grad) counts as no interface, as hasattr() has it; DLPack then says what is wrong.
struct DataAt {
  py::object cai;  // null: none
  bool dlpack = false;
  bool onDevice() const { return cai || dlpack; }
};
DataAt dataAt(py::handle v) {
  DataAt at;
  if (PyObject* cai = PyObject_GetAttrString(v.ptr(), "__cuda_array_interface__")) {
    if (cai != Py_None)
      at.cai = py::reinterpret_steal<py::object>(cai);
    else
      Py_DECREF(cai);
  } else {
    PyErr_Clear();
  }
  if (!at.cai) at.dlpack = hasCudaDlpack(v);
  return at;
}

int deviceOfPointer(std::uintptr_t p) {
  cudaPointerAttributes attr{};
  CL_CUDA(cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(p)));
  if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged)
    throw py::value_error("__cuda_array_interface__ gives a pointer that is not CUDA device memory");
  return attr.device;
}

// "<f4" -> float32; "|u1" -> uint8.
Element typestrElement(const std::string& typestr) {
  Element e;
  e.name = "'" + typestr + "'";
  if (typestr.size() < 3) return e;
  int bytes = 0;
  std::from_chars(typestr.data() + 2, typestr.data() + typestr.size(), bytes);
  constexpr bool little = std::endian::native == std::endian::little;
  e.kind = typestr[1] == 'u' || typestr[1] == 'i' || typestr[1] == 'f' || typestr[1] == 'c' || typestr[1] == 'b'
               ? typestr[1]
               : '?';
  e.bytes = bytes;
  e.native = typestr[0] == '|' || typestr[0] == '=' || typestr[0] == (little ? '<' : '>');
  if (e.kind != '?') e.name = e.native ? elementName(e.kind, bytes) : typestr;
  return e;
}

Array caiArray(const char* what, py::handle obj, const py::object& interface) {
  if (!py::isinstance<py::dict>(interface))
    throw py::type_error(std::string(what) + ": __cuda_array_interface__ is not a dict, got " + typeName(interface));
  const py::dict cai = py::reinterpret_borrow<py::dict>(interface);
  if (cai.contains("mask") && !cai["mask"].is_none())
    throw py::value_error(std::string(what) + ": masked arrays (__cuda_array_interface__ 'mask') are not supported");
  Array r;
  for (auto d : py::tuple(cai["shape"])) r.shape.push_back(d.cast<std::int64_t>());
  r.element = typestrElement(py::str(cai["typestr"]));
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    for (auto d : py::tuple(cai["strides"])) r.strides.push_back(d.cast<std::int64_t>());
  } else {
    r.strides = packedStrides(r.shape, std::max(r.element.bytes, 1));
  }
  py::tuple data = cai["data"];
  r.data = data[0].cast<std::uintptr_t>();
  r.readonly = data[1].cast<bool>();
  r.onDevice = true;
  r.device = r.data ? deviceOfPointer(r.data) : 0;
  if (cai.contains("stream") && !cai["stream"].is_none()) r.stream = cai["stream"].cast<std::intptr_t>();
  r.framework = frameworkOf(obj);
  return r;
}

Element dlpackElement(const dlpack::DataType& dt) {
  Element e;
  e.bytes = dt.bits / 8;
  e.kind = dt.code == dlpack::kUInt      ? 'u'
           : dt.code == dlpack::kInt     ? 'i'
           : dt.code == dlpack::kFloat   ? 'f'
           : dt.code == dlpack::kBfloat  ? 'B'
           : dt.code == dlpack::kComplex ? 'c'
           : dt.code == dlpack::kBool    ? 'b'
                                         : '?';
  e.name = elementName(e.kind, e.bytes);
  if (dt.lanes != 1) {
    e.name += "x" + std::to_string(dt.lanes);
    e.kind = '?';
  }
  return e;
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
    array_.shape.assign(t->shape, t->shape + t->ndim);
    array_.element = dlpackElement(t->dtype);
    const std::int64_t item = std::max(array_.element.bytes, 1);
    if (t->strides) {
      for (std::int32_t i = 0; i < t->ndim; ++i) array_.strides.push_back(t->strides[i] * item);  // elements -> bytes
    } else {
      array_.strides = packedStrides(array_.shape, item);
    }
    array_.data = reinterpret_cast<std::uintptr_t>(t->data) + t->byteOffset;
    array_.readonly = readonly;
    array_.onDevice = true;
    array_.device = t->device.deviceId;
    array_.framework = frameworkOf(obj);
  }
  const Array& array() const { return array_; }

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
  Array array_;
};

// A device array by its interface: __cuda_array_interface__ first (no capsule to manage), else DLPack.
struct DeviceArg {
  Array array;
  std::unique_ptr<DlpackTensor> dl;
};
DeviceArg deviceArray(const char* what, py::handle obj, const DataAt& at, cudaStream_t stream) {
  DeviceArg a;
  if (at.cai) {
    a.array = caiArray(what, obj, at.cai);
  } else {
    a.dl = std::make_unique<DlpackTensor>(what, obj, stream);
    a.array = a.dl->array();
  }
  return a;
}

// ---- Layouts: an array read as frames ------------------------------------------------------------

enum class Layout { HW, HWC, NHWC, CHW, NCHW };
constexpr std::pair<Layout, const char*> kLayouts[] = {
    {Layout::HW, "HW"}, {Layout::HWC, "HWC"}, {Layout::NHWC, "NHWC"}, {Layout::CHW, "CHW"}, {Layout::NCHW, "NCHW"}};

const char* layoutName(Layout l) {
  for (const auto& [layout, name] : kLayouts)
    if (layout == l) return name;
  return "?";
}
bool channelsFirst(Layout l) { return l == Layout::CHW || l == Layout::NCHW; }
std::size_t layoutDims(Layout l) { return std::string_view(layoutName(l)).size(); }

// The layout an array is read with: `layout=` when given, else the framework's convention
// (torch tensors channels-first, everything else channels-last; 2-D arrays are (H, W)).
struct ReadAs {
  Layout layout = Layout::HWC;
  bool inferred = true;
};
ReadAs layoutOf(const Array& a, py::handle arg, const Fix& fix) {
  const std::string shape = "shape " + tupleText(a.shape);
  if (!arg.is_none()) {
    if (!py::isinstance<py::str>(arg)) throw py::type_error("layout: expected a str, got " + typeName(arg));
    const std::string s = py::str(arg);
    for (const auto& [layout, name] : kLayouts) {
      if (s != name) continue;
      if (layoutDims(layout) != a.shape.size())
        throw py::value_error("layout: '" + s + "' reads " + std::to_string(layoutDims(layout)) + " dimensions; " +
                              fix.what + " has " + shape);
      return {layout, false};
    }
    throw py::value_error("layout: '" + s + "' is not a layout: use 'HW', 'HWC', 'NHWC', 'CHW' or 'NCHW'");
  }
  const bool torch = a.framework == Framework::Torch;
  switch (a.shape.size()) {
    case 2:
      return {Layout::HW, true};
    case 3:
      return {torch ? Layout::CHW : Layout::HWC, true};
    case 4:
      return {torch ? Layout::NCHW : Layout::NHWC, true};
    default:
      throw py::value_error(fix.what + ": " + shape +
                            ": convlive takes (H, W), (H, W, C), (N, H, W, C), (C, H, W) or (N, C, H, W) arrays");
  }
}

// What a plan filters in an array, and how the module runs it.
struct Frames {
  std::uintptr_t data = 0;
  ImageDesc desc;  // the frames of one run
  int runs = 1;    // runs of desc, `runStride` bytes apart
  std::size_t runStride = 0;
  bool views = false;                     // RGBA8 frames: one run per frame, on views (in and out pitches may differ)
  std::optional<std::size_t> alphaPlane;  // channels-first RGBA, alpha not filtered: this plane of each run is copied
  std::size_t span = 0;                   // bytes from data past the last element
  bool readonly = false, onDevice = false;
  int device = -1;
  std::optional<std::intptr_t> stream;
  ImageDesc planDesc() const { return views ? ImageDesc::rgba8(desc.width, desc.height) : desc; }
  bool sameLayout(const Frames& o) const {
    return desc == o.desc && (runs == 1 || runStride == o.runStride) && views == o.views;
  }
};

// The dims of a layout in the order N, C, H, W (absent ones 1, stride 0), strides of length-1 dims 0.
struct Dims {
  std::int64_t n = 1, c = 1, h = 1, w = 1;
  std::int64_t sn = 0, sc = 0, sh = 0, sw = 0;
};
Dims dimsOf(const Array& a, Layout l) {
  Dims d;
  const std::string_view name = layoutName(l);
  for (std::size_t i = 0; i < name.size(); ++i) {
    const std::int64_t size = a.shape[i], stride = size == 1 ? 0 : a.strides[i];
    auto [dim, s] = name[i] == 'N'   ? std::tie(d.n, d.sn)
                    : name[i] == 'C' ? std::tie(d.c, d.sc)
                    : name[i] == 'H' ? std::tie(d.h, d.sh)
                                     : std::tie(d.w, d.sw);
    dim = size;
    s = stride;
  }
  return d;
}

[[noreturn]] void refuseStrides(const Array& a, ReadAs r, const Fix& fix, const std::string& why) {
  throw py::value_error(fix.what + ": convlive cannot read shape " + tupleText(a.shape) + " (" + layoutName(r.layout) +
                        "), dtype " + a.element.name + ", strides " + tupleText(a.strides) +
                        " (bytes) without a copy: " + why + "; pass " + fix.contiguous());
}

[[noreturn]] void refuseChannels(const Array& a, ReadAs r, const Fix& fix, std::int64_t c) {
  std::string msg = fix.what + ": shape " + tupleText(a.shape) + " read as " + layoutName(r.layout) +
                    (r.inferred ? " (the default for this array)" : "") + " has " + std::to_string(c) +
                    " channels; convlive takes 1, 3 or 4";
  const std::int64_t other = channelsFirst(r.layout) ? a.shape.back() : a.shape[a.shape.size() - 3];
  const bool otherFits = other == 1 || other == 3 || other == 4;
  if (r.inferred && otherFits && a.shape.size() >= 3) {
    const bool four = a.shape.size() == 4;
    msg += channelsFirst(r.layout)
               ? std::string("; torch tensors are read channels-first by default: for ") +
                     (four ? "(N, H, W, C)" : "(H, W, C)") + " data pass layout='" + (four ? "NHWC" : "HWC") + "'"
               : std::string(
                     "; arrays other than torch tensors are read channels-last by "
                     "default: for ") +
                     (four ? "(N, C, H, W)" : "(C, H, W)") + " data pass layout='" + (four ? "NCHW" : "CHW") + "'";
  } else if (c == 2 && channelsFirst(r.layout)) {
    msg += "; filter the planes as one-channel frames: pass " + fix.what + ".reshape(-1, 1, " +
           std::to_string(a.shape[a.shape.size() - 2]) + ", " + std::to_string(a.shape.back()) + ") with layout='NCHW'";
  } else if (c == 2) {
    msg += "; add a third channel (filtered, then dropped): pass " + fix.addChannel() +
           ", or filter each channel as a one-channel frame (" + fix.what + "[..., 0], " + fix.what + "[..., 1])";
  }
  throw py::value_error(msg);
}

// Rows: values adjacent within a row (`rowBytes`), rows `pitch` apart; returns the pitch.
std::size_t rowPitchOf(const Array& a, ReadAs r, const Fix& fix, const Dims& d, std::int64_t rowBytes, int item) {
  const std::int64_t pitch = d.h > 1 ? d.sh : rowBytes;
  if (pitch < rowBytes || pitch % item)
    refuseStrides(a, r, fix,
                  "rows must be at least a row (" + std::to_string(rowBytes) + " bytes) apart, at a multiple of " +
                      std::to_string(item) + " bytes");
  return std::size_t(pitch);
}

void checkSizes(const Array& a, const Fix& fix, const Dims& d) {
  for (std::int64_t v : a.shape)
    if (v < 1) throw py::value_error(fix.what + ": shape " + tupleText(a.shape) + " has an empty dimension");
  if (d.w > (1 << 28) || d.h > (1 << 28) || d.n * d.c > (1 << 30))
    throw py::value_error(fix.what + ": shape " + tupleText(a.shape) + " is past what one call filters");
  for (std::size_t i = 0; i < a.shape.size(); ++i)
    if (a.shape[i] > 1 && a.strides[i] < 0)
      throw py::value_error(fix.what + ": strides " + tupleText(a.strides) +
                            " have a negative stride (a reversed view); pass " + fix.contiguous());
}

Frames channelsLastFrames(const Array& a, ReadAs r, const Fix& fix, PixelType t) {
  const Dims d = dimsOf(a, r.layout);
  const int item = int(pixelTypeBytes(t));
  if (d.c > 1 && d.sc != item)
    refuseStrides(a, r, fix, "the channels of a pixel must be adjacent (" + std::to_string(item) + " bytes apart)");
  if (d.w > 1 && d.sw != d.c * item)
    refuseStrides(a, r, fix, "pixels must be adjacent in a row (" + std::to_string(d.c * item) + " bytes apart)");
  const std::size_t pitch = rowPitchOf(a, r, fix, d, d.w * d.c * item, item);
  const bool rgba8 = t == PixelType::U8 && d.c == 4;
  if (rgba8 && pitch % 4) refuseStrides(a, r, fix, "RGBA8 rows must be a multiple of 4 bytes apart");
  const std::int64_t frameBytes = std::int64_t(pitch) * d.h;
  if (d.n > 1 && (d.sn < frameBytes || d.sn % (rgba8 ? 4 : item)))
    refuseStrides(a, r, fix,
                  "frames must be at least a frame (" + std::to_string(frameBytes) +
                      " bytes) apart, at a multiple of " + std::to_string(rgba8 ? 4 : item) + " bytes");
  Frames f;
  f.desc.width = int(d.w);
  f.desc.height = int(d.h);
  f.desc.type = t;
  f.desc.channels = int(d.c);
  f.desc.alpha = d.c == 4;
  f.desc.pitch = d.h > 1 ? pitch : 0;
  if (rgba8) {  // the RGBA8 variants: a frame at a time, on views
    f.views = true;
    f.runs = int(d.n);
    f.runStride = std::size_t(d.sn);
  } else {
    f.desc.batch = int(d.n);
    f.desc.batchStride = std::size_t(d.sn);
  }
  return f;
}

Frames channelsFirstFrames(const Array& a, ReadAs r, const Fix& fix, PixelType t, bool filterAlpha) {
  const Dims d = dimsOf(a, r.layout);
  const int item = int(pixelTypeBytes(t));
  if (d.w > 1 && d.sw != item)
    refuseStrides(a, r, fix, "the values of a row must be adjacent (" + std::to_string(item) + " bytes apart)");
  const std::size_t pitch = rowPitchOf(a, r, fix, d, d.w * item, item);
  const std::int64_t planeBytes = std::int64_t(pitch) * d.h;
  Frames f;
  f.desc.width = int(d.w);
  f.desc.height = int(d.h);
  f.desc.type = t;
  f.desc.channels = 1;
  f.desc.alpha = false;
  f.desc.pitch = d.h > 1 ? pitch : 0;
  const bool splitAlpha = d.c == 4 && !filterAlpha;  // planes 0..2 filtered, plane 3 copied, a frame at a time
  const std::int64_t plane = d.c > 1 ? d.sc : d.sn;
  const bool uniform = splitAlpha || d.n == 1 || d.c == 1 || d.sn == d.c * d.sc;
  if (!uniform)
    refuseStrides(a, r, fix,
                  "the channel planes of all frames must be one stride apart (N stride = C x C stride), as convlive "
                  "reads channels-first data as N*C one-channel planes");
  const std::int64_t planes = splitAlpha ? 3 : d.n * d.c;
  if (planes > 1 && (plane < planeBytes || plane % item))
    refuseStrides(a, r, fix,
                  "channel planes must be at least a plane (" + std::to_string(planeBytes) +
                      " bytes) apart, at a multiple of " + std::to_string(item) + " bytes");
  if (splitAlpha && d.n > 1 && d.sn < 4 * plane) refuseStrides(a, r, fix, "frames must be at least 4 planes apart");
  f.desc.batch = int(planes);
  f.desc.batchStride = planes > 1 ? std::size_t(plane) : 0;
  if (splitAlpha) {
    f.runs = int(d.n);
    f.runStride = std::size_t(d.sn);
    f.alphaPlane = std::size_t(3 * plane);
  }
  return f;
}

// The array read as frames in layout `r`; refuses, saying what to do, what the library cannot take
// without a copy.
Frames framesOf(const Array& a, ReadAs r, const Fix& fix, bool filterAlpha) {
  const PixelType t = pixelTypeOf(a.element, fix);
  const Dims d = dimsOf(a, r.layout);
  checkSizes(a, fix, d);
  if (d.c != 1 && d.c != 3 && d.c != 4) refuseChannels(a, r, fix, d.c);
  Frames f =
      channelsFirst(r.layout) ? channelsFirstFrames(a, r, fix, t, filterAlpha) : channelsLastFrames(a, r, fix, t);
  f.data = a.data;
  f.span = std::size_t(a.element.bytes);
  for (std::size_t i = 0; i < a.shape.size(); ++i)
    if (a.shape[i] > 1) f.span += std::size_t(a.shape[i] - 1) * std::size_t(a.strides[i]);
  f.readonly = a.readonly;
  f.onDevice = a.onDevice;
  f.device = a.device;
  f.stream = a.stream;
  if (a.data % std::uintptr_t(f.views ? 4 : a.element.bytes))
    throw py::value_error(fix.what + ": the data starts at an address that is not a multiple of " +
                          std::to_string(f.views ? 4 : a.element.bytes) + " bytes; pass " + fix.what + ".copy()");
  return f;
}

// out= against img: the same shape, and img's dtype or float32 from uint8 (outType, from dtype= or
// out's dtype: float32 output, neither rounded nor clamped).
void checkOutArray(const Array& in, const Array& out, std::optional<PixelType>& outType, bool dtypeGiven) {
  const bool floatFromU8 = in.element.name == "uint8" && out.element.name == "float32";
  if (dtypeGiven && !outType && floatFromU8)
    throw py::value_error(
        "out: dtype float32, and dtype=uint8 asks for img's dtype: leave dtype out (a float32 out "
        "gives float32 output) or pass a uint8 out");
  if (outType && !floatFromU8)
    throw py::value_error("out: dtype " + out.element.name + ", and dtype=float32 was asked: pass a float32 out");
  if (in.element.name != out.element.name && !floatFromU8)
    throw py::value_error("out: dtype " + out.element.name + " differs from img's " + in.element.name +
                          ": pass an array of img's dtype and shape" +
                          (in.element.name == "uint8" ? " (or float32: the filtered values unrounded)" : ""));
  if (floatFromU8) outType = PixelType::F32;
  if (in.shape != out.shape)
    throw py::value_error("out: shape " + tupleText(out.shape) + " differs from img's " + tupleText(in.shape));
}

// The output's layout for frames `in` written as outType: RGBA8 frames, a batch rather than views
// (the views are RGBA8 in and out); a kept alpha plane of channels-first data refused (it is copied,
// and copies keep their type).
void readForOutput(Frames& in, const std::optional<PixelType>& outType) {
  if (!outType) return;
  if (in.alphaPlane)
    throw py::value_error(
        "dtype float32 from channels-first uint8 RGBA with filter_alpha=False: the alpha plane is copied, not "
        "converted; pass filter_alpha=True, or a contiguous copy of the three colour planes "
        "(numpy.ascontiguousarray(img[..., :3, :, :]), or .contiguous() for torch)");
  if (in.views) {
    in.views = false;
    in.desc.batch = in.runs;
    in.desc.batchStride = in.runs > 1 ? in.runStride : 0;
    in.runs = 1;
    in.runStride = 0;
  }
}

// Whether `out` is laid out as a plan for `in` writes it (its own type's: in's layout; float32 from
// uint8: in's layout in values).
bool outLaidOutFor(const Frames& in, const Frames& out, const std::optional<PixelType>& outType) {
  if (!outType) return in.views || in.sameLayout(out);
  return out.desc == outputDesc(in.desc, *outType) && !out.views;
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
    std::optional<PixelType> outType;
    Plan plan;
  };
  std::vector<Kept> plans;  // the most recently used last
  DeviceImage staging;      // the texture variant's input, when the caller's frame is not aligned for it

  // Caller holds `mutex`. Throws ProblemError when the plan cannot be made.
  Plan& planFor(const FilterSpec& spec, const ImageDesc& image, Memory memory, int device,
                const std::optional<PixelType>& outType) {
    auto it = std::find_if(plans.begin(), plans.end(), [&](const Kept& k) {
      return k.memory == memory && k.image == image && k.outType == outType && k.spec == spec;
    });
    if (it == plans.end()) {
      // A named GPU variant is refused without a device, as on the command line; auto runs on the CPU.
      Plan made =
          Plan::make(spec, image, {.memory = memory, .device = device, .cpuFallback = false, .outType = outType});
      if (plans.size() >= 4) plans.erase(plans.begin());
      plans.push_back({spec, image, memory, outType, std::move(made)});
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
bool textureCannotRead(const Variant& v, const ConstImageView& f, int device) {
  if (v.name != "texture") return false;
  int base = 0, pitch = 0;
  CL_CUDA(cudaDeviceGetAttribute(&base, cudaDevAttrTextureAlignment, device));
  CL_CUDA(cudaDeviceGetAttribute(&pitch, cudaDevAttrTexturePitchAlignment, device));
  return reinterpret_cast<std::uintptr_t>(f.data) % std::uintptr_t(std::max(base, 1)) != 0 ||
         f.pitch % std::size_t(std::max(pitch, 1)) != 0;
}

bool overlaps(const Frames& a, const Frames& b) {
  return a.onDevice == b.onDevice && a.data < b.data + b.span && b.data < a.data + a.span;
}
void checkOut(const Frames& in, const Frames& out) {
  if (out.readonly) throw py::value_error("out: the array is read-only");
  if (overlaps(in, out))
    throw py::value_error("out: shares memory with img; convlive does not filter in place: pass another array");
}

// One RGBA8 frame on views (pitches of their own), through the slot's staging frame where the
// texture variant cannot read the caller's.
void runView(Plan& plan, PlanSlot& slot, ConstImageView src, const ImageView& dst, bool onDevice, int device,
             cudaStream_t stream) {
  if (onDevice && textureCannotRead(plan.variant(), src, device)) {
    if (slot.staging.width() != src.width || slot.staging.height() != src.height)
      slot.staging = DeviceImage(src.width, src.height);
    const ImageView st = slot.staging.view();
    CL_CUDA(cudaMemcpy2DAsync(st.data, st.pitch, src.data, src.pitch, std::size_t(src.width) * 4, src.height,
                              cudaMemcpyDeviceToDevice, stream));
    src = st;
  }
  plan.run(src, dst, stream);
}

// Copies one plane (the alpha of channels-first RGBA), in stream order on the device.
void copyPlane(const ImageDesc& d, const std::uint8_t* src, std::uint8_t* dst, bool onDevice, cudaStream_t stream) {
  const std::size_t pitch = d.rowPitch(), bytes = d.rowBytes();
  if (onDevice) {
    CL_CUDA(cudaMemcpy2DAsync(dst, pitch, src, pitch, bytes, std::size_t(d.height), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  for (int y = 0; y < d.height; ++y) std::memcpy(dst + pitch * std::size_t(y), src + pitch * std::size_t(y), bytes);
}

// Filters `in` into `out` (the same frames) with the slot's plan for them. The caller holds the
// slot's mutex; frames on the device are filtered on `stream`.
void runFrames(PlanSlot& slot, const FilterSpec& spec, const Frames& in, const Frames& out, Memory memory, int device,
               cudaStream_t stream, const std::optional<PixelType>& outType) {
  Plan& plan = slot.planFor(spec, in.planDesc(), memory, device, outType);
  for (const Frames* f : {&in, &out})
    if (f->stream) streamWaits(stream, caiStream(*f->stream));
  const ImageDesc& d = in.desc;
  for (int r = 0; r < in.runs; ++r) {
    const auto* src = reinterpret_cast<const std::uint8_t*>(in.data + in.runStride * std::size_t(r));
    auto* dst = reinterpret_cast<std::uint8_t*>(out.data + out.runStride * std::size_t(r));
    if (in.views)
      runView(plan, slot, ConstImageView(src, d.width, d.height, d.rowPitch()),
              ImageView{dst, d.width, d.height, out.desc.rowPitch()}, in.onDevice, device, stream);
    else
      plan.run(src, dst, stream);
    if (in.alphaPlane) copyPlane(d, src + *in.alphaPlane, dst + *in.alphaPlane, in.onDevice, stream);
  }
}

// ---- filter() ---------------------------------------------------------------------------------

struct Call {
  const FilterSpec* spec = nullptr;  // the caller's, for the call
  std::optional<PixelType> outType;  // float32 from uint8 (dtype=, or out's dtype)
  std::string dtype;                 // dtype= ("": img's, or out's)
  py::object out, layout;
  cudaStream_t stream = nullptr;
  int device = -1;  // device=: -1 (None) the current device for host arrays, the array's for CUDA ones
};

// device= (None: -1), checked against the devices there are. Without any device, 0 (the default
// device) is where the CPU variant runs, as with None.
int deviceFrom(const py::kwargs& kw) {
  if (!kw.contains("device")) return -1;
  const py::object v = kw["device"];
  if (v.is_none()) return -1;
  if (PyBool_Check(v.ptr()) || !PyIndex_Check(v.ptr()))
    throw py::type_error("device: expected an int (a CUDA device index) or None, got " + typeName(v));
  const long long d = v.cast<long long>();
  const std::string asked = "device=" + std::to_string(d);
  if (d < 0) throw py::value_error(asked + ": a CUDA device index is 0 or more (None: the current device)");
  const int count = deviceCount();
  if (count == 0 && d == 0) return -1;
  if (d >= count)
    throw py::value_error(asked + ": this machine has " + describeDevices() +
                          (count ? "; convlive.devices() lists them" : "; leave device out and the CPU variant runs"));
  return int(d);
}

// dtype= (None: ""): its name, numpy.float32, "float32" and torch.float32 alike.
std::string dtypeFrom(const py::kwargs& kw) {
  if (!kw.contains("dtype") || py::object(kw["dtype"]).is_none()) return "";
  const py::object v = kw["dtype"];
  try {
    return py::str(numpy().attr("dtype")(v).attr("name"));
  } catch (const py::error_already_set&) {
    std::string name = py::str(v);  // torch.float32 prints as "torch.float32"
    return name.rfind("torch.", 0) == 0 ? name.substr(6) : name;
  }
}

// The output's type asked by dtype= (`what`: the keyword) for frames of dtype `in`: float32 from
// uint8 (the filtered values unrounded), in's own dtype (no change); others refused with what works.
std::optional<PixelType> outTypeFor(const std::string& dtype, const std::string& in, const char* what = "dtype") {
  if (dtype.empty() || dtype == in) return std::nullopt;
  if (dtype == "float32" && in == "uint8") return PixelType::F32;
  throw py::value_error(std::string(what) + ": " + dtype + " output from " + in +
                        " frames is not made: float32 from uint8 (the filtered values unrounded), or the frames' "
                        "own dtype (leave " +
                        what + " out)");
}

// A host array as NumPy sees it, without a copy (torch CPU tensors through .numpy()).
py::array hostNumpy(const char* what, py::handle v, bool isOut) {
  if (isOut && !isNumpyArray(v) && frameworkOf(v) != Framework::Torch)
    throw py::type_error(std::string(what) + ": expected a numpy.ndarray for a host img, got " + typeName(v));
  return numpy().attr("asarray")(v);
}

// A new host array: img's shape and dtype (float32 where outType says), C-contiguous, or with img's
// strides in elements (a buffer of img's span in elements).
py::array newHostArray(const py::array& img, const std::optional<PixelType>& outType, bool withImgStrides,
                       std::size_t span) {
  const py::module_& np = numpy();
  const py::object dtype = outType ? np.attr("dtype")("float32") : img.attr("dtype");
  if (!withImgStrides) return np.attr("empty")(img.attr("shape"), dtype);
  const std::size_t scale = outType ? 4 : 1;  // float32 from uint8 (itemsize() is not read: NumPy 2's layout)
  py::tuple strides(img.ndim());
  for (py::ssize_t i = 0; i < img.ndim(); ++i) strides[i] = py::int_(img.strides(i) * py::ssize_t(scale));
  return np.attr("ndarray")(img.attr("shape"), dtype, np.attr("empty")(span * scale, np.attr("uint8")), 0, strides);
}

void filterHostInto(const Call& c, const Frames& in, const Frames& out) {
  py::gil_scoped_release released;
  int device = c.device;
  if (device < 0 && deviceInfo().available) device = currentDevice();
  PlanSlot& slot = slotFor(device, c.stream);
  std::lock_guard lock(slot.mutex);
  runFrames(slot, *c.spec, in, out, Memory::Host, device, c.stream, c.outType);
}

py::object filterHost(py::handle img, const Call& c) {
  const Framework fw = frameworkOf(img);
  const py::array a = hostNumpy("img", img, false);
  const Array inArray = hostArray(a, fw);
  const ReadAs as = layoutOf(inArray, c.layout, Fix{fw, "img"});
  Frames in = framesOf(inArray, as, Fix{fw, "img"}, c.spec->filterAlpha);
  Call call = c;
  call.outType = outTypeFor(c.dtype, inArray.element.name);
  const py::array result = c.out.is_none() ? newHostArray(a, call.outType, false, 0) : hostNumpy("out", c.out, true);
  const Array outArray = hostArray(result, c.out.is_none() ? Framework::NumPy : frameworkOf(c.out));
  checkOutArray(inArray, outArray, call.outType, !c.dtype.empty());
  readForOutput(in, call.outType);
  const Frames out = framesOf(outArray, as, Fix{outArray.framework, "out"}, c.spec->filterAlpha);
  checkOut(in, out);
  if (outLaidOutFor(in, out, call.outType)) {
    filterHostInto(call, in, out);
  } else {  // one plan per layout: filtered with img's strides, then copied into out's (documented)
    const py::array tmp = newHostArray(a, call.outType, true, in.span);
    filterHostInto(call, in,
                   framesOf(hostArray(tmp, Framework::NumPy), as, Fix{Framework::NumPy, "out"}, c.spec->filterAlpha));
    numpy().attr("copyto")(result, tmp);
  }
  if (!c.out.is_none()) return c.out;
  if (fw == Framework::Torch) return py::module_::import("torch").attr("from_numpy")(result);
  return result;
}

py::object filterDevice(py::handle img, const DataAt& imgAt, const Call& c) {
  if (c.out.is_none())
    throw py::value_error(
        "out: a CUDA img needs out=, a device array of img's shape and dtype (for example cupy.empty_like(img) or "
        "torch.empty_like(img); for dtype=float32, cupy.empty(img.shape, cupy.float32) or torch.empty_like(img, "
        "dtype=torch.float32)) that the result is written into");
  const DataAt outAt = dataAt(c.out);
  if (!outAt.onDevice())
    throw py::type_error("out: expected a CUDA array (__cuda_array_interface__ or DLPack) for a CUDA img, got " +
                         typeName(c.out));
  const DeviceArg inArg = deviceArray("img", img, imgAt, c.stream);
  const DeviceArg outArg = deviceArray("out", c.out, outAt, c.stream);
  const Fix inFix{inArg.array.framework, "img"}, outFix{outArg.array.framework, "out"};
  const ReadAs as = layoutOf(inArg.array, c.layout, inFix);
  Frames in = framesOf(inArg.array, as, inFix, c.spec->filterAlpha);
  std::optional<PixelType> outType = outTypeFor(c.dtype, inArg.array.element.name);
  checkOutArray(inArg.array, outArg.array, outType, !c.dtype.empty());
  readForOutput(in, outType);
  const Frames out = framesOf(outArg.array, as, outFix, c.spec->filterAlpha);
  if (in.device != out.device)
    throw py::value_error("out: on CUDA device " + std::to_string(out.device) + ", img on device " +
                          std::to_string(in.device) + ": both must be on one device");
  if (c.device >= 0 && c.device != in.device)
    throw py::value_error(
        "device=" + std::to_string(c.device) + ", but img is on CUDA device " + std::to_string(in.device) +
        ": CUDA arrays are filtered on the device that holds them; pass "
        "device=" +
        std::to_string(in.device) + ", leave device out, or move img to device " + std::to_string(c.device) + " first");
  checkOut(in, out);
  if (!outLaidOutFor(in, out, outType))
    throw py::value_error(
        "out: strides " + tupleText(outArg.array.strides) + " differ from img's " + tupleText(inArg.array.strides) +
        (outType ? std::string(": a float32 out takes img's strides in elements, 4 x img's bytes") : std::string()) +
        ": on the GPU one plan reads img and writes out with one layout; pass an out laid out so, "
        "or a contiguous img (" +
        inFix.contiguous() + ") with a contiguous out");
  {
    py::gil_scoped_release released;
    const DeviceScope current(in.device);
    PlanSlot& slot = slotFor(in.device, c.stream);
    std::lock_guard lock(slot.mutex);
    runFrames(slot, *c.spec, in, out, Memory::Device, in.device, c.stream, outType);
  }
  return c.out;
}

// The call's own keywords, beside the settings.
constexpr const char* kCallKeywords[] = {"out", "dtype", "stream", "layout", "device"};

Call callFrom(const FilterSpec& spec, const py::kwargs& kw) {
  Call c;
  c.spec = &spec;
  c.device = deviceFrom(kw);
  c.dtype = dtypeFrom(kw);
  c.out = kw.contains("out") ? py::object(kw["out"]) : py::none();
  c.layout = kw.contains("layout") ? py::object(kw["layout"]) : py::none();
  c.stream = streamFrom(kw.contains("stream") ? py::object(kw["stream"]) : py::none());
  return c;
}

py::object filterWith(py::handle img, const Call& c) {
  if (const DataAt at = dataAt(img); at.onDevice()) return filterDevice(img, at, c);
  if (!c.out.is_none() && dataAt(c.out).onDevice())
    throw py::type_error("out: a CUDA array, and img is in host memory: pass both in host memory or both on the GPU");
  return filterHost(img, c);
}

py::object filter(py::handle img, const py::kwargs& kw) {
  const FilterSpec spec = specFrom(kw, kCallKeywords);
  return filterWith(img, callFrom(spec, kw));
}

// ---- Filter: settings checked once, called on many frames ------------------------------------

// A filter made once (its settings checked, its weights file read) and called on frames: a call
// does no settings work, as filter() must (it parses its keywords each time: row and column weights
// of 17 taps took tens of microseconds, as long as the GPU work of a small batch).
class PreparedFilter {
 public:
  explicit PreparedFilter(FilterSpec spec) : spec_(std::move(spec)) {}
  const FilterSpec& spec() const { return spec_; }
  bool operator==(const PreparedFilter&) const = default;

 private:
  FilterSpec spec_;
};

// The numbers of a weights file as the weights setting's text, so that a Filter keeps the mask the
// file held when it was made (a plan made later, for another frame size, reads no file).
FilterSpec withWeightsFileRead(FilterSpec spec) {
  if (spec.weightsFile.empty() || spec.mask != "custom") return spec;  // other masks do not read it
  WeightGrid grid;
  if (Problem p = readWeightsFile(spec.weightsFile, grid)) {
    p.setting = "weights-file";
    throw py::value_error(forPython(p));
  }
  std::string text;
  for (int y = 0; y < grid.rows; ++y) {
    if (y) text += ';';
    for (int x = 0; x < grid.cols; ++x) {
      if (x) text += ',';
      text += numberText(grid.values[std::size_t(y) * std::size_t(grid.cols) + std::size_t(x)]);
    }
  }
  FilterSpec read = spec;
  read.weightsFile.clear();
  if (Problem p = read.set("weights", text)) throw py::value_error(forPython(p));
  if (Problem p = validated(read)) throw py::value_error(forPython(p));
  return read;
}

PreparedFilter makeFilter(const py::kwargs& kw) {
  for (auto item : kw) {
    const std::string key = py::str(item.first);
    if (oneOf(kCallKeywords, key))
      throw py::value_error(key +
                            ": given to a call, not when the Filter is made: f = convlive.Filter(mask=...); f(img, " +
                            key + "=...)");
    if (!isSettingKeyword(key))
      throw py::value_error("unknown keyword '" + key + "': a Filter takes the settings " + settingKeywords());
  }
  return PreparedFilter(withWeightsFileRead(specFrom(kw)));
}

py::object callFilter(const PreparedFilter& f, py::handle img, const py::kwargs& kw) {
  for (auto item : kw) {
    const std::string key = py::str(item.first);
    if (oneOf(kCallKeywords, key)) continue;
    if (findSetting(settingOf(key)))
      throw py::value_error(key + ": a Filter's settings are fixed when it is made: make another, convlive.Filter(" +
                            key + "=...), or call convlive.filter(img, " + key + "=...)");
    throw py::value_error("unknown keyword '" + key + "': a Filter call takes out, dtype, stream, layout and device");
  }
  return filterWith(img, callFrom(f.spec(), kw));
}

// The settings that differ from the defaults, as Python values: Filter(**f.settings) makes f again.
py::dict filterSettings(const PreparedFilter& f) {
  py::dict d;
  for (const Setting& s : specSettings()) {
    // get() writes numbers to 6 digits: sigma and pitch as the values, in the shortest text that
    // reads back as each, and told from the default by value
    static const FilterSpec defaults;
    auto number = [&](const FilterSpec& x) {
      return s.name == "sigma" ? &x.sigma : s.name == "pitch" ? &x.pitch : nullptr;
    };
    const float* value = number(f.spec());
    const std::string text = value ? numberText(*value) : f.spec().get(s.name);
    if (value ? *value == *number(defaults) : text == s.defaultText()) continue;
    py::object v = py::str(text);
    if (s.type == Setting::Type::Int) v = py::int_(std::stoll(text));
    if (s.type == Setting::Type::Flag) v = py::bool_(text == "true");
    if (value) {  // from_chars: the C locale's decimal point, whatever the process's
      double d = 0;
      std::from_chars(text.data(), text.data() + text.size(), d);
      v = py::float_(d);
    }
    d[py::str(keywordOf(s.name))] = v;
  }
  return d;
}

std::string filterRepr(const PreparedFilter& f) {
  std::string s = "convlive.Filter(";
  bool first = true;
  for (auto item : filterSettings(f)) {
    s += (first ? "" : ", ") + std::string(py::str(item.first)) + "=" + std::string(py::repr(item.second));
    first = false;
  }
  return s + ")";
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

py::object deviceDescription(const DeviceInfo& d) {
  py::dict f;
  f["available"] = d.available;
  f["index"] = d.index;
  f["name"] = d.name;
  f["reason"] = d.reason;
  f["compute_capability"] = py::make_tuple(d.major, d.minor);
  f["multiprocessors"] = d.multiprocessors;
  f["memory_bytes"] = d.globalMemory;
  return py::module_::import("types").attr("SimpleNamespace")(**f);
}

// device(index=None): the current device, or device `index` (checked as filter()'s device= is).
py::object deviceAt(const py::object& index) {
  py::kwargs kw;
  kw["device"] = index;
  const int d = deviceFrom(kw);
  return deviceDescription(deviceInfo(d));
}

py::list deviceList() {
  py::list out;
  for (int i = 0; i < deviceCount(); ++i) out.append(deviceDescription(deviceInfo(i)));
  return out;
}

// The frames choose() describes: `dtype` (anything numpy.dtype reads), `channels`, `batch`; what
// filter() plans for such arrays (RGBA8: one frame at a time).
ImageDesc chooseDesc(int width, int height, const py::kwargs& kw, bool keepBatch = false) {
  ImageDesc d = ImageDesc::rgba8(width, height);
  const auto get = [&](const char* k) { return kw.contains(k) ? py::object(kw[k]) : py::object(py::none()); };
  if (const py::object dt = get("dtype"); !dt.is_none()) {
    const py::array probe = numpy().attr("empty")(0, numpy().attr("dtype")(dt));
    d.type = pixelTypeOf(hostArray(probe, Framework::NumPy).element, Fix{Framework::NumPy, "dtype"});
  }
  for (const auto& [key, field] : {std::pair{"channels", &d.channels}, std::pair{"batch", &d.batch}}) {
    const py::object v = get(key);
    if (v.is_none()) continue;
    if (PyBool_Check(v.ptr()) || !PyIndex_Check(v.ptr()))
      throw py::type_error(std::string(key) + ": expected an int, got " + typeName(v));
    *field = v.cast<int>();
  }
  d.alpha = d.channels == 4;
  if (d.isRgba8() && !keepBatch) d.batch = 1;  // filter() runs RGBA8 frames one a plan run, unless into float32
  return d;
}

// What filter() would run for these settings on width x height frames (auto: measured on a GPU).
py::dict chooseFor(const FilterSpec& spec, int width, int height, const py::kwargs& kw) {
  ImageDesc desc = chooseDesc(width, height, kw);
  const int device = deviceFrom(kw);
  // out_dtype: filter()'s dtype= (float32 from uint8).
  std::optional<PixelType> outType;
  if (kw.contains("out_dtype") && !py::object(kw["out_dtype"]).is_none()) {
    py::dict asFilter;
    asFilter["dtype"] = kw["out_dtype"];
    const bool integer = desc.type == PixelType::U8 || desc.type == PixelType::U16;
    const std::string in = elementName(integer ? 'u' : 'f', int(pixelTypeBytes(desc.type)));
    outType = outTypeFor(dtypeFrom(py::kwargs(asFilter)), in, "out_dtype");
  }
  // RGBA8 into float32 is one plan over the batch, as filter() makes it.
  if (outType) desc = chooseDesc(width, height, kw, true);
  Problem why;
  Plan plan;
  {
    py::gil_scoped_release released;
    plan = Plan::make(spec, desc, {.memory = Memory::Host, .device = device, .cpuFallback = false, .outType = outType},
                      why);
  }
  py::dict d;
  d["variant"] = plan ? plan.variant().name : spec.variant;
  d["tile"] = !plan || plan.variant().tiles.empty() ? py::object(py::none())
                                                    : py::object(py::make_tuple(plan.tile().w, plan.tile().h));
  d["why"] = plan ? plan.autoWhy() : std::string();
  d["why_not"] = why ? py::object(py::str(forPython(why))) : py::object(py::none());
  return d;
}

constexpr const char* kChooseKeywords[] = {"dtype", "out_dtype", "channels", "batch", "device"};

py::dict choose(int width, int height, const py::kwargs& kw) {
  return chooseFor(specFrom(kw, kChooseKeywords), width, height, kw);
}

py::dict chooseFilter(const PreparedFilter& f, int width, int height, const py::kwargs& kw) {
  for (auto item : kw) {
    const std::string key = py::str(item.first);
    if (!oneOf(kChooseKeywords, key))
      throw py::value_error("unknown keyword '" + key +
                            "': Filter.choose takes dtype, out_dtype, channels, batch and device (the settings are "
                            "the Filter's)");
  }
  return chooseFor(f.spec(), width, height, kw);
}

std::string filterDoc() {
  std::string s =
      "filter(img, *, out=None, dtype=None, stream=None, layout=None, device=None, **settings) -> the filtered "
      "frames\n\n"
      "img: frames of dtype uint8, uint16, float16 or float32 with 1, 3 or 4 channels, in layout (a str) 'HW',\n"
      "'HWC', 'NHWC' (channels last), 'CHW' or 'NCHW' (channels first: a batch of one-channel planes). Left\n"
      "out, the layout follows the array's convention: torch tensors channels-first, other arrays\n"
      "channels-last; a 2-D array is (H, W). The pixel (or, channels-first, row) dimension must be contiguous;\n"
      "rows and frames may be padded. The output has img's dtype; integers within 1 of the exact result,\n"
      "float16 within 1 ulp, float32 within 1e-5 x sum|w| x max|img|.\n"
      "dtype: 'float32' (or numpy.float32, torch.float32) for a uint8 img: float32 output, the filtered values\n"
      "on img's 0..255 scale, neither rounded nor clamped (a float32 out= asks the same); its strides are\n"
      "img's in elements.\n"
      "A host array (NumPy, a torch CPU tensor, a buffer): the result is a new array, or `out` (a NumPy array of\n"
      "img's shape and dtype, never sharing img's memory); a GPU variant uploads, filters and downloads. A CUDA\n"
      "array (__cuda_array_interface__ or DLPack: CuPy, PyTorch, Numba): filtered where it is, without a copy,\n"
      "into `out` (required: a CUDA array of img's shape, dtype and strides), which is returned; the launch is\n"
      "asynchronous on `stream`.\n"
      "stream: an int (a cudaStream_t handle), a stream object (torch.cuda.Stream, cupy.cuda.Stream, or one with\n"
      "__cuda_stream__), or None: the legacy default stream (0). The stream in an array's\n"
      "__cuda_array_interface__ is waited for on it (on the GPU); DLPack producers are told the stream.\n"
      "device: the CUDA device index a host array is filtered on (None: the current device). A CUDA array is\n"
      "filtered on the device that holds it; a device= that names another one raises ValueError.\n\n"
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
  m.doc() =
      "convlive: real-time 2D convolution of frames (uint8, uint16, float16, float32; 1, 3 or 4 channels) on "
      "NVIDIA GPUs (and the CPU), from Python";
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
  py::class_<PreparedFilter>(m, "Filter",
                             "Filter(**settings)\n\nA filter made once and called on many frames: f = "
                             "convlive.Filter(mask='gaussian', radius=8); f(img, out=out, stream=s). The settings "
                             "(filter()'s, the same keywords and defaults) are checked when it is made, and a "
                             "weights_file read then; a call does no settings work, so back-to-back calls on small "
                             "batches cost less host time than filter()'s. Calls take filter()'s other keywords: "
                             "out, dtype, stream, layout, device.")
      .def(py::init([](const py::kwargs& kw) { return makeFilter(kw); }))
      .def("__call__", &callFilter, py::arg("img"),
           "__call__(img, *, out=None, dtype=None, stream=None, layout=None, device=None) -> the filtered frames\n\n"
           "filter(img, ..., **settings) with this Filter's settings")
      .def("choose", &chooseFilter, py::arg("width"), py::arg("height"),
           "choose(width, height, *, dtype='uint8', out_dtype=None, channels=4, batch=1, device=None) -> dict\n\n"
           "convlive.choose() with this Filter's settings")
      .def(
          "describe", [](const PreparedFilter& f) { return f.spec().describe(); },
          "describe() -> str\n\nOne line for the settings, as convlive.describe() writes it")
      .def_property_readonly("settings", &filterSettings,
                             "The settings that differ from the defaults, as a dict: convlive.Filter(**f.settings) "
                             "makes the same filter")
      .def("__repr__", &filterRepr)
      .def(py::self == py::self)
      .def("__hash__", [](const PreparedFilter& f) { return std::hash<std::string>{}(filterRepr(f)); })
      // Pickled as its settings (a weights file's numbers among them): a Filter in a dataset's
      // transform travels to DataLoader workers and other processes, which need no file. Made again
      // by functools.partial(Filter, **settings)(), which every protocol pickles (py::pickle's
      // __setstate__ would make the object with object.__new__ at protocols 0 and 1, which a
      // pybind11 class cannot take).
      .def("__reduce__", [](const py::object& self) {
        const py::object remake =
            py::module_::import("functools")
                .attr("partial")(py::type::of(self), **filterSettings(self.cast<const PreparedFilter&>()));
        return py::make_tuple(remake, py::tuple());
      });
  m.def("variants", &variantTable,
        "variants() -> list of dict\n\nThe variant table: a list of dicts (name, description, on_gpu, "
        "max_radius, "
        "tiles as (w, h), tile_meaning)");
  m.def("spec_settings", &settingTable,
        "spec_settings() -> list of dict\n\nThe filter spec's settings as dicts (keyword, name, label, type, "
        "default, "
        "min/max/step for numbers, "
        "choices, masks it applies to, help): filter()'s keywords");
  m.def(
      "describe", [](const py::kwargs& kw) { return specFrom(kw).describe(); },
      "describe(**settings) -> str\n\nOne line for the settings, as the command line's reports write it: "
      "describe(mask='box', radius=2)");
  m.def("device", &deviceAt, py::arg("index") = py::none(),
        "device(index=None) -> types.SimpleNamespace\n\nA CUDA device (None: the current one): a namespace with "
        "available, index, name, reason (why not available), compute_capability, multiprocessors, memory_bytes");
  m.def("devices", &deviceList,
        "devices() -> list of types.SimpleNamespace\n\nEvery CUDA device this process sees, as device() "
        "describes "
        "it (empty without one: device().reason says why)");
  m.def("choose", &choose, py::arg("width"), py::arg("height"),
        "choose(width, height, *, dtype='uint8', out_dtype=None, channels=4, batch=1, device=None, **settings) "
        "-> "
        "dict\n\nWhat "
        "filter() runs on device (None: the current one) "
        "for these settings on width x height frames (channels-first arrays: channels=1, batch=N*C planes): a "
        "dict "
        "with variant, tile, why (auto's reason) and why_not (None when it can run); out_dtype='float32' asks "
        "what "
        "filter(..., dtype='float32') runs for uint8 frames");
}
