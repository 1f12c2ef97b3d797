#include "source_switcher.hpp"

namespace convlive {

SourceSwitcher::~SourceSwitcher() {
  std::vector<std::unique_ptr<SourceOpener>> openers;
  {
    std::lock_guard lock(mutex_);
    openers = std::move(retired_);
    if (opening_) openers.push_back(std::move(opening_));
  }
  for (auto& o : openers) o->cancel();  // all at once: they stop side by side
  openers.clear();                      // joins the workers
}

void SourceSwitcher::start(const SourceSpec& spec, const SourceOptions& options) {
  auto next = std::make_unique<SourceOpener>(spec, options);
  std::lock_guard lock(mutex_);
  if (opening_) {
    opening_->cancel();
    retired_.push_back(std::move(opening_));
  }
  opening_ = std::move(next);
}

std::optional<SourceSwitcher::Opened> SourceSwitcher::collect() {
  std::unique_ptr<SourceOpener> done;
  std::vector<std::unique_ptr<SourceOpener>> finished;
  {
    std::lock_guard lock(mutex_);
    for (auto it = retired_.begin(); it != retired_.end();) {
      if ((*it)->state() == SourceOpener::State::Opening) {
        ++it;
        continue;
      }
      finished.push_back(std::move(*it));
      it = retired_.erase(it);
    }
    if (opening_ && opening_->state() != SourceOpener::State::Opening) done = std::move(opening_);
  }
  finished.clear();  // their workers have ended: the joins are immediate
  if (!done) return std::nullopt;
  Opened opened;
  opened.source = done->take();
  if (!opened.source) opened.error = done->error();
  return opened;
}

PendingSource SourceSwitcher::pending() const {
  std::lock_guard lock(mutex_);
  if (!opening_ || opening_->state() == SourceOpener::State::Failed) return {};
  return {opening_->spec().describe(), opening_->secondsWaiting()};
}

std::string SourceSwitcher::failure() const {
  std::lock_guard lock(mutex_);
  if (opening_ && opening_->state() == SourceOpener::State::Failed) return opening_->error();
  return "";
}

void SourceSwitcher::cancelAll() {
  std::lock_guard lock(mutex_);
  if (opening_) opening_->cancel();
  for (auto& o : retired_) o->cancel();
}

}  // namespace convlive
