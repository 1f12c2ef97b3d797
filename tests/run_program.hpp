// Runs the convlive program the build made (CONVLIVE_EXE, or the environment variable of that name
// where the build folder has moved) and collects its exit code and output.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace convlive::testing {

struct ProgramResult {
  int code;            // exit code; -1 when it did not exit normally
  std::string output;  // stdout and stderr
};

inline std::string convliveExe() {
  const char* e = std::getenv("CONVLIVE_EXE");
  return e ? e : CONVLIVE_EXE;
}

// `prefix` goes before the program (for example "timeout 120").
inline ProgramResult runConvliveWith(const std::string& args, const std::string& prefix = "") {
  const std::string cmd = (prefix.empty() ? "" : prefix + " ") + convliveExe() + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace convlive::testing
