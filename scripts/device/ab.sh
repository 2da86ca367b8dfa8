#!/usr/bin/env bash
# One suite from two source trees on one machine in one session, and `normbench compare` between
# them: the check that a change meant to leave behaviour alone (a move, a refactor) keeps every
# verdict and every time within noise, or the A/B of a change meant to move the times. Reports from
# two sessions differ by the machine as well.
#   scripts/device/ab.sh BASE [normbench run options...]     (default: --suite quick)
# BASE is the base tree, made where git is, either as an archive (built whole beside this tree):
#   git archive REV -- . ':!reports' ':!docs' | gzip > ab-base.tar.gz
# or as the change itself (BASE ending in .patch or .diff: this tree less the change, built in
# place by ninja, which recompiles only the files the change touches; the tree is put back and
# rebuilt after):
#   git diff REV -- kernels harness > ab.patch
# (ignored by git: name it among the paths a remote run carries). The new tree is this one, built
# by gpu-session.sh's build step first. The runs go base, new (NB_AB_SIDES picks them), NB_AB_ROUNDS
# times (default 1; rounds after the first alternate again, so that a drift of the machine shows
# as a spread instead of a difference), and the reports (reports.tgz), each round's comparison
# (text and JSON) and the logs land in $OUT/ab/. Exits as compare does with --fail-on-regression
# 1000: 1 when a verdict changed for the worse in any round.
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
# The base's own commit, from the archive git wrote (else "unknown"), for its build and its run:
# unpacked inside this work tree, the base would otherwise take this tree's commit for its reports
# (a base older than the build-time stamp asks git when it runs, so the run is told too). A patch
# base is this tree's commit less the change.
case "$base_archive" in
  *.patch | *.diff)
    base_commit="${NORMBENCH_GIT_COMMIT:-$(git -C "$NB_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)}-base" ;;
  *) base_commit=$(gzip -dc "$base_archive" | git get-tar-commit-id 2>/dev/null) ;;
esac
base_bin="$base_src/build/release/normbench"
build_base() {
  local start=$SECONDS
  (cd "$base_src" && export NORMBENCH_GIT_COMMIT="${base_commit:-unknown}" NORMBENCH_GIT_DIRTY=0 &&
    cmake --preset release >/dev/null && cmake --build --preset release -j "$(nb_jobs)" --target normbench) \
    > "$out/base-build.log" 2>&1 || nb_die "the base tree did not build ($out/base-build.log)"
  echo "$archive_sum" > "$base_src/.archive-sha256"
  nb_say "base built in $((SECONDS - start)) s"
}
# A patch base: the change taken out of this tree, normbench rebuilt and kept aside as the base's,
# then the change put back and this tree rebuilt again, so that the build folder's objects and
# libraries are this tree's once more. (Copying back only this tree's normbench left the base's
# objects in the folder, and a later call on the same machine, its sources copied in with the times
# they had where they came from, older than those objects, built and ran the base as the new tree:
# ninja saw nothing to do.)
# A base built by an earlier call on this machine is kept for the same patch over the same tree.
build_base_from_patch() {
  local start=$SECONDS
  local key; key="$archive_sum $(sha256sum "$new_bin" | cut -d' ' -f1)"
  [ "$(cat "$base_bin.key" 2>/dev/null)" = "$key" ] && return 0
  patch -R -p1 --dry-run -s -d "$NB_ROOT" < "$base_archive" > "$out/base-build.log" 2>&1 ||
    nb_die "$base_archive does not come out of this tree ($out/base-build.log)"
  patch -R -p1 -s -d "$NB_ROOT" < "$base_archive" || nb_die "cannot take $base_archive out"
  (cd "$NB_ROOT" && export NORMBENCH_GIT_COMMIT="$base_commit" NORMBENCH_GIT_DIRTY=0 &&
    cmake --build --preset release -j "$(nb_jobs)" --target normbench) >> "$out/base-build.log" 2>&1
  local built=$?
  mkdir -p "$(dirname "$base_bin")" && { [ $built -ne 0 ] || cp "$new_bin" "$base_bin"; }
  patch -p1 -s -d "$NB_ROOT" < "$base_archive" || nb_die "cannot put $base_archive back"
  (cd "$NB_ROOT" && cmake --build --preset release -j "$(nb_jobs)") > "$out/new-rebuild.log" 2>&1 ||
    nb_die "this tree did not build again after the base ($out/new-rebuild.log)"
  [ $built -eq 0 ] || nb_die "the base did not build ($out/base-build.log)"
  key="$archive_sum $(sha256sum "$new_bin" | cut -d' ' -f1)"
  echo "$key" > "$base_bin.key"
  nb_say "base built from the patch, and this tree again, in $((SECONDS - start)) s"
}
case "$base_archive" in
  *.patch | *.diff)
    base_build=build_base_from_patch
    base_bin="$NB_ROOT/build/ab-base-patch/normbench"
    ;;
  *)
    base_build=build_base
    if [ "$(cat "$base_src/.archive-sha256" 2>/dev/null)" != "$archive_sum" ]; then
      rm -rf "$base_src" && mkdir -p "$base_src"
      tar -xzf "$base_archive" -C "$base_src" || nb_die "cannot unpack $base_archive"
    else
      base_build=true  # built by an earlier call
    fi
    ;;
esac

rounds="${NB_AB_ROUNDS:-1}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || nb_die "NB_AB_ROUNDS: '$rounds' is not a count of rounds"
# Round r's sides are base and new (r = 1), then base-r and new-r.
round_suffix() { [ "$1" -eq 1 ] || echo "-$1"; }
for side in $sides; do [ "$side" = base ] && { $base_build || exit 1; }; done
for ((round = 1; round <= rounds; ++round)); do
  suffix=$(round_suffix $round)
  for side in $sides; do
    case "$side" in
      base) NORMBENCH_GIT_COMMIT="${base_commit:-unknown}" NORMBENCH_GIT_DIRTY=0 run_side "base$suffix" "$base_bin" ;;
      new) run_side "new$suffix" "$new_bin" ;;
      *) nb_die "NB_AB_SIDES: '$side' is neither base nor new" ;;
    esac
  done
done
# The reports as one archive: the device tool brings back no file three folders down.
sides_run=()
for ((round = 1; round <= rounds; ++round)); do
  for side in base new; do
    [ -d "$runs/$side$(round_suffix $round)" ] && sides_run+=("$side$(round_suffix $round)")
  done
done
[ ${#sides_run[@]} -eq 0 ] || tar -czf "$out/reports.tgz" -C "$runs" "${sides_run[@]}"
status=0
for ((round = 1; round <= rounds; ++round)); do
  suffix=$(round_suffix $round)
  base_report=$(report_of "base$suffix")
  new_report=$(report_of "new$suffix")
  if [ -z "$base_report" ] || [ -z "$new_report" ]; then
    nb_say "no comparison yet: base report '${base_report:-none}', new report '${new_report:-none}'"
    continue
  fi
  [ "$rounds" -eq 1 ] || nb_say "round $round"
  "$new_bin" compare "$base_report" "$new_report" --json > "$out/compare$suffix.json"
  "$new_bin" compare "$base_report" "$new_report" --fail-on-regression 1000 > "$out/compare$suffix.txt" || status=1
  sed -n '1,5p' "$out/compare$suffix.txt"
  grep -vE '^(SAME +passed|UNTIMED)' "$out/compare$suffix.txt" | sed -n '6,40p'
done
exit $status
