#pragma once
// Writing a file so that a reader sees the old content or the new, never half of it.
#include <string>

namespace nb {

// Writes `content` to a temporary file in the same folder, fsyncs it, then renames it over
// `path` (and fsyncs the folder). Throws nb::UsageError naming the path and the reason
// (missing folder, no permission, disk full); the temporary file is removed on failure. A `path`
// that exists and is not a regular file (a device, a FIFO, a folder, a dangling link) is refused;
// a symbolic link to a regular file is written through: its target is replaced, the link stays
// (regular_file_to_write).
void write_file_atomically(const std::string& path, const std::string& content);

// Creates `folder` (and its parents) and writes, syncs and removes a small probe file in it, so
// that an unwritable output is found before the work whose results would go there; the folders it
// created are removed again (the writer creates them when it writes), and nothing else: a
// symbolic link on the way that leads nowhere is named as the reason, never removed. Throws
// nb::UsageError "cannot write to <what> <folder>: <reason>".
void check_folder_writable(const std::string& folder, const std::string& what);

}  // namespace nb
