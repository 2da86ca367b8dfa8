#!/usr/bin/env bash
# The main job: set-up, build, run the default suite (kb: the KernelBench shapes), write the
# report under reports/<gpu>/<run-id>/ and say where it is. Extra arguments go to `normbench run`;
# a --suite or --out among them replaces the default.
# By default it runs on every visible GPU (--devices all: one worker per GPU, side by side, then
# one fleet page); --device N or --devices LIST among the arguments chooses instead.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/bench_args.sh"
cd "$NB_ROOT"
"$NB_ROOT/scripts/setup.sh" --required-only
NB_PRESET="${NB_PRESET:-release}" nb_configure_and_build normbench
bin="$NB_ROOT/build/${NB_PRESET:-release}/normbench"
nb_bench_run_args "$NB_ROOT" "$@"  # --suite, --out, --device(s) of the user's replace the defaults
set +e
"$bin" "${NB_BENCH_ARGS[@]}"
status=$?
set -e
case $status in
  0) nb_say "every verdict passed (a library baseline that only misplaces NaN/Inf on special or wide inputs is in the report, not in this status)" ;;
  1) nb_say "some verdict failed or some timing was flagged: see the report" ;;
  130) nb_say "interrupted: the partial report says which cases did not run" ;;
  *) nb_say "normbench run failed (exit $status)" ;;
esac
exit $status
