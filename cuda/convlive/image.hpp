// Frames: the description a plan is made for (ImageDesc: element type, channels, size, row pitch,
// a batch of frames), non-owning views of RGBA8 frames (host or device memory) and an owning host
// image.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace convlive {

// The type of one channel value.
enum class PixelType : std::uint8_t { U8, U16, F16, F32 };
const char* pixelTypeName(PixelType t);  // "u8", "u16", "f16", "f32"
std::size_t pixelTypeBytes(PixelType t);

// What a plan filters: `batch` frames of width x height pixels, each pixel `channels` interleaved
// values of `type`, rows `pitch` bytes apart, frames `batchStride` bytes apart. Channels-first data
// (C, H, W) is a batch of C one-channel planes. Plain value: copy freely.
struct ImageDesc {
  int width = 0, height = 0;
  PixelType type = PixelType::U8;
  int channels = 4;
  bool alpha = true;            // 4 channels: the 4th is alpha (false: padding, copied through unfiltered)
  std::size_t pitch = 0;        // bytes from one row to the next; 0: packed (rowBytes())
  int batch = 1;                // frames of this size, filtered by one run()
  std::size_t batchStride = 0;  // bytes from one frame to the next; 0: height x rowPitch()

  // width x height RGBA8, the layout every variant takes.
  static ImageDesc rgba8(int width, int height, std::size_t pitch = 0) {
    ImageDesc d;
    d.width = width;
    d.height = height;
    d.pitch = pitch;
    return d;
  }
  bool isRgba8() const { return type == PixelType::U8 && channels == 4; }
  // Whether the 4th channel is copied from the input rather than filtered: padding always, alpha
  // unless it is filtered.
  bool copiesFourth(bool filterAlpha) const { return channels == 4 && (!alpha || !filterAlpha); }
  std::size_t pixelBytes() const { return pixelTypeBytes(type) * std::size_t(channels); }
  std::size_t rowBytes() const { return pixelBytes() * std::size_t(width > 0 ? width : 0); }
  std::size_t rowPitch() const { return pitch ? pitch : rowBytes(); }
  std::size_t frameStride() const {
    return batchStride ? batchStride : rowPitch() * std::size_t(height > 0 ? height : 0);
  }
  // Bytes from the first frame's first pixel to the end of the last frame's last row.
  std::size_t span() const;
  // "1920x1080 u8x4" (then " pitch 8192", " batch 8" where they are not the defaults).
  std::string str() const;
  // The values' type and channel count: "u16x1", "u8x4".
  std::string typeName() const;
  bool operator==(const ImageDesc& o) const {  // C++17: the kernels' .cu files include this header
    return width == o.width && height == o.height && type == o.type && channels == o.channels && alpha == o.alpha &&
           rowPitch() == o.rowPitch() && batch == o.batch && frameStride() == o.frameStride();
  }
  bool operator!=(const ImageDesc& o) const { return !(*this == o); }
};

// The output frames for input frames `in` whose values are written as `outType`: the input's size,
// channels, alpha and batch, laid out as the input counted in values (its row pitch and frame stride
// scaled by the element sizes). `in` itself where outType is its type.
ImageDesc outputDesc(const ImageDesc& in, PixelType outType);
// Whether frames of type `in` may be written as `out`: their own type, or f32 from u8 (the one other
// output a plan writes). Where not, outputTypeRefusal says so: "<out> output from <in> frames: ...".
constexpr bool writableAs(PixelType in, PixelType out) {
  return in == out || (in == PixelType::U8 && out == PixelType::F32);
}
std::string outputTypeRefusal(PixelType in, PixelType out);

// A view of width x height RGBA8 pixels, rows `pitch` bytes apart (pitch >= 4 * width). The
// pointer may be host or device memory; the view never owns it and is valid as long as it is.
struct ImageView {
  std::uint8_t* data = nullptr;
  int width = 0, height = 0;
  std::size_t pitch = 0;
  std::uint8_t* row(int y) const { return data + static_cast<std::size_t>(y) * pitch; }
};
struct ConstImageView {
  const std::uint8_t* data = nullptr;
  int width = 0, height = 0;
  std::size_t pitch = 0;
  ConstImageView() = default;
  ConstImageView(const std::uint8_t* d, int w, int h, std::size_t p) : data(d), width(w), height(h), pitch(p) {}
  ConstImageView(const ImageView& v) : data(v.data), width(v.width), height(v.height), pitch(v.pitch) {}  // NOLINT
  const std::uint8_t* row(int y) const { return data + static_cast<std::size_t>(y) * pitch; }
};

// A tightly packed RGBA8 image in host memory.
class HostImage {
 public:
  HostImage() = default;
  HostImage(int width, int height) : width_(width), height_(height), pixels_(std::size_t(width) * height * 4) {}
  int width() const { return width_; }
  int height() const { return height_; }
  std::size_t pitch() const { return std::size_t(width_) * 4; }
  std::vector<std::uint8_t>& pixels() { return pixels_; }
  const std::vector<std::uint8_t>& pixels() const { return pixels_; }
  ImageView view() { return {pixels_.data(), width_, height_, pitch()}; }
  ConstImageView view() const { return {pixels_.data(), width_, height_, pitch()}; }

 private:
  int width_ = 0, height_ = 0;
  std::vector<std::uint8_t> pixels_;
};

}  // namespace convlive
