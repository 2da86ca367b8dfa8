#include "harness/files/file_kind.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "harness/errors.hpp"

namespace nb {
namespace {

// "a FIFO", "a folder", ...: what a file that is not a regular one is.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a special file";
}

}  // namespace

std::string why_link_leads_nowhere(const std::string& path) {
  struct stat link {};
  struct stat target {};
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode) || ::stat(path.c_str(), &target) == 0) return "";
  const int error = errno;
  if (error == ELOOP) return "a symbolic link loop";
  std::error_code ignored;
  const std::string to = std::filesystem::read_symlink(path, ignored).string();
  if (error == ENOENT) return "a symbolic link to " + to + ", which does not exist";
  return "a symbolic link to " + to + " (" + std::strerror(error) + ")";
}

std::string why_not_a_readable_file(const std::string& path, const std::string& kind) {
  if (std::string why = why_link_leads_nowhere(path); !why.empty()) return why + ", not a " + kind + " file";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return errno == ENOENT ? "no such " + kind + " file" : std::string("cannot read it: ") + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return kind_of(st.st_mode) + ", not a regular file";
  if (::access(path.c_str(), R_OK) != 0) return std::string("cannot read it: ") + std::strerror(errno);
  return "";
}

std::string regular_file_to_write(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return path;  // new, or a file to replace
  std::string why = why_link_leads_nowhere(path);
  if (why.empty() && S_ISLNK(st.st_mode)) {
    struct stat target {};
    std::error_code error;
    const std::filesystem::path resolved = std::filesystem::canonical(path, error);
    if (!error && ::stat(resolved.c_str(), &target) == 0 && S_ISREG(target.st_mode)) return resolved.string();
    why = error ? "a symbolic link that cannot be followed (" + error.message() + ")"
                : "a symbolic link to " + kind_of(target.st_mode);
  }
  if (why.empty()) why = kind_of(st.st_mode);
  throw UsageError(what + " " + path + " is " + why +
                   ", not a regular file: normbench writes only regular files (or through a link to one); choose "
                   "another file name");
}

}  // namespace nb
