#pragma once
// Writing a set of files so that a reader sees the old complete set or the new one, never a mix
// of the two (after a full disk or a kill) and never stale files of an earlier set beside them.
#include <functional>
#include <string>

namespace nb {

// Calls `fill(staging)` to write the new set into a fresh folder beside `folder` (a hidden
// .<name>.tmp.XXXXXX in the same parent), then puts it in `folder`'s place: one atomic exchange
// where the file system has it (renameat2 RENAME_EXCHANGE), else two renames with no moment
// where a mixed set exists; the old set is removed after. A `folder` that is a symbolic link to a
// folder is followed (the link stays). On failure the staging folder is removed and the old set
// stays as it was. Throws nb::UsageError naming `folder` and the reason.
void replace_folder(const std::string& folder, const std::function<void(const std::string& staging)>& fill);

}  // namespace nb
