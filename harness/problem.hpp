#pragma once
// A problem is one op at one set of parameters and one dtype. Its id is a stable string,
// "<op>/<param-name-values>/<dtype>" (e.g. rmsnorm_nchw/n16_c64_h256_w256/fp32), and the id
// alone is enough to rebuild the problem: it is what every report row and command carries.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "harness/dtype.hpp"

namespace nb {

// One parameter of an op: a shape dim (integer) or a real (eps, momentum).
struct ParamDecl {
  std::string name;         // lower-case letters only, so ids parse back ("n", "eps")
  bool integer = true;
  double default_value = 0; // used when not given; ignored if required
  bool required = true;     // shape dims are required, eps and momentum are not
  double min_value = 1;
  double max_value = 1e12;
  std::string help;
};

// Parameter values by name. Integers are held as doubles (exact below 2^53).
class Params {
 public:
  Params() = default;
  Params(std::initializer_list<std::pair<const std::string, double>> values) : values_(values) {}

  void set(const std::string& name, double value) {
    values_[name] = value;
    texts_.erase(name);
  }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  double real(const std::string& name) const;    // throws UsageError when missing
  std::int64_t dim(const std::string& name) const;
  const std::map<std::string, double>& values() const { return values_; }
  // The text a value was given as (by parse), or nullptr for a value set in code.
  const std::string* text(const std::string& name) const;

  // "n=16,c=64,eps=1e-5" -> Params; throws UsageError on malformed text. Each value is a decimal
  // number ("16", "1e-5", "0.1"): hexadecimal, infinities and NaN are refused, quoting the text.
  static Params parse(const std::string& text);

 private:
  std::map<std::string, double> values_;
  std::map<std::string, std::string> texts_;
};

// True for a plain decimal integer: digits with an optional leading '-' ("16", "-4"); not "1e3",
// "0x10", "+4" or "16.0".
bool is_plain_integer(const std::string& text);

struct Problem {
  std::string op;      // "rmsnorm_nchw"
  std::string name;    // canonical parameter string "n16_c64_h256_w256"
  Params params;       // complete: defaults filled in
  DType dtype = DType::f32;

  std::string id() const { return op + "/" + name + "/" + dtype_name(dtype); }
  std::int64_t dim(const std::string& p) const { return params.dim(p); }
  double real(const std::string& p) const { return params.real(p); }
};

// A problem an op names for its suites ("kb", "llm", "sweep", "quick").
struct NamedProblem {
  Params params;
  std::vector<std::string> suites;
  std::string note;                       // e.g. "KernelBench L1#36, original size"
  std::vector<DType> dtypes{DType::f32};  // one problem per dtype (a GEMM problem in fp32 and tf32)
};

// A real in %g, or with as many digits as it takes to read back as the same value: 1e-05 and
// 0.125 as %g spells them, 0.1234567 whole (%g's six digits would make it 0.123457).
std::string real_text(double value);

// Formats a parameter value the way ids spell it: integers plainly, reals as real_text, so that
// the id rebuilds the same problem.
std::string format_param(const ParamDecl& decl, double value);

}  // namespace nb
