#pragma once
// Reading gzip-compressed files (report.json.gz): the bytes inflated with zlib, every failure a
// UsageError naming the file, and the inflated size bounded so a small file cannot fill memory.
#include <cstddef>
#include <string>
#include <string_view>

namespace nb {

// Whether `bytes` begin with gzip's magic number, 1f 8b (RFC 1952). No JSON text does: JSON
// starts with whitespace or a value, and 0x1f is neither.
bool starts_with_gzip_magic(std::string_view bytes);

// The bytes that the gzip data `compressed` holds; members that follow one another (as
// `cat a.gz b.gz` makes them) are inflated one after the other, as gunzip does. Throws
// nb::UsageError "<origin>: ..." when the data is corrupt (a bad header, a bad block, a CRC that
// does not match), ends before its last member does (a truncated file), or would inflate to more
// than `max_bytes` (a gzip bomb is stopped there, never inflated whole).
std::string inflate_gzip(std::string_view compressed, const std::string& origin, std::size_t max_bytes);

}  // namespace nb
