#pragma once
// Runs normbench's CLI in this process (cli_main over the real registry) and captures what it
// prints: the CLI tests' way of giving it arguments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/cli/cli.hpp"
#include "harness/errors.hpp"
#include "kernels/ops.hpp"

namespace nb::test {

struct CliResult {
  int status;
  std::string out, err;
};

inline CliResult run_cli(std::vector<std::string> args) {
  static const Registry registry(make_ops());
  args.insert(args.begin(), "normbench");
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int status = cli_main(static_cast<int>(args.size()), argv.data(), registry);
  std::string out = testing::internal::GetCapturedStdout();
  return {status, out, testing::internal::GetCapturedStderr()};
}

// Exit 2 with `message` in what it printed to stderr.
inline void expect_usage_error(const std::vector<std::string>& args, const std::string& message) {
  CliResult r = run_cli(args);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  EXPECT_EQ(r.status, kExitUsage) << joined << "\n" << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << joined << "\nstderr was: " << r.err;
}

}  // namespace nb::test
