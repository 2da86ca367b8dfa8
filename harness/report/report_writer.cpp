#include "harness/report/report_writer.hpp"

#include <filesystem>

#include "harness/errors.hpp"
#include "harness/files/atomic_write.hpp"
#include "harness/report/page/html_report.hpp"
#include "harness/device/provenance.hpp"

namespace nb {

std::string new_run_id(const std::string& commit) { return utc_now_compact() + "-" + commit.substr(0, 7); }

std::string write_run_report(const nlohmann::ordered_json& report, const std::string& out_root,
                             const std::string& run_id) {
  namespace fs = std::filesystem;
  const std::string slug = report.at("provenance").at("gpu").at("slug").get<std::string>();
  std::string commit = report.at("provenance").value("git_commit", "unknown").substr(0, 7);
  fs::path dir = fs::path(out_root) / slug / (run_id.empty() ? new_run_id(commit) : run_id);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UsageError("cannot create report folder " + dir.string() + ": " + ec.message());
  const std::string json_path = (dir / "report.json").string();
  // One line: the kb suite's report is 5.2 MB so and 8.5 MB indented (`jq .` shows it indented).
  const std::string text = report.dump();
  write_file_atomically(json_path, text + "\n");
  write_file_atomically((dir / "report.html").string(), render_report_html(nlohmann::json::parse(text)));
  return json_path;
}

}  // namespace nb
