#pragma once
// The named input distributions of the design, drawn with a counter-based generator: element
// i of a tensor depends only on (seed, salt, i), so a draw is reproducible, parallel, and
// the same whatever the thread count.
#include <cstdint>
#include <string>
#include <vector>

#include "harness/dtype.hpp"

namespace nb {

enum class Distribution {
  uniform01,  // U[0,1): KernelBench's torch.rand
  normal,     // N(0,1)
  offset,     // 1e4 + N(0,1): sum / sum-of-squares variance collapses in fp32
  tiny_var,   // 1 + 1e-3 N(0,1): variance 1e-6, below the usual eps of 1e-5
  wide,       // random sign x 10^U(-20,20): magnitudes across 1e-20..1e20
  special,    // N(0,1) with a few NaN, +Inf and -Inf planted; they must stay where they belong
};

const std::vector<Distribution>& all_distributions();
std::string distribution_name(Distribution d);
Distribution parse_distribution(const std::string& name);  // throws UsageError
// What the distribution draws for a storage type: `offset` and `wide` adapt to bf16 and fp16 so
// that they keep their meaning there (distribution.cpp says how).
std::string distribution_formula(Distribution d, DType storage = DType::f32);

// Fills data with the distribution as stated for `storage`; salt tells tensors of one problem
// apart. The harness rounds the values to the storage type afterwards (draw_stored_inputs).
void draw(std::vector<float>& data, Distribution d, std::uint64_t seed, std::uint32_t salt,
          DType storage = DType::f32);

// Fills data with U[lo, hi): parameters such as weights, which do not follow the distribution.
void draw_uniform(std::vector<float>& data, float lo, float hi, std::uint64_t seed, std::uint32_t salt);

// How many specials `special` plants in n elements, and where the k-th one goes.
std::int64_t special_count(std::int64_t n);

}  // namespace nb
