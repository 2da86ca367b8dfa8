#!/usr/bin/env bash
# Opens the report pages in headless Chromium and checks what a reader would see.
#   browser_report_test.sh RENDER_PAGES FIXTURE_DIR WORK_DIR
# Exit 0 pass, 1 fail, 77 skipped (no Chromium: the GPU machines have none).
# CHROMIUM=/path/to/chromium overrides the browser; KEEP_SCREENSHOT=FILE copies report.png there.
set -euo pipefail

render_pages=$1 fixture_dir=$2 work=$3
chromium=${CHROMIUM:-/usr/bin/chromium}
here=$(cd "$(dirname "$0")" && pwd)
check="python3 $here/check_report_pages.py"

if [[ ! -x $chromium ]]; then
  echo "SKIP: $chromium is not installed (apt-get install chromium)"
  exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 is not installed (the page checks are a Python script)"
  exit 77
fi

rm -rf "$work" && mkdir -p "$work"
"$render_pages" "$fixture_dir" "$work" > "$work/render.log"

# One fresh profile per launch; nothing on the network, nothing remembered.
run_chromium() {
  local profile
  profile=$(mktemp -d "$work/profile.XXXXXX")
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --no-first-run --disable-sync --user-data-dir="$profile" \
    --enable-logging=stderr --v=0 "$@"
}

# Loads a page (with an optional #hash), dumps the DOM after its scripts ran, and checks that
# the browser logged no console message (an uncaught exception shows up there).
dump_dom() {
  local page=$1 hash=$2 name=$3
  run_chromium --dump-dom "file://$work/$page.html$hash" > "$work/$name.dom" 2> "$work/$name.log"
  if grep -q ':CONSOLE' "$work/$name.log"; then
    echo "FAIL: $page.html$hash wrote to the console:"
    grep ':CONSOLE' "$work/$name.log"
    exit 1
  fi
}

dump_dom report "" report
$check dom "$work/report.dom" --tables 2 --svgs 9 --rows 24 --shown-rows 24

dump_dom report "#verdict=incorrect" report-incorrect
$check dom "$work/report-incorrect.dom" --rows 24 \
  --shown-rows "$($check count-rows "$fixture_dir/report_fixture.json" --verdict incorrect)"

dump_dom report "#op=groupnorm&verdict=passed&sort=gbps:desc" report-groupnorm
$check dom "$work/report-groupnorm.dom" --rows 24 \
  --shown-rows "$($check count-rows "$fixture_dir/report_fixture.json" --op groupnorm --verdict passed)" \
  --sorted-desc gbps

dump_dom compare "" compare
$check dom "$work/compare.dom" --tables 1 --svgs 0 --rows 25 --shown-rows 25

dump_dom fleet "" fleet
$check dom "$work/fleet.dom" --tables 2 --svgs 7 --rows 9

# Tables fit a 1240 px window (1200 px of page): many columns wrap instead of widening the page.
# A copy of each page records its tables' widths once loaded.
measure='<script>window.addEventListener("load", function () { var w = []; document.querySelectorAll("table").forEach(function (t) { w.push(Math.ceil(t.getBoundingClientRect().width)); }); document.body.setAttribute("data-table-widths", w.join(" ")); });</script>'
for page in report gemm; do
  sed "s#</body>#${measure}</body>#" "$work/$page.html" > "$work/$page-measure.html"
  run_chromium --window-size=1240,1600 --virtual-time-budget=3000 --dump-dom "file://$work/$page-measure.html" \
    > "$work/$page-measure.dom" 2> "$work/$page-measure.log"
  $check widths "$work/$page-measure.dom" --max 1200
done

run_chromium --screenshot="$work/report.png" --window-size=1400,2000 "file://$work/report.html" \
  > "$work/screenshot.log" 2>&1
$check png "$work/report.png" --width 1400 --height 2000 --min-colours 64
if [[ -n ${KEEP_SCREENSHOT:-} ]]; then cp "$work/report.png" "$KEEP_SCREENSHOT"; fi

echo "PASS: report, compare and fleet pages render in $("$chromium" --version 2>/dev/null | head -1)"
