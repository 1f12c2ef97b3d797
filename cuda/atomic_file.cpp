#include "convlive/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace convlive {
namespace {

// Writes all of `text` to fd; the errno of the first failure, else 0.
int writeAll(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += n;
    left -= std::size_t(n);
  }
  return 0;
}

std::string folderOf(const std::filesystem::path& target) {
  return target.has_parent_path() ? target.parent_path().string() : std::string(".");
}

}  // namespace

std::string writeErrorWords(int error, const std::string& folder) {
  switch (error) {
    case ENOSPC:
      return "the disk is full: free some space on it, or write elsewhere";
    case EDQUOT:
      return "the disk quota is used up: free some space, or write elsewhere";
    case EFBIG:
      return "the file is larger than this process may write (ulimit -f) or the file system takes";
    case EACCES:
    case EPERM:
      return "permission denied: folder '" + folder + "' is not writable by this user; write elsewhere";
    case EROFS:
      return "the file system of folder '" + folder + "' is read-only; write elsewhere";
    case ENOENT: {
      std::error_code ec;
      if (std::filesystem::is_directory(folder, ec))  // /proc, say: there, but no new files in it
        return "folder '" + folder + "' takes no new files (" + std::strerror(error) + "); write elsewhere";
      return "folder '" + folder + "' does not exist and cannot be made";
    }
    case ENOTDIR:
      return "'" + folder + "' is not a folder";
    case EISDIR:
      return "a folder of that name is in the way: name another file";
    case ENAMETOOLONG:
      return "the name is too long";
    case EIO:
      return "an input/output error on the disk";
    default:
      return std::strerror(error);
  }
}

bool writeFileAtomically(const std::string& path, const std::string& text, std::string* why) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string folder = folderOf(target);
  const auto fail = [&](int error) {
    if (why) *why = writeErrorWords(error, folder);
    return false;
  };
  std::error_code ec;
  if (target.has_parent_path() && !fs::is_directory(target.parent_path(), ec)) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) return fail(ec.value());
  }
  // The process id and a counter: two threads, or two processes, never share a temporary.
  static std::atomic<unsigned> serial{0};
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return fail(errno);
  int error = writeAll(fd, text);
  // Some file systems (NFS, quotas) report a full disk only when the file is closed.
  if (::close(fd) != 0 && error == 0 && errno != EINTR) error = errno;
  if (error == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(tmp.c_str());
    return fail(error);
  }
  return true;
}

}  // namespace convlive
