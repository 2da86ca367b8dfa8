#pragma once
// The plan cache's folder: one file per plan, <folder>/<key digest>.plan (plan_record.hpp), written
// atomically (a temporary file in the folder, then a rename), so that processes side by side
// (ctest -j, one worker per GPU) share it: a reader sees a whole file or none. A file that cannot
// be used (unreadable, truncated, corrupt, another format, another key or identity inside) is a
// warning and a miss, never an error: the caller builds the plan again and its save replaces it.
#include <iosfwd>
#include <optional>
#include <string>

#include "harness/plan_cache/plan_record.hpp"

namespace nb {

class PlanStore {
 public:
  // warnings: where unusable files and failed writes are reported (std::cerr in the program).
  PlanStore(std::string folder, std::ostream& warnings);

  const std::string& folder() const { return folder_; }
  std::string path_of(const std::string& key_sha256) const;

  // The record stored under the key, or nullopt: none, or one that cannot be used (warned).
  std::optional<PlanRecord> load(const std::string& key_sha256, const std::string& identity) const;
  // Writes the record, creating the folder. False (and a warning) when it cannot: the plan in
  // memory is unaffected.
  bool save(const PlanRecord& record) const;
  // "normbench: plan cache: <path>: <why>; building the plan again", on the warnings stream.
  void warn(const std::string& path, const std::string& why) const;

 private:
  std::string folder_;
  std::ostream& warnings_;
};

}  // namespace nb
