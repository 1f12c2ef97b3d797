// The parts of NumPy's .npy format (a magic string, a version, a Python-dict header, the raw array)
// that the weights files (weights_file.cpp) and the image command's pictures (app/npy_codec.cpp)
// both read: little-endian integers and the header dict's values. Internal to convlive_cuda (the
// in-tree app uses it too); each reader words its own errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace convlive::npy {

// The unsigned integer of `bytes` (1..8) little-endian bytes at p.
std::uint64_t littleEndian(const unsigned char* p, int bytes);
// The text of one key's value in the header's Python dict: a quoted string (without its quotes), a
// parenthesised tuple or bracketed list (with them) or a bare word. nullopt when the key is not there.
std::optional<std::string> dictValue(const std::string& header, const std::string& key);
// The item size in bytes of a dtype descr such as '<f4' (the number after its byte-order and kind
// characters): nullopt when that is not a whole number of 1 to 1024 bytes.
std::optional<int> itemBytes(const std::string& descr);
// NumPy's name of an element type from its kind character (the array interface's: 'u', 'i', 'f', 'c',
// 'b'; 'B' for bfloat16) and size: "uint8", "float32", "bool"; nullopt for another kind.
std::optional<std::string> kindName(char kind, int bytes);
// A shape tuple: "(3, 3)" -> {3, 3}; "(5,)" -> {5}; "()" -> {} (Python 2's "3L" taken); nullopt when
// it is not a tuple of whole numbers >= 0.
std::optional<std::vector<long long>> parseShape(const std::string& text);

}  // namespace convlive::npy
