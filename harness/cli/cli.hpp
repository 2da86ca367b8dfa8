#pragma once
// The normbench command line: list, run, ceilings, html, compare, fleet.
#include "harness/registry.hpp"

namespace nb {

// Parses argv and runs the subcommand. Returns the process exit status (errors.hpp).
int cli_main(int argc, char** argv, const Registry& registry);

}  // namespace nb
