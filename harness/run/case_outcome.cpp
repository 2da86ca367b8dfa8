#include "harness/run/case_outcome.hpp"

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

}  // namespace nb
