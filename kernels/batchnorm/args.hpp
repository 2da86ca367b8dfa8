#pragma once
// Plain argument blocks the BatchNorm kernels take by value (host and device code share them).
namespace nb::bn {

struct FwdArgs {
  const float* x;
  const float* gamma;
  const float* beta;
  float* running_mean;
  float* running_var;
  float* y;
  float* save_mean;
  float* save_invstd;
  long long n, c, hw;     // NCHW; hw = 1 is the (N, C) layout
  float eps, momentum;
  float unbias;           // M / (M - 1), computed in double on the host
};

struct BwdArgs {
  const float* x;
  const float* dy;
  const float* gamma;
  const float* save_mean;
  const float* save_invstd;
  float* dx;
  float* dgamma;
  float* dbeta;
  long long n, c, hw;
};

}  // namespace nb::bn
