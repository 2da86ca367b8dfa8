#pragma once
// The op spec: everything the harness knows about one operator. Its parameters and their
// checks, its named problem sizes, its tensors and how to draw them, the float64 reference,
// the bytes and flops a perfect implementation moves and does, the tolerance, and its variant
// table. The harness never names an op; it asks the spec.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/distribution.hpp"
#include "harness/input_draw.hpp"
#include "harness/problem.hpp"
#include "harness/problem_rules.hpp"
#include "harness/program_tensors.hpp"
#include "harness/slices.hpp"
#include "harness/tensors.hpp"
#include "harness/tolerance.hpp"
#include "harness/variant.hpp"

namespace nb {

class Executor;  // harness/validation/executor.hpp: where a reference program runs

// What a perfect implementation must move and do (the roofline floor of the problem).
struct WorkModel {
  double bytes = 0;
  double flops = 0;
  std::string formula;  // how bytes was counted, e.g. "read x + write y: 2*4*N*C*H*W"
};

// A distribution on which the op's fp32 contract does not promise accuracy (e.g. offset for
// sum/sum-of-squares statistics). Its failures are shown but only count against a variant that
// claims() the distribution.
struct StressDistribution {
  Distribution distribution;
  std::string reason;
};

class OpSpec {
 public:
  virtual ~OpSpec() = default;

  virtual std::string name() const = 0;     // "rmsnorm_nchw"
  virtual std::string formula() const = 0;  // one line: what it computes
  virtual std::vector<ParamDecl> param_decls() const = 0;
  // The element types and precisions the op is stated in; make_problem refuses the others.
  virtual std::vector<DType> dtypes() const { return {DType::f32}; }
  // Relational checks beyond each parameter's range ("C must be divisible by G"): "" when fine.
  virtual std::string check(const Params&) const { return ""; }
  virtual std::vector<NamedProblem> named_problems() const = 0;

  virtual std::vector<TensorDecl> tensors(const Problem&) const = 0;
  // Fills every input and inout host tensor (already sized) for one trial. By default: the
  // declared draws (input_draws), rounded to their storage, then derive_inputs.
  virtual void draw_inputs(const Problem&, Distribution, std::uint64_t seed, HostTensors&) const;
  // Fills every output and inout reference (already sized) in float64 from the host inputs: the
  // Eigen reference, the ground truth.
  virtual void reference(const Problem&, const HostTensors& inputs, ReferenceTensors& out) const = 0;

  // --- The device path (docs/validation.md). An op that declares its draws and has a reference
  // program is validated against float64 kernels on the GPU, which Eigen audits on sampled slices.
  // How each drawn input is drawn: the host, the device and the audit follow it alike.
  virtual std::vector<InputDraw> input_draws(const Problem&, Distribution) const { return {}; }
  // Inputs computed from the drawn ones (what a forward pass saved), on the host from the host
  // copies, and by a program from the drawn tensors in place. The trial's seed draws what the
  // forward read that is no tensor of the op (the backward's linear bias).
  virtual void derive_inputs(const Problem&, std::uint64_t /*seed*/, HostTensors&) const {}
  virtual void derive_inputs(const Problem&, std::uint64_t /*seed*/, const ProgramTensors&, Executor&) const {}
  // True when reference_program exists.
  virtual bool has_reference_program() const { return false; }
  // The float64 reference of every output and inout tensor, by plain kernels (baselines/gpu/),
  // and the conditions its tolerances scale with (as condition and tensor_condition give them).
  virtual ReferenceConditions reference_program(const Problem&, const ProgramTensors& tensors,
                                                const ProgramReference& out, Executor&) const;
  // How the audit cuts the problem into slices the Eigen reference computes alone.
  virtual std::vector<SliceFamily> slice_families(const Problem&) const { return {}; }
  // The Eigen reference of a slice problem: reference(), unless the family needs tensors of the
  // device reference (SliceFamily::given), which arrive whole in `given`.
  virtual void slice_reference(const Problem& slice_problem, const SliceFamily& family, const HostTensors& inputs,
                               const ReferenceTensors& given, ReferenceTensors& out) const {
    reference(slice_problem, inputs, out);
  }
  virtual WorkModel work(const Problem&) const = 0;

  virtual Tolerance tolerance(const Problem& p) const { return default_tolerance(p.dtype); }
  // The longest sum behind one output element (the reduced extent); tolerances grow with its
  // square root (reduction_growth in tolerance.hpp).
  virtual double reduction_length(const Problem&) const { return 1.0; }
  // How much fp32 rounding this instance amplifies (>= 1); tolerances scale with it.
  virtual double condition(const Problem&, const HostTensors&) const { return 1.0; }
  // The same for one output tensor, where it differs (a gradient that is a cancelling sum);
  // the larger of the two applies to that tensor.
  virtual double tensor_condition(const Problem&, int /*tensor*/, const HostTensors& /*inputs*/,
                                  const ReferenceTensors& /*reference*/) const {
    return 1.0;
  }
  // What rounding each GEMM operand to the problem's precision adds to a tensor's bounds per unit
  // of its operand amplification (ReferenceTensors::operand_amplification from reference(), the
  // ReferenceConditions' from reference_program()): zero unless the precision rounds operands (tf32), then
  // about its unit roundoff. Added to the condition-scaled bounds, not scaled by the condition:
  // the amplification is this error's own measure (docs/tolerance.md, "Operand rounding").
  virtual Tolerance operand_rounding(const Problem&) const { return {}; }
  virtual std::vector<StressDistribution> stress() const { return {}; }
  // The stress distributions of one problem, where they depend on it (a tf32 problem cannot
  // promise what its fp32 twin does); the op's own list by default.
  virtual std::vector<StressDistribution> stress(const Problem&) const { return stress(); }
  // Compute-bound ops name the library kernel their variants are judged against (the GEMM alone
  // at the problem's precision, writing into its own workspace): the harness times it once per
  // problem and run, as it measures the copy ceiling once, and reports each variant against it.
  // Null for memory-bound ops.
  virtual std::unique_ptr<Variant> ceiling_kernel(const Problem&) const { return nullptr; }
  virtual std::vector<NotApplicable> not_applicable() const { return {}; }

  const std::vector<std::unique_ptr<Variant>>& variants() const { return variants_; }
  Variant* find_variant(const std::string& name) const;  // null when absent

  // The parameters, dtypes and check() as data (problem_rules.hpp).
  ProblemRules problem_rules() const;
  // Builds a problem: fills defaults, checks ranges and check(), names it. Throws UsageError.
  Problem make_problem(const Params& given, DType dtype = DType::f32) const;
  // Rebuilds a problem from its id ("rmsnorm_nchw/n16_c64_h256_w256/fp32"). Throws UsageError.
  Problem parse_problem_id(const std::string& id) const;
  // The named problems that belong to a suite ("" for all of them), one per declared dtype.
  std::vector<Problem> problems_in(const std::string& suite) const;

 protected:
  void add_variant(std::unique_ptr<Variant> v) { variants_.push_back(std::move(v)); }

 private:
  std::vector<std::unique_ptr<Variant>> variants_;
};

// The op's draw_inputs, then every input and inout rounded to its tensor's storage type: the host
// copies hold exactly what the device tensors will, and the float64 reference is computed from
// those rounded values (a bf16 problem is judged on the bf16 inputs it was given).
void draw_stored_inputs(const OpSpec& op, const Problem& p, const std::vector<TensorDecl>& decls, Distribution d,
                        std::uint64_t seed, HostTensors& host);

}  // namespace nb
