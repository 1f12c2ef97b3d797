// What keys and panel buttons do (Action), and which key does what (the binding table, which the
// help window and the panel's key list read too). Render thread only.
#pragma once

#include <functional>
#include <span>
#include <utility>
#include <vector>

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

// Key presses in the order they came, kept until the next frame takes them: a key tapped while a
// frame takes longer than the tap is still one press (ImGui 1.86 reads keys as up or down once a
// frame, so a press and its release between two frames were lost). Fed by the window's key
// callback (GLFW calls it from glfwPollEvents, on the render thread) and by injected input.
class KeyQueue {
 public:
  struct Press {
    int key;      // a GLFW key code
    bool shift;   // shift was held
    bool repeat;  // the key's auto-repeat, not a press
  };
  void press(int key, bool shift, bool repeat = false) { presses_.push_back({key, shift, repeat}); }
  // The presses since the last call, oldest first.
  std::vector<Press> take() { return std::exchange(presses_, {}); }
  bool empty() const { return presses_.empty(); }

 private:
  std::vector<Press> presses_;
};

// Runs `run` for each bound key press in `keys` (a repeat only for keys that repeat), in order, and
// empties it; where ImGui wants the keyboard (a text box has focus) the presses went to it, and
// none runs. Between ImGui::NewFrame and ImGui::Render.
void dispatchKeys(KeyQueue& keys, const std::function<void(Action)>& run);

}  // namespace convlive
