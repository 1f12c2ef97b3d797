// A GL texture that shows RGBA8 frames, or grey frames of 8 or 16 bits as they are (a one-channel
// R8 or R16 texture, its red channel swizzled into R, G and B: a quarter or half of RGBA8's bytes to
// copy, and no expansion first). Device frames go in through CUDA-GL interop: the texture is
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

// What a frame texture holds: RGBA8 pixels, or one grey value a pixel of 8 or 16 bits.
enum class Texels { Rgba8, Grey8, Grey16 };
const char* texelsName(Texels t);  // "RGBA8", "R8", "R16"
std::size_t texelBytes(Texels t);  // 4, 1, 2

// A frame to write into a texture: width x height texels, rows `pitch` bytes apart.
struct TextureFrame {
  const void* data = nullptr;
  int width = 0, height = 0;
  std::size_t pitch = 0;
  Texels texels = Texels::Rgba8;
  TextureFrame() = default;
  TextureFrame(const void* d, int w, int h, std::size_t p, Texels t)
      : data(d), width(w), height(h), pitch(p), texels(t) {}
  TextureFrame(ConstImageView v) : data(v.data), width(v.width), height(v.height), pitch(v.pitch) {}  // NOLINT
  TextureFrame(ImageView v) : TextureFrame(ConstImageView(v)) {}                                      // NOLINT
  std::size_t rowBytes() const { return std::size_t(width) * texelBytes(texels); }
};

class FrameTexture {
 public:
  FrameTexture() = default;
  // `frame` is device memory; the copy is enqueued on `stream` (the frame must stay valid until it
  // has run). Without interop (see interopNote), it is downloaded and uploaded with GL, blocking.
  // A frame of another size or other texels reallocates the texture. `copyStart`, `copyEnd`:
  // events recorded on `stream` around the copy alone (after the map, which waits for GL to release
  // the texture, and before the unmap), where given.
  void writeFromDevice(const TextureFrame& frame, cudaStream_t stream, cudaEvent_t copyStart = nullptr,
                       cudaEvent_t copyEnd = nullptr);
  // `frame` is host memory, read during the call.
  void writeFromHost(const TextureFrame& frame);
  GLuint id() const { return texture_.get(); }
  int width() const { return width_; }
  int height() const { return height_; }
  Texels texels() const { return texels_; }
  bool empty() const { return width_ == 0; }
  // True when the last allocation was registered with CUDA.
  bool interop() const { return bool(registration_); }
  // Why interop is not in use ("" when it is, or before the first device frame).
  const std::string& interopNote() const { return note_; }
  // The texture's pixels as RGBA8, read back with glGetTexImage (tests, screenshots of the frame
  // alone): grey texels as shown (R = G = B, alpha 255; 16 bits by GL's conversion, to the nearest
  // on Mesa, 1 level off it for some values on NVIDIA's driver).
  HostImage read() const;

 private:
  void allocate(int width, int height, Texels texels, bool forCuda);

  GlTexture texture_;
  CudaGlRegistration registration_;  // declared after the texture: unregistered before it is deleted
  int width_ = 0, height_ = 0;
  Texels texels_ = Texels::Rgba8;
  bool registered_ = false;  // allocated for device frames
  std::string note_;
  PinnedBuffer staging_;  // the fallback's host copy
};

}  // namespace convlive
