// `convlive` with no --headless or --output: the viewer, in a window or offscreen (EGL).
#pragma once

#include <iosfwd>
#include <string>

#include "convlive/spec.hpp"
#include "video.hpp"

namespace convlive {

struct ViewerCommandOptions {
  bool offscreen = false;  // headless EGL even when a display is there
  bool vsync = true;
  std::string windowSize = "1600x900";
  std::string screenshot;    // PNG of the composed view at the end
  bool split = false;        // start in split view (original | filtered)
  std::string view = "fit";  // fit, fill or 1:1
  bool overlay = false;      // start with the block-grid overlay on (key o)
};

// `filter`: the filter as asked for on the command line (validated); the panel starts from it.
int runViewer(const VideoOptions& v, const FilterSpec& filter, const ViewerCommandOptions& o, std::ostream& log,
              std::ostream& err);

}  // namespace convlive
