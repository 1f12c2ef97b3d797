// What keys and panel buttons do (Action), and which key does what (the binding table, which the
// help window and the panel's key list read too). Render thread only.
#pragma once

#include <functional>
#include <span>

namespace convlive {

// What keys and panel buttons do. Viewer::apply runs them; tests call it too.
enum class Action {
  TogglePause,
  SeekBack,     // 5 s
  SeekForward,  // 5 s
  RadiusUp,
  RadiusDown,
  NextVariant,
  PreviousVariant,
  NextMask,
  PreviousMask,
  NextTile,
  ToggleSplit,
  CycleFit,  // fit, fill, 1:1
  ToggleFullscreen,
  TogglePanel,
  ToggleHelp,
  Screenshot,       // a PNG of the composed view into the screenshot folder
  OpenPath,         // open the panel's File-or-URI box and put the cursor in it
  ToggleOverlay,    // the block-grid overlay: the running variant's thread blocks on the video
  NextOverlayPass,  // the overlay shows every pass, then each pass of a two-pass launch alone
  Quit,
};

// One key (a GLFW key code, which is also ImGui's key index here) and what it does, with and
// without shift. `keys` and `what` are the help text; bindings that share a help line have an
// empty `keys`.
struct KeyBinding {
  int key;
  Action action, shifted;
  bool repeats;  // held down, it acts again at the key-repeat rate
  const char* keys;
  const char* what;
};
std::span<const KeyBinding> keyBindings();

// A help line (the table's lines plus the mouse's).
struct KeyHelp {
  const char* keys;
  const char* what;
};
std::span<const KeyHelp> keyHelp();

// Runs `run` for each bound key pressed this ImGui frame, unless ImGui wants the keyboard (a text
// box has focus). Between ImGui::NewFrame and ImGui::Render.
void dispatchKeys(const std::function<void(Action)>& run);

}  // namespace convlive
