// The ImGui control panel: source and transport, filter, kernel, timings, errors and the keys.
// Its state is plain variables (the edit buffers); every change goes through the viewer's
// FilterController or Pipeline controls, the same path as the keys. Render thread, between
// ImGui::NewFrame and ImGui::Render.
#pragma once

#include <memory>

namespace convlive {

class Viewer;

class Panel {
 public:
  Panel();
  ~Panel();
  // Draws the panel docked at the right edge, `width` ImGui units wide, and the help window when
  // it is open.
  void draw(Viewer& viewer, float width);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The keys, for the help window, the panel and the README.
struct KeyHelp {
  const char* keys;
  const char* what;
};
const KeyHelp* keyHelp(int& count);

}  // namespace convlive
