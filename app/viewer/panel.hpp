// The ImGui control panel: source and transport, filter, kernel, timings, errors and the keys.
// Its state is plain variables (the edit buffers); it reads the viewer through a PanelModel and
// every change goes through that model, the same path as the keys. Render thread, between
// ImGui::NewFrame and ImGui::Render.
#pragma once

#include <memory>
#include <string>

#include "panel_model.hpp"

namespace convlive {

struct PanelRect {
  float x = 0, y = 0, w = 0, h = 0;  // ImGui units, origin top-left
};

class Panel {
 public:
  Panel();
  ~Panel();
  // Draws the panel docked at the right edge, `width` ImGui units wide (when facts().panelShown),
  // and the help window when it is open.
  void draw(PanelModel& model, float width);
  // Where the timing plot was drawn in the last draw (zero when it was not: section closed).
  PanelRect plotRect() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// "m:ss.ss", or "--:--" for a negative time.
std::string clockText(double seconds);

// The timing plot's vertical range for `history`: from 0 to a little above its largest recent
// value, ignoring a few outliers (a single slow frame, the first frame's set-up) so that the
// usual values do not flatten into a line at the bottom. Never below 0.01 ms.
float plotScaleMax(const std::vector<float>& history);

}  // namespace convlive
