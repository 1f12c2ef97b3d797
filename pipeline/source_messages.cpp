#include "source_messages.hpp"

#include <algorithm>
#include <cstdio>

#include "gst_ptr.hpp"

namespace convlive {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::string explainBusError(GstMessage* msg, const SourceSpec& spec) {
  GError* raw = nullptr;
  gchar* debugRaw = nullptr;
  gst_message_parse_error(msg, &raw, &debugRaw);
  gst::ErrorPtr err(raw);
  gst::CharPtr debug(debugRaw);
  const std::string what = spec.describe();
  const std::string text = err ? err->message : "unknown error";
  const std::string dbg = gst::str(debug.get());
  const auto is = [&](GQuark domain, int code) { return err && err->domain == domain && err->code == code; };
  if (is(GST_STREAM_ERROR, GST_STREAM_ERROR_TYPE_NOT_FOUND) || is(GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE))
    return what + " is not a video GStreamer can read (" + text + "): check the file, or convert it to WebM or MP4";
  if (is(GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN))
    return what + " needs a decoder that is not installed (" + text +
           "): install gstreamer1.0-plugins-good, -bad, -ugly or gstreamer1.0-libav";
  if (is(GST_STREAM_ERROR, GST_STREAM_ERROR_CODEC_NOT_FOUND))
    return what + " uses a codec with no decoder installed (" + text +
           "): install gstreamer1.0-plugins-bad, -ugly or gstreamer1.0-libav";
  if (dbg.find("not-negotiated") != std::string::npos)
    return what +
           ": its caps cannot become RGBA8 video (not-negotiated): end a launch line with "
           "'! videoconvert ! appsink', and make sure the source produces video";
  if (dbg.find("not-linked") != std::string::npos)
    return what + " has no video stream (" + text + "): choose a file with video in it";
  if (is(GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND) || is(GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ) ||
      is(GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ_WRITE))
    return what + " cannot be opened (" + text + "): check the path or address";
  if (spec.kind == SourceSpec::Kind::Camera && err && err->domain == GST_RESOURCE_ERROR &&
      err->code != GST_RESOURCE_ERROR_BUSY)
    return what + " stopped or cannot be used (" + text + "): check that it is plugged in, then choose it again";
  if (is(GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY))
    return what + " is busy (" + text + "): close the program that uses it, then try again";
  if (is(GST_STREAM_ERROR, GST_STREAM_ERROR_DECODE) || is(GST_STREAM_ERROR, GST_STREAM_ERROR_DEMUX))
    return what + " is damaged or truncated (" + text + "): re-download or re-encode it";
  const std::string firstDebugLine = dbg.substr(0, dbg.find('\n'));
  return what + " failed: " + text + (firstDebugLine.empty() ? "" : " (" + firstDebugLine + ")");
}

std::string secondsText(std::chrono::milliseconds t) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", double(t.count()) / 1000.0);
  return seconds;
}

std::string noFirstFrameMessage(const SourceSpec& spec, std::chrono::milliseconds timeout) {
  const std::string head = spec.describe() + " gave no frame within " + secondsText(timeout) + " s: ";
  switch (spec.kind) {
    case SourceSpec::Kind::Pattern:
      return head + "the machine may be overloaded; try a smaller size";
    case SourceSpec::Kind::File:
      return head + "the file may be damaged or on a slow disk; try again, or re-encode it";
    case SourceSpec::Kind::Uri:
      return head + "check that the address is reachable and that its server is up";
    case SourceSpec::Kind::Camera:
      return head + "the camera may be busy (in use by another program) or unplugged";
    case SourceSpec::Kind::Launch:
      return head + "make sure the line produces video (try it with gst-launch-1.0)";
  }
  return head + "check the source";
}

std::string noVideoMessage(const SourceSpec& spec, const std::vector<std::string>& kinds) {
  std::string found;
  for (const std::string& k : kinds)
    if (found.find(k) == std::string::npos) found += (found.empty() ? "" : " and ") + k;
  return spec.describe() + " has no video stream" + (found.empty() ? "" : " (" + found + " only)") +
         ": choose a file or address with video in it";
}

}  // namespace convlive
