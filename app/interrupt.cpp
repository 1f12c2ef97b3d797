#include "interrupt.hpp"

#include <atomic>
#include <csignal>

namespace convlive {
namespace {

std::atomic<bool> gInterrupted{false};
extern "C" void onInterrupt(int) { gInterrupted = true; }

}  // namespace

InterruptGuard::InterruptGuard() {
  gInterrupted = false;
  previousInt_ = std::signal(SIGINT, onInterrupt);
  previousTerm_ = std::signal(SIGTERM, onInterrupt);
}
InterruptGuard::~InterruptGuard() {
  std::signal(SIGINT, previousInt_);
  std::signal(SIGTERM, previousTerm_);
}
bool InterruptGuard::interrupted() const { return gInterrupted; }

}  // namespace convlive
