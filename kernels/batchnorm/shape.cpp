#include "kernels/batchnorm/shape.hpp"

#include <algorithm>
#include <cmath>

namespace nb::bn {

std::vector<ParamDecl> param_decls() {
  return {
      {"n", true, 0, true, 1, 1e9, "batch size N"},
      {"c", true, 0, true, 1, 1e7, "channels C (statistics are per channel)"},
      {"h", true, 1, false, 1, 1e7, "height H (1 with w = 1: the 1d (N, C) layout)"},
      {"w", true, 1, false, 1, 1e7, "width W"},
      {"eps", false, 1e-5, false, 0, 1, "added to the biased variance before the square root"},
      {"momentum", false, 0.1, false, 0, 1, "running = (1 - momentum) * running + momentum * batch"},
  };
}

std::string check_params(const Params& p) {
  const double m = p.real("n") * p.real("h") * p.real("w");
  if (m < 2)
    return "N*H*W = 1 value per channel: the unbiased running variance divides by M - 1 = 0 "
           "(PyTorch: 'Expected more than 1 value per channel when training')";
  if (m > 2147483647.0) return "N*H*W must stay below 2^31 values per channel (kernels index a channel in 32 bits)";
  if (m * p.real("c") > 1e11) return "N*C*H*W above 1e11 elements does not fit any GPU memory";
  return "";
}

std::vector<NamedProblem> named_problems(Pass pass) {
  const std::vector<std::string> kb{"kb"}, sweep{"sweep"}, quick{"quick"};
  std::vector<NamedProblem> v{
      {{{"n", 16}, {"c", 64}, {"h", 256}, {"w", 256}}, kb, "KernelBench L1#33 BatchNorm2d, original size"},
      {{{"n", 64}, {"c", 64}, {"h", 512}, {"w", 512}}, kb, "KernelBench L1#33 BatchNorm2d, enlarged"},
      {{{"n", 128}, {"c", 512}}, kb, "BatchNorm1d, KernelBench L2#33 GEMM output"},
      {{{"n", 1024}, {"c", 8192}}, kb, "BatchNorm1d, KernelBench L2#33 enlarged: large C, small N"},
      {{{"n", 16384}, {"c", 4096}}, kb, "BatchNorm1d, KernelBench L2#39"},
  };
  // Sweep: N*C = 4096 at H = W = 127 (odd, so no 16-byte path), 66M elements each.
  for (double c : {1.0, 3.0, 64.0, 256.0, 2048.0})
    v.push_back({{{"n", std::floor(4096 / c)}, {"c", c}, {"h", 127}, {"w", 127}}, sweep, "C sweep at ~66M elements"});
  // BatchNorm1d at a small batch: the forward at M = 2, the smallest it accepts (the unbiased
  // running variance is twice the biased one); the backward at M = 8, because at two values per
  // channel its gradients' bounds (0.01 to 130, the condition of two values) are all beyond the
  // discrimination ceiling (docs/tolerance.md): no check of it could fail a wrong kernel.
  const Params small_batch = pass == Pass::forward ? Params{{"n", 2}, {"c", 64}} : Params{{"n", 8}, {"c", 64}};
  const std::vector<Params> small{
      small_batch,                     {{"n", 3}, {"c", 7}},
      {{"n", 1000}, {"c", 256}},       {{"n", 1000}, {"c", 37}},
      {{"n", 4}, {"c", 1}, {"h", 7}, {"w", 9}},    {{"n", 8}, {"c", 7}, {"h", 3}, {"w", 5}},
      {{"n", 2}, {"c", 7}, {"h", 8}, {"w", 16}},   {{"n", 16}, {"c", 64}, {"h", 32}, {"w", 32}},
      {{"n", 64}, {"c", 1}, {"h", 128}, {"w", 128}}, {{"n", 1}, {"c", 3}, {"h", 5}, {"w", 5}},
      // Runs of H*W long enough for the split variants' run-order blocks (>= 32 KB), two pieces
      // per run: float4 (H*W = 18432) and scalar (H*W = 16899, odd, pieces of 8450 and 8449).
      {{"n", 2}, {"c", 3}, {"h", 96}, {"w", 192}},  {{"n", 3}, {"c", 5}, {"h", 131}, {"w", 129}},
      // onchip_groups' paths: more channels than co-resident CTAs (two waves, float4), and a
      // channel just larger than one CTA's slice buffer (teams of CTAs and their barrier, two
      // waves, scalar copies; 1.96M elements).
      {{"n", 2}, {"c", 200}, {"h", 8}, {"w", 8}},   {{"n", 2}, {"c", 67}, {"h", 121}, {"w", 121}},
      // 256 channel slices of short runs: split_tail's block-per-channel finalize.
      {{"n", 256}, {"c", 1}, {"h", 64}, {"w", 64}},
  };
  for (const auto& p : small) v.push_back({p, quick, "small: tails, odd H*W, C = 1, N = 1 with H*W > 1, long runs"});
  return v;
}

Support one_thread_per_channel_limit(const Problem& p) {
  constexpr std::int64_t kMaxSerial = std::int64_t(1) << 22;
  const std::int64_t m = shape_of(p).count();
  if (m <= kMaxSerial) return Support::yes();
  return Support::no("one thread per channel would walk " + std::to_string(m) +
                     " values serially (seconds per launch); the naive variant stops at 4M values per channel");
}

double condition_from_stats(const std::vector<double>& mean, const std::vector<double>& invstd) {
  double cond = 1;
  for (std::size_t c = 0; c < mean.size(); ++c) {
    const double k = std::fabs(mean[c]) * invstd[c];
    if (std::isfinite(k)) cond = std::max(cond, k);
  }
  return std::min(cond, kMaxCondition);
}

}  // namespace nb::bn
