#pragma once
// The page frame every normbench HTML output shares: one self-contained document with inline
// CSS and an inline script (sorting, filtering, #hash views, an error trap), nothing fetched.
#include <string>

namespace nb {

// A complete HTML document. `body_html` is already escaped. The inline script sets
// <body data-ready="ok"> once it ran without an exception (else "error", with the messages in
// <pre id="script-errors">) and <body data-shown-rows=N> after each filter.
std::string render_html_page(const std::string& title, const std::string& body_html);

}  // namespace nb
