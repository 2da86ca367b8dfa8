#pragma once
// A plain-text table for a terminal: columns padded to their widest cell (UTF-8 aware).
#include <string>
#include <vector>

namespace nb {

// Left-aligned columns separated by two spaces; columns listed in `right_aligned` (by index)
// are right-aligned, for numbers. A dashed line follows the header.
std::string render_text_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                              const std::vector<std::size_t>& right_aligned = {});

}  // namespace nb
