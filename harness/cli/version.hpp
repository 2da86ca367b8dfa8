#pragma once
// normbench --version: the release and the commit the binary was built from.
#include <string>

namespace nb {

// "normbench 0.1.0\ncommit <sha> (built with uncommitted changes)\n".
std::string version_text();

}  // namespace nb
