#pragma once
// normbench run --devices all|0,2: one worker process per GPU (`normbench run --device i` with the
// same options), side by side, each writing its own report under <out>/<gpu-slug>/<run-id>-gpu<i>/;
// then one fleet page for the run (<out>/fleet/<run-id>/fleet.html) and a one-line summary per GPU.
// <run-id> is --run-id when given, else the UTC start time.
// This process never creates a CUDA context: it only counts the devices. A failing GPU does not
// lose the others' reports; the exit status is the worst of the workers'.
#include <iosfwd>
#include <string>
#include <vector>

#include "harness/cli/commands.hpp"

namespace nb {

// "all" (every visible device) or a comma-separated list of indices below `visible`, each once.
std::vector<int> parse_device_list(const std::string& spec, int visible);

// The worker's command line: `argv` (normbench's own, argv[0] first) without --devices, --device
// and --run-id, then --device `device` --run-id `run_id`; argv[0] replaced by `program`.
std::vector<std::string> worker_command_line(const std::vector<std::string>& argv, const std::string& program,
                                             int device, const std::string& run_id);

// The worst of several exit statuses: 130 (interrupted) > 3 (device) > 2 (usage) > 1 (verdict) > 0;
// any other status counts as 3.
int worst_exit_status(const std::vector<int>& statuses);

// The path after the last "report: " line of a worker's output, or "".
std::string report_path_in_output(const std::string& output);

int devices_run_command(const RunCommand& command, std::ostream& out);

}  // namespace nb
