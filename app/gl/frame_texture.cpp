#include "frame_texture.hpp"

// After GLEW (frame_texture.hpp): cuda_gl_interop.h includes GL/gl.h.
#include <cuda_gl_interop.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "convlive/check.hpp"
#include "convlive/colour.hpp"

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

namespace {

// A texel kind's name, size, GL internal format, and the format and type of its client data.
struct TexelFormat {
  const char* name;
  std::size_t bytes;
  GLint internal;
  GLenum format, type;
};
const TexelFormat& texelFormat(Texels t) {
  static const TexelFormat formats[] = {{"RGBA8", 4, GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE},  // Texels::Rgba8
                                        {"R8", 1, GL_R8, GL_RED, GL_UNSIGNED_BYTE},         // Texels::Grey8
                                        {"R16", 2, GL_R16, GL_RED, GL_UNSIGNED_SHORT}};     // Texels::Grey16
  return formats[int(t)];
}

}  // namespace

const char* texelsName(Texels t) { return texelFormat(t).name; }
std::size_t texelBytes(Texels t) { return texelFormat(t).bytes; }

void FrameTexture::allocate(int w, int h, Texels texels, bool forCuda) {
  registration_ = CudaGlRegistration();  // unregister before the storage goes
  texture_ = makeTexture();
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  if (texels != Texels::Rgba8) {  // grey: the red channel in R, G and B, opaque
    const GLint swizzle[] = {GL_RED, GL_RED, GL_RED, GL_ONE};
    glTexParameteriv(GL_TEXTURE_2D, GL_TEXTURE_SWIZZLE_RGBA, swizzle);
  }
  const TexelFormat& t = texelFormat(texels);
  glTexImage2D(GL_TEXTURE_2D, 0, t.internal, w, h, 0, t.format, t.type, nullptr);
  checkGl("allocating the frame texture");
  width_ = w;
  height_ = h;
  texels_ = texels;
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

void FrameTexture::writeFromDevice(const TextureFrame& f, cudaStream_t stream, cudaEvent_t copyStart,
                                   cudaEvent_t copyEnd) {
  if (f.width != width_ || f.height != height_ || f.texels != texels_ || !registered_)
    allocate(f.width, f.height, f.texels, true);
  const std::size_t rowBytes = f.rowBytes();
  if (registration_) {
    cudaGraphicsResource_t r = registration_.get();
    CL_CUDA(cudaGraphicsMapResources(1, &r, stream));
    cudaArray_t array = nullptr;
    CL_CUDA(cudaGraphicsSubResourceGetMappedArray(&array, r, 0, 0));
    if (copyStart) CL_CUDA(cudaEventRecord(copyStart, stream));
    CL_CUDA(
        cudaMemcpy2DToArrayAsync(array, 0, 0, f.data, f.pitch, rowBytes, f.height, cudaMemcpyDeviceToDevice, stream));
    if (copyEnd) CL_CUDA(cudaEventRecord(copyEnd, stream));
    CL_CUDA(cudaGraphicsUnmapResources(1, &r, stream));
    return;
  }
  if (staging_.bytes() < rowBytes * f.height) staging_ = PinnedBuffer(rowBytes * f.height);
  if (copyStart) CL_CUDA(cudaEventRecord(copyStart, stream));
  CL_CUDA(
      cudaMemcpy2DAsync(staging_.get(), rowBytes, f.data, f.pitch, rowBytes, f.height, cudaMemcpyDeviceToHost, stream));
  if (copyEnd) CL_CUDA(cudaEventRecord(copyEnd, stream));
  CL_CUDA(cudaStreamSynchronize(stream));
  writeFromHost(TextureFrame(staging_.get(), f.width, f.height, rowBytes, f.texels));
}

void FrameTexture::writeFromHost(const TextureFrame& f) {
  const std::size_t bytes = texelBytes(f.texels);
  if (f.pitch % bytes != 0)  // refused before the texture (and the frame it shows) is touched
    throw std::invalid_argument("FrameTexture: a row pitch of " + std::to_string(f.pitch) +
                                " bytes is not a whole number of " + texelsName(f.texels) + " texels");
  if (f.width != width_ || f.height != height_ || f.texels != texels_)
    allocate(f.width, f.height, f.texels, registered_);
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  // Rows start wherever the pitch puts them: alignment 1 takes any pitch the row length describes.
  glPixelStorei(GL_UNPACK_ALIGNMENT, f.pitch % 4 == 0 ? 4 : 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, GLint(f.pitch / bytes));
  const TexelFormat& t = texelFormat(f.texels);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, f.width, f.height, t.format, t.type, f.data);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  checkGl("uploading a frame to the texture");
}

HostImage FrameTexture::read() const {
  HostImage img(width_, height_);
  if (empty()) return img;
  glBindTexture(GL_TEXTURE_2D, texture_.get());
  if (texels_ == Texels::Rgba8) {
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, img.pixels().data());
    checkGl("reading the frame texture back");
    return img;
  }
  // glGetTexImage does not swizzle: the red channel, as bytes (GL's own 16-to-8-bit conversion:
  // to the nearest on Mesa, 1 level off it for some values on NVIDIA's driver), made grey as the
  // display shows it.
  std::vector<std::uint8_t> red(std::size_t(width_) * height_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RED, GL_UNSIGNED_BYTE, red.data());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  checkGl("reading the frame texture back");
  referenceGreyToRgba(red.data(), ImageDesc{.width = width_, .height = height_, .channels = 1}, img.view());
  return img;
}

}  // namespace convlive
