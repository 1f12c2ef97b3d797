// Finding cameras (internal to pipeline/; listCameras() itself is declared in convlive/source.hpp).
#pragma once

#include <string>

namespace convlive {

// The device to open for a camera source: `requested` when it exists, the first camera present
// when `requested` is empty. Throws SourceError naming the cameras present when there is none to
// open. Any thread; may take a moment (it asks GStreamer's device monitor).
std::string resolveCameraDevice(const std::string& requested);

}  // namespace convlive
