#include "interrupt.hpp"

#include <atomic>
#include <csignal>

namespace convlive {
namespace {

std::atomic<int> gSignal{0};  // lock-free, so safe to store from a handler
extern "C" void onInterrupt(int signal) {
  int none = 0;
  gSignal.compare_exchange_strong(none, signal);  // the first one names the exit code
}

}  // namespace

InterruptGuard::InterruptGuard() {
  static_assert(std::atomic<int>::is_always_lock_free, "the handler stores into it");
  gSignal = 0;
  previousInt_ = std::signal(SIGINT, onInterrupt);
  previousTerm_ = std::signal(SIGTERM, onInterrupt);
  previousHup_ = std::signal(SIGHUP, onInterrupt);
}
InterruptGuard::~InterruptGuard() {
  std::signal(SIGINT, previousInt_);
  std::signal(SIGTERM, previousTerm_);
  std::signal(SIGHUP, previousHup_);
}
bool InterruptGuard::interrupted() const { return gSignal != 0; }
int InterruptGuard::signalNumber() const { return gSignal; }
int InterruptGuard::exitCode() const { return 128 + gSignal; }

}  // namespace convlive
