#!/usr/bin/env bash
# scripts/bench.sh's arguments to `normbench run`: the user's --suite, --out and --device(s)
# replace its defaults instead of repeating an option normbench takes once.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib/bench_args.sh"
fail=0
expect() {  # expect NAME EXPECTED [user arguments...]
  local name="$1" expected="$2"; shift 2
  nb_bench_run_args /nb "$@"
  local actual="${NB_BENCH_ARGS[*]}"
  if [ "$expected" != "$actual" ]; then echo "FAIL $name: expected '$expected', got '$actual'"; fail=1; else echo "ok   $name"; fi
}
expect "defaults" "run --suite kb --out /nb/reports --devices all"
expect "extra arguments follow" "run --suite kb --out /nb/reports --devices all --op softmax" --op softmax
expect "--suite replaces kb" "run --out /nb/reports --devices all --suite quick" --suite quick
expect "--suite= replaces kb" "run --out /nb/reports --devices all --suite=quick" --suite=quick
expect "--out replaces reports" "run --suite kb --devices all --out /tmp/r" --out /tmp/r
expect "--out= replaces reports" "run --suite kb --devices all --out=/tmp/r" --out=/tmp/r
expect "--problem replaces the suite" "run --out /nb/reports --devices all --problem softmax/m7_n31/fp32" --problem softmax/m7_n31/fp32
expect "--params= replaces the suite" "run --out /nb/reports --devices all --op softmax --params=m=4,n=8" --op softmax --params=m=4,n=8
expect "--device replaces --devices all" "run --suite kb --out /nb/reports --device 1" --device 1
expect "--profile runs on one device" "run --suite kb --out /nb/reports --profile" --profile
expect "all three" "run --suite llm --out o --devices 0,2" --suite llm --out o --devices 0,2
nb_bench_run_args /nb --op 'a b'
[ "${#NB_BENCH_ARGS[@]}" = 9 ] || { echo "FAIL an argument with a blank stays one argument"; fail=1; }
exit $fail
