# normbench_host: the harness's pure host C++, the code that reads what users hand it (problem ids
# and --params, .npy files, report.json for html, compare and fleet). No CUDA, so the fuzz build
# (clang, libFuzzer, sanitizers: NB_FUZZ) compiles it alone; normbench_harness links it.
# zlib (ZLIB::ZLIB, found by the top CMakeLists.txt) inflates gzip-compressed reports, report.json.gz.
set(NORMBENCH_HOST_SOURCES
  dtype.cpp problem.cpp problem_rules.cpp tensors.cpp files/file_kind.cpp files/atomic_write.cpp
  files/gzip_inflate.cpp
  npy/npy_file.cpp
  report/html_escape.cpp report/html_page.cpp report/html_table.cpp report/json_fields.cpp
  report/report_commands.cpp report/report_compute.cpp report/report_format.cpp report/report_loading.cpp
  report/report_provenance.cpp report/report_rows.cpp report/result_classes.cpp report/svg_chart.cpp
  report/text_table.cpp
  report/page/html_report.cpp report/page/report_charts.cpp report/page/report_phases.cpp
  report/page/report_kernels.cpp report/page/report_plans.cpp report/page/report_results_table.cpp
  report/compare/compare_html.cpp report/compare/compare_output.cpp report/compare/compare_runs.cpp
  report/fleet/fleet.cpp)
list(TRANSFORM NORMBENCH_HOST_SOURCES PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
add_library(normbench_host STATIC ${NORMBENCH_HOST_SOURCES})
target_include_directories(normbench_host PUBLIC ${PROJECT_SOURCE_DIR})
target_compile_options(normbench_host PRIVATE ${NORMBENCH_WARNINGS})
target_link_libraries(normbench_host PUBLIC nlohmann_json::nlohmann_json PRIVATE ZLIB::ZLIB)
set_target_properties(normbench_host PROPERTIES POSITION_INDEPENDENT_CODE ON)
