#include "harness/files/atomic_write.hpp"

#include "harness/errors.hpp"
#include "harness/files/file_kind.hpp"

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

// The folders from `folder` up to the first one that exists, deepest first; or the reason when a
// symbolic link on the way leads nowhere (creating a folder in its place fails with "File exists",
// and it is not the probe's to remove).
std::string missing_folders(const std::filesystem::path& folder, std::vector<std::filesystem::path>& missing) {
  for (std::filesystem::path p = folder; !p.empty(); p = p.parent_path()) {
    if (std::string why = why_link_leads_nowhere(p.string()); !why.empty()) return p.string() + " is " + why;
    std::error_code error;
    if (std::filesystem::exists(std::filesystem::symlink_status(p, error)) || p == p.parent_path()) break;
    missing.push_back(p);
  }
  return "";
}

// "" when `folder` exists or could be created and a probe file could be written and synced in it;
// else the reason. Only the folders the probe itself created are removed again.
std::string why_folder_is_not_writable(const std::string& folder) {
  std::vector<std::filesystem::path> missing, created;  // created: shallowest first
  if (std::string why = missing_folders(folder, missing); !why.empty()) return why;
  struct RemoveCreated {  // the probe leaves nothing behind; the writer creates the folders again
    std::vector<std::filesystem::path>& folders;
    ~RemoveCreated() {
      std::error_code ignored;
      for (auto p = folders.rbegin(); p != folders.rend(); ++p) std::filesystem::remove(*p, ignored);  // empty folders only
    }
  } remove_created{created};
  for (auto p = missing.rbegin(); p != missing.rend(); ++p) {
    std::error_code error;
    if (std::filesystem::create_directory(*p, error)) created.push_back(*p);
    if (error) return "cannot create the folder " + p->string() + ": " + error.message();
  }
  std::error_code error;
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

void write_file_atomically(const std::string& given_path, const std::string& content) {
  if (given_path.empty()) throw UsageError("cannot write a file with an empty path");
  const std::string path = regular_file_to_write(given_path, "the output file");
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
