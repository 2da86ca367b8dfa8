// The row backwards' split column sums add fixed partial rows in a fixed order, with no atomics:
// two launches on the same inputs must give the same bits in dx, dw and db. Cases cover the fused
// variant's layouts (lane groups over many bands, register rows over a cluster, rows streamed over
// a cluster of 8 and of 16) and the warp variant's slabs.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu_harness.hpp"
#include "harness/cuda_stream.hpp"
#include "harness/run/problem_buffers.hpp"

namespace nb::test {
namespace {

struct ReproCase {
  const char* op;
  const char* variant;
  DType dtype;
  std::int64_t m, n;
};

HostTensors launch_once(Variant& v, const Problem& p, const ProblemBuffers& b, cudaStream_t stream) {
  b.poison_outputs(stream);
  v.launch(p, b.tensors, b.workspace.get(), stream);
  HostTensors out;
  b.download_results(out, stream);
  return out;
}

class RowsBwdReproducible : public testing::TestWithParam<ReproCase> {};

TEST_P(RowsBwdReproducible, TwoLaunchesGiveTheSameBits) {
  const ReproCase c = GetParam();
  const OpSpec& op = registry().op(c.op);
  const Problem p = op.make_problem({{"m", double(c.m)}, {"n", double(c.n)}}, c.dtype);
  Variant* v = op.find_variant(c.variant);
  ASSERT_NE(v, nullptr);
  ASSERT_TRUE(v->supports(p).ok) << p.id() << ": " << v->supports(p).reason;
  const ProblemBuffers b = ProblemBuffers::allocate(op, p, {v});
  HostTensors in = allocate_host_inputs(b.decls);
  draw_stored_inputs(op, p, b.decls, Distribution::normal, 11, in);
  const CudaStream stream;
  b.upload(in, {TensorRole::input}, stream.get());
  v->prepare(p);
  const HostTensors first = launch_once(*v, p, b, stream.get()), second = launch_once(*v, p, b, stream.get());
  for (std::size_t i = 0; i < b.decls.size(); ++i) {
    if (b.decls[i].role != TensorRole::output) continue;
    SCOPED_TRACE(p.id() + " " + c.variant + " " + b.decls[i].name);
    ASSERT_EQ(first.data[i].size(), second.data[i].size());
    EXPECT_EQ(std::memcmp(first.data[i].data(), second.data[i].data(), first.data[i].size() * sizeof(float)), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    RowsBwd, RowsBwdReproducible,
    testing::Values(ReproCase{"rmsnorm_rows_bwd", "fused", DType::f32, 20000, 64},     // lane groups, many bands
                    ReproCase{"layernorm_rows_bwd", "fused", DType::bf16, 4096, 4096},  // one CTA per row, many bands
                    ReproCase{"layernorm_rows_bwd", "fused", DType::bf16, 256, 20000},  // clusters of 8 in registers
                    ReproCase{"rmsnorm_rows_bwd", "fused", DType::f16, 64, 65537},      // streamed, clusters of 8
                    ReproCase{"layernorm_rows_bwd", "fused", DType::bf16, 16, 262144},  // streamed, clusters of 16
                    ReproCase{"layernorm_rows_bwd", "warp", DType::f32, 20000, 64},
                    // TMA-fed: a CTA of two warps; clusters of 4 with a short last part; every warp
                    // pushing over LayerNorm's bf16 clusters of 16; rows one ahead: LayerNorm's fp32
                    // clusters of 16, both ops' four packs a thread over 16
                    ReproCase{"rmsnorm_rows_bwd", "fused_tma", DType::bf16, 3000, 1024},
                    ReproCase{"layernorm_rows_bwd", "fused_tma", DType::bf16, 600, 16392},
                    ReproCase{"layernorm_rows_bwd", "fused_tma", DType::bf16, 40, 131072},
                    ReproCase{"layernorm_rows_bwd", "fused_tma", DType::f32, 40, 65536},
                    ReproCase{"rmsnorm_rows_bwd", "fused_tma", DType::bf16, 40, 262144},
                    ReproCase{"layernorm_rows_bwd", "fused_tma", DType::bf16, 40, 262144}),
    [](const testing::TestParamInfo<ReproCase>& info) {
      const ReproCase& c = info.param;
      return std::string(c.op).substr(0, 3) + "_" + c.variant + "_" + dtype_name(c.dtype) + "_m" + std::to_string(c.m) +
             "_n" + std::to_string(c.n);
    });

}  // namespace
}  // namespace nb::test
