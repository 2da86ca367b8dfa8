#include "harness/cli/slowest.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "harness/run/runner.hpp"

namespace nb {
namespace {

struct Row {
  double seconds;
  std::string text;
};

// The `count` rows with the most seconds, longest first, under `title`.
void print_rows(std::vector<Row> rows, const char* title, std::size_t count, std::ostream& out) {
  if (rows.empty()) return;
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.seconds > b.seconds; });
  out << title << "\n";
  char line[96];
  for (std::size_t i = 0; i < std::min(count, rows.size()); ++i) {
    std::snprintf(line, sizeof line, "    %8.2f s  ", rows[i].seconds);
    out << line << rows[i].text << "\n";
  }
}

}  // namespace

void print_slowest(const RunRecord& r, std::ostream& out, std::size_t count) {
  std::map<std::string, double> cases_of_problem;
  std::vector<Row> cases;
  for (std::size_t i = 0; i < r.cases.size() && i < r.outcomes.size(); ++i) {
    const CasePhases& p = r.outcomes[i].phases;
    if (p.total() <= 0) continue;
    const std::string problem = r.cases[i].problem.id();
    cases_of_problem[problem] += p.total();
    char text[160];
    std::snprintf(text, sizeof text, ": validation %.2f (%zu distributions), timing %.2f, bracket %.2f",
                  p.validation_total(), p.validation_s.size(), p.timing_s, p.bracket_s);
    cases.push_back({p.total(), problem + " " + r.cases[i].variant->name() + text});
  }
  std::vector<Row> problems;
  for (const ProblemPhases& p : r.problem_phases) {
    const double variants = cases_of_problem[p.problem];
    if (p.total() + variants <= 0) continue;
    char text[256];
    std::snprintf(text, sizeof text,
                  ": its cases %.2f; prepare %.2f, draw %.2f, reference %.2f, audit %.2f (wait %.2f), uploads %.2f, "
                  "timing buffers %.2f, GEMM ceiling %.2f",
                  variants, p.prepare_s, p.draw_s, p.reference_s, p.audit_s(), p.audit_wait_s, p.upload_s,
                  p.timing_inputs_s, p.ceiling_s);
    problems.push_back({p.total() + variants, p.problem + text});
  }
  print_rows(std::move(problems), "  slowest problems (their own phases and their cases' seconds):", count, out);
  print_rows(std::move(cases), "  slowest cases (validated launches, timed samples, bracket):", count, out);
}

}  // namespace nb
