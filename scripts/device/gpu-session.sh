#!/usr/bin/env bash
# One GPU-host session in one command: build, GPU tests, compute-sanitizer on the quick suite,
# the default suite, and a short table last. Logs and the report land in $OUT (or out/), packed at
# the end into $OUT/session.tgz beside summary.txt (NB_PACK_OUT=0: left as they are).
#   scripts/device/gpu-session.sh [steps...]
#   steps: build test sanitize bench validate gemm gemm_profile ab profile sass torch torch_rows torch_nchw probes
#   (default: build test sanitize bench; NB_BENCH_SUITE picks the bench suite, kb by default)
set -uo pipefail
source "$(dirname "$0")/../lib/common.sh"
cd "$NB_ROOT"
OUT="${OUT:-$NB_ROOT/out}"
mkdir -p "$OUT"
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(build test sanitize bench)
bin="$NB_ROOT/build/release/normbench"
summary=()

step_build() {
  local start=$SECONDS
  NB_PRESET=release nb_configure_and_build > "$OUT/build.log" 2>&1
  local s=$?; summary+=("build: exit $s in $((SECONDS - start)) s"); tail -3 "$OUT/build.log"; return $s
}
# NB_CTEST_ARGS narrows the tests (e.g. "-L gpu" for the GPU part alone, as the issue targets time it).
# NB_CTEST_LIMIT_S stops ctest after that many seconds (so a device call keeps its limit); the tests
# it did not reach are written to $OUT/ctest-unreached.txt as a ctest -I list, and
# NB_CTEST_ARGS="-I $(cat ctest-unreached.txt)" runs exactly those in the next call (without -L: ctest
# counts -I within the labelled tests when -L is given).
step_test() {
  local start=$SECONDS
  NB_PRESET=release nb_seed_test_costs
  timeout -s INT "${NB_CTEST_LIMIT_S:-86400}" \
    ctest --preset release -j "$(nb_jobs)" --timeout 600 ${NB_CTEST_ARGS:-} > "$OUT/ctest.log" 2>&1
  local s=$? args=${NB_CTEST_ARGS:-}
  summary+=("ctest ${args:0:40}: exit $s in $((SECONDS - start)) s, $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")")
  grep -E "Failed|\*\*\*|Not Run|tests passed|tests failed" "$OUT/ctest.log" | tail -25
  record_unreached_tests
}
# The tests ctest -N selects that have no result line in ctest.log, as "0,0,0,n1,n2,...".
record_unreached_tests() {
  local unreached
  unreached=$(comm -23 \
    <(ctest --preset release -N ${NB_CTEST_ARGS:-} | sed -n 's/^ *Test *#\([0-9]*\):.*/\1/p' | sort) \
    <(sed -n 's/^ *[0-9]*\/[0-9]* Test *#\([0-9]*\):.*sec$/\1/p' "$OUT/ctest.log" | sort) | sort -n | paste -sd,)
  rm -f "$OUT/ctest-unreached.txt"
  [ -n "$unreached" ] || return 0
  echo "0,0,0,$unreached" > "$OUT/ctest-unreached.txt"
  summary+=("ctest: $(echo "$unreached" | tr , '\n' | wc -l) tests not reached (ctest-unreached.txt)")
}
# compute-sanitizer over the whole quick suite, one process per op side by side
# (scripts/device/sanitize.sh; NB_SANITIZE_OPS narrows the ops, NB_SANITIZE_VARIANTS the variants,
# NB_SANITIZE_CHUNK=N splits each job into jobs of N quick problems, NB_SANITIZE_JOB_S bounds each
# job). NB_SANITIZERS picks the tools, NB_SANITIZE_ARGS the run's options:
# by default one trial of one distribution, since no kernel here computes an address from a value
# (memcheck of all six took over 290 s for 2 of 13 ops on the H100); "--trials 1" alone for all.
step_sanitize() {
  local tool start
  for tool in ${NB_SANITIZERS:-memcheck racecheck}; do
    start=$SECONDS
    "$NB_ROOT/scripts/device/sanitize.sh" "$tool" "$OUT/sanitize-$tool" ${NB_SANITIZE_ARGS:---trials 1 --distributions normal} \
      > "$OUT/sanitize-$tool.log" 2>&1
    summary+=("compute-sanitizer $tool: exit $? in $((SECONDS - start)) s, $(tail -1 "$OUT/sanitize-$tool.log")")
    cat "$OUT/sanitize-$tool.log"
  done
}
step_bench() {
  local start=$SECONDS
  local suite=${NB_BENCH_SUITE:-kb}
  "$bin" run --suite "$suite" --out "$NB_ROOT/reports" "${NB_BENCH_ARGS[@]}" > "$OUT/bench.log" 2> "$OUT/bench-progress.log"
  local s=$?
  summary+=("bench ($suite suite): exit $s in $((SECONDS - start)) s")
  local report; report=$(grep -o 'report: .*' "$OUT/bench.log" | tail -1 | cut -d' ' -f2)
  [ -n "$report" ] && tar -czf "$OUT/report.tgz" -C "$NB_ROOT" "$(realpath --relative-to="$NB_ROOT" "$(dirname "$report")")"
  sed -n '/^copy ceiling/,$p' "$OUT/bench.log"
}

# The same suite from a base tree and this one, compared (scripts/device/ab.sh): NB_AB_BASE is the
# base tree's archive or the change as a patch (this tree less it, rebuilt in place), NB_AB_ARGS the
# run's options (default --suite quick), NB_AB_ROUNDS the alternated rounds (default 1).
step_ab() {
  local start=$SECONDS
  "$NB_ROOT/scripts/device/ab.sh" "${NB_AB_BASE:?NB_AB_BASE: the base tree archive or patch}" ${NB_AB_ARGS:-} 2>&1 | tee "$OUT/ab.log"
  local s=${PIPESTATUS[0]}
  summary+=("ab (${NB_AB_ARGS:---suite quick}): exit $s in $((SECONDS - start)) s, $(sed -n 's/^\([0-9]* verdict changes.*\)/\1/p' "$OUT/ab.log")")
}

# NB_PROFILE_CASES="op:variant:problem-id ..." gets a lean Nsight Compute pass per case (kernel
# time, DRAM bytes and throughput, issue and occupancy), one CSV each, and a digest printed;
# NB_PROFILE_EXTRA_METRICS (comma-separated) adds metrics to the CSV (warp stall ratios, ...).
step_profile() {
  local spec op variant problem out
  local metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
  metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
  metrics+=,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__occupancy_limit_registers
  [ -n "${NB_PROFILE_EXTRA_METRICS:-}" ] && metrics+=",$NB_PROFILE_EXTRA_METRICS"
  mkdir -p "$OUT/profiles"
  for spec in ${NB_PROFILE_CASES:-}; do
    IFS=: read -r op variant problem <<< "$spec"
    out="$OUT/profiles/$op-$variant-$(echo "$problem" | tr '/' '_').csv"
    ncu --clock-control none --metrics "$metrics" --csv --page raw \
      "$bin" run --profile --problem "$problem" --variant "$variant" --quiet > "$out" 2> "$out.log"
    summary+=("profile $spec: exit $?")
    python3 "$NB_ROOT/scripts/device/ncu-digest.py" "$out"
  done
}

# NB_SASS_CASES="op:variant:problem-id[:units] ..." counts the instructions of the case's kernels
# (one profile-mode launch, selected by the case's NVTX range as scripts/profile.sh does) per SASS
# line, Nsight Compute's source page gzipped in $OUT/profiles, and digests them by opcode and
# stall reason (scripts/device/ncu-sass-digest.py; with units, each count divided by that many).
step_sass() {
  local spec op variant problem units out
  mkdir -p "$OUT/profiles"
  for spec in ${NB_SASS_CASES:-}; do
    IFS=: read -r op variant problem units <<< "$spec"
    out="$OUT/profiles/sass-$op-$variant-$(echo "$problem" | tr '/' '_').csv"
    ncu --nvtx --nvtx-include "normbench@$(nb_case_range "$op" "$variant" "$problem")/" --clock-control none \
      --section SourceCounters --page source --print-source sass --csv \
      "$bin" run --profile --problem "$problem" --variant "$variant" --quiet > "$out" 2> "$out.log"
    summary+=("sass $spec: exit $?")
    gzip -f "$out"
    python3 "$NB_ROOT/scripts/device/ncu-sass-digest.py" "$out.gz" ${units:+--per "$units"}
  done
}

# PyTorch eager and torch.compile on the GEMM pipeline problems (the host's torch), for ratios
# quoted beside the kb report; NB_TORCH_ARGS adds options (--backward, --quick, ...).
step_torch() {
  PYTHONUNBUFFERED=1 python3 "$NB_ROOT/scripts/device/torch_pipelines.py" --out "$OUT/torch_pipelines.json" \
    ${NB_TORCH_ARGS:-} > "$OUT/torch.log" 2>&1
  local s=$?; summary+=("torch: exit $s"); sed -n '/^forward, median/,$p' "$OUT/torch.log"
}

# The same for the row normalizations (rms_norm, layer_norm, softmax; forward and backward) in the
# llm suite's shapes; NB_TORCH_ROWS_ARGS adds options (--dtypes bf16,fp16, --quick, --ops ...).
step_torch_rows() {
  PYTHONUNBUFFERED=1 python3 "$NB_ROOT/scripts/device/torch_rows.py" --out "$OUT/torch_rows.json" \
    ${NB_TORCH_ROWS_ARGS:-} > "$OUT/torch_rows.log" 2>&1
  local s=$?; summary+=("torch_rows: exit $s"); sed -n '/^median ms/,$p' "$OUT/torch_rows.log"
}

# The same for BatchNorm2d in training and GroupNorm on the kb suite's NCHW shapes (fp32);
# NB_TORCH_NCHW_ARGS adds options (--cases op:NxCxHxW[:G],...).
step_torch_nchw() {
  PYTHONUNBUFFERED=1 python3 "$NB_ROOT/scripts/device/torch_nchw.py" --out "$OUT/torch_nchw.json" \
    ${NB_TORCH_NCHW_ARGS:-} > "$OUT/torch_nchw.log" 2>&1
  local s=$?; summary+=("torch_nchw: exit $s"); sed -n '/^median ms/,$p' "$OUT/torch_nchw.log"
}

# gemm_configs (the GEMM configurations against cuBLAS): NB_GEMM_FILTER picks the rows (a
# --benchmark_filter regex, default the Hopper GEMM's and cuBLAS's), NB_GEMM_SHAPES the shapes.
step_gemm() {
  local start=$SECONDS
  "$NB_ROOT/build/release/gemm_configs" ${NB_GEMM_SHAPES:-} --benchmark_filter="${NB_GEMM_FILTER:-Wgmma|cuBLAS_tf32|cuBLAS_bf16}" \
    > "$OUT/gemm_configs.txt" 2>&1
  local s=$?
  summary+=("gemm_configs: exit $s in $((SECONDS - start)) s")
  grep -E '^[0-9]+x[0-9]+x[0-9]+/' "$OUT/gemm_configs.txt" | sed -E 's/\/iterations:[0-9]+\/manual_time//; s/ +/ /g'
}

# Nsight Compute on the Hopper GEMM's kernels inside gemm_configs (the DRAM bytes each tile order
# reads, the test of docs/notes/hopper-gemm.md's prediction): NB_GEMM_PROFILE_SHAPE (default
# 16384x4096x4096) and NB_GEMM_PROFILE_CONFIGS (default the two tf32 orders without overlap); one
# ncu process per configuration, two of its launches after the warm-up, one line each.
step_gemm_profile() {
  local config out
  local metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct
  metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
  metrics+=,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__occupancy_limit_registers
  mkdir -p "$OUT/profiles"
  for config in ${NB_GEMM_PROFILE_CONFIGS:-Wgmma128x256 Wgmma128x256Grouped}; do
    out="$OUT/profiles/gemm-$config.csv"
    ncu --clock-control none --kernel-name regex:wgmma_gemm_kernel --launch-skip 3 --launch-count 2 \
      --metrics "$metrics" --csv --page raw "$NB_ROOT/build/release/gemm_configs" \
      "${NB_GEMM_PROFILE_SHAPE:-16384x4096x4096}" --benchmark_filter="/$config/" > "$out" 2> "$out.log"
    summary+=("gemm_profile $config: exit $?")
    python3 "$NB_ROOT/scripts/device/ncu-digest.py" "$out"
  done
}

# The quick suite validated as on a bare machine (an empty plan cache of its own), for the
# validation's seconds (issue targets: prepare, plans built ahead, audit, variants); the report
# lands in $OUT/validate. NB_VALIDATE_ARGS adds options (--plan-threads 0 for the old way, --op ...).
step_validate() {
  local start=$SECONDS cache="$OUT/validate-plan-cache"
  rm -rf "$cache"
  "$bin" run --suite quick --validate-only --plan-cache "$cache" --out "$OUT/validate" ${NB_VALIDATE_ARGS:-} \
    > "$OUT/validate.log" 2> "$OUT/validate-progress.log"
  local s=$?
  rm -rf "$cache"
  # One file: the device tool brings back no file three folders down (report.json with its phases).
  tar -czf "$OUT/validate-report.tgz" -C "$OUT" validate && rm -rf "$OUT/validate"
  summary+=("quick --validate-only, bare plan cache: exit $s in $((SECONDS - start)) s")
  sed -n '/^where the time went/,$p' "$OUT/validate.log"
}

# The tool probes (tests/probes, built by `build`): stream_probe's streaming designs against
# cudaMemcpy on NB_STREAM_MIB MiB a buffer (1024), and the four modes of racecheck_probe (barriers)
# and of racecheck_bulk_probe (TMA copies into a ring of stages) under racecheck.
step_probes() {
  local dir="$NB_ROOT/build/release/tests" probe mode log
  local -A modes=([racecheck_probe]="block named arrive mbar" [racecheck_bulk_probe]="once ring fenced block")
  "$dir/stream_probe" "${NB_STREAM_MIB:-1024}" > "$OUT/stream_probe.txt" 2>&1
  summary+=("stream_probe: exit $?")
  cat "$OUT/stream_probe.txt"
  "$dir/epilogue_overlap_probe" time > "$OUT/epilogue_overlap_probe.txt" 2>&1
  summary+=("epilogue_overlap_probe: exit $?")
  cat "$OUT/epilogue_overlap_probe.txt"
  for probe in racecheck_probe racecheck_bulk_probe; do
    for mode in ${modes[$probe]}; do
      log="$OUT/$probe-$mode.log"
      compute-sanitizer --tool racecheck "$dir/$probe" "$mode" > "$log" 2>&1
      summary+=("$probe $mode: exit $?, $(grep -hE 'wrong|RACECHECK SUMMARY' "$log" | tr -s '= ' ' ' | paste -sd';')")
    done
  done
}

NB_BENCH_ARGS=(${NB_BENCH_ARGS:-})
for step in "${steps[@]}"; do
  echo "=== $step"
  "step_$step" || { [ "$step" = build ] && break; }
done
echo "=== summary"
printf '%s\n' "${summary[@]}"

# The GPU host's device tool brings back at most 8 files from $OUT, no deeper than two folders: a
# session's logs, reports and sanitizer folders outnumber that. So all of it goes into one archive
# beside summary.txt (and ctest-unreached.txt, which the next call reads); NB_PACK_OUT=0 keeps the
# files as they are.
pack_out() {
  printf '%s\n' "${summary[@]}" > "$OUT/summary.txt"
  local items=() path name
  for path in "$OUT"/* "$OUT"/.[!.]*; do
    [ -e "$path" ] || continue
    name=$(basename "$path")
    case "$name" in session.tgz | summary.txt | ctest-unreached.txt) continue ;; esac
    items+=("$name")
  done
  [ ${#items[@]} -gt 0 ] || return 0
  (cd "$OUT" && tar -czf session.tgz "${items[@]}" && rm -rf "${items[@]}")
}
[ "${NB_PACK_OUT:-1}" = 0 ] || pack_out
