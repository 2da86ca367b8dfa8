#!/usr/bin/env bash
# One suite from two source trees on one machine in one session, and `normbench compare` between
# them: the check that a change meant to leave behaviour alone (a move, a refactor) keeps every
# verdict and every time within noise. Reports from two sessions differ by the machine as well.
#   scripts/device/ab.sh BASE.tar.gz [normbench run options...]     (default: --suite quick)
# BASE.tar.gz is the base tree, made where git is:
#   git archive REV -- . ':!reports' ':!docs' | gzip > ab-base.tar.gz
# (ignored by git: name it among the paths a remote run carries). The new tree is this one, built
# by gpu-session.sh's build step first. The runs go base, new, and the reports, the comparison
# (text and JSON) and the logs land in $OUT/ab/. Exits as compare does with --fail-on-regression
# 1000: 1 when a verdict changed for the worse.
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

# The base tree is unpacked and built once per archive: a later call on the same machine (another
# slice of the suite, --op ...) reuses the build.
base_src="$NB_ROOT/build/ab-base"
archive_sum=$(sha256sum "$base_archive" | cut -d' ' -f1)
if [ "$(cat "$base_src/.archive-sha256" 2>/dev/null)" != "$archive_sum" ]; then
  rm -rf "$base_src" && mkdir -p "$base_src"
  tar -xzf "$base_archive" -C "$base_src" || nb_die "cannot unpack $base_archive"
fi
start=$SECONDS
(cd "$base_src" && cmake --preset release >/dev/null && cmake --build --preset release -j "$(nb_jobs)" --target normbench) \
  > "$out/base-build.log" 2>&1 || nb_die "the base tree did not build ($out/base-build.log)"
echo "$archive_sum" > "$base_src/.archive-sha256"
nb_say "base built in $((SECONDS - start)) s"

# Runs one tree's normbench over the suite into $out/<side>/ and prints the report's path.
run_side() {
  local side="$1" bin="$2" start=$SECONDS
  "$bin" run "${run_options[@]}" --out "$out/$side" > "$out/$side.log" 2> "$out/$side-progress.log"
  nb_say "$side: exit $? in $((SECONDS - start)) s"
  grep -o 'report: .*' "$out/$side.log" | tail -1 | cut -d' ' -f2
}
base_report=$(run_side base "$base_src/build/release/normbench")
new_report=$(run_side new "$new_bin")
[ -n "$base_report" ] && [ -n "$new_report" ] || nb_die "a side wrote no report (see $out/*.log)"
"$new_bin" compare "$base_report" "$new_report" --json > "$out/compare.json"
"$new_bin" compare "$base_report" "$new_report" --fail-on-regression 1000 > "$out/compare.txt"
status=$?
sed -n '1,5p' "$out/compare.txt"
grep -vE '^(SAME +passed|UNTIMED)' "$out/compare.txt" | sed -n '6,40p'
exit $status
