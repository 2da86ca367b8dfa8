#include "harness/problem.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "harness/errors.hpp"

namespace nb {

double Params::real(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw UsageError("missing parameter '" + name + "'");
  return it->second;
}

std::int64_t Params::dim(const std::string& name) const {
  return static_cast<std::int64_t>(std::llround(real(name)));
}

const std::string* Params::text(const std::string& name) const {
  auto it = texts_.find(name);
  return it == texts_.end() ? nullptr : &it->second;
}

namespace {

// How many decimal digits `text` holds from `at` on. The checks below scan once, without
// std::regex, whose matcher recursed once per character: 30,000 digits overflowed the stack.
std::size_t digits_from(const std::string& text, std::size_t at) {
  std::size_t n = 0;
  while (at + n < text.size() && text[at + n] >= '0' && text[at + n] <= '9') ++n;
  return n;
}

// A decimal number as people write one: an optional sign, digits with an optional fraction, an
// optional exponent ("4", "-4", "0.5", ".5", "1e-5"); not "0x10", "inf", "nan" or "4abc".
bool is_decimal_number(const std::string& text) {
  std::size_t at = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  const std::size_t whole = digits_from(text, at);
  at += whole;
  std::size_t fraction = 0;
  if (at < text.size() && text[at] == '.') {
    fraction = digits_from(text, ++at);
    at += fraction;
  }
  if (whole == 0 && fraction == 0) return false;
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    if (++at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    const std::size_t exponent = digits_from(text, at);
    if (exponent == 0) return false;
    at += exponent;
  }
  return at == text.size();
}

}  // namespace

bool is_plain_integer(const std::string& text) {
  const std::size_t start = !text.empty() && text[0] == '-' ? 1 : 0;
  return text.size() > start && digits_from(text, start) == text.size() - start;
}

Params Params::parse(const std::string& text) {
  Params out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(pos, end - pos);
    std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw UsageError("bad parameter '" + item + "': expected name=value (e.g. n=16,c=64)");
    std::string name = item.substr(0, eq);
    std::string value = item.substr(eq + 1);
    char* stop = nullptr;
    double v = std::strtod(value.c_str(), &stop);
    if (!is_decimal_number(value) || stop == value.c_str() || *stop != '\0' || !std::isfinite(v))
      throw UsageError("bad value '" + value + "' for parameter '" + name + "': expected a finite decimal number");
    if (out.has(name)) throw UsageError("parameter '" + name + "' is given twice");
    out.set(name, v);
    out.texts_[name] = value;
    pos = end + 1;
  }
  return out;
}

std::string real_text(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", value);
  if (std::strtod(buf, nullptr) == value) return buf;
  const auto [end, error] = std::to_chars(buf, buf + sizeof buf, value);
  return error == std::errc() ? std::string(buf, end) : std::string(buf);
}

std::string format_param(const ParamDecl& decl, double value) {
  if (!decl.integer) return real_text(value);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(std::llround(value)));
  return buf;
}

}  // namespace nb
