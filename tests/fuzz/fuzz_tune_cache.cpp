// The tuning cache's JSON reader (cuda/tuner.cpp, Tuner::load): any file is read into entries or
// ignored with a reason; it never throws and never takes the process down.
#include "convlive/tuner.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = convlive::fuzz::scratchFile(convlive::fuzz::bytesOf(data, size), "-tune.json");
  const convlive::Tuner tuner(path, "Fuzz GPU");
  (void)tuner.size();
  (void)tuner.why();
  return 0;
}
