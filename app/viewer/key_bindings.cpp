#include "key_bindings.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <vector>

namespace convlive {
namespace {

constexpr KeyBinding kBindings[] = {
    {GLFW_KEY_SPACE, Action::TogglePause, Action::TogglePause, false, "space", "play / pause"},
    {GLFW_KEY_LEFT, Action::SeekBack, Action::SeekBack, false, "left / right", "seek 5 s back / forward"},
    {GLFW_KEY_RIGHT, Action::SeekForward, Action::SeekForward, false, "", ""},
    {GLFW_KEY_UP, Action::RadiusUp, Action::RadiusUp, true, "up / down", "radius + / -"},
    {GLFW_KEY_DOWN, Action::RadiusDown, Action::RadiusDown, true, "", ""},
    {GLFW_KEY_V, Action::NextVariant, Action::PreviousVariant, false, "v / shift+v", "next / previous kernel variant"},
    {GLFW_KEY_M, Action::NextMask, Action::PreviousMask, false, "m / shift+m", "next / previous mask"},
    {GLFW_KEY_T, Action::NextTile, Action::NextTile, false, "t", "next tile shape"},
    {GLFW_KEY_C, Action::ToggleSplit, Action::ToggleSplit, false, "c", "split view: original | filtered"},
    {GLFW_KEY_Z, Action::CycleFit, Action::CycleFit, false, "z", "fit, fill, 1:1"},
    {GLFW_KEY_O, Action::ToggleOverlay, Action::NextOverlayPass, false, "o / shift+o",
     "block-grid overlay: the variant's thread blocks / which pass it shows"},
    {GLFW_KEY_L, Action::OpenPath, Action::OpenPath, false, "l", "load: type a file or URI to open (enter opens it)"},
    {GLFW_KEY_S, Action::Screenshot, Action::Screenshot, false, "s", "screenshot (PNG of the window)"},
    {GLFW_KEY_F, Action::ToggleFullscreen, Action::ToggleFullscreen, false, "f", "fullscreen"},
    {GLFW_KEY_TAB, Action::TogglePanel, Action::TogglePanel, false, "tab", "hide / show the panel"},
    {GLFW_KEY_H, Action::ToggleHelp, Action::ToggleHelp, false, "h", "this help"},
    {GLFW_KEY_Q, Action::Quit, Action::Quit, false, "q / esc", "quit"},
    {GLFW_KEY_ESCAPE, Action::Quit, Action::Quit, false, "", ""},
};

std::vector<KeyHelp> makeHelp() {
  std::vector<KeyHelp> help;
  for (const KeyBinding& b : kBindings) {
    if (*b.keys) help.push_back({b.keys, b.what});
    if (b.key == GLFW_KEY_Z) help.push_back({"wheel, drag", "zoom at the cursor, pan (double-click resets)"});
  }
  return help;
}

}  // namespace

std::span<const KeyBinding> keyBindings() { return kBindings; }

std::span<const KeyHelp> keyHelp() {
  static const std::vector<KeyHelp> help = makeHelp();
  return help;
}

void dispatchKeys(KeyQueue& keys, const std::function<void(Action)>& run) {
  const std::vector<KeyQueue::Press> presses = keys.take();
  if (ImGui::GetIO().WantCaptureKeyboard) return;
  for (const KeyQueue::Press& p : presses)
    for (const KeyBinding& b : kBindings)
      if (b.key == p.key && (!p.repeat || b.repeats)) run(p.shift ? b.shifted : b.action);
}

}  // namespace convlive
