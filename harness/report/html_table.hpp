#pragma once
// One way to write a sortable, filterable HTML table, shared by the report, compare and fleet
// pages. Cell contents are HTML the caller built (escaped with html_escape); everything this
// helper adds itself (classes, data attributes, titles) it escapes.
#include <string>
#include <utility>
#include <vector>

namespace nb {

struct HtmlColumn {
  std::string key;    // data-key of the header: a sort target for the page's hash (#sort=key)
  std::string title;  // header text
  bool numeric = false;
};

struct HtmlCell {
  std::string html;        // already escaped
  std::string css_class;   // e.g. "num fail-incorrect"
  std::string sort_value;  // data-sort; numeric columns sort by it ("" sorts last)
};

struct HtmlRow {
  std::vector<HtmlCell> cells;
  std::string css_class;                                   // failure classes of the whole row
  std::vector<std::pair<std::string, std::string>> data;   // data-* attributes used by the filters
};

std::string render_html_table(const std::vector<HtmlColumn>& columns, const std::vector<HtmlRow>& rows,
                              const std::string& table_class = "results");

// A small labelled chip, e.g. a verdict or a flag: <span class="chip CLASS" title=TITLE>TEXT</span>.
std::string html_chip(const std::string& text, const std::string& css_class, const std::string& title = "");

// <select data-filter=KEY> with "all" plus the given values, for the page's filter script.
std::string html_filter_select(const std::string& key, const std::string& label,
                               const std::vector<std::string>& values);

}  // namespace nb
