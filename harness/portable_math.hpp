#pragma once
// log, cos(2 pi t) and 10^x in double from IEEE-exact steps only (+, -, *, / rounded to nearest,
// frexp, ldexp), with no fused multiply-add: the host and the device compute the same bits, which
// their libraries' log, cos and pow do not promise. The input draws use them, so that a tensor
// drawn on the GPU holds what the host draws for any element (docs/validation.md). Accurate to a
// few units in the last place of double, far below the float the draws are rounded to.
#include <cmath>

#include "harness/host_device.hpp"

namespace nb::portable {

// Rounded IEEE operations that no compiler may fuse into an FMA (nvcc contracts a * b + c by default).
#if defined(__CUDA_ARCH__)
NB_HD inline double mul(double a, double b) { return __dmul_rn(a, b); }
NB_HD inline double add(double a, double b) { return __dadd_rn(a, b); }
NB_HD inline double sub(double a, double b) { return __dsub_rn(a, b); }
#else
#if !defined(__CUDACC__) || (defined(__x86_64__) && !defined(__FMA__))
// Where nothing is contracted: normbench's C++ files, built with -ffp-contract=off whatever their
// instruction set (cmake/HostSimd.cmake), and a CUDA file's host code on an x86-64 target without
// FMA instructions (the default). There a plain multiply is the rounded one, and 2-3 times as fast
// as the store below (the audit's host draws feel it: docs/validation.md).
NB_HD inline double mul(double a, double b) { return a * b; }
#else
NB_HD inline double mul(double a, double b) {
  volatile double r = a * b;  // a store between the multiply and any add: never contracted
  return r;
}
#endif
NB_HD inline double add(double a, double b) { return a + b; }
NB_HD inline double sub(double a, double b) { return a - b; }
#endif

// Classification and |x| under one name on both sides (the C macros are not in every namespace).
NB_HD inline bool is_finite(double x) {
#if defined(__CUDA_ARCH__)
  return isfinite(x);
#else
  return std::isfinite(x);
#endif
}
NB_HD inline bool is_nan(double x) {
#if defined(__CUDA_ARCH__)
  return isnan(x);
#else
  return std::isnan(x);
#endif
}
NB_HD inline double abs(double x) { return fabs(x); }
// x where it is finite, else 0: a sum over the finite terms only.
NB_HD inline double finite_or_zero(double x) { return is_finite(x) ? x : 0.0; }

// Horner's rule: c[0] + x (c[1] + x (c[2] + ...)), n coefficients.
NB_HD inline double horner(const double* c, int n, double x) {
  double r = c[n - 1];
  for (int k = n - 2; k >= 0; --k) r = add(c[k], mul(x, r));
  return r;
}

// ln(u) for finite u > 0: u = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| <= 0.172, summed to s^23 (the next term is below 2^-60 of the sum).
NB_HD inline double log(double u) {
  int e = 0;
  double m = frexp(u, &e);  // m in [0.5, 1)
  if (m < 0.70710678118654752440) m = mul(m, 2.0), e -= 1;
  const double s = m == 1.0 ? 0.0 : (m - 1.0) / add(m, 1.0);
  const double s2 = mul(s, s);
  // 2 atanh(s) = 2 s (1 + s^2/3 + s^4/5 + ...)
  const double c[] = {2.0,        2.0 / 3,  2.0 / 5,  2.0 / 7,  2.0 / 9,  2.0 / 11,
                      2.0 / 13,   2.0 / 15, 2.0 / 17, 2.0 / 19, 2.0 / 21, 2.0 / 23};
  const double ln_m = mul(s, horner(c, 12, s2));
  // ln 2 in two parts: e * kLn2Hi is exact for |e| < 2^11.
  const double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  return add(mul(double(e), kLn2Hi), add(mul(double(e), kLn2Lo), ln_m));
}

// sin x and cos x for |x| <= pi/4, by their Taylor series to x^21 and x^20.
NB_HD inline double sin_small(double x) {
  const double c[] = {1.0,
                      -1.0 / 6,
                      1.0 / 120,
                      -1.0 / 5040,
                      1.0 / 362880,
                      -1.0 / 39916800,
                      1.0 / 6227020800.0,
                      -1.0 / 1307674368000.0,
                      1.0 / 355687428096000.0,
                      -1.0 / 121645100408832000.0,
                      1.0 / 51090942171709440000.0};
  return mul(x, horner(c, 11, mul(x, x)));
}
NB_HD inline double cos_small(double x) {
  const double c[] = {1.0,
                      -1.0 / 2,
                      1.0 / 24,
                      -1.0 / 720,
                      1.0 / 40320,
                      -1.0 / 3628800,
                      1.0 / 479001600,
                      -1.0 / 87178291200.0,
                      1.0 / 20922789888000.0,
                      -1.0 / 6402373705728000.0,
                      1.0 / 2432902008176640000.0};
  return horner(c, 11, mul(x, x));
}

// cos(2 pi t) for t in [0, 1): t in eighths of a turn (exact), then the rest within an eighth.
NB_HD inline double cos_turns(double t) {
  const double eighths = mul(t, 8.0);  // exact: a power of two
  const int octant = int(eighths);     // 0..7
  const double rest = sub(eighths, double(octant));  // exact, in [0, 1)
  const double kQuarterPi = 0.78539816339744830962;
  // Within octant k the angle is k pi/4 + r pi/4; fold each octant onto [0, pi/4] by symmetry.
  const bool odd = octant & 1;
  const double x = mul(odd ? sub(1.0, rest) : rest, kQuarterPi);
  const int quadrant = octant / 2;  // 0..3
  // cos(q pi/2 + y) for y in [0, pi/2): the octant's odd half measures y from the quadrant's end.
  const double near = odd ? sin_small(x) : cos_small(x);  // cos y
  const double far = odd ? cos_small(x) : sin_small(x);   // sin y
  switch (quadrant) {
    case 0: return near;
    case 1: return -far;
    case 2: return -near;
    default: return far;
  }
}

// 10^x for |x| <= 300: 2^(x log2 10) = 2^n 2^f with n the nearest integer and |f| <= 1/2,
// 2^f = e^(f ln 2) by its Taylor series to the 18th power.
NB_HD inline double exp10(double x) {
  const double y = mul(x, 3.32192809488736234787);
  using whole = long long;
  const double n = y < 0 ? -double(whole(0.5 - y)) : double(whole(y + 0.5));
  const double f = mul(sub(y, n), 0.69314718055994530942);
  const double c[] = {1.0,
                      1.0,
                      1.0 / 2,
                      1.0 / 6,
                      1.0 / 24,
                      1.0 / 120,
                      1.0 / 720,
                      1.0 / 5040,
                      1.0 / 40320,
                      1.0 / 362880,
                      1.0 / 3628800,
                      1.0 / 39916800,
                      1.0 / 479001600,
                      1.0 / 6227020800.0,
                      1.0 / 87178291200.0,
                      1.0 / 1307674368000.0,
                      1.0 / 20922789888000.0,
                      1.0 / 355687428096000.0,
                      1.0 / 6402373705728000.0};
  return ldexp(horner(c, 19, f), int(n));
}

}  // namespace nb::portable
