#include "harness/cli/benchmark_flags.hpp"

#include <benchmark/benchmark.h>

#include "harness/errors.hpp"

namespace nb {

void initialise_benchmark(const std::string& program, const std::vector<std::string>& benchmark_args) {
  std::vector<std::string> args = {program};
  args.insert(args.end(), benchmark_args.begin(), benchmark_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  benchmark::Initialize(&argc, argv.data());
  if (argc > 1) throw UsageError(std::string("unrecognised argument '") + argv[1] + "'");
}

}  // namespace nb
