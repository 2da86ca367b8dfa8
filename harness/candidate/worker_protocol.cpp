#include "harness/candidate/worker_protocol.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <numeric>
#include <optional>

#include "harness/candidate/outcome_json.hpp"
#include "harness/errors.hpp"

namespace nb {

void ParentChannel::send(const nlohmann::json& message) const {
  const std::string line = message.dump() + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nobody to tell
    done += static_cast<std::size_t>(n);
  }
}

void ParentChannel::close() {
  const int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd >= 0) {
    dup2(null_fd, fd_);
    ::close(null_fd);
  }
}

namespace {

// The worker's lines sorted by kind. A line that is not one JSON object with one known key is
// `foreign`: the worker never writes one.
struct Messages {
  std::vector<nlohmann::json> outcomes, hidden_shapes;
  std::string hidden_problem, usage_error, fatal;
  bool done = false;
  int foreign = 0;
};

Messages sort_lines(const std::vector<ChannelLine>& lines) {
  Messages m;
  for (const ChannelLine& line : lines) {
    const nlohmann::json j = nlohmann::json::parse(line.text, nullptr, false);
    if (!j.is_object() || j.size() != 1) {
      ++m.foreign;
      continue;
    }
    const std::string key = j.begin().key();
    const nlohmann::json& value = j.begin().value();
    if (key == "outcome") m.outcomes.push_back(value);
    else if (key == "hidden_shape") m.hidden_shapes.push_back(value);
    else if (key == "hidden_problem" && value.is_string()) m.hidden_problem = value;
    else if (key == "usage_error" && value.is_string()) m.usage_error = value;
    else if (key == "fatal" && value.is_string()) m.fatal = value;
    else if (key == "done") m.done = true;
    else if (key != "phase" && key != "probe") ++m.foreign;
  }
  return m;
}

CaseOutcome forged(const std::string& why) {
  CaseOutcome o;
  o.fail("the worker's result cannot be trusted: " + why);
  o.containment = "forged";
  o.add_flag(kFlagForgedResult, why);
  return o;
}

std::string how_it_ended(const ChildEnd& end, double timeout_s) {
  if (end.how == ChildEnd::How::timed_out) {
    char text[64];
    std::snprintf(text, sizeof text, "timed out after %g s", timeout_s);
    return text;
  }
  if (end.how == ChildEnd::How::signaled) return "crashed: " + describe_signal(end.code);
  return "crashed: the worker exited with status " + std::to_string(end.code);
}

// A worker that died (or timed out) without an outcome.
CaseOutcome without_outcome(const ChildEnd& end, const Messages& m, double timeout_s, const std::string& log_tail) {
  CaseOutcome o;
  o.containment = end.how == ChildEnd::How::timed_out ? "timed_out" : "crashed";
  if (end.how == ChildEnd::How::exited && !m.usage_error.empty()) {
    o.fail(m.usage_error);
    o.containment = "completed";
  } else if (end.how == ChildEnd::How::exited && !m.fatal.empty()) {
    o.fail("crashed: " + m.fatal);
  } else if (end.how == ChildEnd::How::exited) {
    o.fail(how_it_ended(end, timeout_s) + " and no result" + (log_tail.empty() ? "" : "\n" + log_tail));
  } else {
    o.fail(how_it_ended(end, timeout_s));
  }
  return o;
}

// The hidden sibling's verdict: the one the worker sent, or how the worker ended during it.
std::optional<HiddenShapeVerdict> hidden_verdict(const ChildEnd& end, const Messages& m, double timeout_s) {
  if (!m.hidden_shapes.empty()) return hidden_shape_from_json(m.hidden_shapes.front());
  if (m.hidden_problem.empty()) return std::nullopt;
  const bool finished = end.how == ChildEnd::How::exited && end.code == 0 && m.done;
  if (finished) return std::nullopt;
  const std::string how = how_it_ended(end, timeout_s);
  return HiddenShapeVerdict{m.hidden_problem, end.how == ChildEnd::How::timed_out ? "timed_out" : "crashed",
                            how + (m.fatal.empty() ? "" : ": " + m.fatal)};
}

double phase_at(const std::vector<ChannelLine>& lines, const std::string& phase, int* count) {
  double at = -1;
  *count = 0;
  for (const ChannelLine& line : lines) {
    const nlohmann::json j = nlohmann::json::parse(line.text, nullptr, false);
    if (j.is_object() && j.contains("phase") && j["phase"] == phase) at = line.at_s, ++*count;
  }
  return at;
}

}  // namespace

std::string check_samples_against_parent_clock(const TimingResult& timing, const std::vector<ChannelLine>& lines) {
  if (timing.samples_ms.empty()) return "";
  int begins = 0, ends = 0;
  const double begin = phase_at(lines, "samples_begin", &begins), end = phase_at(lines, "samples_end", &ends);
  if (begins != 1 || ends != 1 || end < begin)
    return "its outcome has " + std::to_string(timing.samples_ms.size()) + " timed samples, but the parent saw " +
           std::to_string(begins) + " start and " + std::to_string(ends) + " end of a timed loop";
  const double reported_ms = std::accumulate(timing.samples_ms.begin(), timing.samples_ms.end(), 0.0);
  const double seen_ms = (end - begin) * 1e3;
  // The lines arrive within a poll of the pipe; 2% and 5 ms cover that and the clocks' drift.
  if (reported_ms > 1.02 * seen_ms + 5.0) {
    char text[160];
    std::snprintf(text, sizeof text, "its timed samples add up to %.3f ms, but its timed loop took %.3f ms by the "
                  "parent's clock", reported_ms, seen_ms);
    return text;
  }
  return "";
}

namespace {

// What a complete worker sends that this outcome lacks: "" when nothing.
std::string missing_parts(const ChildEnd& end, const Messages& m, const CaseOutcome& o, bool timed) {
  if (timed && o.status == CaseStatus::ran && (!o.timing || o.timing->samples_ms.empty()))
    return "its outcome ran but has no timed samples, in a run that times every case";
  if (end.how == ChildEnd::How::exited && end.code == 0 && !m.done)
    return "it exited without the line that closes its report";
  return "";
}

}  // namespace

CaseOutcome outcome_from_worker(const ChildEnd& end, const std::vector<ChannelLine>& lines, double timeout_s,
                                const std::string& log_tail, bool timed) {
  const Messages m = sort_lines(lines);
  if (m.outcomes.size() > 1 || m.hidden_shapes.size() > 1)
    return forged("its channel carried " + std::to_string(m.outcomes.size()) + " outcomes and " +
                  std::to_string(m.hidden_shapes.size()) + " hidden-shape verdicts (the worker sends one of each)");
  if (m.foreign > 0)
    return forged("its channel carried " + std::to_string(m.foreign) + " line(s) the worker never writes");
  if (m.outcomes.empty()) return without_outcome(end, m, timeout_s, log_tail);
  CaseOutcome o;
  try {
    o = outcome_from_json(m.outcomes.front());
    if (auto hidden = hidden_verdict(end, m, timeout_s)) o.validation.add_hidden_shape(*hidden);
  } catch (const UsageError& e) {
    return forged(std::string("its outcome does not read: ") + e.what());
  }
  std::string mismatch = o.timing ? check_samples_against_parent_clock(*o.timing, lines) : "";
  if (mismatch.empty()) mismatch = missing_parts(end, m, o, timed);
  if (!mismatch.empty()) o.add_flag(kFlagForgedResult, mismatch);
  if (o.containment.empty()) o.containment = "completed";
  return o;
}

}  // namespace nb
