// normbench: validate, time and report normalization and reduction kernels.
#include "harness/cli/cli.hpp"
#include "kernels/ops.hpp"

int main(int argc, char** argv) {
  nb::Registry registry(nb::make_ops());
  return nb::cli_main(argc, argv, registry);
}
