#include "harness/report/html_page.hpp"

#include "harness/report/html_escape.hpp"

namespace nb {
namespace {

const char* const kStyle = R"CSS(
:root { --ink:#1d2330; --muted:#5f6b7a; --line:#d8dde5; --head:#eef1f6; --accent:#2f6fd0; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--ink);
       margin: 0 auto; padding: 20px 28px 60px; max-width: 1500px; background: #fbfcfd; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 2px solid var(--line); }
h3 { font-size: 15px; margin: 16px 0 6px; }
.muted, .kind { color: var(--muted); } .kind { font-size: 12px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr max-content 1fr; gap: 2px 14px; margin: 8px 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
table { border-collapse: collapse; margin: 6px 0 12px; background: #fff; }
th, td { border: 1px solid var(--line); padding: 3px 7px; vertical-align: top; }
th { background: var(--head); cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " \25B2"; } th[aria-sort="descending"]::after { content: " \25BC"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr[hidden] { display: none; }
.chip { display: inline-block; border-radius: 9px; padding: 0 7px; margin: 1px 2px; font-size: 12px; border: 1px solid var(--line); white-space: nowrap; }
.chip.pass { background: #e3f4e6; border-color: #9bd1a5; } .chip.fail { background: #fbe1df; border-color: #e39a93; }
.chip.unclaimed { background: #f2f2f2; color: var(--muted); }
.chip.inconclusive { background: #fff6d6; border-color: #e0c25a; } .chip.fragile { background: #ffe9d1; border-color: #e3a86b; }
.chip.flagged { background: #ffe2c4; border-color: #e3a86b; }
.chip.flag-ftl { background: #eadcff; } .chip.flag-escapes { background: #ffe2c4; } .chip.flag-throttled { background: #fff0b3; }
.chip.flag-l2 { background: #e2eefc; }
tr.flag-throttled td { background: #fffbe6; }
tr.flag-escapes td { background: #fff1e3; }
tr.flag-ftl td { background: #f5eeff; }
tr.skipped td { background: #f4f4f4; color: var(--muted); font-style: italic; }
.run-state { background: #fbe1df; border: 1px solid #e39a93; border-radius: 6px; padding: 4px 12px; margin: 8px 0; }
tr.fail-incorrect td { background: #fdecea; }
tr.fail-unwritten td:first-child, tr.fail-incorrect td:first-child { box-shadow: inset 4px 0 0 #c62828; }
tr.error td { background: #fbd9d6; color: #7a1010; }
.reason { font-size: 12px; }
.failure { font-size: 12px; color: #8a1c1c; max-width: 260px; overflow-wrap: anywhere; margin-top: 2px; }
.failure.muted { color: var(--muted); }
table.results { max-width: 100%; }
details summary { cursor: pointer; color: var(--accent); font-size: 12px; }
details.kernels { max-width: 720px; overflow-x: auto; } details.kernels summary { overflow-wrap: anywhere; }
table.kernels { font-size: 12px; margin: 2px 0 6px; } table.kernels td, table.kernels th { padding: 1px 5px; }
table.kernels th { cursor: default; } table.kernels td:first-child { overflow-wrap: anywhere; min-width: 12em; }
details pre { margin: 2px 0 6px; padding: 4px 6px; background: #f4f6f9; border: 1px solid var(--line);
              white-space: pre-wrap; word-break: break-all; max-width: 560px; font-size: 12px; }
.controls { position: sticky; top: 0; background: #fbfcfd; padding: 6px 0; border-bottom: 1px solid var(--line); z-index: 2; }
.controls label { margin-right: 14px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
svg.chart { background: #fff; border: 1px solid var(--line); }
svg.chart text { font: 11px system-ui, "DejaVu Sans", sans-serif; fill: var(--ink); }
svg.chart .axis { stroke: #8a94a3; } svg.chart .grid { stroke: #eceff3; }
svg.chart .bar { fill: #4f86d8; } svg.chart .bar.fail-incorrect, svg.chart .bar.fail-unwritten { fill: #d64541; }
svg.chart .bar.flag-ftl { fill: #8e5bd6; } svg.chart .bar.flag-throttled { fill: #e0b02c; }
svg.chart .ref { stroke: #c62828; stroke-dasharray: 5 3; } svg.chart .l2 { stroke: #6b7785; stroke-dasharray: 2 3; }
.warning { background: #fff4d6; border: 1px solid #e8c66a; padding: 6px 10px; margin: 8px 0; }
.cmp-slower td.change { background: #fbe1df; font-weight: 600; } .cmp-faster td.change { background: #e3f4e6; font-weight: 600; }
tr.verdict-regressed td { background: #fdecea; } tr.verdict-fixed td { background: #eaf7ec; }
#script-errors:empty { display: none; } #script-errors { color: #b00020; }
)CSS";

// Runs first: records any uncaught error, so a test (or a reader) can see the page broke.
const char* const kErrorTrap = R"JS(
window.nbErrors = [];
window.onerror = function (message, source, line) {
  window.nbErrors.push(message + " (line " + line + ")");
  var box = document.getElementById("script-errors");
  if (box) box.textContent = window.nbErrors.join("\n");
  if (document.body) document.body.dataset.ready = "error";
};
)JS";

// Sorting by header click, filtering by the selects, and views named in the URL hash:
// #op=rmsnorm_rows&variant=warp&verdict=incorrect&sort=gbps:desc
const char* const kPageScript = R"JS(
(function () {
  // Direct children only: a cell may hold a table of its own (a row's kernels).
  var rows = Array.prototype.slice.call(document.querySelectorAll("table.sortable > tbody > tr"));
  var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-filter]"));
  function sortValue(row, index, numeric) {
    var cell = row.cells[index];
    var raw = cell ? (cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim()) : "";
    if (!numeric) return raw.toLowerCase();
    var value = parseFloat(raw);
    return isNaN(value) ? null : value;
  }
  function sortTable(header, direction) {
    var table = header.closest("table"), body = table.tBodies[0];
    var index = header.cellIndex, numeric = header.dataset.numeric === "1", sign = direction === "descending" ? -1 : 1;
    var sorted = Array.prototype.slice.call(body.rows).sort(function (a, b) {
      var x = sortValue(a, index, numeric), y = sortValue(b, index, numeric);
      if (x === null || y === null) return (x === null) - (y === null);
      return x < y ? -sign : x > y ? sign : 0;
    });
    sorted.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(header.parentNode.cells, function (cell) { cell.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", direction);
  }
  function applyFilters() {
    var active = selects.filter(function (s) { return s.value !== ""; });
    var shown = 0;
    rows.forEach(function (row) {
      var visible = active.every(function (s) {
        var value = row.dataset[s.dataset.filter];
        return value === undefined || value === s.value;
      });
      row.hidden = !visible;
      if (visible) shown++;
    });
    document.body.dataset.shownRows = String(shown);
    var counter = document.getElementById("shown-count");
    if (counter) counter.textContent = shown + " of " + rows.length + " rows shown";
  }
  function applyHash() {
    var params = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var parts = pair.split("=");
      if (parts[0]) params[decodeURIComponent(parts[0])] = decodeURIComponent(parts[1] || "");
    });
    selects.forEach(function (s) {
      var wanted = params[s.dataset.filter];
      if (wanted !== undefined && Array.prototype.some.call(s.options, function (o) { return o.value === wanted; })) s.value = wanted;
    });
    if (params.sort) {
      var key = params.sort.split(":")[0], direction = params.sort.split(":")[1] === "desc" ? "descending" : "ascending";
      document.querySelectorAll("th[data-key]").forEach(function (th) { if (th.dataset.key === key) sortTable(th, direction); });
    }
  }
  document.querySelectorAll("table.sortable > thead > tr > th").forEach(function (th) {
    th.addEventListener("click", function () {
      sortTable(th, th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending");
    });
  });
  selects.forEach(function (s) { s.addEventListener("change", applyFilters); });
  window.addEventListener("hashchange", function () { applyHash(); applyFilters(); });
  applyHash();
  applyFilters();
  document.body.dataset.ready = window.nbErrors.length ? "error" : "ok";
})();
)JS";

}  // namespace

std::string render_html_page(const std::string& title, const std::string& body_html) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<title>" + html_escape(title) + "</title>\n";
  html += "<script>" + std::string(kErrorTrap) + "</script>\n";
  html += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  html += "<pre id=\"script-errors\"></pre>\n";
  html += body_html;
  html += "\n<script>" + std::string(kPageScript) + "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace nb
