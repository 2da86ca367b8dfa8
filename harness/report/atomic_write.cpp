#include "harness/report/atomic_write.hpp"

#include "harness/errors.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
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

// "" when `folder` exists or could be created and a probe file could be written and synced in it;
// else the reason.
std::string why_folder_is_not_writable(const std::string& folder) {
  std::error_code error;
  std::vector<std::filesystem::path> created;  // the folders this probe makes, deepest first
  for (std::filesystem::path p = folder; !p.empty() && !std::filesystem::exists(p, error); p = p.parent_path())
    created.push_back(p);
  struct RemoveCreated {  // the probe leaves nothing behind; the writer creates the folders again
    std::vector<std::filesystem::path>& folders;
    ~RemoveCreated() {
      std::error_code ignored;
      for (const auto& p : folders) std::filesystem::remove(p, ignored);  // empty folders only
    }
  } remove_created{created};
  std::filesystem::create_directories(folder, error);
  if (error) return "cannot create the folder: " + error.message();
  if (!std::filesystem::is_directory(folder, error)) return folder + " is not a folder";
  std::string pattern = folder + "/.normbench-write-probe.XXXXXX";
  std::vector<char> probe(pattern.begin(), pattern.end());
  probe.push_back('\0');
  int fd = ::mkstemp(probe.data());
  if (fd < 0) return std::string("cannot create a file in it: ") + std::strerror(errno);
  int failure = write_all_and_sync(fd, "normbench\n");
  if (::close(fd) != 0 && failure == 0) failure = errno;
  ::unlink(probe.data());
  return failure == 0 ? "" : std::string("cannot write a file in it: ") + std::strerror(failure);
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

void check_folder_writable(const std::string& folder, const std::string& what) {
  const std::string shown = folder.empty() ? "." : folder;
  if (std::string why = why_folder_is_not_writable(shown); !why.empty())
    throw UsageError("cannot write to " + what + " " + shown + ": " + why);
}

}  // namespace nb
