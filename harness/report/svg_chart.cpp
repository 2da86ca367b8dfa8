#include "harness/report/svg_chart.hpp"

#include "harness/report/html_escape.hpp"
#include "harness/report/report_format.hpp"

#include <algorithm>
#include <cmath>

namespace nb {
namespace {

const char* const kPalette[] = {"#2f6fd0", "#d9822b", "#2e9d57", "#b83280", "#6b4fbb",
                                "#0f8b8d", "#c0392b", "#7a7a00", "#3d5a80", "#8d6e63"};

std::string num(double value) { return format_fixed(value, 1); }

std::string text_at(double x, double y, const std::string& text, const char* anchor = "start") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\">" +
         html_escape(text) + "</text>";
}

std::string line(double x1, double y1, double x2, double y2, const char* css_class,
                 const std::string& extra_attributes = "") {
  return "<line class=\"" + std::string(css_class) + "\"" + extra_attributes + " x1=\"" + num(x1) + "\" y1=\"" + num(y1) +
         "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\"/>";
}

std::string svg_open(double width, double height, const std::string& title) {
  return "<svg class=\"chart\" width=\"" + num(width) + "\" height=\"" +
         num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" role=\"img\"><title>" +
         html_escape(title) + "</title>" + text_at(8, 16, title);
}

// A round step so that about `count` steps cover [0, top].
double nice_step(double top, int count) {
  double raw = top / count, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= factor * magnitude) return factor * magnitude;
  return 10 * magnitude;
}

}  // namespace

std::string render_bar_chart_svg(const BarChart& chart) {
  const double label_width = 150, bar_area = 300, row_height = 20, top = 28, width = label_width + bar_area + 170;
  double largest = chart.reference.value_or(0);
  for (const BarDatum& bar : chart.bars) largest = std::max(largest, bar.value.value_or(0));
  double scale = largest > 0 ? bar_area / (largest * 1.05) : 0;
  double height = top + row_height * chart.bars.size() + 22;
  std::string svg = svg_open(width, height, chart.title);
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const BarDatum& bar = chart.bars[i];
    double y = top + row_height * i;
    svg += text_at(label_width - 6, y + 13, bar.label, "end");
    double length = bar.value ? std::max(0.0, *bar.value) * scale : 0;
    if (bar.value)
      svg += "<rect class=\"bar " + html_escape(bar.css_class) + "\" x=\"" + num(label_width) + "\" y=\"" +
             num(y + 3) + "\" width=\"" + num(length) + "\" height=\"" + num(row_height - 6) + "\"><title>" +
             html_escape(bar.label + ": " + format_fixed(*bar.value, 1) + chart.unit) + "</title></rect>";
    std::string value_text = bar.value ? format_fixed(*bar.value, 1) + chart.unit : "";
    if (!bar.note.empty()) value_text += (value_text.empty() ? "" : " ") + bar.note;
    svg += text_at(label_width + length + 4, y + 13, value_text);
  }
  double axis_bottom = top + row_height * chart.bars.size();
  svg += line(label_width, top, label_width, axis_bottom, "axis");
  if (chart.reference && scale > 0) {
    double x = label_width + *chart.reference * scale;
    svg += line(x, top - 4, x, axis_bottom, "ref") + text_at(x, axis_bottom + 14, chart.reference_label, "middle");
  }
  return svg + "</svg>\n";
}

namespace {

struct LogXFrame {
  double left = 70, right = 170, top = 30, bottom = 50, width = 760, height = 380;
  double log_min = 0, log_max = 1, y_max = 1;
  double px(double x) const {
    return left + (std::log10(x) - log_min) / (log_max - log_min) * (width - left - right);
  }
  double py(double y) const { return height - bottom - y / y_max * (height - top - bottom); }
};

LogXFrame frame_for(const LogXChart& chart) {
  LogXFrame frame;
  double x_min = INFINITY, x_max = 0, y_max = chart.horizontal ? chart.horizontal->value : 0;
  for (const ChartSeries& series : chart.series)
    for (const ChartPoint& point : series.points) {
      if (point.x > 0) x_min = std::min(x_min, point.x), x_max = std::max(x_max, point.x);
      y_max = std::max(y_max, point.y);
    }
  if (chart.vertical && chart.vertical->value > 0)
    x_min = std::min(x_min, chart.vertical->value), x_max = std::max(x_max, chart.vertical->value);
  if (!(x_max > 0)) x_min = 1, x_max = 10;
  frame.log_min = std::floor(std::log10(x_min));
  frame.log_max = std::max(frame.log_min + 1, std::ceil(std::log10(x_max)));
  frame.y_max = y_max > 0 ? y_max * 1.1 : 1;
  return frame;
}

std::string log_x_axes(const LogXFrame& f, const LogXChart& chart) {
  std::string svg;
  double step = nice_step(f.y_max, 5);
  for (double y = 0; y <= f.y_max; y += step)
    svg += line(f.left, f.py(y), f.width - f.right, f.py(y), "grid") + text_at(f.left - 6, f.py(y) + 4, format_fixed(y, 0), "end");
  for (double e = f.log_min; e <= f.log_max; e += 1) {
    double x = f.px(std::pow(10.0, e));
    svg += line(x, f.top, x, f.height - f.bottom, "grid") +
           text_at(x, f.height - f.bottom + 16, format_bytes_decimal(std::pow(10.0, e)), "middle");
  }
  svg += line(f.left, f.height - f.bottom, f.width - f.right, f.height - f.bottom, "axis");
  svg += line(f.left, f.top, f.left, f.height - f.bottom, "axis");
  svg += text_at((f.left + f.width - f.right) / 2, f.height - 10, chart.x_label, "middle");
  svg += "<text x=\"14\" y=\"" + num((f.top + f.height - f.bottom) / 2) + "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " +
         num((f.top + f.height - f.bottom) / 2) + ")\">" + html_escape(chart.y_label) + "</text>";
  return svg;
}

std::string log_x_markers(const LogXFrame& f, const LogXChart& chart) {
  std::string svg;
  if (chart.vertical && chart.vertical->value > 0) {
    double x = f.px(chart.vertical->value);
    svg += line(x, f.top, x, f.height - f.bottom, "l2") + text_at(x + 3, f.top + 10, chart.vertical->label);
  }
  if (chart.horizontal) {
    double y = f.py(chart.horizontal->value);
    svg += line(f.left, y, f.width - f.right, y, "ref") + text_at(f.left + 4, y - 4, chart.horizontal->label);
  }
  return svg;
}

std::string log_x_series(const LogXFrame& f, const ChartSeries& series, std::size_t index) {
  std::string colour = kPalette[index % (sizeof kPalette / sizeof kPalette[0])];
  std::vector<ChartPoint> points = series.points;
  std::sort(points.begin(), points.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
  std::string path, dots;
  for (const ChartPoint& p : points) {
    if (p.x <= 0) continue;
    path += (path.empty() ? "" : " ") + num(f.px(p.x)) + "," + num(f.py(p.y));
    dots += "<circle cx=\"" + num(f.px(p.x)) + "\" cy=\"" + num(f.py(p.y)) + "\" r=\"3.5\" fill=\"" + colour +
            "\"><title>" + html_escape(p.tooltip) + "</title></circle>";
  }
  double legend_y = f.top + 8 + 18 * index, legend_x = f.width - f.right + 14;
  std::string legend = line(legend_x, legend_y, legend_x + 18, legend_y, "legend", " stroke=\"" + colour + "\" stroke-width=\"3\"") +
                       text_at(legend_x + 24, legend_y + 4, series.name);
  return "<g class=\"series\"><polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\" points=\"" + path +
         "\"/>" + dots + legend + "</g>";
}

}  // namespace

std::string render_log_x_chart_svg(const LogXChart& chart) {
  LogXFrame frame = frame_for(chart);
  std::string svg = svg_open(frame.width, frame.height, chart.title) + log_x_axes(frame, chart);
  for (std::size_t i = 0; i < chart.series.size(); ++i) svg += log_x_series(frame, chart.series[i], i);
  return svg + log_x_markers(frame, chart) + "</svg>\n";
}

}  // namespace nb
