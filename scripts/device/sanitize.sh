#!/usr/bin/env bash
# compute-sanitizer over the whole quick suite, one process per op side by side (they share the
# GPU; the quick problems are small), so memcheck of every variant fits in minutes:
#   scripts/device/sanitize.sh TOOL OUT_DIR [extra normbench run options...]
# TOOL is memcheck, racecheck, initcheck or synccheck. racecheck checks shared-memory hazards,
# so it runs the variants whose kernels are ours (library kinds cudnn and cublas are left out:
# their kernels are not this project's to fix). Prints one line per op and a total; exits 1
# when any op reported an error or its run failed. NB_SANITIZE_OPS="op op ..." narrows the ops
# (default: all).
set -uo pipefail
source "$(dirname "$0")/../lib/common.sh"
tool="${1:?usage: sanitize.sh TOOL OUT_DIR [normbench run options]}"
out="${2:?usage: sanitize.sh TOOL OUT_DIR [normbench run options]}"
shift 2
bin="$NB_ROOT/build/release/normbench"
mkdir -p "$out"

source "$(dirname "$0")/../lib/sanitize_selection.sh"
own_variants() { nb_own_variants "$bin" "$1"; }

sanitize_op() {
  local op="$1"; shift
  local select=()
  if [ "$tool" = racecheck ]; then
    local variants; variants=$(own_variants "$op")
    [ -n "$variants" ] || { echo "$op: no variants of ours"; return 0; }
    select=(--variant "$variants")
  fi
  compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 \
    "$bin" run --suite quick --op "$op" "${select[@]}" --validate-only --quiet --out "$out/reports-$op" "$@" \
    > "$out/$tool-$op.log" 2>&1
  local status=$?
  local summary; summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool-$op.log" | tail -1)
  # Without a summary the sanitizer never ran the op to the end: say what its log ends with.
  echo "$op: exit $status, ${summary:-no summary: $(grep -v '^\s*$' "$out/$tool-$op.log" | tail -1)}"
}
export -f sanitize_op own_variants nb_own_variants
export tool out bin

ops=${NB_SANITIZE_OPS:-$("$bin" list ops | awk '/^[a-z]/ { print $1 }')}
results=$(printf '%s\n' $ops | xargs -P "${NB_SANITIZE_PARALLEL:-$(nb_jobs)}" -I{} bash -c 'sanitize_op "$@"' _ {} "$@")
printf '%s\n' "$results" | sort
# normbench exits 1 for a verdict that is not passed; the sanitizer's own code is 99.
if printf '%s\n' "$results" | grep -qE 'exit 99|[^0-9][1-9][0-9]* (error|hazard)|no summary'; then
  echo "$tool: FAILED"
  exit 1
fi
echo "$tool: clean over $(printf '%s\n' $ops | wc -l) ops"
