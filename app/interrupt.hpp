// Ctrl-C, SIGTERM and SIGHUP (a closed terminal) for the loops of run, export and the viewer: while
// an InterruptGuard lives, the signal stops the loop at a frame boundary instead of killing the
// process, so that an export can remove its temporary file and a run can still report; the
// command then exits with 128 + the signal's number, as a shell reports a process the signal
// ended (130, 143, 129).
#pragma once

namespace convlive {

// Made and destroyed on the thread that runs the loop, one at a time (the handler is the
// process's); interrupted() may be read from any thread.
class InterruptGuard {
 public:
  InterruptGuard();   // installs the handler, forgetting any earlier signal
  ~InterruptGuard();  // puts back the handlers that were there
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  bool interrupted() const;
  int signalNumber() const;  // the first signal caught (0: none)
  int exitCode() const;      // 128 + signalNumber()

 private:
  void (*previousInt_)(int) = nullptr;
  void (*previousTerm_)(int) = nullptr;
  void (*previousHup_)(int) = nullptr;
};

}  // namespace convlive
