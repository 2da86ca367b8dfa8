#include "harness/cli/devices_run.hpp"

#include <cuda_runtime.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <thread>

#include "harness/candidate/child_process.hpp"
#include "harness/errors.hpp"
#include "harness/device/gpu_info.hpp"
#include "harness/files/atomic_write.hpp"
#include "harness/report/fleet/fleet.hpp"
#include "harness/report/json_fields.hpp"
#include "harness/device/provenance.hpp"
#include "harness/report/report_loading.hpp"
#include "harness/run/interrupt.hpp"

namespace nb {

std::vector<int> parse_device_list(const std::string& spec, int visible) {
  std::vector<int> devices;
  if (spec == "all") {
    if (visible <= 0) throw DeviceError("--devices all: no CUDA device is visible");
    for (int i = 0; i < visible; ++i) devices.push_back(i);
    return devices;
  }
  std::stringstream items(spec);
  std::string item;
  while (std::getline(items, item, ',')) {
    const bool digits = !item.empty() && item.size() <= 4 && item.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) throw UsageError("--devices: '" + item + "' is not a device index (expected all or e.g. 0,2)");
    const int d = std::stoi(item);
    if (std::find(devices.begin(), devices.end(), d) != devices.end())
      throw UsageError("--devices: device " + item + " is listed twice");
    devices.push_back(d);
  }
  if (devices.empty() || spec.back() == ',') throw UsageError("--devices: '" + spec + "' (expected all or e.g. 0,2)");
  if (visible <= 0) throw DeviceError("--devices " + spec + ": no CUDA device is visible");
  for (int d : devices)
    if (d >= visible)
      throw UsageError("--devices: device " + std::to_string(d) + " does not exist (" + std::to_string(visible) +
                       " visible)");
  return devices;
}

std::vector<std::string> worker_command_line(const std::vector<std::string>& argv, const std::string& program,
                                             int device, const std::string& run_id) {
  std::vector<std::string> out = {program};
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    bool dropped = false;
    for (const char* flag : {"--devices", "--device", "--run-id"}) {
      if (a == flag) {
        ++i;  // and its value
        dropped = true;
      } else if (a.rfind(std::string(flag) + "=", 0) == 0) {
        dropped = true;
      }
      if (dropped) break;
    }
    if (!dropped) out.push_back(a);
  }
  out.insert(out.end(), {"--device", std::to_string(device), "--run-id", run_id});
  return out;
}

int worst_exit_status(const std::vector<int>& statuses) {
  const auto rank = [](int s) {
    switch (s) {
      case kExitOk: return 0;
      case kExitVerdictFailed: return 1;
      case kExitUsage: return 2;
      case kExitInterrupted: return 4;
      default: return 3;
    }
  };
  int worst = kExitOk;
  for (int s : statuses)
    if (rank(s) > rank(worst)) worst = rank(s) == 3 ? kExitDevice : s;
  return worst;
}

std::string report_path_in_output(const std::string& output) {
  std::string path, line;
  std::stringstream lines(output);
  while (std::getline(lines, line))
    if (line.rfind("report: ", 0) == 0) path = line.substr(8);
  return path;
}

namespace {

namespace fs = std::filesystem;

struct GpuWorker {
  int device = 0;
  std::string log;
  StartedChild child;
  ChildEnd end;
  int status = kExitDevice;
  std::string report;
};

int visible_devices() {
  int count = 0;  // counts devices without creating a context on any of them
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::string self_program(const std::string& fallback) {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  return error ? fallback : exe.string();
}

// Waits for every worker; the first interrupt is forwarded to each (they write partial reports).
void wait_for(std::vector<GpuWorker>& workers) {
  std::vector<bool> running(workers.size(), true);
  bool forwarded = false;
  while (std::find(running.begin(), running.end(), true) != running.end()) {
    if (interrupt_requested() && !forwarded) {
      for (std::size_t k = 0; k < workers.size(); ++k)
        if (running[k]) signal_child(workers[k].child, interrupt_signal());
      forwarded = true;
    }
    for (std::size_t k = 0; k < workers.size(); ++k) {
      if (!running[k]) continue;
      if (auto end = poll_child(workers[k].child)) {
        workers[k].end = *end;
        running[k] = false;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// "gpu 0 NVIDIA H200: exit 0, 20 cases: 20 passed, 0 incorrect, 0 errors, 0 skipped, 0 not run; REPORT"
std::string summary_line(const GpuWorker& w) {
  std::string line = "gpu " + std::to_string(w.device);
  if (w.end.how == ChildEnd::How::signaled) line += ": crashed: " + describe_signal(w.end.code);
  if (w.report.empty()) return line + ": exit " + std::to_string(w.status) + ", no report; log: " + w.log;
  try {
    const nlohmann::json r = load_report_file(w.report);
    line += " " + text_of(r, "provenance.gpu.name") + ": exit " + std::to_string(w.status) + ", " +
            text_of(r, "summary.cases") + " cases: " + text_of(r, "summary.passed") + " passed, " +
            text_of(r, "summary.incorrect") + " incorrect, " + text_of(r, "summary.errors") + " errors, " +
            text_of(r, "summary.skipped") + " skipped, " + text_of(r, "summary.not_run") + " not run";
    if (r.value("interrupted", nlohmann::json(false)) == true) line += " (interrupted)";
    if (!text_of(r, "aborted").empty()) line += " (aborted: " + text_of(r, "aborted") + ")";
  } catch (const UsageError& e) {
    line += ": exit " + std::to_string(w.status) + ", unreadable report: " + e.what();
  }
  return line + "; " + w.report;
}

}  // namespace

int devices_run_command(const RunCommand& c, std::ostream& out) {
  parse_device_list(c.devices, 10000);  // a malformed list is a usage error first,
  const std::string run_id = c.run_id.empty() ? utc_now_compact() : c.run_id;  // each GPU's: <run_id>-gpu<i>
  const fs::path folder = fs::path(c.out_root) / "fleet" / run_id;
  check_folder_writable(folder.string(), "the --out folder");  // then an unwritable --out
  const int visible = visible_devices();
  if (visible == 0) throw DeviceError("--devices " + c.devices + ": no usable CUDA device: " + why_no_cuda_device());
  const std::vector<int> devices = parse_device_list(c.devices, visible);
  std::error_code error;
  fs::create_directories(folder, error);  // the probe removed what it created
  if (error) throw UsageError("cannot create " + folder.string() + ": " + error.message());
  install_interrupt_handlers();
  const std::string program = self_program(c.program);
  std::vector<GpuWorker> workers;
  for (int d : devices) {
    GpuWorker w;
    w.device = d;
    w.log = (folder / ("gpu" + std::to_string(d) + ".log")).string();
    w.child = start_child(worker_command_line(c.argv, program, d, run_id + "-gpu" + std::to_string(d)), w.log);
    out << "gpu " << d << ": started, log " << w.log << "\n";
    workers.push_back(w);
  }
  std::vector<int> groups;
  for (const GpuWorker& w : workers) groups.push_back(w.child.pid);
  forward_second_signal_to(groups);
  out.flush();
  wait_for(workers);

  std::vector<int> statuses;
  std::vector<std::pair<std::string, nlohmann::json>> reports;
  for (GpuWorker& w : workers) {
    w.status = w.end.how == ChildEnd::How::exited ? w.end.code : kExitDevice;
    w.report = report_path_in_output(read_tail(w.log, 1 << 16));
    statuses.push_back(w.status);
    out << summary_line(w) << "\n";
    try {
      if (!w.report.empty()) reports.emplace_back(w.report, load_report_file(w.report));
    } catch (const UsageError&) {
    }
  }
  if (!reports.empty()) {
    const std::string page = (folder / "fleet.html").string();
    write_file_atomically(page, render_fleet_html(label_fleet_runs(std::move(reports))));
    out << "fleet: " << page << "\n";
  }
  return worst_exit_status(statuses);
}

}  // namespace nb
