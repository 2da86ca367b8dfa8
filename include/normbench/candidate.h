/* The C ABI between normbench and a candidate kernel it did not build: tensor descriptors, the
 * problem's parameters by name, and the functions a candidate library exports. A candidate is a
 * shared library (or a .cu file that `normbench eval` compiles into one with nvcc). See
 * docs/candidates.md.
 *
 * Required:  nb_candidate_abi_version (returns NB_CANDIDATE_ABI_VERSION) and nb_candidate_launch.
 * Optional:  nb_candidate_supports, nb_candidate_workspace_bytes, nb_candidate_prepare.
 *
 * Rules the harness checks: launch enqueues all its work on the given stream; it allocates
 * nothing (ask for scratch through nb_candidate_workspace_bytes); it never writes an input;
 * it writes every element of every output. Tensors come in the op's declared order
 * (`normbench list tensors --op OP`). Every function returns 0 on success; a non-zero return
 * fails the case with the message the candidate wrote into `error` (if any). */
#ifndef NORMBENCH_CANDIDATE_H
#define NORMBENCH_CANDIDATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NB_CANDIDATE_ABI_VERSION 1
#define NB_MAX_DIMS 8
#define NB_MESSAGE_BYTES 512

/* How a tensor is stored. A bf16 or fp16 problem stores its activations and weights narrow and its
   statistics (saved mean, rstd) as float32: read each tensor's dtype. */
typedef enum nb_dtype { NB_FLOAT32 = 0, NB_BFLOAT16 = 1, NB_FLOAT16 = 2 } nb_dtype;
/* tf32 problems store fp32 too: nb_problem.precision says whether tensor cores in TF32 may be used. */
typedef enum nb_precision { NB_PRECISION_FP32 = 0, NB_PRECISION_TF32 = 1 } nb_precision;
typedef enum nb_role { NB_INPUT = 0, NB_OUTPUT = 1, NB_INOUT = 2 } nb_role;

typedef struct nb_tensor {
  void* data;                     /* device pointer */
  nb_dtype dtype;
  nb_role role;
  int32_t ndim;
  int64_t shape[NB_MAX_DIMS];
  int64_t strides[NB_MAX_DIMS];   /* in elements; always contiguous row-major today */
  int64_t elements;
  const char* name;               /* "x", "y", "running_mean", ... */
} nb_tensor;

typedef struct nb_param {
  const char* name;               /* "m", "n", "eps", "momentum", ... */
  double value;                   /* integers are exact */
} nb_param;

typedef struct nb_problem {
  const char* op;                 /* "rmsnorm_rows" */
  const char* id;                 /* "rmsnorm_rows/m7_n1000_eps1e-05/fp32" */
  nb_precision precision;
  int32_t num_params;
  const nb_param* params;
} nb_problem;

/* A parameter's value by name, or `fallback` when the problem has none of that name. */
static inline double nb_param_value(const nb_problem* p, const char* name, double fallback) {
  for (int32_t i = 0; i < p->num_params; ++i) {
    const char *a = p->params[i].name, *b = name;
    while (*a && *a == *b) ++a, ++b;
    if (*a == *b) return p->params[i].value;
  }
  return fallback;
}

/* CUDA's stream handle without including cuda_runtime.h (it is a cudaStream_t). */
typedef void* nb_stream;

/* Required: return NB_CANDIDATE_ABI_VERSION. */
int nb_candidate_abi_version(void);

/* Required: enqueue the whole computation on `stream`. */
int nb_candidate_launch(const nb_problem* problem, const nb_tensor* tensors, int32_t num_tensors,
                        void* workspace, size_t workspace_bytes, nb_stream stream,
                        char error[NB_MESSAGE_BYTES]);

/* Optional: 1 when the candidate runs `problem`; 0 with the reason in `reason`. A candidate without
   it runs fp32 and tf32 problems only (it is taken to be written for float32 tensors); with it, it
   decides, bf16 and fp16 problems included (their id ends in "/bf16" or "/fp16"). */
int nb_candidate_supports(const nb_problem* problem, char reason[NB_MESSAGE_BYTES]);

/* Optional: bytes of device scratch that launch needs (given to it as `workspace`). */
size_t nb_candidate_workspace_bytes(const nb_problem* problem);

/* Optional: set-up before the launches of a problem, outside every timed region. */
int nb_candidate_prepare(const nb_problem* problem, char error[NB_MESSAGE_BYTES]);

#ifdef __cplusplus
}
#endif

/* Exports a function from the candidate library with C linkage and default visibility. */
#ifdef __cplusplus
#define NB_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define NB_EXPORT __attribute__((visibility("default")))
#endif

#endif /* NORMBENCH_CANDIDATE_H */
