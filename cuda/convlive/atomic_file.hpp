// Writing a small file so that it is never seen half written: the text goes to a temporary file
// beside it, which is then renamed over it (caches: auto's tuning, the copy bandwidth). Any thread;
// concurrent writers of one path each leave a whole file (the last rename wins).
#pragma once

#include <string>

namespace convlive {

// Creates the parent folders when missing. Returns false (and leaves the old file, if any, and no
// temporary behind) when the text cannot be written; then *why (when given) says why and what to
// do, from the failing call's errno ("the disk is full: free some space on it, or write
// elsewhere"), for a message "cannot write 'PATH': " + why.
bool writeFileAtomically(const std::string& path, const std::string& text, std::string* why = nullptr);
// An errno from writing a file into `folder`, in words with what to do (writeFileAtomically's why).
std::string writeErrorWords(int error, const std::string& folder);

}  // namespace convlive
