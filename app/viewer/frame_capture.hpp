// Captures of the composed view (video and panel): the ones tests ask for with
// Viewer::captureNextFrame, the screenshot key's PNGs and the --screenshot at the end of a run.
// Render thread only, with the context current.
#pragma once

#include <string>

#include "convlive/image.hpp"

namespace convlive {

class FrameCapture {
 public:
  // Asks for the next pass's composed view.
  void request() { requested_ = true; }
  bool requested() const { return requested_; }
  // After drawing and before the swap: reads the default framebuffer (fbWidth x fbHeight) when
  // asked. True when it did.
  bool captureIfRequested(int fbWidth, int fbHeight);
  bool has() const { return !image_.pixels().empty(); }
  // The last capture, rows top first, alpha 255. Valid until the next capture.
  const HostImage& image() const { return image_; }

 private:
  bool requested_ = false;
  HostImage image_;
};

// Writes screenshots: numbered, time-stamped PNGs in one folder (the `s` key), or a named file.
class ScreenshotWriter {
 public:
  explicit ScreenshotWriter(std::string folder) : folder_(std::move(folder)) {}
  // The message for the panel: "screenshot written to PATH" or why not.
  std::string writeNext(const HostImage& image);
  static std::string write(const std::string& path, const HostImage& image);
  static bool written(const std::string& message) { return message.rfind("screenshot written", 0) == 0; }

 private:
  std::string folder_;
  int count_ = 0;
};

}  // namespace convlive
