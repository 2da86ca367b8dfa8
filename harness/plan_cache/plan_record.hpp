#pragma once
// One library plan as the plan cache keeps it on disk: what it was built for (the digest of its
// key, and the GPU, driver and library it was built with), how building it went, and the library's
// own serialized bytes. The file is a format line, one line of JSON, then the bytes:
//
//   normbench-plan-cache 1
//   {"key_sha256": "...", "identity": "...", "label": "...", "status": "...", "build_s": 27.1,
//    "runtime_compiled": true, "blob_bytes": 123456, "blob_sha256": "..."}
//   <blob_bytes bytes>
//
// Decoding refuses, with the reason, anything that is not exactly such a file: another format or
// version, a header that does not parse, a blob cut short, longer, or whose digest differs.
#include <stdexcept>
#include <string>

namespace nb {

inline constexpr int kPlanRecordVersion = 1;

struct PlanRecord {
  std::string key_sha256;  // the digest of the plan's whole key (plan_key_sha256)
  std::string identity;    // the GPU, driver and library versions it was built with
  std::string label;       // what it plans, for a reader: "rms_forward M=1 N=524288 fp16, inference phase"
  std::string status;      // how it was built: the engine, its notes, the configs tried before it
  double build_s = 0;      // what building it took
  bool runtime_compiled = false;  // its engine compiled the kernel while the plan was built
  std::string blob;        // the library's serialized plan, byte for byte
};

// A file that is not a usable plan record: what is wrong with it.
struct PlanRecordError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The digest that names a plan: of the identity it is built with and its graph's own description.
std::string plan_key_sha256(const std::string& identity, const std::string& graph);

std::string encode_plan_record(const PlanRecord& r);
// Throws PlanRecordError.
PlanRecord decode_plan_record(const std::string& bytes);

}  // namespace nb
