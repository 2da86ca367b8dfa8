#pragma once
// What a path is, said in words, for the files normbench reads and writes: a FIFO, a device, a
// folder or a symbolic link that leads nowhere is named as such, never called missing, never
// opened (a FIFO blocks the reader forever) and never replaced by a regular file.
#include <string>

namespace nb {

// Why `path` cannot be read as a regular file ("" when it can), checked before it is opened:
// "no such <kind> file", "a FIFO, not a regular file", "a symbolic link loop", "permission denied".
std::string why_not_a_readable_file(const std::string& path, const std::string& kind);

// The file a writer replaces when it writes `path`: `path` itself when it does not exist or is a
// regular file; the regular file a symbolic link leads to (the link stays, its target is
// replaced). Throws nb::UsageError "<what> <path> is a FIFO, not a regular file: ..." for
// anything else (a device, a FIFO, a socket, a folder, a dangling link or a link loop).
std::string regular_file_to_write(const std::string& path, const std::string& what);

// Why the symbolic link `path` cannot be followed ("" when it is not a link or leads somewhere):
// "a symbolic link to <target>, which does not exist" or "a symbolic link loop".
std::string why_link_leads_nowhere(const std::string& path);

}  // namespace nb
