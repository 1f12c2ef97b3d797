#include "npy_header.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace convlive::npy {

std::uint64_t littleEndian(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

std::optional<std::string> dictValue(const std::string& header, const std::string& key) {
  std::size_t at = std::string::npos;
  for (const char q : {'\'', '"'}) {
    at = header.find(q + key + q);
    if (at != std::string::npos) break;
  }
  if (at == std::string::npos) return std::nullopt;
  std::size_t i = header.find(':', at + key.size() + 2);
  if (i == std::string::npos) return std::nullopt;
  ++i;
  while (i < header.size() && header[i] == ' ') ++i;
  if (i >= header.size()) return std::nullopt;
  const char c = header[i];
  if (c == '\'' || c == '"') {
    const std::size_t end = header.find(c, i + 1);
    if (end == std::string::npos) return std::nullopt;
    return header.substr(i + 1, end - i - 1);
  }
  const char close = c == '(' ? ')' : c == '[' ? ']' : '\0';
  if (close) {
    const std::size_t end = header.find(close, i);
    if (end == std::string::npos) return std::nullopt;
    return header.substr(i, end - i + 1);
  }
  std::size_t end = i;
  while (end < header.size() && header[end] != ',' && header[end] != '}' && header[end] != ' ') ++end;
  return header.substr(i, end - i);
}

std::optional<int> itemBytes(const std::string& descr) {
  if (descr.size() < 3) return std::nullopt;
  int n = 0;
  const char* end = descr.data() + descr.size();
  const auto [at, ec] = std::from_chars(descr.data() + 2, end, n);
  if (ec != std::errc() || at != end || n < 1 || n > 1024) return std::nullopt;
  return n;
}

std::optional<std::vector<long long>> parseShape(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return std::nullopt;
  std::vector<long long> dims;
  std::string item;
  std::stringstream in(text.substr(1, text.size() - 2));
  while (std::getline(in, item, ',')) {
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (item.empty()) continue;                                          // the trailing comma of a 1-tuple
    item.erase(std::remove(item.begin(), item.end(), 'L'), item.end());  // Python 2's longs
    long long d = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
    if (ec != std::errc() || end != item.data() + item.size() || d < 0) return std::nullopt;
    dims.push_back(d);
  }
  return dims;
}

std::optional<std::string> kindName(char kind, int bytes) {
  const std::string bits = std::to_string(8 * bytes);
  switch (kind) {
    case 'u':
      return "uint" + bits;
    case 'i':
      return "int" + bits;
    case 'f':
      return "float" + bits;
    case 'c':
      return "complex" + bits;
    case 'b':
      return "bool";
    case 'B':
      return "bfloat16";
  }
  return std::nullopt;
}

}  // namespace convlive::npy
