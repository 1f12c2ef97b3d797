#include "frame_texture.hpp"

// After GLEW (frame_texture.hpp): cuda_gl_interop.h includes GL/gl.h.
#include <cuda_gl_interop.h>

#include <utility>

#include "convlive/check.hpp"

namespace convlive {

CudaGlRegistration::CudaGlRegistration(GLuint texture) {
  CL_CUDA(cudaGraphicsGLRegisterImage(&resource_, texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsWriteDiscard));
}

CudaGlRegistration::~CudaGlRegistration() {
  if (resource_) cudaGraphicsUnregisterResource(resource_);
}

CudaGlRegistration::CudaGlRegistration(CudaGlRegistration&& o) noexcept
    : resource_(std::exchange(o.resource_, nullptr)) {}

CudaGlRegistration& CudaGlRegistration::operator=(CudaGlRegistration&& o) noexcept {
  if (this != &o) {
    if (resource_) cudaGraphicsUnregisterResource(resource_);
    resource_ = std::exchange(o.resource_, nullptr);
  }
  return *this;
}

void FrameTexture::allocate(int w, int h, bool forCuda) {
  registration_ = CudaGlRegistration();  // unregister before the storage goes
  texture_ = makeTexture();
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  checkGl("allocating the frame texture");
  width_ = w;
  height_ = h;
  registered_ = forCuda;
  if (!forCuda) return;
  if (!deviceInfo().available) {
    note_ = "no CUDA device (" + deviceInfo().reason + "): frames go in with glTexSubImage2D";
    return;
  }
  try {
    registration_ = CudaGlRegistration(texture_.get());
    note_.clear();
  } catch (const CudaError& e) {
    note_ = std::string(
                "CUDA cannot share this GL context's textures, so each frame is downloaded and uploaded "
                "with glTexSubImage2D (slower): ") +
            e.what();
  }
}

void FrameTexture::writeFromDevice(ConstImageView f, cudaStream_t stream) {
  if (f.width != width_ || f.height != height_ || !registered_) allocate(f.width, f.height, true);
  const std::size_t rowBytes = std::size_t(f.width) * 4;
  if (registration_) {
    cudaGraphicsResource_t r = registration_.get();
    CL_CUDA(cudaGraphicsMapResources(1, &r, stream));
    cudaArray_t array = nullptr;
    CL_CUDA(cudaGraphicsSubResourceGetMappedArray(&array, r, 0, 0));
    CL_CUDA(
        cudaMemcpy2DToArrayAsync(array, 0, 0, f.data, f.pitch, rowBytes, f.height, cudaMemcpyDeviceToDevice, stream));
    CL_CUDA(cudaGraphicsUnmapResources(1, &r, stream));
    return;
  }
  if (staging_.bytes() < rowBytes * f.height) staging_ = PinnedBuffer(rowBytes * f.height);
  CL_CUDA(
      cudaMemcpy2DAsync(staging_.get(), rowBytes, f.data, f.pitch, rowBytes, f.height, cudaMemcpyDeviceToHost, stream));
  CL_CUDA(cudaStreamSynchronize(stream));
  writeFromHost(ConstImageView(static_cast<const std::uint8_t*>(staging_.get()), f.width, f.height, rowBytes));
}

void FrameTexture::writeFromHost(ConstImageView f) {
  if (f.width != width_ || f.height != height_) allocate(f.width, f.height, registered_);
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, GLint(f.pitch / 4));
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, f.width, f.height, GL_RGBA, GL_UNSIGNED_BYTE, f.data);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  checkGl("uploading a frame to the texture");
}

HostImage FrameTexture::read() const {
  HostImage img(width_, height_);
  if (empty()) return img;
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, img.pixels().data());
  checkGl("reading the frame texture back");
  return img;
}

}  // namespace convlive
