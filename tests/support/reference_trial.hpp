#pragma once
// One trial as the validator builds it: an op's inputs drawn for a distribution and seed and
// rounded to their storage types, and its float64 reference computed from them. Reference tests check the result against loops.
#include <cstdint>
#include <vector>

#include "harness/op_spec.hpp"

namespace nb::test {

struct ReferenceTrial {
  Problem p;
  std::vector<TensorDecl> decls;
  HostTensors in;
  ReferenceTensors ref;
};

inline ReferenceTrial reference_trial(const OpSpec& op, const Problem& p, Distribution d, std::uint64_t seed) {
  ReferenceTrial t{p, op.tensors(p), {}, {}};
  t.in = allocate_host_inputs(t.decls);
  draw_stored_inputs(op, p, t.decls, d, seed, t.in);
  t.ref = allocate_references(t.decls);
  op.reference(p, t.in, t.ref);
  return t;
}

}  // namespace nb::test
