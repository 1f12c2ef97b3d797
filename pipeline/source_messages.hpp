// The words for what went wrong with a source (internal to pipeline/). Each function returns one
// line that names the source, what was wrong and what to do, in plain words: no command-line flag
// names, since the viewer's panel and the GStreamer element show the same text. Pure functions of
// their arguments; any thread.
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <string>
#include <vector>

#include "convlive/source.hpp"

namespace convlive {

// An ERROR message from a source's bus. `msg` is borrowed for the call.
std::string explainBusError(GstMessage* msg, const SourceSpec& spec);

// The source reached no first frame within `timeout`; the advice depends on the kind of source.
std::string noFirstFrameMessage(const SourceSpec& spec, std::chrono::milliseconds timeout);

// A decoded file or URI whose streams are all something other than video. `kinds` are the
// media types found ("audio", "text", ...; may be empty when nothing could be decoded).
std::string noVideoMessage(const SourceSpec& spec, const std::vector<std::string>& kinds);

// A time limit in seconds as the messages write it: "2.5".
std::string secondsText(std::chrono::milliseconds t);

// 'text', quoted for a message.
std::string quoted(const std::string& text);

}  // namespace convlive
