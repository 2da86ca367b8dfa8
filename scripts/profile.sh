#!/usr/bin/env bash
# Profiles exactly one case with Nsight Compute (default) or Nsight Systems (--nsys), selected
# by its NVTX range. Profile mode launches the variant once, with no flush loop.
#   scripts/profile.sh OP VARIANT PROBLEM-ID [--nsys] [extra ncu/nsys arguments]
# Clocks are left as they are (--clock-control none): this script never changes the GPU's state.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
[ $# -ge 3 ] || nb_die "usage: scripts/profile.sh OP VARIANT PROBLEM-ID [--nsys] [tool arguments]"
op="$1" variant="$2" problem="$3"; shift 3
tool=ncu
if [ "${1:-}" = "--nsys" ]; then tool=nsys; shift; fi
bin="$NB_ROOT/build/${NB_PRESET:-release}/normbench"
[ -x "$bin" ] || NB_PRESET="${NB_PRESET:-release}" nb_configure_and_build normbench
range="$(nb_case_range "$op" "$variant" "$problem")"
out="$NB_ROOT/profiles/${op}-${variant}-$(echo "$problem" | tr '/' '_')"
mkdir -p "$NB_ROOT/profiles"
run=("$bin" run --profile --problem "$problem" --variant "$variant" --quiet)
if [ "$tool" = ncu ]; then
  command -v ncu >/dev/null 2>&1 || nb_die "ncu (Nsight Compute) is not on PATH"
  set -x
  ncu --nvtx --nvtx-include "normbench@$range/" --clock-control none --set full -f -o "$out" "$@" "${run[@]}"
else
  command -v nsys >/dev/null 2>&1 || nb_die "nsys (Nsight Systems) is not on PATH"
  set -x
  nsys profile --capture-range=nvtx --nvtx-capture "$range@normbench" --capture-range-end=stop -f true -o "$out" "$@" "${run[@]}"
fi
