#include "harness/report/html_table.hpp"

#include "harness/report/html_escape.hpp"

namespace nb {

static std::string attribute(const std::string& name, const std::string& value) {
  return value.empty() ? "" : " " + name + "=\"" + html_escape(value) + "\"";
}

static std::string render_header(const std::vector<HtmlColumn>& columns) {
  std::string html = "<thead><tr>";
  for (const HtmlColumn& column : columns)
    html += "<th" + attribute("data-key", column.key) + (column.numeric ? " data-numeric=\"1\"" : "") +
            " title=\"click to sort\">" + html_escape(column.title) + "</th>";
  return html + "</tr></thead>\n";
}

static std::string render_row(const HtmlRow& row) {
  std::string html = "<tr" + attribute("class", row.css_class);
  for (const auto& [name, value] : row.data) html += " data-" + name + "=\"" + html_escape(value) + "\"";
  html += ">";
  for (const HtmlCell& cell : row.cells) {
    html += "<td" + attribute("class", cell.css_class);
    if (!cell.sort_value.empty()) html += attribute("data-sort", cell.sort_value);
    html += ">" + cell.html + "</td>";
  }
  return html + "</tr>\n";
}

std::string render_html_table(const std::vector<HtmlColumn>& columns, const std::vector<HtmlRow>& rows,
                              const std::string& table_class) {
  std::string html = "<table class=\"sortable " + html_escape(table_class) + "\">\n" + render_header(columns);
  html += "<tbody>\n";
  for (const HtmlRow& row : rows) html += render_row(row);
  return html + "</tbody></table>\n";
}

std::string html_chip(const std::string& text, const std::string& css_class, const std::string& title) {
  return "<span class=\"chip " + html_escape(css_class) + "\"" + attribute("title", title) + ">" +
         html_escape(text) + "</span>";
}

std::string html_filter_select(const std::string& key, const std::string& label,
                               const std::vector<std::string>& values) {
  std::string html = "<label>" + html_escape(label) + " <select data-filter=\"" + html_escape(key) +
                     "\"><option value=\"\">all</option>";
  for (const std::string& value : values)
    html += "<option value=\"" + html_escape(value) + "\">" + html_escape(value) + "</option>";
  return html + "</select></label>\n";
}

}  // namespace nb
