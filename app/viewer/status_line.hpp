// The panel's amber status line (the outcome of a key or a panel action, a screenshot written):
// shown for a few seconds, then fading out. Conditions that still hold (a source error) are not
// status lines: the panel shows them for as long as they hold. Render thread only.
#pragma once

#include <chrono>
#include <string>

namespace convlive {

class StatusLine {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kShown{5000}, kFade{1500};

  // An empty text clears the line.
  void set(std::string text, Clock::time_point now = Clock::now()) {
    text_ = std::move(text);
    since_ = now;
  }
  // The text while it shows ("" once it has faded out).
  std::string text(Clock::time_point now = Clock::now()) const { return opacity(now) > 0 ? text_ : std::string(); }
  // 1 while shown, then down to 0 over kFade.
  float opacity(Clock::time_point now = Clock::now()) const {
    if (text_.empty()) return 0;
    const auto age = now - since_;
    if (age <= kShown) return 1;
    const double f = 1 - std::chrono::duration<double>(age - kShown) / std::chrono::duration<double>(kFade);
    return f > 0 ? float(f) : 0.f;
  }

 private:
  std::string text_;
  Clock::time_point since_{};
};

}  // namespace convlive
