#include "harness/report/atomic_write.hpp"

#include "harness/errors.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace nb {
namespace {

std::string folder_of(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

[[noreturn]] void fail(const std::string& path, const std::string& step, int error) {
  throw UsageError("cannot write " + path + ": " + step + ": " + std::strerror(error));
}

// 0, or the errno of the failing step.
int write_all_and_sync(int fd, const std::string& content) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return errno;
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) return errno;
  return 0;
}

void sync_folder(const std::string& folder) {
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // best effort: the rename already happened
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  if (path.empty()) throw UsageError("cannot write a file with an empty path");
  std::string folder = folder_of(path);
  std::string name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  std::string pattern = folder + "/." + name + ".tmp.XXXXXX";
  std::vector<char> temp(pattern.begin(), pattern.end());
  temp.push_back('\0');
  int fd = ::mkstemp(temp.data());
  if (fd < 0) fail(path, "creating a temporary file in " + folder, errno);
  if (int error = write_all_and_sync(fd, content); error != 0) {
    ::close(fd);
    ::unlink(temp.data());
    fail(path, "writing", error);
  }
  if (::close(fd) != 0) {
    int error = errno;
    ::unlink(temp.data());
    fail(path, "closing", error);
  }
  if (::rename(temp.data(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.data());
    fail(path, "renaming the temporary file over it", error);
  }
  sync_folder(folder);
}

}  // namespace nb
