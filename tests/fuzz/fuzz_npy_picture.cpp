// The .npy picture reader (app/npy_codec.cpp): any bytes decode to a picture whose size matches
// its bytes or are refused (fuzz_picture.hpp).
#include "fuzz_input.hpp"
#include "fuzz_picture.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  convlive::fuzz::decodeOrRefuse(convlive::decodeNpy, convlive::fuzz::bytesOf(data, size), "fuzz.npy");
  return 0;
}
