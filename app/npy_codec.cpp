// NumPy .npy pictures, read and written by hand (the format is a magic string, a version, a
// Python-dict header and the raw array): https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "npy_header.hpp"
#include "picture_codecs.hpp"

namespace convlive {
namespace {

using npy::dictValue;
using npy::littleEndian;
using npy::parseShape;

constexpr std::string_view kMagic("\x93NUMPY", 6);

// The dtype in words: "float64", "int32", "bool", ...; the descr quoted when its size is not a
// plain number.
std::string dtypeWords(const std::string& descr) {
  const auto bytes = npy::itemBytes(descr);
  if (!bytes) return "'" + descr + "'";
  return npy::kindName(descr[1], *bytes).value_or("'" + descr + "'");
}

std::optional<PixelType> typeOf(const std::string& descr) {
  if (descr == "|u1" || descr == "<u1") return PixelType::U8;
  if (descr == "<u2") return PixelType::U16;
  if (descr == "<f2") return PixelType::F16;
  if (descr == "<f4") return PixelType::F32;
  return std::nullopt;
}

const char* descrOf(PixelType t) {
  switch (t) {
    case PixelType::U8:
      return "|u1";
    case PixelType::U16:
      return "<u2";
    case PixelType::F16:
      return "<f2";
    case PixelType::F32:
      return "<f4";
  }
  return "";
}

const char* kTypesTaken = "uint8, uint16, float16 or float32";

}  // namespace

bool looksLikeNpy(std::string_view bytes) { return bytes.substr(0, kMagic.size()) == kMagic; }

DecodedPicture decodeNpy(std::string_view bytes, const std::string& name, const DecodeLimits& limits) {
  const std::string file = "'" + name + "'";
  const auto invalid = [&](const std::string& what) { return std::invalid_argument(file + " " + what); };
  if (!looksLikeNpy(bytes)) throw invalid("is not a NumPy .npy file (it does not start with \\x93NUMPY)");
  if (bytes.size() < 10) throw invalid("is truncated (it ends inside the .npy header): save it again with numpy.save");
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  const int major = u[6];
  if (major < 1 || major > 3)
    throw invalid("is a .npy file of format version " + std::to_string(major) + "." + std::to_string(u[7]) +
                  ", which convlive does not read (it reads 1.0 to 3.0): save it with numpy.save");
  const std::size_t lengthBytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + lengthBytes)
    throw invalid("is truncated (it ends inside the .npy header): save it again with numpy.save");
  const std::size_t headerLength = littleEndian(u + 8, int(lengthBytes));
  const std::size_t dataAt = 8 + lengthBytes + headerLength;
  if (dataAt > bytes.size())
    throw invalid("is truncated (it ends inside the .npy header): save it again with numpy.save");
  const std::string header(bytes.substr(8 + lengthBytes, headerLength));
  const auto descr = dictValue(header, "descr"), fortran = dictValue(header, "fortran_order"),
             shapeText = dictValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    throw invalid(
        "has a .npy header that convlive cannot read (it needs descr, fortran_order and shape): save it "
        "with numpy.save");
  if (header.find("'descr': [") != std::string::npos || header.find("\"descr\": [") != std::string::npos)
    throw invalid("holds a structured array (record dtype): save a plain array of " + std::string(kTypesTaken) +
                  ", shape (H, W) or (H, W, C)");
  const auto type = typeOf(*descr);
  if (!type) {
    const std::string words = dtypeWords(*descr);
    std::string fix;
    if (descr->size() > 1 && descr->front() == '>')
      fix = "save it little-endian: a.astype('<" + descr->substr(1) + "')";
    else if (*descr == "<f8")
      fix = "save it as float32: a.astype('float32')";
    else
      fix = "convert it to one of " + std::string(kTypesTaken) + ": a.astype('float32'), a.astype('uint16')";
    throw invalid("holds " + (descr->size() > 1 && descr->front() == '>' ? "big-endian " + words : words) +
                  " data (dtype '" + *descr + "'); convlive reads " + kTypesTaken + ", little-endian: " + fix);
  }
  if (*fortran != "False") {
    if (*fortran == "True")
      throw invalid(
          "is in Fortran (column-major) order: save a C-order array, numpy.save(path, "
          "np.ascontiguousarray(a))");
    throw invalid("has a .npy header with fortran_order " + *fortran + ": save it with numpy.save");
  }
  const auto dims = parseShape(*shapeText);
  if (!dims) throw invalid("has a shape convlive cannot read (" + *shapeText + "): save it with numpy.save");
  const bool hw = dims->size() == 2, hwc = dims->size() == 3;
  const long long channels = hwc ? (*dims)[2] : 1;
  if (!(hw || hwc) || (channels != 1 && channels != 3 && channels != 4)) {
    std::string hint = "use (H, W) for grey or (H, W, C) with C 1, 3 or 4 (channels last)";
    if (hwc && (*dims)[0] >= 1 && (*dims)[0] <= 4 && (channels < 1 || channels > 4))
      hint += "; for channels first (C, H, W): a.transpose(1, 2, 0)";
    else if (hwc && channels == 2)
      hint += "; for grey and alpha: np.dstack([a[..., 0]] * 3 + [a[..., 1]])";
    throw invalid("has shape " + *shapeText + ", which is not a picture: " + hint);
  }
  const long long h = (*dims)[0], w = (*dims)[1];
  if (h == 0 || w == 0) throw invalid("holds no pixels (shape " + *shapeText + ")");
  // The data must be exactly what the header describes, before anything is allocated (a product
  // beyond 64 bits is more than any file holds).
  const std::size_t item = pixelTypeBytes(*type);
  std::uint64_t want64 = 0;
  const bool overflows = __builtin_mul_overflow(std::uint64_t(h), std::uint64_t(w), &want64) ||
                         __builtin_mul_overflow(want64, std::uint64_t(channels) * item, &want64);
  const std::size_t have = bytes.size() - dataAt;
  const std::string wantText = overflows ? std::string("more than 2^64") : std::to_string(want64);
  if (overflows || want64 > have)
    throw invalid("is truncated: its header says shape " + *shapeText + " of " + dtypeWords(*descr) + " (" + wantText +
                  " bytes), and it holds " + std::to_string(have) + ": save it again with numpy.save");
  const std::size_t want = want64;
  if (have > want)
    throw invalid("has " + std::to_string(have - want) + " bytes after the array its header describes (shape " +
                  *shapeText + " of " + dtypeWords(*descr) + "): is it a .npy file? Save it again with numpy.save");
  checkPictureSize(name, std::uint64_t(w), std::uint64_t(h), limits);
  DecodedPicture d;
  d.picture = Picture::make(int(w), int(h), *type, int(channels));
  d.bitsPerChannel = int(8 * item);
  std::memcpy(d.picture.bytes.data(), bytes.data() + dataAt, want);
  if constexpr (std::endian::native == std::endian::big) {
    for (std::size_t i = 0; i + item <= want; i += item) std::reverse(&d.picture.bytes[i], &d.picture.bytes[i + item]);
  }
  return d;
}

std::string encodeNpy(const Picture& picture) {
  const ImageDesc& d = picture.desc;
  std::string shape = "(";  // built by appending: "(" + std::to_string(...) trips GCC 12's -Wrestrict
  shape += std::to_string(d.height);
  shape += ", ";
  shape += std::to_string(d.width);
  if (d.channels != 1) shape += ", " + std::to_string(d.channels);
  shape += ")";
  std::string header =
      std::string("{'descr': '") + descrOf(d.type) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Padded with spaces and a newline so that the data starts on a multiple of 64 bytes (as numpy
  // writes it).
  const std::size_t unpadded = 10 + header.size() + 1;
  header += std::string((64 - unpadded % 64) % 64, ' ') + '\n';
  if (header.size() > 65535) throw std::runtime_error("cannot encode the .npy: its header is too long");
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  const std::size_t at = out.size();
  out.append(reinterpret_cast<const char*>(picture.bytes.data()), picture.bytes.size());
  if constexpr (std::endian::native == std::endian::big) {
    const std::size_t size = pixelTypeBytes(d.type);
    for (std::size_t i = at; i + size <= out.size(); i += size) std::reverse(&out[i], &out[i + size]);
  }
  return out;
}

}  // namespace convlive
