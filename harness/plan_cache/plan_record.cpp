// One library plan as the plan cache keeps it (plan_record.hpp).
#include "harness/plan_cache/plan_record.hpp"

#include <nlohmann/json.hpp>

#include "harness/files/sha256.hpp"

namespace nb {
namespace {

constexpr const char* kFormat = "normbench-plan-cache";

// The header's fields, each of its type; a missing or mistyped one is a PlanRecordError.
template <class T>
T header_field(const nlohmann::json& header, const char* name) {
  const auto it = header.find(name);
  if (it == header.end()) throw PlanRecordError(std::string("its header has no ") + name);
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw PlanRecordError(std::string("its header's ") + name + " is " + it->dump());
  }
}

// The first line of `bytes` from `from`, and where the next one starts; throws when there is none.
std::string line_at(const std::string& bytes, std::size_t from, std::size_t& next, const char* what) {
  const std::size_t end = bytes.find('\n', from);
  if (end == std::string::npos) throw PlanRecordError(std::string("it ends before its ") + what);
  next = end + 1;
  return bytes.substr(from, end - from);
}

}  // namespace

std::string plan_key_sha256(const std::string& identity, const std::string& graph) {
  // Each field after its length, so that no text can slide from one into the other.
  return sha256_hex("identity " + std::to_string(identity.size()) + "\n" + identity + "\ngraph " +
                    std::to_string(graph.size()) + "\n" + graph);
}

std::string encode_plan_record(const PlanRecord& r) {
  const nlohmann::ordered_json header = {{"key_sha256", r.key_sha256},
                                         {"identity", r.identity},
                                         {"label", r.label},
                                         {"status", r.status},
                                         {"build_s", r.build_s},
                                         {"runtime_compiled", r.runtime_compiled},
                                         {"blob_bytes", r.blob.size()},
                                         {"blob_sha256", sha256_hex(r.blob)}};
  // One line: dump() escapes every control character, so no newline is left inside it.
  return std::string(kFormat) + " " + std::to_string(kPlanRecordVersion) + "\n" +
         header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n" + r.blob;
}

PlanRecord decode_plan_record(const std::string& bytes) {
  std::size_t next = 0;
  const std::string format = line_at(bytes, 0, next, "format line");
  const std::string prefix = std::string(kFormat) + " ";
  if (format.rfind(prefix, 0) != 0) throw PlanRecordError("not a normbench plan cache file");
  if (format != prefix + std::to_string(kPlanRecordVersion))
    throw PlanRecordError("format " + format.substr(prefix.size()) + ", this normbench reads format " +
                          std::to_string(kPlanRecordVersion));
  const std::string header_line = line_at(bytes, next, next, "header");
  const nlohmann::json header = nlohmann::json::parse(header_line, nullptr, false);
  if (!header.is_object()) throw PlanRecordError("its header is not a JSON object");
  PlanRecord r;
  r.key_sha256 = header_field<std::string>(header, "key_sha256");
  r.identity = header_field<std::string>(header, "identity");
  r.label = header_field<std::string>(header, "label");
  r.status = header_field<std::string>(header, "status");
  r.build_s = header_field<double>(header, "build_s");
  r.runtime_compiled = header_field<bool>(header, "runtime_compiled");
  const auto blob_bytes = header_field<std::uint64_t>(header, "blob_bytes");
  const auto blob_sha256 = header_field<std::string>(header, "blob_sha256");
  const std::size_t found = bytes.size() - next;
  if (found < blob_bytes)
    throw PlanRecordError("truncated: its plan has " + std::to_string(found) + " of " + std::to_string(blob_bytes) +
                          " bytes");
  if (found > blob_bytes)
    throw PlanRecordError("its plan has " + std::to_string(found) + " bytes, its header says " +
                          std::to_string(blob_bytes));
  r.blob = bytes.substr(next);
  if (sha256_hex(r.blob) != blob_sha256) throw PlanRecordError("corrupt: its plan's SHA-256 is not its header's");
  return r;
}

}  // namespace nb
