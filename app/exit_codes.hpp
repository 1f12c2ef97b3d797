// The exit codes of the convlive program, the same for every command.
#pragma once

namespace convlive {

enum ExitCode {
  kOk = 0,
  kFailed = 1,    // the work failed (a CUDA error, a file that could not be written, ...)
  kBadInput = 2,  // what was asked cannot be done (a bad option, a source that cannot open)
};

// Interrupted by Ctrl-C: 128 + SIGINT, as shells report it (SIGTERM: 143, SIGHUP: 129; see
// InterruptGuard::exitCode).
constexpr int kInterrupted = 130;

}  // namespace convlive
