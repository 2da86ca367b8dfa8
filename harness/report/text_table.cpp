#include "harness/report/text_table.hpp"

#include <algorithm>

namespace nb {
namespace {

// Code points, not bytes, so "—" and "×" count as one column.
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string padded(const std::string& text, std::size_t width, bool right) {
  std::string pad(width - std::min(width, display_width(text)), ' ');
  return right ? pad + text : text + pad;
}

}  // namespace

std::string render_text_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                              const std::vector<std::size_t>& right_aligned) {
  std::vector<std::size_t> widths(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) widths[c] = display_width(header[c]);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      bool right = std::find(right_aligned.begin(), right_aligned.end(), c) != right_aligned.end();
      bool last = c + 1 == widths.size();
      std::string cell = c < cells.size() ? cells[c] : "";
      text += last && !right ? cell : padded(cell, widths[c], right);
      if (!last) text += "  ";
    }
    return text + "\n";
  };
  std::string text = line(header);
  std::size_t total = 0;
  for (std::size_t width : widths) total += width + 2;
  text += std::string(total - 2, '-') + "\n";
  for (const auto& row : rows) text += line(row);
  return text;
}

}  // namespace nb
