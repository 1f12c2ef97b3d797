#include "convlive/resources.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "convlive/check.hpp"
#include "kernels/launch.hpp"

namespace convlive {
namespace {

// Releasing cannot fail usefully (destructors never throw), but the error would stay recorded and
// a later cudaGetLastError check would report it against an unrelated call: clear it.
void released(cudaError_t code) {
  if (code != cudaSuccess) (void)cudaGetLastError();
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  void* p = nullptr;
  if (bytes) CL_CUDA(cudaMalloc(&p, bytes));
  ptr_.reset(p);
}
void DeviceBuffer::release(void* p) noexcept { released(cudaFree(p)); }
void DeviceBuffer::reserve(std::size_t bytes) {
  if (bytes > this->bytes()) *this = DeviceBuffer(bytes);
}

PinnedBuffer::PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
  void* p = nullptr;
  if (bytes) CL_CUDA(cudaMallocHost(&p, bytes));
  ptr_.reset(p);
}
void PinnedBuffer::release(void* p) noexcept { released(cudaFreeHost(p)); }

Stream::Stream() {
  cudaStream_t s = nullptr;
  CL_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  s_.reset(s);
}
void Stream::release(cudaStream_t s) noexcept { released(cudaStreamDestroy(s)); }
void Stream::synchronize() const { CL_CUDA(cudaStreamSynchronize(get())); }

Event::Event() {
  cudaEvent_t e = nullptr;
  CL_CUDA(cudaEventCreate(&e));
  e_.reset(e);
}
void Event::release(cudaEvent_t e) noexcept { released(cudaEventDestroy(e)); }
void Event::record(cudaStream_t s) const { CL_CUDA(cudaEventRecord(get(), s)); }
void Event::synchronize() const { CL_CUDA(cudaEventSynchronize(get())); }
float Event::elapsedSince(const Event& start) const {
  float ms = 0.f;
  CL_CUDA(cudaEventElapsedTime(&ms, start.get(), get()));
  return ms;
}

TextureObject::TextureObject(ConstImageView image, int addressMode, bool normalizedCoords) {
  cudaResourceDesc res{};
  res.resType = cudaResourceTypePitch2D;
  res.res.pitch2D.devPtr = const_cast<std::uint8_t*>(image.data);
  res.res.pitch2D.desc = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  res.res.pitch2D.width = static_cast<std::size_t>(image.width);
  res.res.pitch2D.height = static_cast<std::size_t>(image.height);
  res.res.pitch2D.pitchInBytes = image.pitch;
  cudaTextureDesc tex{};
  const auto mode = static_cast<cudaTextureAddressMode>(addressMode);
  tex.addressMode[0] = tex.addressMode[1] = mode;
  tex.filterMode = cudaFilterModePoint;
  tex.readMode = cudaReadModeElementType;
  tex.normalizedCoords = normalizedCoords ? 1 : 0;
  cudaTextureObject_t t = 0;
  CL_CUDA(cudaCreateTextureObject(&t, &res, &tex, nullptr));
  t_.reset(t);
}
void TextureObject::release(cudaTextureObject_t t) noexcept { released(cudaDestroyTextureObject(t)); }

DeviceImage::DeviceImage(int width, int height) : width_(width), height_(height) {
  // Rows padded to 512 bytes: aligned for vector loads and what texture objects over pitched memory need.
  pitch_ = (static_cast<std::size_t>(width) * 4 + 511) / 512 * 512;
  buf_ = DeviceBuffer(pitch_ * static_cast<std::size_t>(height));
}
void DeviceImage::upload(ConstImageView host, cudaStream_t s) const {
  CL_CUDA(cudaMemcpy2DAsync(buf_.get(), pitch_, host.data, host.pitch, std::size_t(width_) * 4, height_,
                            cudaMemcpyHostToDevice, s));
}
void DeviceImage::download(ImageView host, cudaStream_t s) const {
  CL_CUDA(cudaMemcpy2DAsync(host.data, host.pitch, buf_.get(), pitch_, std::size_t(width_) * 4, height_,
                            cudaMemcpyDeviceToHost, s));
}

namespace {

// Why there is no device, in plain words: the CUDA error's own text ("CUDA driver version is
// insufficient for CUDA runtime version") reads as if a driver were there when there is none.
std::string noDeviceReason(cudaError_t e) {
  const std::string cuda = e == cudaSuccess ? "" : std::string(" (CUDA: ") + cudaGetErrorString(e) + ")";
  int driver = 0;  // 0: no driver installed
  const bool driverKnown = cudaDriverGetVersion(&driver) == cudaSuccess;
  (void)cudaGetLastError();
  if (e == cudaErrorInsufficientDriver && driverKnown && driver > 0) {
    int runtime = 0;
    (void)cudaRuntimeGetVersion(&runtime);
    (void)cudaGetLastError();
    const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    return "the NVIDIA driver supports CUDA " + version(driver) + " but this build needs CUDA " + version(runtime) +
           ": update the NVIDIA driver" + cuda;
  }
  if (e == cudaSuccess || e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice)
    return "no NVIDIA GPU or driver found" + cuda;
  return "no usable NVIDIA GPU" + cuda;
}

// Device `dev`'s facts (a device the count says exists).
DeviceInfo queryDevice(int dev) {
  DeviceInfo info;
  cudaDeviceProp p{};
  CL_CUDA(cudaGetDeviceProperties(&p, dev));
  info.available = true;
  info.index = dev;
  info.name = p.name;
  info.major = p.major;
  info.minor = p.minor;
  info.multiprocessors = p.multiProcessorCount;
  info.sharedPerBlockOptin = p.sharedMemPerBlockOptin;
  info.globalMemory = p.totalGlobalMem;
  info.maxThreadsPerSm = p.maxThreadsPerMultiProcessor;
  info.maxBlocksPerSm = p.maxBlocksPerMultiProcessor;
  info.registersPerSm = p.regsPerMultiprocessor;
  info.registersPerBlock = p.regsPerBlock;
  info.sharedPerSm = p.sharedMemPerMultiprocessor;
  info.reservedSharedPerBlock = p.reservedSharedMemPerBlock;
  CL_CUDA(cudaDeviceGetAttribute(&info.clockKHz, cudaDevAttrClockRate, dev));
  CL_CUDA(cudaDeviceGetAttribute(&info.memoryClockKHz, cudaDevAttrMemoryClockRate, dev));
  CL_CUDA(cudaDeviceGetAttribute(&info.busWidthBits, cudaDevAttrGlobalMemoryBusWidth, dev));
  return info;
}

// Every device's facts, queried on first use of each (the count once: it does not change while the
// process runs). A device's facts stay at one address for the process.
class DeviceTable {
 public:
  DeviceTable() {
    int count = 0;  // not written when there is no driver
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count <= 0) {
      (void)cudaGetLastError();
      none_.reason = noDeviceReason(e);
      count = 0;
    }
    slots_ = std::vector<Slot>(std::size_t(count));
  }
  int count() const { return int(slots_.size()); }
  const DeviceInfo& none() const { return none_; }
  const DeviceInfo& at(int device) {
    Slot& s = slots_[std::size_t(device)];
    std::call_once(s.once, [&] { s.info = queryDevice(device); });
    return s.info;
  }
  // The facts of an index past the devices: one per index asked (rare: a refused --device).
  const DeviceInfo& missing(int device) {
    std::lock_guard lock(m_);
    auto& d = missing_[device];
    if (d.reason.empty()) {
      d.index = device;
      d.reason = "CUDA device " + std::to_string(device) + " is not here: this machine has " + describeDevices();
    }
    return d;
  }

 private:
  struct Slot {
    std::once_flag once;
    DeviceInfo info;
  };
  std::vector<Slot> slots_;
  DeviceInfo none_;
  std::mutex m_;
  std::map<int, DeviceInfo> missing_;
};

DeviceTable& devices() {
  static DeviceTable table;
  return table;
}

}  // namespace

DeviceScope::DeviceScope(int device) {
  if (device < 0) return;
  CL_CUDA(cudaGetDevice(&old_));
  if (old_ != device) {
    CL_CUDA(cudaSetDevice(device));
    restore_ = true;
  }
}
DeviceScope::~DeviceScope() {
  if (restore_) cudaSetDevice(old_);
}

int deviceCount() { return devices().count(); }

int currentDevice() {
  if (deviceCount() == 0) return 0;
  int dev = 0;
  // Asked on every launch (deviceInfo()): never throws; a runtime that cannot say means device 0.
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return dev;
}

const DeviceInfo& deviceInfo(int device) {
  DeviceTable& t = devices();
  if (t.count() == 0) return t.none();
  if (device < 0) device = currentDevice();
  if (device >= t.count()) return t.missing(device);
  return t.at(device);
}

const DeviceInfo& deviceInfo() { return deviceInfo(-1); }

std::string describeDevices() {
  const int n = deviceCount();
  if (n == 0) return "no CUDA device (" + devices().none().reason + ")";
  std::string s = std::to_string(n) + (n == 1 ? " CUDA device (" : " CUDA devices (");
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(i) + ": " + deviceInfo(i).name;
  return s + ")";
}

double measureCopyBandwidthGBs(std::size_t bytes, int runs) {
  if (!deviceInfo().available) return 0;
  DeviceBuffer a(bytes), b(bytes);
  CL_CUDA(cudaMemset(a.get(), 1, bytes));
  Stream s;
  Event start, stop;
  std::vector<float> ms;
  for (int i = 0; i <= runs; ++i) {  // the first is a warm-up
    start.record(s.get());
    CL_CUDA(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, s.get()));
    stop.record(s.get());
    stop.synchronize();
    if (i > 0) ms.push_back(stop.elapsedSince(start));
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  const double median = ms[ms.size() / 2];
  return median > 0 ? 2.0 * double(bytes) / (median * 1e6) : 0;
}

namespace kernels {

void allowLargeShared(const void* kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return;  // every kernel's default
  int device = 0;
  CL_CUDA(cudaGetDevice(&device));
  static std::mutex m;
  static std::set<std::pair<const void*, int>> raised;
  {
    std::lock_guard lock(m);
    if (raised.count({kernel, device})) return;
  }
  cudaFuncAttributes a{};
  CL_CUDA(cudaFuncGetAttributes(&a, kernel));
  int optin = 0;
  CL_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  CL_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               optin - static_cast<int>(a.sharedSizeBytes)));
  std::lock_guard lock(m);
  raised.insert({kernel, device});
}

int residentBlocks(const void* kernel, int threads, std::size_t dynamicShared) {
  // Asked once per kernel, block, shared memory and device: the answer is the device's (its SMs,
  // its opt-in shared memory), so two GPUs of a process each get their own.
  int device = 0;
  CL_CUDA(cudaGetDevice(&device));
  using Key = std::tuple<const void*, int, std::size_t, int>;
  static std::mutex m;
  static std::map<Key, int> known;
  const Key key{kernel, threads, dynamicShared, device};
  {
    std::lock_guard lock(m);
    if (const auto it = known.find(key); it != known.end()) return it->second;
  }
  allowLargeShared(kernel, dynamicShared);
  int perSm = 0;
  CL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, threads, dynamicShared));
  const int blocks = std::max(1, perSm * deviceInfo(device).multiprocessors);
  std::lock_guard lock(m);
  known[key] = blocks;
  return blocks;
}

}  // namespace kernels
}  // namespace convlive
