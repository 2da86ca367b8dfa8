#!/usr/bin/env bash
# scripts/device/sanitize.sh's racecheck selection (scripts/lib/sanitize_selection.sh): for every
# op, the variants it picks are names `normbench run --variant` takes, on one quick problem (without
# a GPU the run stops at the device, exit 3; with one it runs: 0 or 1). A usage error (2) fails:
# a listing row that is not a variant (the n/a rows) once made racecheck of seven ops die unseen.
#   sanitize_selection_test.sh NORMBENCH
set -uo pipefail
source "$(dirname "$0")/../../scripts/lib/sanitize_selection.sh"
bin="${1:?usage: sanitize_selection_test.sh NORMBENCH}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
for op in $("$bin" list ops | awk '/^[a-z]/ { print $1 }'); do
  variants=$(nb_own_variants "$bin" "$op")
  problem=$("$bin" list problems --op "$op" --suite quick | awk 'NR == 1 { print $1 }')
  if [ -z "$variants" ] || [ -z "$problem" ]; then
    echo "FAIL $op: no variants of ours ('$variants') or no quick problem ('$problem')"; fail=1; continue
  fi
  "$bin" run --op "$op" --variant "$variants" --problem "$problem" --validate-only --distributions normal \
    --trials 1 --quiet --out "$out" > "$out/$op.log" 2>&1
  status=$?
  if [ "$status" = 2 ]; then
    echo "FAIL $op: normbench refused --variant $variants: $(tail -1 "$out/$op.log")"; fail=1
  else
    echo "ok   $op: $variants (exit $status)"
  fi
done
exit $fail
