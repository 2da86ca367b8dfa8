#include "harness/run/case_outcome.hpp"

#include <algorithm>

namespace nb {

const char* case_status_name(CaseStatus s) {
  switch (s) {
    case CaseStatus::ran: return "ran";
    case CaseStatus::skipped: return "skipped";
    case CaseStatus::error: return "error";
    case CaseStatus::not_run: return "not_run";
  }
  return "?";
}

void CaseOutcome::add_flag(const std::string& flag, const std::string& note) {
  if (!has_flag(flag)) flags.push_back(flag);
  flag_notes.emplace(flag, note);
}

bool CaseOutcome::has_flag(const std::string& flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

}  // namespace nb
