#pragma once
// The names of a case's flags, shared by the run (which raises them) and the report readers.
// Every flag distrusts the case's time except the informational ones.
#include <string>

namespace nb {

// Beats the measured copy ceiling, or (compute-bound problems) the GPU's theoretical compute peak
// at the problem's precision, by more than noise.
inline constexpr const char* kFlagFasterThanLight = "faster_than_light";
inline constexpr const char* kFlagEscapesStream = "escapes_stream";
inline constexpr const char* kFlagThrottled = "throttled";
inline constexpr const char* kFlagFitsInL2 = "fits_in_l2";
// The rule-break flags a run raises itself (allocates_in_launch, timed_output_mismatch, ...) are
// named in harness/run/case_outcome.hpp.

// fits_in_l2 and throttled inform; any other flag (faster than light, escaping the stream, a rule
// the case broke) means the time does not measure the work.
inline bool flag_is_informational(const std::string& flag) { return flag == kFlagFitsInL2 || flag == kFlagThrottled; }

}  // namespace nb
