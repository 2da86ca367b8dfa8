#pragma once
// The problems and the cases that took longest, printed after the run's phase breakdown: where a
// slow run's seconds went, without opening the report (whose "Where the time went" has them all).
#include <cstddef>
#include <iosfwd>

namespace nb {

struct RunRecord;

// The `count` slowest problems (their own phases and their cases' seconds together) and the
// `count` slowest cases; nothing when no phase was timed.
void print_slowest(const RunRecord& record, std::ostream& out, std::size_t count = 5);

}  // namespace nb
