#include "file_checks.hpp"

#include <gst/gst.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gst_ptr.hpp"
#include "source_messages.hpp"

namespace convlive {
namespace {

namespace fs = std::filesystem;

// The size a RIFF header declares (0: not a RIFF file).
std::uintmax_t riffDeclaredBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char h[12] = {};
  if (!in.read(reinterpret_cast<char*>(h), sizeof h) || std::memcmp(h, "RIFF", 4) != 0) return 0;
  return 8 +
         (std::uintmax_t(h[4]) | std::uintmax_t(h[5]) << 8 | std::uintmax_t(h[6]) << 16 | std::uintmax_t(h[7]) << 24);
}

}  // namespace

FileCheck FileCheck::ofPath(const std::string& path) {
  if (path.empty()) throw SourceError("no input file given: name a video file");
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (!fs::exists(st)) throw SourceError("input file " + quoted(path) + " does not exist: check the path");
  if (fs::is_directory(st))
    throw SourceError("input " + quoted(path) + " is a directory, not a video file: name a file inside it");
  if (std::ifstream probe(path, std::ios::binary); !probe)
    throw SourceError("input file " + quoted(path) + " cannot be read: check its permissions");
  const std::uintmax_t bytes = fs::file_size(path, ec);
  if (!ec && bytes == 0) throw SourceError("input file " + quoted(path) + " is empty: it holds no video");
  FileCheck check;
  check.declaredBytes_ = riffDeclaredBytes(path);
  check.actualBytes_ = ec ? 0 : bytes;
  GError* raw = nullptr;
  gst::CharPtr uri(gst_filename_to_uri(path.c_str(), &raw));
  gst::ErrorPtr err(raw);
  if (!uri)
    throw SourceError("input file " + quoted(path) + " has no URI form (" + (err ? err->message : "unknown reason") +
                      "): rename it or give its URI");
  check.uri_ = uri.get();
  return check;
}

FileCheck FileCheck::ofUri(const std::string& uri) {
  if (!gst_uri_is_valid(uri.c_str()))
    throw SourceError("URI " + quoted(uri) + " is not a valid URI: write it as scheme://address");
  gst::CharPtr protocol(gst_uri_get_protocol(uri.c_str()));
  if (!gst_uri_protocol_is_supported(GST_URI_SRC, protocol.get()))
    throw SourceError("URI " + quoted(uri) + ": no installed GStreamer source reads '" + gst::str(protocol.get()) +
                      "://' (file:// works; http(s) needs gstreamer1.0-plugins-good's souphttpsrc, rtsp its rtspsrc)");
  if (gst::str(protocol.get()) == "file") {
    GError* raw = nullptr;
    gst::CharPtr path(g_filename_from_uri(uri.c_str(), nullptr, &raw));
    gst::ErrorPtr err(raw);
    if (!path)
      throw SourceError("URI " + quoted(uri) + " names no local file (" + (err ? err->message : "unknown reason") +
                        "): write it as file:///path/to/video");
    FileCheck check = ofPath(path.get());
    check.uri_ = uri;
    return check;
  }
  FileCheck check;
  check.uri_ = uri;
  return check;
}

std::string FileCheck::truncation(const SourceSpec& spec, std::uint64_t framesRead, double lastPtsSeconds, double fps,
                                  double durationSeconds) const {
  if (framesRead == 0) return "";
  if (declaredBytes_ > actualBytes_ && actualBytes_ > 0)
    return spec.describe() + " is truncated: it has " + std::to_string(actualBytes_) + " of the " +
           std::to_string(declaredBytes_) + " bytes its header declares; re-download or re-encode it";
  if (durationSeconds <= 0) return "";
  const double frame = fps > 0 ? 1.0 / fps : 0.04;
  const double missing = durationSeconds - (lastPtsSeconds + frame);
  if (missing <= std::max(0.25, 3 * frame)) return "";
  std::ostringstream msg;
  msg.precision(3);
  msg << spec.describe() << " is truncated or damaged: its frames end at " << lastPtsSeconds + frame << " s of the "
      << durationSeconds << " s it declares; re-download or re-encode it";
  return msg.str();
}

}  // namespace convlive
