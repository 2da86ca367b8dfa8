#pragma once
// Writing a file so that a reader sees the old content or the new, never half of it.
#include <string>

namespace nb {

// Writes `content` to a temporary file in the same folder, fsyncs it, then renames it over
// `path` (and fsyncs the folder). Throws nb::UsageError naming the path and the reason
// (missing folder, no permission, disk full); the temporary file is removed on failure.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace nb
