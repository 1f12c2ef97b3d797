// What every fuzz target shares: the entry point libFuzzer calls (and replay_main.cpp calls for
// each file of a seed corpus), and a scratch file for readers that take a path.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace convlive::fuzz {

inline std::string_view bytesOf(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// `bytes` written to a file of this process's own (in $TMPDIR or /tmp), whose path is returned:
// the same path for every input, rewritten each time.
inline const std::string& scratchFile(std::string_view bytes, const char* suffix) {
  static const std::string path = [&] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/convlive-fuzz-" + std::to_string(::getpid()) + suffix;
  }();
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
  return path;
}

}  // namespace convlive::fuzz
