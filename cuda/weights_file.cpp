#include "convlive/weights_file.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "npy_header.hpp"

namespace convlive {
namespace {

using Code = Problem::Code;
using npy::dictValue;
using npy::littleEndian;
using npy::parseShape;

Problem invalid(std::string detail) { return problem(Code::Invalid, "", std::move(detail)); }

std::string quoted(const std::string& name) { return "'" + name + "'"; }

std::string shape(long long rows, long long cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A number as a float, or why not: "is not a number", "is not a finite number ...".
std::optional<std::string> parseNumber(std::string_view token, float& out) {
  std::string_view t = token;
  if (t.size() > 1 && t.front() == '+') t.remove_prefix(1);  // from_chars takes no '+'
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc::result_out_of_range) {
    // Too small rounds to 0 as floats do; too large is not finite.
    if (std::fabs(std::strtod(std::string(t).c_str(), nullptr)) < 1.0)
      v = 0.0;
    else
      return "is not a finite number (floats hold up to about 3.4e38)";
  } else if (ec != std::errc() || end != t.data() + t.size()) {
    return "is not a number";
  }
  if (!roundsToFiniteFloat(v)) return "is not a finite number (floats hold up to about 3.4e38)";
  out = static_cast<float>(v);
  return std::nullopt;
}

// Where a row went wrong: the 1-based column of the value and what is wrong with it.
struct RowError {
  int column = 0;
  std::string what;
};

// Splits one row into numbers: commas and/or whitespace between them; two commas with nothing
// between them are a missing value ("1,,2"), as is a comma at either end.
std::optional<RowError> splitRow(std::string_view line, std::vector<float>& out) {
  out.clear();
  bool valueSinceComma = false, sawComma = false;
  std::size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (c == ',') {
      if (!valueSinceComma) return RowError{int(out.size()) + 1, "nothing between commas (a missing value)"};
      valueSinceComma = false;
      sawComma = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < line.size() && line[j] != ',' && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    const std::string_view token = line.substr(i, j - i);
    float v = 0.f;
    if (const auto why = parseNumber(token, v)) {
      std::string what(1, '\'');  // appended, not "'" + token: GCC 12 warns falsely (-Wrestrict) on that
      what.append(token).append("' ").append(*why);
      return RowError{int(out.size()) + 1, what};
    }
    out.push_back(v);
    valueSinceComma = true;
    i = j;
  }
  if (sawComma && !valueSinceComma) return RowError{int(out.size()) + 1, "the row ends in a comma (a missing value)"};
  return std::nullopt;
}

// ---- NumPy .npy --------------------------------------------------------------------------------

std::string dtypeWords(const std::string& descr) {
  if (descr.size() < 2) return "data of type '" + descr + "'";
  const char kind = descr[1];
  const auto bytes = npy::itemBytes(descr);
  if (!bytes && (kind == 'f' || kind == 'i' || kind == 'u')) return "data of type '" + descr + "'";
  const std::string bits = bytes ? std::to_string(8 * *bytes) : "";
  switch (kind) {
    case 'f':
      return "float" + bits + " data";
    case 'i':
      return "int" + bits + " data";
    case 'u':
      return "uint" + bits + " data";
    case 'b':
      return "bool data";
    case 'c':
      return "complex data";
    case 'O':
      return "Python objects";
    case 'U':
    case 'S':
      return "text";
    default:
      return "data of type '" + descr + "'";
  }
}

}  // namespace

std::string gridShapeProblem(int rows, int cols, const std::string& subject) {
  const int n = std::max(rows, cols);
  if (rows <= 0 || cols <= 0) return subject + " are empty";
  if (n > kMaxMaskSide)
    return subject + " are " + shape(rows, cols) + ": the largest mask is " + shape(kMaxMaskSide, kMaxMaskSide) +
           " (radius " + std::to_string(kMaxMaskSide / 2) + ")";
  if (n % 2 == 0 || (rows != cols && rows != 1 && cols != 1))
    return subject + " are " + shape(rows, cols) +
           ": use an odd square (3x3, 5x5, ...), or one row or one column of odd length, so that the mask has a "
           "centre";
  return {};
}

Problem parseWeightVector(std::string_view text, std::vector<float>& out) {
  std::vector<float> v;
  if (const auto e = splitRow(text, v)) return invalid("value " + std::to_string(e->column) + ": " + e->what);
  if (v.empty()) return problem(Code::Missing, "", "are empty: write numbers such as 1,2,1");
  if (v.size() % 2 == 0)
    return invalid("have " + std::to_string(v.size()) +
                   " values: use an odd count (3, 5, ...) so that the mask has a centre (pad with a 0)");
  if (v.size() > std::size_t(kMaxMaskSide))
    return invalid("have " + std::to_string(v.size()) + " values: the longest is " + std::to_string(kMaxMaskSide) +
                   " (radius " + std::to_string(kMaxMaskSide / 2) + ")");
  out = std::move(v);
  return {};
}

Problem parseWeightsText(std::string_view text, const std::string& name, WeightGrid& out) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  WeightGrid g;
  std::vector<float> row;
  int lineNumber = 0;
  std::size_t firstRowLine = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++lineNumber;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    if (line.find_first_not_of(" \t\r\f\v") == std::string_view::npos) continue;
    if (line.find('\0') != std::string_view::npos)
      return invalid(quoted(name) + " is not text (line " + std::to_string(lineNumber) +
                     " holds a zero byte): write rows of numbers, or save a NumPy array as .npy");
    const int rowNumber = g.rows + 1;
    if (const auto e = splitRow(line, row))
      return invalid(quoted(name) + " row " + std::to_string(rowNumber) + ", column " + std::to_string(e->column) +
                     " (line " + std::to_string(lineNumber) + "): " + e->what);
    if (g.rows == 0) {
      g.cols = int(row.size());
      firstRowLine = std::size_t(lineNumber);
    } else if (int(row.size()) != g.cols) {
      return invalid(quoted(name) + " is ragged: row 1 (line " + std::to_string(firstRowLine) + ") has " +
                     std::to_string(g.cols) + " values, row " + std::to_string(rowNumber) + " (line " +
                     std::to_string(lineNumber) + ") has " + std::to_string(row.size()) +
                     ": give every row the same number of values");
    }
    if (rowNumber > kMaxMaskSide || g.cols > kMaxMaskSide)
      return invalid(quoted(name) + " has more than " + std::to_string(kMaxMaskSide) +
                     (g.cols > kMaxMaskSide ? " columns" : " rows") + ": the largest mask is " +
                     shape(kMaxMaskSide, kMaxMaskSide) + " (radius " + std::to_string(kMaxMaskSide / 2) + ")");
    g.values.insert(g.values.end(), row.begin(), row.end());
    ++g.rows;
  }
  if (g.rows == 0)
    return problem(Code::Missing, "",
                   quoted(name) +
                       " holds no numbers: write one row of the mask a line, such as 1,2,1 (commas or "
                       "spaces between values; '#' starts a comment)");
  out = std::move(g);
  return {};
}

Problem parseNpy(std::string_view bytes, const std::string& name, WeightGrid& out) {
  const std::string file = quoted(name);
  const std::string saveHint = "save it with numpy.save(path, array.astype(numpy.float64))";
  if (bytes.empty()) return problem(Code::Missing, "", file + " is empty: " + saveHint);
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY")
    return invalid(file + " is not a NumPy .npy file (it does not start with \\x93NUMPY): " + saveHint +
                   ", or write the weights as text in a .txt or .csv file");
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  const int major = b[6];
  if (major < 1 || major > 3)
    return invalid(file + " is a .npy file of format version " + std::to_string(major) +
                   ", which convlive does not read (it reads versions 1 to 3): " + saveHint);
  const std::size_t lenBytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + lenBytes) return invalid(file + " is truncated (its header is cut short): " + saveHint);
  const std::size_t headerLen = littleEndian(b + 8, int(lenBytes));
  const std::size_t dataAt = 8 + lenBytes + headerLen;
  if (bytes.size() < dataAt) return invalid(file + " is truncated (its header is cut short): " + saveHint);
  const std::string header(bytes.substr(8 + lenBytes, headerLen));

  const auto descr = dictValue(header, "descr");
  const auto fortran = dictValue(header, "fortran_order");
  const auto shapeText = dictValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return invalid(file +
                   " has a header that convlive cannot read (it needs descr, fortran_order and shape): " + saveHint);
  if (descr->empty() || descr->front() == '[' || header.find("'descr': [") != std::string::npos)
    return invalid(file + " holds a structured array (fields): save a plain 2D array of float32 or float64");
  const bool littleF4 = *descr == "<f4", littleF8 = *descr == "<f8";
  if (!littleF4 && !littleF8) {
    if (*descr == ">f4" || *descr == ">f8")
      return invalid(file + " holds big-endian " + dtypeWords(*descr) + " (dtype '" + *descr +
                     "'): save it little-endian, for example numpy.save(path, array.astype('<f" + descr->substr(2) +
                     "'))");
    return invalid(file + " holds " + dtypeWords(*descr) + " (dtype '" + *descr +
                   "'): save float32 or float64, for example numpy.save(path, array.astype(numpy.float64))");
  }
  if (*fortran != "True" && *fortran != "False")
    return invalid(file + " has a header whose fortran_order is '" + *fortran +
                   "' (True or False expected): " + saveHint);
  const bool columnMajor = *fortran == "True";
  const auto dims = parseShape(*shapeText);
  if (!dims) return invalid(file + " has a shape convlive cannot read (" + *shapeText + "): " + saveHint);
  if (dims->size() != 2) {
    std::string hint = "save a 2D array";
    if (dims->size() == 1)
      hint += ": array.reshape(1, -1) for a horizontal mask, array.reshape(-1, 1) for a vertical one";
    return invalid(file + " is " + std::to_string(dims->size()) + "-dimensional (shape " + *shapeText + "): " + hint);
  }
  const long long rows = (*dims)[0], cols = (*dims)[1];
  if (rows == 0 || cols == 0) return problem(Code::Missing, "", file + " holds no numbers (shape " + *shapeText + ")");
  if (rows > kMaxMaskSide || cols > kMaxMaskSide)
    return invalid(file + " is " + shape(rows, cols) + ": the largest mask is " + shape(kMaxMaskSide, kMaxMaskSide) +
                   " (radius " + std::to_string(kMaxMaskSide / 2) + ")");
  const std::size_t item = littleF4 ? 4 : 8;
  const std::size_t want = std::size_t(rows * cols) * item, have = bytes.size() - dataAt;
  if (have < want)
    return invalid(file + " is truncated: its header says " + shape(rows, cols) + " " + dtypeWords(*descr) + " (" +
                   std::to_string(want) + " bytes), the file holds " + std::to_string(have) + ": " + saveHint);
  if (have > want)
    return invalid(file + " has " + std::to_string(have - want) + " bytes after the " + shape(rows, cols) +
                   " array its header describes (is it a .npy file?): " + saveHint);

  WeightGrid g;
  g.rows = int(rows);
  g.cols = int(cols);
  g.values.resize(std::size_t(rows * cols));
  for (long long i = 0; i < rows; ++i)
    for (long long j = 0; j < cols; ++j) {
      const std::size_t k = std::size_t(columnMajor ? j * rows + i : i * cols + j);
      const unsigned char* p = b + dataAt + k * item;
      const double v = littleF4 ? double(std::bit_cast<float>(std::uint32_t(littleEndian(p, 4))))
                                : std::bit_cast<double>(littleEndian(p, 8));
      const std::string where = " at row " + std::to_string(i + 1) + ", column " + std::to_string(j + 1);
      if (std::isnan(v)) return invalid(file + " holds NaN" + where + ": masks take finite numbers only");
      if (!roundsToFiniteFloat(v))
        return invalid(file + " holds " + (std::isfinite(v) ? std::to_string(v) : std::string("infinity")) + where +
                       ": masks take finite numbers (floats hold up to about 3.4e38)");
      g.values[std::size_t(i * cols + j)] = static_cast<float>(v);
    }
  out = std::move(g);
  return {};
}

Problem readWeightsFile(const std::string& path, WeightGrid& out) {
  namespace fs = std::filesystem;
  const std::string file = quoted(path);
  if (path.empty()) return problem(Code::Missing, "", "is empty: name a weights file (.txt, .csv or .npy)");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return invalid(file + " does not exist: check the path (a .txt, .csv or .npy file)");
  if (fs::is_directory(st)) return invalid(file + " is a folder: name a weights file in it (.txt, .csv or .npy)");
  // A pipe would block the open, a device (/dev/zero) would never end: only files are read.
  if (!fs::is_regular_file(st))
    return invalid(file + " is not a regular file (a pipe, a socket or a device): save the weights to a file");
  const std::string ext = lower(fs::path(path).extension().string());
  const bool npy = ext == ".npy";
  if (!npy && ext != ".txt" && ext != ".csv" && ext != ".tsv" && ext != ".dat" && !ext.empty())
    return invalid(file + " is not a weights file convlive reads (" + ext +
                   "): use text (.txt, .csv: rows of numbers) or NumPy (.npy)");
  const auto size = fs::file_size(path, ec);
  if (!ec && size > std::uintmax_t(kMaxWeightsFileBytes))
    return invalid(file + " is " + std::to_string(size >> 20) +
                   " MiB: far larger than any mask (at most 129x129 numbers): is it the right file?");
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid(file + " cannot be read (" + std::strerror(errno) + "): check its permissions");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return invalid(file + " cannot be read: " + std::strerror(errno));
  return npy ? parseNpy(bytes, path, out) : parseWeightsText(bytes, path, out);
}

}  // namespace convlive
