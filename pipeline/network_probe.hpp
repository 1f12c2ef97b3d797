// Why a network source failed, found by asking the network itself (internal to pipeline/).
// GStreamer's HTTP source says only "Internal data stream error" when a server refuses the
// connection or its name does not resolve; after such a failure the source's host is looked up and
// connected to once, each step bounded, and the answer put in words.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace convlive {

// The host and TCP port a URI's scheme connects to (http 80, https 443, rtsp 554, rtmp 1935, or
// the URI's own port). Empty for schemes that are not TCP (file, udp, srt, ...) and for URIs
// without a host.
struct NetworkTarget {
  std::string host;
  int port = 0;
};
std::optional<NetworkTarget> networkTargetOf(const std::string& uri);

// How reaching `target` failed, in words that name the cause: "the host name 'x' was not found",
// "127.0.0.1 refused the connection on port 9", "x did not answer on port 80 within 3.0 s", "no
// route to x (Network is unreachable)". Empty when a connection opened (the server is there: the
// fault is in what it sent). The name lookup and the connection are each bounded by `timeout`; a
// lookup that has not answered by then is left to finish on a thread of its own.
std::string whyUnreachable(const NetworkTarget& target, std::chrono::milliseconds timeout);

// What to do about it, for the message's end.
std::string unreachableAdvice(const std::string& why);

}  // namespace convlive
