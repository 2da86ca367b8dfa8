#pragma once
// Variants with planted faults, built around a correct variant of a real op. Each one breaks
// exactly one rule that validation or timing must catch.
#include <memory>
#include <string>

#include "harness/op_spec.hpp"

namespace nb::test {

enum class Fault {
  zero_output,       // writes zeros everywhere
  one_unwritten,     // correct, but the last output element is left untouched
  one_nan,           // correct, but one output element is NaN
  shifted,           // output shifted by one element
  transposed,        // a (rows, cols) output written transposed
  writes_input,      // correct, but it modifies its input
  other_stream,      // correct work, but on a stream of its own that the timed stream never waits for
  skips_work,        // launches nothing at all
  illegal_address,   // writes through a wild pointer: the CUDA context is lost for the whole process
  oom_in_prepare,    // prepare() asks cudaMalloc for a petabyte: out of memory, the context survives
};

std::string fault_name(Fault f);

// `correct` must be a variant of `op` that passes; `rows` x `cols` is the output's matrix shape
// (used by the transposed fault).
std::unique_ptr<Variant> make_planted_variant(Fault fault, const OpSpec& op, Variant& correct, std::int64_t rows,
                                              std::int64_t cols);

}  // namespace nb::test
