#!/usr/bin/env bash
# Coverage-guided fuzzing of what reads users' input (docs/fuzzing.md): builds the libFuzzer
# targets (preset fuzz: clang, ASan, UBSan, no CUDA) and runs each for SECONDS on its corpus.
#   scripts/fuzz.sh [--keep] [SECONDS] [TARGET...]     (default 60 s; targets: report npy params problem_id)
# New inputs and findings go to a scratch folder outside the repository, $NB_FUZZ_WORK (default
# ${TMPDIR:-/tmp}/normbench-fuzz/<target>/: corpus/ and findings/); the corpus in the repository,
# tests/fuzz/corpus/<target>/, is only read. --keep adds to it the new inputs that reach coverage
# it lacks (libFuzzer's -merge=1) and each finding's input (finding-*). Runs under nice; a
# finding makes the script exit 1 after every target ran.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
cd "$NB_ROOT"

ALL_TARGETS=(report npy params problem_id)
keep=0
if [ "${1:-}" = "--keep" ]; then keep=1; shift; fi
seconds=60
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds="$1"; shift; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
for t in "${targets[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || nb_die "unknown target '$t' (targets: ${ALL_TARGETS[*]})"
done

# clang and its libFuzzer runtime (libclang-rt-<version>-dev), installed when missing.
fuzzer_runtime() { [ -f "$(clang++ -print-runtime-dir 2>/dev/null)/libclang_rt.fuzzer-x86_64.a" ]; }
command -v clang++ >/dev/null 2>&1 || nb_apt_install clang
command -v clang++ >/dev/null 2>&1 || nb_die "clang++ is missing and could not be installed"
clang_major="$(clang++ -dumpversion | cut -d. -f1)"
fuzzer_runtime || nb_apt_install "libclang-rt-$clang_major-dev"
fuzzer_runtime || nb_die "libFuzzer's runtime is missing (Debian: libclang-rt-$clang_major-dev)"

nb_say "configuring and building the fuzz targets (preset fuzz)"
cmake --preset fuzz >/dev/null || nb_die "cmake configure failed (preset fuzz)"
cmake --build --preset fuzz -j "$(nb_jobs)" >/dev/null || nb_die "build failed (preset fuzz)"

work="${NB_FUZZ_WORK:-${TMPDIR:-/tmp}/normbench-fuzz}"
found=0
for t in "${targets[@]}"; do
  program="$NB_ROOT/build/fuzz/tests/fuzz/${t}_fuzz"
  corpus="$NB_ROOT/tests/fuzz/corpus/$t"
  scratch="$work/$t/corpus" findings="$work/$t/findings"
  mkdir -p "$scratch" "$findings"
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
           -artifact_prefix="$findings/")
  [ -f "$NB_ROOT/tests/fuzz/$t.dict" ] && options+=(-dict="$NB_ROOT/tests/fuzz/$t.dict")
  # -fork keeps going after a finding (each one is still written to findings/).
  options+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  nb_say "fuzzing $t for $seconds s (log: $work/$t/fuzz.log)"
  nice "$program" "${options[@]}" "$scratch" "$corpus" >"$work/$t/fuzz.log" 2>&1 || true
  grep -E '^#[0-9]+: cov:' "$work/$t/fuzz.log" | tail -1 >&2 || true
  mapfile -t crashes < <(find "$findings" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \))
  if [ ${#crashes[@]} -gt 0 ]; then
    found=1
    nb_say "$t: ${#crashes[@]} finding(s) in $findings"
  fi
  if [ "$keep" = 1 ]; then
    nice "$program" -merge=1 "$corpus" "$scratch" >>"$work/$t/fuzz.log" 2>&1
    for input in "${crashes[@]}"; do cp "$input" "$corpus/finding-$(basename "$input")"; done
    nb_say "$t: corpus now $(find "$corpus" -type f | wc -l) files, $(du -sh "$corpus" | cut -f1)"
  fi
done
[ "$found" = 0 ] || nb_die "findings above: fix each, keep its input in tests/fuzz/corpus/<target>/ (docs/fuzzing.md)"
nb_say "no findings"
