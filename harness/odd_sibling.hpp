#pragma once
// An odd sibling of a problem: the same op and dtype, shrunk so that validating it costs little,
// with every integer parameter moved to a nearby odd value. normbench eval validates one beside
// each problem it is asked for, unannounced, so that a candidate written for the listed shapes
// only (a tile that must divide the row, a length fixed at compile time) is found out.
#include <cstdint>
#include <optional>

#include "harness/op_spec.hpp"

namespace nb {

// The sibling of `problem`: first its largest integer parameter is halved, again and again,
// until all its tensors hold at most `max_elements` elements; then each integer parameter, in
// declaration order, takes the first value the op accepts (OpSpec::make_problem, so the op's own
// range and relational checks decide) among the odd primes below it, nearest first, then the odd
// values above it. A parameter of 1 keeps it, as does one no such value suits (a channel count that
// the group count must divide). nullopt when no parameter could move (every one is 1, say) or the
// problem cannot shrink.
std::optional<Problem> odd_sibling(const OpSpec& op, const Problem& problem, std::int64_t max_elements = 1 << 20);

}  // namespace nb
