#pragma once
// SHA-256 of a file's bytes, as lower-case hex: the identity of a candidate's source in reports.
#include <string>

namespace nb {

std::string sha256_hex(const std::string& bytes);
// Throws UsageError when the file cannot be read.
std::string sha256_of_file(const std::string& path);

}  // namespace nb
