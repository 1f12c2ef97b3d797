// RGBA8 pitch-linear frames: non-owning views (host or device memory) and an owning host image.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace convlive {

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
