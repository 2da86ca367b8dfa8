#!/usr/bin/env bash
# scripts/device/sanitize.sh's jobs (scripts/lib/sanitize_selection.sh): every op gets racecheck
# jobs, one per variant of ours, and each job's variant is a name `normbench run --variant` takes,
# on one quick problem (without a GPU the run stops at the device, exit 3; with one it runs: 0 or
# 1). A usage error (2) fails: a listing row that is not a variant (the n/a rows) once made
# racecheck of seven ops die unseen. memcheck gets one job per op; NB_SANITIZE_VARIANTS narrows
# both tools to the variants it names; NB_SANITIZE_CHUNK deals each job's quick problems into jobs
# of at most that many, every problem in exactly one, in a run normbench takes.
#   sanitize_selection_test.sh NORMBENCH
set -uo pipefail
source "$(dirname "$0")/../../scripts/lib/sanitize_selection.sh"
bin="${1:?usage: sanitize_selection_test.sh NORMBENCH}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
ops=$("$bin" list ops | awk '/^[a-z]/ { print $1 }')
memcheck_jobs=$(nb_sanitize_jobs "$bin" memcheck $ops)
if [ "$memcheck_jobs" != "$(printf '%s\n' $ops)" ]; then
  echo "FAIL memcheck: jobs are not one per op: $memcheck_jobs"; fail=1
fi
for op in $ops; do
  jobs=$(nb_sanitize_jobs "$bin" racecheck "$op")
  problem=$("$bin" list problems --op "$op" --suite quick | awk 'NR == 1 { print $1 }')
  if [ -z "$jobs" ] || [ -z "$problem" ]; then
    echo "FAIL $op: no racecheck jobs ('$jobs') or no quick problem ('$problem')"; fail=1; continue
  fi
  while read -r job_op variant; do
    if [ "$job_op" != "$op" ] || [ -z "$variant" ] || [ "$variant" = cudnn ] || [ "$variant" = cublas ]; then
      echo "FAIL $op: job '$job_op $variant' is not one variant of ours of this op"; fail=1; continue
    fi
    "$bin" run --op "$op" --variant "$variant" --problem "$problem" --validate-only --distributions normal \
      --trials 1 --quiet --out "$out" > "$out/$op-$variant.log" 2>&1
    status=$?
    if [ "$status" = 2 ]; then
      echo "FAIL $op: normbench refused --variant $variant: $(tail -1 "$out/$op-$variant.log")"; fail=1
    else
      echo "ok   $op $variant (exit $status)"
    fi
  done <<< "$jobs"
done
# NB_SANITIZE_VARIANTS narrows both tools to the named variants of ours, in the ops that have them.
narrowed=$(NB_SANITIZE_VARIANTS="fused_tma naive" nb_sanitize_jobs "$bin" memcheck rmsnorm_rows_bwd softmax)
expected=$(printf '%s\n' "rmsnorm_rows_bwd naive" "rmsnorm_rows_bwd fused_tma" "softmax naive")
if [ "$narrowed" != "$expected" ]; then
  echo "FAIL NB_SANITIZE_VARIANTS: jobs '$narrowed', expected '$expected'"; fail=1
fi
narrowed=$(NB_SANITIZE_VARIANTS="cudnn" nb_sanitize_jobs "$bin" racecheck rmsnorm_rows_bwd)
if [ -n "$narrowed" ]; then echo "FAIL NB_SANITIZE_VARIANTS: a library variant got a job: $narrowed"; fail=1; fi

# NB_SANITIZE_CHUNK: the jobs of one variant (and of memcheck's whole op, "-") cover the op's quick
# problems once, at most N a job; a chunk's run is one normbench takes.
for tool_variant in "racecheck fused" "memcheck -"; do
  read -r tool variant <<< "$tool_variant"
  select=(); [ "$variant" = - ] || select=(--variant "$variant")
  chunked=$(NB_SANITIZE_CHUNK=8 NB_SANITIZE_VARIANTS="${select[1]:-}" nb_sanitize_jobs "$bin" "$tool" rmsnorm_rows_bwd)
  quick=$("$bin" list problems --op rmsnorm_rows_bwd --suite quick | awk '{ print $1 }' | sort)
  dealt=$(awk '{ print $3 }' <<< "$chunked" | tr ',' '\n' | sort)
  if [ "$dealt" != "$quick" ]; then echo "FAIL NB_SANITIZE_CHUNK ($tool): the chunks do not hold each quick problem once"; fail=1; fi
  if awk -v v="$variant" '$1 != "rmsnorm_rows_bwd" || $2 != v || split($3, p, ",") > 8 { bad = 1 } END { exit !bad }' <<< "$chunked"; then
    echo "FAIL NB_SANITIZE_CHUNK ($tool): a job is not 'rmsnorm_rows_bwd $variant' with at most 8 problems"; fail=1
  fi
  IFS=, read -r -a problems <<< "$(awk 'NR == 1 { print $3 }' <<< "$chunked")"
  "$bin" run --problem "${problems[@]}" --op rmsnorm_rows_bwd "${select[@]}" --validate-only --distributions normal \
    --trials 1 --quiet --out "$out" > "$out/chunk.log" 2>&1
  status=$?
  if [ "$status" = 2 ]; then
    echo "FAIL NB_SANITIZE_CHUNK ($tool): normbench refused a chunk's run: $(tail -1 "$out/chunk.log")"; fail=1
  else
    echo "ok   NB_SANITIZE_CHUNK ($tool): $(wc -l <<< "$chunked") jobs (a chunk's run exits $status)"
  fi
done
if NB_SANITIZE_CHUNK=0 nb_sanitize_jobs "$bin" memcheck softmax > /dev/null 2>&1; then
  echo "FAIL NB_SANITIZE_CHUNK=0 was taken"; fail=1
fi
exit $fail
