#!/usr/bin/env bash
# compute-sanitizer over the whole quick suite, one process per job side by side (they share the
# GPU; the quick problems are small), so memcheck of every variant fits in minutes:
#   scripts/device/sanitize.sh TOOL OUT_DIR [extra normbench run options...]
# TOOL is memcheck, racecheck, initcheck or synccheck. racecheck checks shared-memory hazards,
# so it runs the variants whose kernels are ours (library kinds cudnn and cublas are left out:
# their kernels are not this project's to fix), one job per variant (scripts/lib/
# sanitize_selection.sh); memcheck one job per op. Prints one line per job and a total; exits 1
# when any job reported an error, ran out of time or its run failed. NB_SANITIZE_OPS="op op ..."
# narrows the ops (default: all), NB_SANITIZE_VARIANTS="name ..." the variants (one job each),
# NB_SANITIZE_CHUNK=N splits each job into jobs of N quick problems (scripts/lib/sanitize_selection.sh).
# NB_SANITIZE_PARALLEL=N runs at most N jobs at once (default: nb_jobs).
set -uo pipefail
source "$(dirname "$0")/../lib/common.sh"
tool="${1:?usage: sanitize.sh TOOL OUT_DIR [normbench run options]}"
out="${2:?usage: sanitize.sh TOOL OUT_DIR [normbench run options]}"
shift 2
bin="$NB_ROOT/build/release/normbench"
mkdir -p "$out"

source "$(dirname "$0")/../lib/sanitize_selection.sh"

# One job: an op, or one of its variants, with the run options in NB_SANITIZE_RUN_ARGS.
# NB_SANITIZE_JOB_S stops a job after that many seconds (default: none); its line then says so
# and shows the last progress line (the case it had reached).
# A third field (NB_SANITIZE_CHUNK) names the job's problems, its name then ends in its first one's.
sanitize_job() {
  local op="$1" variant="${2:-}" problems="${3:-}"
  [ "$variant" = - ] && variant=""
  local name="$op${variant:+-$variant}" select=() cases=(--suite quick)
  [ -n "$variant" ] && select=(--variant "$variant")
  if [ -n "$problems" ]; then
    local first="${problems%%,*}"
    first="${first#"$op"/}"
    name="$name-${first//\//_}"
    IFS=, read -r -a cases <<< "$problems"
    cases=(--problem "${cases[@]}")
  fi
  local log="$out/$tool-$name.log"
  # shellcheck disable=SC2086  # the run options, one word each
  timeout -k 20 "${NB_SANITIZE_JOB_S:-0}" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 \
    "$bin" run "${cases[@]}" --op "$op" "${select[@]}" --validate-only --out "$out/reports-$name" \
    $NB_SANITIZE_RUN_ARGS > "$log" 2>&1
  local status=$?
  local summary last=""
  summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)
  [ "$status" = 124 ] && summary="timed out after ${NB_SANITIZE_JOB_S} s"
  # Without a summary the sanitizer never ran the job to the end: say what its log ends with.
  [ -z "$summary" ] || [ "$status" = 124 ] && last=": $(grep -vE '^\s*$|COMPUTE-SANITIZER' "$log" | tail -1)"
  echo "$name: exit $status, ${summary:-no summary}$last"
}
export -f sanitize_job
export tool out bin
export NB_SANITIZE_RUN_ARGS="$*"

ops=${NB_SANITIZE_OPS:-$("$bin" list ops | awk '/^[a-z]/ { print $1 }')}
jobs=$(nb_sanitize_jobs "$bin" "$tool" $ops) || nb_die "no $tool jobs: the selection failed"
[ -n "$jobs" ] || nb_die "no $tool jobs for the ops: $ops"
results=$(printf '%s\n' "$jobs" | xargs -P "${NB_SANITIZE_PARALLEL:-$(nb_jobs)}" -L1 bash -c 'sanitize_job "$@"' _)
printf '%s\n' "$results" | sort
# normbench exits 1 for a verdict that is not passed (the validation is not this check's to
# judge); any other code (the sanitizer's own 99, a device error, a timeout) fails, as do errors
# or hazards counted and a missing summary.
if printf '%s\n' "$results" | grep -qvE '^[^ ]+: exit [01], ' ||
  printf '%s\n' "$results" | grep -qE '[^0-9][1-9][0-9]* (error|hazard)|no summary'; then
  echo "$tool: FAILED"
  exit 1
fi
echo "$tool: clean over $(printf '%s\n' $ops | wc -l) ops in $(printf '%s\n' "$jobs" | wc -l) jobs"
