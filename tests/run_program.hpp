// Runs a program the build made and collects its exit code and output: the convlive program
// (CONVLIVE_EXE, or the environment variable of that name where the build folder has moved), or
// any other by its path.
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

// Runs `exe` with `args` through the shell; `prefix` goes before it (for example "timeout 120").
inline ProgramResult runProgram(const std::string& exe, const std::string& args, const std::string& prefix = "") {
  const std::string cmd = (prefix.empty() ? "" : prefix + " ") + exe + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

#ifdef CONVLIVE_EXE  // the programs' tests; the benchmarks' name theirs
inline std::string convliveExe() {
  const char* e = std::getenv("CONVLIVE_EXE");
  return e ? e : CONVLIVE_EXE;
}

inline ProgramResult runConvliveWith(const std::string& args, const std::string& prefix = "") {
  return runProgram(convliveExe(), args, prefix);
}
#endif

}  // namespace convlive::testing
