#pragma once
// What the per-column BatchNorm commit reads and writes (plain data for host and device code).
namespace nb::linear::dev {

struct BnColumnArgs {
  const float* gamma;
  const float* beta;
  float* running_mean;
  float* running_var;
  float* save_mean;
  float* save_invstd;
  float eps, momentum, unbias;  // unbias = M / (M - 1), computed in double on the host
};

}  // namespace nb::linear::dev
