#pragma once
// What a candidate's worker process (normbench eval-worker) tells its parent, and what the parent
// believes of it. The worker writes one JSON object per line to a pipe its parent opened
// (kChildChannelFd): {"phase": "samples_begin"} and {"phase": "samples_end"} around each timed
// loop, as they happen; {"outcome": ...} once; {"hidden_problem": id} and {"hidden_shape": ...}
// for the hidden odd sibling; {"done": true} last; or {"usage_error": ...} / {"fatal": ...}. Then
// it leaves /dev/null in the pipe's place, so that a candidate writing there later reaches nobody.
//
// The candidate runs in the worker's process and could write into the pipe too. The parent
// refuses a channel that carries more than one outcome or a line that is not a message (the case
// becomes an error, flag forged_result), and checks the outcome's timed samples against its own
// clock: they cannot add up to more than the time between the two phase lines it saw arrive, and
// an outcome with samples needs both lines; a timed run's outcome needs samples, and a worker
// that exits cleanly needs its closing line (flag forged_result). What one process cannot stop is
// in docs/candidates.md.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/candidate/child_process.hpp"
#include "harness/run/case_outcome.hpp"

namespace nb {

// The worker's side.
class ParentChannel {
 public:
  explicit ParentChannel(int fd) : fd_(fd) {}
  void send(const nlohmann::json& message) const;  // one line; a closed channel drops it
  // No more messages: /dev/null takes the descriptor's place.
  void close();

 private:
  int fd_;
};

// The parent's side: the case outcome from the worker's lines and how it ended. `log_tail` is the
// end of its log (shown when it died without a word); `timed`: the run times its cases, so an
// outcome that ran has timed samples.
CaseOutcome outcome_from_worker(const ChildEnd& end, const std::vector<ChannelLine>& lines, double timeout_s,
                                const std::string& log_tail, bool timed);

// Whether a worker's timed samples fit in the time its parent saw between its phase lines:
// "" when they do, else why not (lines missing, out of order, or samples longer than the loop).
std::string check_samples_against_parent_clock(const TimingResult& timing, const std::vector<ChannelLine>& lines);

}  // namespace nb
