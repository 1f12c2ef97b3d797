// RAII owners of CUDA resources. Each is non-copyable and movable; destructors never throw (a
// failure while releasing is ignored: there is nothing useful to do about it at that point).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "convlive/image.hpp"

namespace convlive {

template <class Derived>
class MoveOnly {
 public:
  MoveOnly() = default;
  MoveOnly(const MoveOnly&) = delete;
  MoveOnly& operator=(const MoveOnly&) = delete;
  MoveOnly(MoveOnly&&) = default;
  MoveOnly& operator=(MoveOnly&&) = default;
};

// Device memory from cudaMalloc.
class DeviceBuffer : MoveOnly<DeviceBuffer> {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }
  // Grows (never shrinks) to at least `bytes`; the contents are not kept when it grows.
  void reserve(std::size_t bytes);

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Page-locked host memory from cudaMallocHost.
class PinnedBuffer : MoveOnly<PinnedBuffer> {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// A non-blocking CUDA stream.
class Stream : MoveOnly<Stream> {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept;
  cudaStream_t get() const { return s_; }
  void synchronize() const;

 private:
  cudaStream_t s_ = nullptr;
};

// A CUDA event with timing enabled.
class Event : MoveOnly<Event> {
 public:
  Event();
  ~Event();
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&& o) noexcept;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) const;
  void synchronize() const;
  // Milliseconds from `start` to this event; both must have completed.
  float elapsedSince(const Event& start) const;

 private:
  cudaEvent_t e_ = nullptr;
};

// A texture object over a pitch-linear RGBA8 image in device memory (uchar4 element reads).
class TextureObject : MoveOnly<TextureObject> {
 public:
  TextureObject() = default;
  // normalizedCoords with wrap/mirror address modes; addressMode is a cudaTextureAddressMode.
  TextureObject(ConstImageView image, int addressMode, bool normalizedCoords);
  ~TextureObject();
  TextureObject(TextureObject&& o) noexcept : t_(std::exchange(o.t_, 0)) {}
  TextureObject& operator=(TextureObject&& o) noexcept;
  cudaTextureObject_t get() const { return t_; }

 private:
  cudaTextureObject_t t_ = 0;
};

// A device frame: RGBA8 in pitched device memory.
class DeviceImage : MoveOnly<DeviceImage> {
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

// What the current CUDA device is, queried once. `available` is false (with `reason` saying why)
// on a machine without a usable device; nothing else is filled then.
struct DeviceInfo {
  bool available = false;
  std::string reason;
  std::string name;
  int major = 0, minor = 0, multiprocessors = 0;
  std::size_t sharedPerBlockOptin = 0;  // bytes a block may opt into
  std::size_t globalMemory = 0;
  int clockKHz = 0, memoryClockKHz = 0, busWidthBits = 0;
  // An SM's limits (the occupancy arithmetic of convlive/inspect.hpp reads them).
  int maxThreadsPerSm = 0, maxBlocksPerSm = 0, registersPerSm = 0, registersPerBlock = 0;
  std::size_t sharedPerSm = 0, reservedSharedPerBlock = 0;
};
const DeviceInfo& deviceInfo();

// The device's copy bandwidth in GB/s (bytes read + written per second), the median of `runs`
// device-to-device copies of `bytes`: what "% of the device's copy bandwidth" is measured against.
// 0 without a device. Takes a few milliseconds on a large GPU.
double measureCopyBandwidthGBs(std::size_t bytes = std::size_t(256) << 20, int runs = 7);

}  // namespace convlive
