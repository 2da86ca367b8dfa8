#pragma once
// A variant is one implementation of an op: a name, a kind, a one-line idea, whether it can run
// a problem (and why not), the workspace it needs, and a launch on the given stream. It
// launches on that stream only and allocates nothing in launch().
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/device_buffer.hpp"
#include "harness/distribution.hpp"
#include "harness/problem.hpp"

namespace nb {

struct Support {
  bool ok = true;
  std::string reason;  // why not, when !ok: shown in `list` and in the report

  static Support yes() { return {}; }
  static Support no(std::string why) { return {false, std::move(why)}; }
};

// Where a candidate that normbench did not build comes from (normbench eval): the file the user
// gave, its SHA-256, the nvcc command that compiled it ("" for a .so given as is), the library.
struct ExternalSource {
  std::string source, sha256, compile_command, library;
};

class Variant {
 public:
  virtual ~Variant() = default;

  virtual std::string name() const = 0;  // "warp"
  virtual std::string kind() const = 0;  // naive, smem, warp, welford, fused, cudnn, cublas, ...
  virtual std::string idea() const = 0;  // one line

  virtual Support supports(const Problem&) const { return Support::yes(); }
  virtual std::size_t workspace_bytes(const Problem&) const { return 0; }
  // Stress distributions of the op (see OpSpec::stress) that this variant claims to pass.
  virtual std::vector<Distribution> claims() const { return {}; }
  // Set-up for a problem, outside every timed region (library plans, descriptors). The harness
  // calls it before the launches of each problem, and launch() may rely on the last one.
  virtual void prepare(const Problem&) {}
  virtual void launch(const Problem&, const DeviceTensors&, void* workspace, cudaStream_t) = 0;

  // Non-null for a candidate brought from outside the repository (normbench eval).
  virtual const ExternalSource* external() const { return nullptr; }

  bool is_library_baseline() const { return kind() == "cudnn" || kind() == "cublas"; }
};

// The common case, a hand-written kernel: strings plus functions (free functions, or lambdas
// that bind a setting shared by several ops), no class to write.
struct KernelVariantSpec {
  std::string name, kind, idea;
  std::function<void(const Problem&, const DeviceTensors&, void* workspace, cudaStream_t)> launch;
  std::function<Support(const Problem&)> supports;             // empty: runs everything
  std::function<std::size_t(const Problem&)> workspace_bytes;  // empty: no workspace
  std::vector<Distribution> claims;
};

std::unique_ptr<Variant> make_kernel_variant(KernelVariantSpec spec);

// An implementation kind that does not apply to an op, with the reason (e.g. Welford for RMS).
struct NotApplicable {
  std::string kind;
  std::string reason;
};

}  // namespace nb
