// The plan cache's folder (plan_store.hpp).
#include "harness/plan_cache/plan_store.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>

#include "harness/errors.hpp"
#include "harness/files/atomic_write.hpp"

namespace nb {

PlanStore::PlanStore(std::string folder, std::ostream& warnings) : folder_(std::move(folder)), warnings_(warnings) {}

std::string PlanStore::path_of(const std::string& key_sha256) const {
  return (std::filesystem::path(folder_) / (key_sha256 + ".plan")).string();
}

void PlanStore::warn(const std::string& path, const std::string& why) const {
  std::ostringstream line;  // one write: warnings of processes side by side do not interleave mid-line
  line << "normbench: plan cache: " << path << ": " << why << "; building the plan again\n";
  warnings_ << line.str() << std::flush;
}

std::optional<PlanRecord> PlanStore::load(const std::string& key_sha256, const std::string& identity) const {
  const std::string path = path_of(key_sha256);
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return std::nullopt;  // a plain miss
  if (!std::filesystem::is_regular_file(path, error)) {
    warn(path, "is not a file");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.is_open() || in.bad()) {
    warn(path, "cannot be read");
    return std::nullopt;
  }
  try {
    PlanRecord r = decode_plan_record(bytes);
    if (r.key_sha256 != key_sha256) throw PlanRecordError("it holds the plan of another key (" + r.key_sha256 + ")");
    if (r.identity != identity)
      throw PlanRecordError("it was built for " + r.identity + ", not for " + identity);
    return r;
  } catch (const PlanRecordError& e) {
    warn(path, e.what());
    return std::nullopt;
  }
}

bool PlanStore::save(const PlanRecord& record) const {
  const std::string path = path_of(record.key_sha256);
  std::error_code error;
  std::filesystem::create_directories(folder_, error);
  try {
    if (error) throw UsageError("cannot create " + folder_ + ": " + error.message());
    write_file_atomically(path, encode_plan_record(record));
    return true;
  } catch (const UsageError& e) {
    std::ostringstream line;
    line << "normbench: plan cache: the plan of " << record.label << " is not kept: " << e.what() << "\n";
    warnings_ << line.str() << std::flush;
    return false;
  }
}

}  // namespace nb
