#pragma once
// Inline SVG charts drawn in C++: nothing to load, and the output is plain text to test.
#include <optional>
#include <string>
#include <vector>

namespace nb {

struct BarDatum {
  std::string label;
  std::optional<double> value;  // nullopt draws no bar and writes the note instead
  std::string css_class;        // failure classes, so a failed bar stands out as in the table
  std::string note;             // shown after the bar (or instead of it), e.g. "skipped"
};

struct BarChart {
  std::string title;
  std::string unit;                  // appended to each value, e.g. "%"
  std::vector<BarDatum> bars;
  std::optional<double> reference;   // a dashed vertical line, e.g. 100 (% of the copy ceiling)
  std::string reference_label;
};

// Horizontal bars, one per datum, labels on the left.
std::string render_bar_chart_svg(const BarChart& chart);

struct ChartPoint {
  double x = 0;
  double y = 0;
  std::string tooltip;
};

struct ChartSeries {
  std::string name;
  std::vector<ChartPoint> points;  // drawn in order of x
};

struct ChartMarker {
  double value = 0;
  std::string label;
};

struct LogXChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  std::optional<ChartMarker> vertical;    // at an x value, e.g. the L2 size
  std::optional<ChartMarker> horizontal;  // at a y value, e.g. the copy ceiling
};

// Lines with points: x on a log10 axis labelled as decimal byte sizes, y linear from 0.
std::string render_log_x_chart_svg(const LogXChart& chart);

}  // namespace nb
