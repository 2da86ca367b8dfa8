#pragma once
// Hands the --benchmark_* flags to Google Benchmark, whose loop drives the timing of `run` and
// `eval`; anything it does not take is a UsageError.
#include <string>
#include <vector>

namespace nb {

void initialise_benchmark(const std::string& program, const std::vector<std::string>& benchmark_args);

}  // namespace nb
