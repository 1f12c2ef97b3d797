#include "convlive/atomic_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace convlive {

bool writeFileAtomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  const fs::path tmp = target.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << text;
    if (!out.flush()) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace convlive
