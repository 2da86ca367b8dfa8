#include "harness/launches/kernel_names.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace nb {

std::string demangled_kernel_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && text ? std::string(text.get()) : mangled;
}

namespace {

// The index of the bracket that opens the one `close` ends at `end` (scanning back over nested
// brackets of both kinds), or npos when unbalanced.
std::size_t opening_bracket(const std::string& s, std::size_t end) {
  int depth = 0;
  for (std::size_t i = end + 1; i-- > 0;) {
    const char c = s[i];
    if (c == ')' || c == '>') ++depth;
    if (c == '(' || c == '<') --depth;
    if (depth == 0) return i;
  }
  return std::string::npos;
}

// `s` without its trailing bracketed group closed by `close` ("f<int>" -> "f"), when it has one.
std::string without_trailing(const std::string& s, char close) {
  if (s.empty() || s.back() != close) return s;
  const std::size_t open = opening_bracket(s, s.size() - 1);
  return open == std::string::npos ? s : s.substr(0, open);
}

}  // namespace

std::string short_kernel_name(const std::string& demangled) {
  const std::string name = without_trailing(without_trailing(demangled, ')'), '>');
  // Back to the first "::" or blank outside brackets: what precedes it is a scope or the return type.
  int depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    const char c = name[i];
    if (c == ')' || c == '>') ++depth;
    if (c == '(' || c == '<') --depth;
    if (depth == 0 && (c == ' ' || (c == ':' && i > 0 && name[i - 1] == ':'))) return name.substr(i + 1);
  }
  return name;
}

}  // namespace nb
