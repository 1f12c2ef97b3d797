#include "view.hpp"

#include <algorithm>
#include <cmath>

namespace convlive {

const char* fitModeName(FitMode m) {
  switch (m) {
    case FitMode::Fit:
      return "fit";
    case FitMode::Fill:
      return "fill";
    case FitMode::OneToOne:
      return "1:1";
  }
  return "?";
}

void ViewState::setMode(FitMode m) {
  mode_ = m;
  reset();
}

void ViewState::reset() {
  zoom_ = 1;
  panX_ = panY_ = 0;
}

double ViewState::scale(const Rect& area, int fw, int fh) const {
  if (fw <= 0 || fh <= 0 || area.w <= 0 || area.h <= 0) return 1;
  double base = 1;
  if (mode_ == FitMode::Fit) base = std::min(area.w / fw, area.h / fh);
  if (mode_ == FitMode::Fill) base = std::max(area.w / fw, area.h / fh);
  return base * zoom_;
}

Rect ViewState::frameRect(const Rect& area, int fw, int fh) const {
  const double s = scale(area, fw, fh);
  Rect r;
  r.w = fw * s;
  r.h = fh * s;
  r.x = area.x + (area.w - r.w) / 2 + panX_;
  r.y = area.y + (area.h - r.h) / 2 + panY_;
  if (std::abs(s - std::round(s)) < 1e-9) {
    r.x = std::floor(r.x);
    r.y = std::floor(r.y);
  }
  return r;
}

void ViewState::zoomAt(const Rect& area, int fw, int fh, double px, double py, double factor) {
  const Rect before = frameRect(area, fw, fh);
  const double s0 = scale(area, fw, fh);
  const double u = (px - before.x) / s0, v = (py - before.y) / s0;  // the frame point under the cursor
  zoom_ = std::clamp(zoom_ * factor, kMinZoom, kMaxZoom);
  const double s1 = scale(area, fw, fh);
  // Centre-anchored rect: x = area.x + (area.w - fw*s1)/2 + pan; want x + u*s1 = px.
  panX_ = px - u * s1 - (area.x + (area.w - fw * s1) / 2);
  panY_ = py - v * s1 - (area.y + (area.h - fh * s1) / 2);
}

void ViewState::panBy(double dx, double dy) {
  panX_ += dx;
  panY_ += dy;
}

void ViewState::setDivider(double f) { divider_ = std::clamp(f, 0.0, 1.0); }

bool ViewState::nearDivider(const Rect& area, double px, double py) const {
  return split_ && area.contains(px, py) && std::abs(px - dividerX(area)) <= 6;
}

}  // namespace convlive
