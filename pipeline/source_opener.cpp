#include "source_opener.hpp"

namespace convlive {

SourceOpener::SourceOpener(SourceSpec spec, SourceOptions options) : spec_(std::move(spec)) {
  options.cancel = cancelled_;
  worker_ = std::thread([this, options] { run(options); });
}

SourceOpener::~SourceOpener() {
  cancel();
  if (worker_.joinable()) worker_.join();
}

void SourceOpener::run(SourceOptions options) {
  std::unique_ptr<Source> opened;
  std::string failure;
  try {
    opened = std::make_unique<Source>(spec_, options);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (opened && cancelled_->load()) opened.reset();  // nobody will take it: stop it here
  std::lock_guard lock(mutex_);
  if (opened) {
    source_ = std::move(opened);
    state_ = State::Ready;
  } else {
    error_ = failure.empty() ? spec_.describe() + ": opening it was cancelled" : failure;
    state_ = State::Failed;
  }
}

SourceOpener::State SourceOpener::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

std::unique_ptr<Source> SourceOpener::take() {
  std::lock_guard lock(mutex_);
  return std::move(source_);
}

std::string SourceOpener::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

void SourceOpener::cancel() { cancelled_->store(true); }

double SourceOpener::secondsWaiting() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

}  // namespace convlive
