// Key presses and typed text fed to ImGui as if they came from the keyboard, one event a pass, so
// that tests can drive the viewer and its panel by keys on any context (EGL has no keyboard).
// Render thread only.
#pragma once

#include <deque>
#include <string>

#include "key_bindings.hpp"

namespace convlive {

class InjectedInput {
 public:
  // A GLFW key code (the viewer's key indices), pressed in one pass and released in the next.
  void pressKey(int key, bool shift = false);
  // Characters typed into whatever has the keyboard focus, in one pass.
  void typeText(const std::string& text);
  // Between the backend's NewFrame and ImGui::NewFrame: releases the key pressed last pass, then
  // feeds the next queued event (a key press to ImGui and to `keys`, as the window's callback does).
  void feed(KeyQueue& keys);
  bool pending() const { return !queue_.empty() || held_ >= 0; }

 private:
  struct Event {
    int key = -1;  // -1: text
    bool shift = false;
    std::string text;
  };
  std::deque<Event> queue_;
  int held_ = -1;
};

}  // namespace convlive
