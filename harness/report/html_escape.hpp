#pragma once
// The one HTML-escaping function every page generator uses: text and attribute values alike.
#include <string>
#include <string_view>

namespace nb {

// Replaces & < > " ' with character references, so any string from a report is inert in HTML
// text and in double- or single-quoted attribute values.
std::string html_escape(std::string_view text);

}  // namespace nb
