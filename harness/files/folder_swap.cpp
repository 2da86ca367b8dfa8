#include "harness/files/folder_swap.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "harness/errors.hpp"
#include "harness/files/file_kind.hpp"

namespace nb {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& folder, const std::string& step, int error) {
  throw UsageError("cannot write the folder " + folder.string() + ": " + step + ": " + std::strerror(error));
}

// A fresh empty folder .<name>.<tag>.XXXXXX beside `folder`.
fs::path fresh_folder_beside(const fs::path& folder, const std::string& tag) {
  std::string pattern = (folder.parent_path() / ("." + folder.filename().string() + "." + tag + ".XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) fail(folder, "creating a folder beside it", errno);
  return pattern;
}

void sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;  // best effort: the renames already happened
  ::fsync(fd);
  ::close(fd);
}

// Puts `staging` in the place of the existing folder `target`; the old set ends up where `staging`
// was (the exchange), or is removed (the two renames).
void exchange(const fs::path& staging, const fs::path& target) {
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) return;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) fail(target, "exchanging it with the new set", errno);
  // No atomic exchange on this file system: the old set moves aside, the new one takes its place.
  const fs::path aside = fresh_folder_beside(target, "old");
  if (::rename(target.c_str(), aside.c_str()) != 0) {
    const int error = errno;
    ::rmdir(aside.c_str());
    fail(target, "moving the old set aside", error);
  }
  if (::rename(staging.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::rename(aside.c_str(), target.c_str());  // the old set goes back
    fail(target, "moving the new set into place", error);
  }
  std::error_code ignored;
  fs::remove_all(aside, ignored);
}

// The folder `folder` names, absolute, with a link to a folder followed; refused when it exists and
// is not a folder, or is a link that leads nowhere.
fs::path resolved_target(const std::string& folder) {
  std::error_code error, not_found;  // a target that does not exist yet is fine
  fs::path target = fs::absolute(folder, error).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "dir/" names dir
  if (std::string why = why_link_leads_nowhere(target.string()); !why.empty())
    throw UsageError("cannot write the folder " + folder + ": it is " + why);
  if (!error && fs::is_symlink(fs::symlink_status(target, not_found))) target = fs::canonical(target, error);
  if (error) throw UsageError("cannot write the folder " + folder + ": " + error.message());
  const fs::file_status status = fs::status(target, not_found);
  if (fs::exists(status) && !fs::is_directory(status))
    throw UsageError("cannot write the folder " + folder + ": it exists and is not a folder");
  return target;
}

}  // namespace

void replace_folder(const std::string& folder, const std::function<void(const std::string& staging)>& fill) {
  const fs::path target = resolved_target(folder);
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  if (error) throw UsageError("cannot create the folder " + target.parent_path().string() + ": " + error.message());
  const fs::path staging = fresh_folder_beside(target, "tmp");
  struct RemoveStaging {  // the half-written new set after a failure, or the old set after success
    const fs::path& path;
    ~RemoveStaging() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } remove_staging{staging};
  fill(staging.string());
  sync_folder(staging);
  if (!fs::exists(fs::symlink_status(target, error))) {  // not found: error set, and fine
    if (::rename(staging.c_str(), target.c_str()) != 0) fail(target, "moving the new set into place", errno);
  } else {
    exchange(staging, target);
  }
  sync_folder(target.parent_path());
}

}  // namespace nb
