#!/usr/bin/env bash
# The test command: set-up, configure, build every target (every CUDA file), run the tests.
# Without a GPU the GPU tests report themselves skipped; on a GPU host they run.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$NB_ROOT"
"$NB_ROOT/scripts/setup.sh"
nb_configure_and_build
nb_seed_test_costs || nb_say "could not seed the tests' costs: ctest starts them in index order"
nb_say "running tests"
ctest --preset "$(nb_preset)" -j "$(nb_jobs)" "$@"
