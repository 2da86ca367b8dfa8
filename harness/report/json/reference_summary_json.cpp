#include "harness/report/json/reference_summary_json.hpp"

#include "harness/report/json_nulls.hpp"

namespace nb {

using json = nlohmann::ordered_json;

json reference_summary_json(const ReferenceSummary& s) {
  json families = json::array();
  for (const FamilyAudit& f : s.families)
    families.push_back({{"unit", f.unit}, {"slices", f.slices}, {"of", f.of}, {"checked", f.checked}});
  const bool device = s.computed_on == "device";
  return {{"computed_on", s.computed_on},
          {"why_host", text_or_null(s.why_host)},
          {"audit",
           device ? json{{"families", families},
                         {"full", s.full()},
                         {"trials", s.audited_trials},
                         {"drawn_elements_checked", s.drawn_elements_checked},
                         {"worst_normwise", s.worst_normwise},
                         {"worst_elementwise", s.worst_elementwise},
                         {"worst_share_of_bound", s.worst_share_of_bound}}
                  : json(nullptr)}};
}

ReferenceSummary reference_summary_from(const nlohmann::json& j) {
  ReferenceSummary s;
  s.computed_on = j.at("computed_on").get<std::string>();
  if (!j.at("why_host").is_null()) s.why_host = j.at("why_host").get<std::string>();
  const nlohmann::json& audit = j.at("audit");
  if (audit.is_null()) return s;
  for (const auto& f : audit.at("families"))
    s.families.push_back({f.at("unit").get<std::string>(), f.at("slices").get<std::int64_t>(), f.at("of").get<std::int64_t>(),
                          f.at("checked").get<std::vector<std::string>>()});
  s.audited_trials = audit.at("trials").get<int>();
  s.drawn_elements_checked = audit.at("drawn_elements_checked").get<std::int64_t>();
  s.worst_normwise = audit.at("worst_normwise").get<double>();
  s.worst_elementwise = audit.at("worst_elementwise").get<double>();
  s.worst_share_of_bound = audit.at("worst_share_of_bound").get<double>();
  return s;
}

}  // namespace nb
