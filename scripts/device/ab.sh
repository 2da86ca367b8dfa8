#!/usr/bin/env bash
# One suite from two source trees on one machine in one session, and `normbench compare` between
# them: the check that a change meant to leave behaviour alone (a move, a refactor) keeps every
# verdict and every time within noise. Reports from two sessions differ by the machine as well.
#   scripts/device/ab.sh BASE.tar.gz [normbench run options...]     (default: --suite quick)
# BASE.tar.gz is the base tree, made where git is:
#   git archive REV -- . ':!reports' ':!docs' | gzip > ab-base.tar.gz
# (ignored by git: name it among the paths a remote run carries). The new tree is this one, built
# by gpu-session.sh's build step first. The runs go base, new (NB_AB_SIDES picks them), and the
# reports (reports.tgz), the comparison (text and JSON) and the logs land in $OUT/ab/. Exits as
# compare does with --fail-on-regression 1000: 1 when a verdict changed for the worse.
set -uo pipefail
source "$(dirname "$0")/../lib/common.sh"
base_archive="${1:?usage: ab.sh BASE.tar.gz [normbench run options]}"
shift
[ -f "$base_archive" ] || nb_die "no base archive $base_archive"
run_options=("$@")
[ ${#run_options[@]} -gt 0 ] || run_options=(--suite quick)
OUT="${OUT:-$NB_ROOT/out}"
out="$OUT/ab"
mkdir -p "$out"
new_bin="$NB_ROOT/build/release/normbench"
[ -x "$new_bin" ] || nb_die "build this tree first (scripts/device/gpu-session.sh build)"

# The runs are kept under build/ab-runs/ (on the machine, between calls while it is warm), so that
# NB_AB_SIDES="base" in one call and NB_AB_SIDES="new" in the next split a suite too long for one
# call; the comparison runs once both sides have a report there. Each side runs with an empty plan
# cache of its own, as on a bare machine: neither loads the plans the other built.
runs="$NB_ROOT/build/ab-runs"
sides="${NB_AB_SIDES:-base new}"

# Runs one tree's normbench over the suite into $runs/<side>/; its logs land in $out.
run_side() {
  local side="$1" bin="$2" start=$SECONDS
  rm -rf "$runs/$side" "$runs/$side-plans" && mkdir -p "$runs/$side"
  "$bin" run "${run_options[@]}" --plan-cache "$runs/$side-plans" --out "$runs/$side" \
    > "$out/$side.log" 2> "$out/$side-progress.log"
  nb_say "$side: exit $? in $((SECONDS - start)) s"
  rm -rf "$runs/$side-plans"
}
report_of() { find "$runs/$1" -name report.json 2>/dev/null | head -1; }

# The base tree is unpacked and built once per archive: a later call on the same machine (another
# slice of the suite, --op ...) reuses the build.
base_src="$NB_ROOT/build/ab-base"
archive_sum=$(sha256sum "$base_archive" | cut -d' ' -f1)
if [ "$(cat "$base_src/.archive-sha256" 2>/dev/null)" != "$archive_sum" ]; then
  rm -rf "$base_src" && mkdir -p "$base_src"
  tar -xzf "$base_archive" -C "$base_src" || nb_die "cannot unpack $base_archive"
fi
# The base's own commit, from the archive git wrote (else "unknown"), for its build and its run:
# unpacked inside this work tree, the base would otherwise take this tree's commit for its reports
# (a base older than the build-time stamp asks git when it runs, so the run is told too).
base_commit=$(gzip -dc "$base_archive" | git get-tar-commit-id 2>/dev/null)
build_base() {
  local start=$SECONDS
  (cd "$base_src" && export NORMBENCH_GIT_COMMIT="${base_commit:-unknown}" NORMBENCH_GIT_DIRTY=0 &&
    cmake --preset release >/dev/null && cmake --build --preset release -j "$(nb_jobs)" --target normbench) \
    > "$out/base-build.log" 2>&1 || nb_die "the base tree did not build ($out/base-build.log)"
  echo "$archive_sum" > "$base_src/.archive-sha256"
  nb_say "base built in $((SECONDS - start)) s"
}

for side in $sides; do
  case "$side" in
    base) build_base && NORMBENCH_GIT_COMMIT="${base_commit:-unknown}" NORMBENCH_GIT_DIRTY=0 \
      run_side base "$base_src/build/release/normbench" ;;
    new) run_side new "$new_bin" ;;
    *) nb_die "NB_AB_SIDES: '$side' is neither base nor new" ;;
  esac
done
base_report=$(report_of base)
new_report=$(report_of new)
# The reports as one archive: the device tool brings back no file three folders down.
sides_run=()
for side in base new; do [ -d "$runs/$side" ] && sides_run+=("$side"); done
[ ${#sides_run[@]} -eq 0 ] || tar -czf "$out/reports.tgz" -C "$runs" "${sides_run[@]}"
if [ -z "$base_report" ] || [ -z "$new_report" ]; then
  nb_say "no comparison yet: base report '${base_report:-none}', new report '${new_report:-none}'"
  exit 0
fi
"$new_bin" compare "$base_report" "$new_report" --json > "$out/compare.json"
"$new_bin" compare "$base_report" "$new_report" --fail-on-regression 1000 > "$out/compare.txt"
status=$?
sed -n '1,5p' "$out/compare.txt"
grep -vE '^(SAME +passed|UNTIMED)' "$out/compare.txt" | sed -n '6,40p'
exit $status
