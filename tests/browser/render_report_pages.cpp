// Writes the three report pages from the committed fixtures, for the browser test:
//   render_report_pages FIXTURE_DIR OUT_DIR  ->  OUT_DIR/report.html, gemm.html (the compute-bound
//   fixture), compare.html, fleet.html
#include "harness/errors.hpp"
#include "harness/files/atomic_write.hpp"
#include "harness/report/page/html_report.hpp"
#include "harness/report/report_commands.hpp"
#include "harness/report/report_loading.hpp"

#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: render_report_pages FIXTURE_DIR OUT_DIR\n";
    return nb::kExitUsage;
  }
  const std::string data = argv[1], out = argv[2];
  try {
    nb::write_file_atomically(out + "/report.html",
                              nb::render_report_html(nb::load_report_file(data + "/report_fixture.json")));
    nb::write_file_atomically(out + "/gemm.html",
                              nb::render_report_html(nb::load_report_file(data + "/report_fixture_gemm.json")));
    std::ostringstream compare_text;
    nb::CompareOptions compare;
    compare.base_path = data + "/report_fixture.json";
    compare.new_path = data + "/report_fixture_new.json";
    compare.html_out = out + "/compare.html";
    compare.out = &compare_text;
    nb::compare_command(compare);
    nb::fleet_command({data + "/report_fixture.json", data + "/report_fixture_other_gpu.json"}, out + "/fleet.html");
  } catch (const nb::UsageError& e) {
    std::cerr << "render_report_pages: " << e.what() << "\n";
    return nb::kExitUsage;
  }
  return nb::kExitOk;
}
