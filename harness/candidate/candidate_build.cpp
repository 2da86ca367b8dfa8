#include "harness/candidate/candidate_build.hpp"

#include <cstdlib>
#include <filesystem>

#include "harness/candidate/child_process.hpp"
#include "harness/files/sha256.hpp"
#include "harness/errors.hpp"

namespace nb {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A name for the library that says which source it came from.
std::string library_name(const std::string& source, const std::string& sha) {
  return fs::path(source).stem().string() + "-" + sha.substr(0, 12) + ".so";
}

}  // namespace

std::string nvcc_path() {
  if (const char* env = std::getenv("NVCC"); env && *env) return env;
#ifdef NORMBENCH_NVCC
  std::error_code error;
  if (fs::is_regular_file(NORMBENCH_NVCC, error)) return NORMBENCH_NVCC;
#endif
  return "nvcc";
}

std::string candidate_include_dir() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path installed = exe.parent_path().parent_path() / "include";
    if (fs::is_regular_file(installed / "normbench" / "candidate.h", error)) return installed.string();
  }
#ifdef NORMBENCH_SOURCE_DIR
  return std::string(NORMBENCH_SOURCE_DIR) + "/include";
#else
  return "include";
#endif
}

std::vector<std::string> nvcc_command(const CandidateBuildRequest& r, const std::string& library) {
  std::vector<std::string> cmd = {nvcc_path(), "-shared", "-Xcompiler", "-fPIC", "-O3", "-lineinfo",
                                  "-cudart", "shared", "-std=c++17", "-arch=" + r.arch,
                                  "-I", candidate_include_dir()};
  cmd.insert(cmd.end(), r.nvcc_flags.begin(), r.nvcc_flags.end());
  cmd.insert(cmd.end(), {"-o", library, r.source});
  return cmd;
}

ExternalSource build_candidate(const CandidateBuildRequest& r) {
  std::error_code error;
  if (!fs::is_regular_file(r.source, error)) throw UsageError(r.source + ": no such candidate file");
  ExternalSource out;
  out.source = r.source;
  out.sha256 = sha256_of_file(r.source);
  if (ends_with(r.source, ".so")) {
    if (!r.nvcc_flags.empty()) throw UsageError("--nvcc-flag applies to a .cu candidate, not to " + r.source);
    out.library = fs::absolute(r.source, error).string();
    return out;
  }
  if (!ends_with(r.source, ".cu"))
    throw UsageError(r.source + ": a candidate is a .cu file (compiled with nvcc) or a .so library");
  fs::create_directories(r.work_dir, error);
  out.library = (fs::path(r.work_dir) / library_name(r.source, out.sha256)).string();
  const std::vector<std::string> cmd = nvcc_command(r, out.library);
  out.compile_command = shell_join(cmd);
  const std::string log = out.library + ".nvcc.log";
  const ChildEnd end = run_child(cmd, log, 600);
  if (end.how != ChildEnd::How::exited || end.code != 0)
    throw UsageError(r.source + ": nvcc failed" +
                     (end.how == ChildEnd::How::exited ? " (exit " + std::to_string(end.code) + ")" : std::string()) +
                     "\n  " + out.compile_command + "\n" + read_tail(log, 6000));
  return out;
}

}  // namespace nb
