#include "harness/cli/cli.hpp"

namespace nb {

int cli_main(int, char**, const Registry&) { return kExitUsage; }

}  // namespace nb
