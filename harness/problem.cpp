#include "harness/problem.hpp"

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
    if (stop == value.c_str() || *stop != '\0' || !std::isfinite(v))
      throw UsageError("bad value '" + value + "' for parameter '" + name + "'");
    if (out.has(name)) throw UsageError("parameter '" + name + "' is given twice");
    out.set(name, v);
    pos = end + 1;
  }
  return out;
}

std::string format_param(const ParamDecl& decl, double value) {
  char buf[64];
  if (decl.integer)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(std::llround(value)));
  else
    std::snprintf(buf, sizeof buf, "%g", value);
  return buf;
}

}  // namespace nb
