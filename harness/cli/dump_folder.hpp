#pragma once
// The folder `normbench dump` writes: the dump replaces it as a whole (replace_folder), so it must
// be new, empty or an earlier dump. Anything else in it is refused, never removed.
#include <string>

namespace nb {

// Throws nb::UsageError, before the trial is computed, for a dump folder that is a link leading
// nowhere, exists and is not a folder, holds anything but an earlier dump's files (its
// manifest.json and .npy files), or whose parent (where the new set is staged) cannot be written.
void check_dump_folder(const std::string& dir);

}  // namespace nb
