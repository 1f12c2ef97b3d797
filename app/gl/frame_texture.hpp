// A GL texture that shows RGBA8 frames. Device frames go in through CUDA-GL interop: the texture is
// registered with CUDA once per (re)allocation, and each frame maps it, copies into the mapped
// array on the frame's stream and unmaps, with no trip through host memory. Host frames (no CUDA
// device) go in with glTexSubImage2D.
//
// Render thread only, with the GL context current. Unmapping on the stream orders the copy before
// any GL work issued afterwards, so the texture can be drawn right after write() returns.
#pragma once

#include <GL/glew.h>
#include <cuda_runtime_api.h>

#include <string>

#include "convlive/image.hpp"
#include "convlive/resources.hpp"
#include "resources.hpp"

namespace convlive {

// A GL texture registered with CUDA; unregistered on destruction.
class CudaGlRegistration {
 public:
  CudaGlRegistration() = default;
  // Throws CudaError when CUDA cannot register the texture (no device, a GL context CUDA cannot
  // share with).
  explicit CudaGlRegistration(GLuint texture);
  ~CudaGlRegistration();
  CudaGlRegistration(CudaGlRegistration&& o) noexcept;
  CudaGlRegistration& operator=(CudaGlRegistration&& o) noexcept;
  CudaGlRegistration(const CudaGlRegistration&) = delete;
  CudaGlRegistration& operator=(const CudaGlRegistration&) = delete;
  cudaGraphicsResource_t get() const { return resource_; }
  explicit operator bool() const { return resource_ != nullptr; }

 private:
  cudaGraphicsResource_t resource_ = nullptr;
};

class FrameTexture {
 public:
  FrameTexture() = default;
  // `frame` is device memory; the copy is enqueued on `stream` (the frame must stay valid until it
  // has run). Without interop (see interopNote), it is downloaded and uploaded with GL, blocking.
  void writeFromDevice(ConstImageView frame, cudaStream_t stream);
  // `frame` is host memory, read during the call.
  void writeFromHost(ConstImageView frame);
  GLuint id() const { return texture_.get(); }
  int width() const { return width_; }
  int height() const { return height_; }
  bool empty() const { return width_ == 0; }
  // True when the last allocation was registered with CUDA.
  bool interop() const { return bool(registration_); }
  // Why interop is not in use ("" when it is, or before the first device frame).
  const std::string& interopNote() const { return note_; }
  // The texture's pixels, read back with glGetTexImage (tests, screenshots of the frame alone).
  HostImage read() const;

 private:
  void allocate(int width, int height, bool forCuda);

  GlTexture texture_;
  CudaGlRegistration registration_;  // declared after the texture: unregistered before it is deleted
  int width_ = 0, height_ = 0;
  bool registered_ = false;  // allocated for device frames
  std::string note_;
  PinnedBuffer staging_;  // the fallback's host copy
};

}  // namespace convlive
