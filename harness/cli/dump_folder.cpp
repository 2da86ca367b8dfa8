#include "harness/cli/dump_folder.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "harness/errors.hpp"
#include "harness/files/file_kind.hpp"
#include "harness/files/atomic_write.hpp"

namespace nb {
namespace {

namespace fs = std::filesystem;

// "" when `dir` holds nothing, or only an earlier dump's files (its manifest.json and .npy files):
// replacing the folder then removes nothing a dump did not write. Else why not.
std::string why_not_a_dump_folder(const fs::path& dir) {
  std::error_code error;
  bool has_manifest = false, has_other = false;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    std::error_code kind_error;
    const bool regular = entry.is_regular_file(kind_error);
    has_manifest = has_manifest || (regular && name == "manifest.json");
    if (!(regular && (name == "manifest.json" || entry.path().extension() == ".npy")))
      return "it holds " + name + ", which a dump does not write";
    has_other = has_other || name != "manifest.json";
  }
  if (error) return "cannot list it: " + error.message();
  if (has_other && !has_manifest) return "it holds .npy files but no manifest.json of a dump";
  if (!has_manifest) return "";
  try {
    std::ifstream in(dir / "manifest.json");
    if (nlohmann::json::parse(in).value("schema", "") == "normbench.npy_trial") return "";
  } catch (const nlohmann::json::exception&) {
  }
  return "its manifest.json is not a dump's (schema normbench.npy_trial)";
}

}  // namespace

void check_dump_folder(const std::string& dir) {
  if (std::string why = why_link_leads_nowhere(dir); !why.empty())
    throw UsageError("the dump folder " + dir + " is " + why);
  std::error_code error;
  if (!fs::exists(dir, error)) return check_folder_writable(dir, "the dump folder");
  if (!fs::is_directory(dir, error)) throw UsageError("the dump folder " + dir + " exists and is not a folder");
  const fs::path resolved = fs::canonical(dir, error);
  if (std::string why = error ? error.message() : why_not_a_dump_folder(resolved); !why.empty())
    throw UsageError("the dump folder " + dir + " is not empty and not an earlier dump: " + why +
                     "; a dump replaces its whole folder: choose a new or empty folder");
  check_folder_writable(resolved.parent_path().string(), "the folder of the dump folder " + dir + ",");
}

}  // namespace nb
