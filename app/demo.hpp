// `convlive demo DIR`: a test picture and filtered versions of it, to see what the filters do.
#pragma once

#include <iosfwd>
#include <string>

#include "convlive/image.hpp"

namespace convlive {

// A deterministic test picture that shows blur and edges well: a zone plate, gradients, a
// checkerboard and thin lines.
HostImage demoPattern(int width, int height);
// Writes the test picture and a few filtered versions of it into `dir` (made when missing).
int runDemo(const std::string& dir, std::ostream& log, std::ostream& err);

}  // namespace convlive
