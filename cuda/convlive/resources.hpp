// RAII owners of CUDA resources, each a convlive::Handle with its release. Each is non-copyable and
// movable (a moved-from one is empty); destructors never throw (a failure while releasing is
// ignored: there is nothing useful to do about it at that point).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "convlive/handle.hpp"
#include "convlive/image.hpp"

namespace convlive {

// Device memory from cudaMalloc.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  void* get() const { return ptr_.get(); }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_.get());
  }
  std::size_t bytes() const { return ptr_ ? bytes_ : 0; }  // 0 once moved from
  // Grows (never shrinks) to at least `bytes`; the contents are not kept when it grows.
  void reserve(std::size_t bytes);

 private:
  static void release(void* p) noexcept;
  Handle<void*, &DeviceBuffer::release> ptr_;
  std::size_t bytes_ = 0;
};

// Page-locked host memory from cudaMallocHost.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes);
  void* get() const { return ptr_.get(); }
  std::size_t bytes() const { return ptr_ ? bytes_ : 0; }  // 0 once moved from

 private:
  static void release(void* p) noexcept;
  Handle<void*, &PinnedBuffer::release> ptr_;
  std::size_t bytes_ = 0;
};

// A non-blocking CUDA stream.
class Stream {
 public:
  Stream();
  cudaStream_t get() const { return s_.get(); }
  void synchronize() const;

 private:
  static void release(cudaStream_t s) noexcept;
  Handle<cudaStream_t, &Stream::release> s_;
};

// A CUDA event with timing enabled.
class Event {
 public:
  Event();
  cudaEvent_t get() const { return e_.get(); }
  void record(cudaStream_t s) const;
  void synchronize() const;
  // Milliseconds from `start` to this event; both must have completed.
  float elapsedSince(const Event& start) const;

 private:
  static void release(cudaEvent_t e) noexcept;
  Handle<cudaEvent_t, &Event::release> e_;
};

// A texture object over a pitch-linear RGBA8 image in device memory (uchar4 element reads).
class TextureObject {
 public:
  TextureObject() = default;
  // normalizedCoords with wrap/mirror address modes; addressMode is a cudaTextureAddressMode.
  TextureObject(ConstImageView image, int addressMode, bool normalizedCoords);
  cudaTextureObject_t get() const { return t_.get(); }

 private:
  static void release(cudaTextureObject_t t) noexcept;
  Handle<cudaTextureObject_t, &TextureObject::release> t_;
};

// A device frame: RGBA8 in pitched device memory.
class DeviceImage {
 public:
  DeviceImage() = default;
  DeviceImage(int width, int height);
  ImageView view() const { return {buf_.as<std::uint8_t>(), width_, height_, pitch_}; }
  int width() const { return width_; }
  int height() const { return height_; }
  std::size_t pitch() const { return pitch_; }
  void upload(ConstImageView host, cudaStream_t s = nullptr) const;  // host memory, same size
  void download(ImageView host, cudaStream_t s = nullptr) const;     // host memory, same size

 private:
  DeviceBuffer buf_;
  int width_ = 0, height_ = 0;
  std::size_t pitch_ = 0;
};

// What a CUDA device is, queried once per device. `available` is false (with `reason` saying why)
// on a machine without a usable device, or for an index past the machine's devices; nothing else
// is filled then.
struct DeviceInfo {
  bool available = false;
  std::string reason;
  int index = -1;  // the CUDA device index (as cudaSetDevice takes it)
  std::string name;
  int major = 0, minor = 0, multiprocessors = 0;
  std::size_t sharedPerBlockOptin = 0;  // bytes a block may opt into
  std::size_t globalMemory = 0;
  int clockKHz = 0, memoryClockKHz = 0, busWidthBits = 0;
  // An SM's limits (the occupancy arithmetic of convlive/inspect.hpp reads them).
  int maxThreadsPerSm = 0, maxBlocksPerSm = 0, registersPerSm = 0, registersPerBlock = 0;
  std::size_t sharedPerSm = 0, reservedSharedPerBlock = 0;
};
// The calling thread's current device (what a plan with PlanOptions::device -1 runs on). Any
// thread; the facts are queried on first use of each device and kept for the process.
const DeviceInfo& deviceInfo();
// Device `device` (-1: the current one). An index past the machine's devices answers with
// `available` false and a reason naming how many there are.
const DeviceInfo& deviceInfo(int device);
// The CUDA devices this process sees (0 without a driver or a device; CUDA_VISIBLE_DEVICES applies).
int deviceCount();
// The current device of the calling thread (0 when there is none).
int currentDevice();
// "1 CUDA device (0: NVIDIA H200)", "2 CUDA devices (0: NVIDIA H100, 1: NVIDIA H100)", or
// "no CUDA device (why)": how the messages that refuse a device index describe the machine.
std::string describeDevices();

// The calling thread's current CUDA device set to `device` while it lives (nothing when it is -1 or
// already current), the caller's restored after. Throws CudaError when the device cannot be made
// current.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int old_ = 0;
  bool restore_ = false;
};

// The device's copy bandwidth in GB/s (bytes read + written per second), the median of `runs`
// device-to-device copies of `bytes`: what "% of the device's copy bandwidth" is measured against.
// 0 without a device. Takes a few milliseconds on a large GPU.
double measureCopyBandwidthGBs(std::size_t bytes = std::size_t(256) << 20, int runs = 7);

}  // namespace convlive
