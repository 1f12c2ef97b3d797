#include "frame_capture.hpp"

#include <GL/glew.h>

#include <algorithm>
#include <ctime>
#include <vector>

#include "image_io.hpp"

namespace convlive {

bool FrameCapture::captureIfRequested(int w, int h) {
  if (!requested_) return false;
  requested_ = false;
  HostImage shot(w, h);
  std::vector<std::uint8_t> rows(std::size_t(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
  for (int y = 0; y < h; ++y)  // GL's rows start at the bottom
    std::copy_n(rows.data() + std::size_t(h - 1 - y) * w * 4, std::size_t(w) * 4,
                shot.pixels().data() + shot.pitch() * y);
  for (std::size_t i = 3; i < shot.pixels().size(); i += 4) shot.pixels()[i] = 255;
  image_ = std::move(shot);
  return true;
}

std::string ScreenshotWriter::writeNext(const HostImage& image) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  return write(folder_ + "/convlive-" + stamp + "-" + std::to_string(++count_) + ".png", image);
}

std::string ScreenshotWriter::write(const std::string& path, const HostImage& image) {
  try {
    writePng(path, image);
    return "screenshot written to " + path;
  } catch (const std::exception& e) {
    return std::string("screenshot not written: ") + e.what();
  }
}

}  // namespace convlive
