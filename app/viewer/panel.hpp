// The ImGui control panel: source and transport, filter, kernel, timings, the inspector (launch,
// work model, achieved rates, roofline, compare table: inspector_panel.hpp), errors and the keys.
// Its state is plain variables (the edit buffers); it reads the viewer through a PanelModel and
// every change goes through that model, the same path as the keys. Render thread, between
// ImGui::NewFrame and ImGui::Render.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "panel_model.hpp"

namespace convlive {

struct PanelRect {
  float x = 0, y = 0, w = 0, h = 0;  // ImGui units, origin top-left
};

// What the last draw drew, for tests and screenshots (the pixels alone cannot say which figure is
// which): the sections open, the inspector's rows (their labels, in order) and where its parts lie.
struct PanelRecord {
  std::vector<std::string> sectionsOpen;   // collapsing headers drawn open
  std::vector<std::string> inspectorRows;  // "grid", "block", ..., "MPix/s", ... as drawn
  PanelRect inspector, roofline, compare;  // zero where not drawn (section closed)
  PanelRect compareButton;                 // the "Time every variant" button
  int rooflinePoints = 0;                  // points drawn on the chart
  int compareLines = 0;                    // rows of the compare table
  std::vector<std::string> notes;          // the inspector sections' lines in words ("no CUDA device: ...")
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
  // What the last draw drew.
  const PanelRecord& record() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The record of the last Panel::draw on this thread (the viewer does not hand its panel out; tests
// of the composed view read this). Valid until the next draw on this thread.
const PanelRecord& lastPanelRecord();

// The sections a panel opens at its first draw, by header ("Inspector", "Roofline", "Compare",
// ...), from the environment variable CONVLIVE_PANEL_OPEN (comma-separated); when it is set, the
// sections it does not name start closed. For screenshots and tests of sections that start closed.
std::vector<std::string> sectionsToOpen();

// "m:ss.ss", or "--:--" for a negative time.
std::string clockText(double seconds);

// The timing plot's vertical range for `history`: from 0 to a little above its largest recent
// value, ignoring a few outliers (a single slow frame, the first frame's set-up) so that the
// usual values do not flatten into a line at the bottom. Never below 0.01 ms.
float plotScaleMax(const std::vector<float>& history);

}  // namespace convlive
