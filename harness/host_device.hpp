#pragma once
// Code that compiles for the host and the device alike: nvcc sees __host__ __device__, a plain C++
// compiler sees ordinary inline functions. The input draws, the stored-value conversions, the
// comparison of one element and the float64 reference programs are written once this way.
#if defined(__CUDACC__)
#define NB_HD __host__ __device__
#else
#define NB_HD
#endif
