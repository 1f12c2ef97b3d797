// Writing a small file so that it is never seen half written: the text goes to a temporary file
// beside it, which is then renamed over it (caches: auto's tuning, the copy bandwidth). Any thread;
// concurrent writers of one path each leave a whole file (the last rename wins).
#pragma once

#include <string>

namespace convlive {

// Creates the parent folders when missing. Returns false (and leaves the old file, if any, and no
// temporary behind) when the text cannot be written.
bool writeFileAtomically(const std::string& path, const std::string& text);

}  // namespace convlive
