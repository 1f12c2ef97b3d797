#include "injected_input.hpp"

#include <imgui.h>

namespace convlive {

void InjectedInput::pressKey(int key, bool shift) { queue_.push_back(Event{key, shift, {}}); }
void InjectedInput::typeText(const std::string& text) { queue_.push_back(Event{-1, false, text}); }

void InjectedInput::feed(KeyQueue& keys) {
  ImGuiIO& io = ImGui::GetIO();
  if (held_ >= 0) {
    io.KeysDown[held_] = false;
    io.KeyShift = false;
    held_ = -1;
    return;  // a pass with the key up, so that the next press of the same key counts
  }
  if (queue_.empty()) return;
  const Event e = queue_.front();
  queue_.pop_front();
  if (e.key < 0) {
    io.AddInputCharactersUTF8(e.text.c_str());
    return;
  }
  if (e.key >= int(IM_ARRAYSIZE(io.KeysDown))) return;
  io.KeysDown[e.key] = true;
  io.KeyShift = e.shift;
  keys.press(e.key, e.shift);
  held_ = e.key;
}

}  // namespace convlive
