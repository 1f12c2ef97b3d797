// Where the frame goes on screen: fit, fill or 1:1, zoom and pan, and the split view's divider.
// Plain math on plain data (framebuffer pixels, origin top-left), so it is tested without GL.
#pragma once

namespace convlive {

struct Rect {
  double x = 0, y = 0, w = 0, h = 0;
  bool contains(double px, double py) const { return px >= x && px < x + w && py >= y && py < y + h; }
};

enum class FitMode { Fit, Fill, OneToOne };
const char* fitModeName(FitMode m);

class ViewState {
 public:
  static constexpr double kMinZoom = 1.0 / 16, kMaxZoom = 64;

  FitMode mode() const { return mode_; }
  // Changing the mode resets zoom and pan.
  void setMode(FitMode m);
  double zoom() const { return zoom_; }
  // Where the frame (frameW x frameH) lies in `area` (the part of the framebuffer for video).
  // At a whole-number scale the origin is on a whole pixel, so 1:1 shows each pixel exactly.
  Rect frameRect(const Rect& area, int frameW, int frameH) const;
  // Pixels on screen per frame pixel.
  double scale(const Rect& area, int frameW, int frameH) const;
  // Zooms by `factor` keeping the frame point under (px, py) where it is.
  void zoomAt(const Rect& area, int frameW, int frameH, double px, double py, double factor);
  void panBy(double dx, double dy);
  void reset();

  // Split view: the original left of the divider, the filtered frame right of it. The divider is
  // a fraction of the video area's width.
  bool split() const { return split_; }
  void setSplit(bool on) { split_ = on; }
  double divider() const { return divider_; }
  void setDivider(double fraction);
  double dividerX(const Rect& area) const { return area.x + divider_ * area.w; }
  // True when (px, py) is close enough to the divider to grab it.
  bool nearDivider(const Rect& area, double px, double py) const;

 private:
  FitMode mode_ = FitMode::Fit;
  double zoom_ = 1, panX_ = 0, panY_ = 0;
  bool split_ = false;
  double divider_ = 0.5;
};

}  // namespace convlive
