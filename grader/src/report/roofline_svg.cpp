#include "report/roofline_svg.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/html_page.h"

namespace grader {

namespace {

// The drawing's own units (the viewBox); the page scales it to its width.
constexpr double width = 640, height = 400;
constexpr double left = 64, right = 16, top = 16, bottom = 52;

struct Axes {
  double x_min, x_max, y_min, y_max;  // decades: log10 of flop/byte and of GFLOP/s
  double x(double intensity) const { return left + (std::log10(intensity) - x_min) / (x_max - x_min) * (width - left - right); }
  double y(double gflops) const { return height - bottom - (std::log10(gflops) - y_min) / (y_max - y_min) * (height - top - bottom); }
};

bool placeable(const RooflinePoint& p) { return p.gflops > 0 && p.gbps > 0 && std::isfinite(p.gflops) && std::isfinite(p.gbps); }

// Whole decades around every point and ceiling, with room to spare on each side.
Axes fit_axes(const std::vector<RooflineCeiling>& ceilings, const std::vector<RooflinePoint>& points) {
  double x_lo = 1e300, x_hi = 0, y_lo = 1e300, y_hi = 0;
  for (const auto& p : points) {
    if (!placeable(p)) continue;
    x_lo = std::min(x_lo, p.gflops / p.gbps), x_hi = std::max(x_hi, p.gflops / p.gbps);
    y_lo = std::min(y_lo, p.gflops), y_hi = std::max(y_hi, p.gflops);
  }
  for (const auto& c : ceilings) {
    if (c.gbps <= 0 || c.gflops <= 0) continue;
    x_hi = std::max(x_hi, 2 * c.gflops / c.gbps);  // past the ridge point, where the roof turns flat
    y_hi = std::max(y_hi, c.gflops);
  }
  Axes axes{std::floor(std::log10(x_lo / 2)), std::ceil(std::log10(x_hi * 2)), std::floor(std::log10(y_lo / 2)),
            std::ceil(std::log10(y_hi * 1.5))};
  if (axes.x_max <= axes.x_min) axes.x_max = axes.x_min + 1;
  if (axes.y_max <= axes.y_min) axes.y_max = axes.y_min + 1;
  return axes;
}

std::string number(double v) { return html::fixed(v, 2); }

std::string decade_label(double decade) {
  const double value = std::pow(10.0, decade);
  if (decade >= 0 && decade < 6) return html::fixed(value, 0);
  if (decade < 0 && decade > -4) return html::fixed(value, static_cast<int>(-decade));
  return "1e" + html::fixed(decade, 0);
}

}  // namespace

void add_item_ceilings(std::vector<RooflineCeiling>& ceilings, const nlohmann::json& measurement) {
  if (!measurement.is_object()) return;
  const auto c = measurement.value("ceilings", nlohmann::json::object());
  if (!c.is_object()) return;
  auto number = [&](const char* key) { return c.contains(key) && c[key].is_number() ? c[key].get<double>() : 0.0; };
  auto text = [&](const char* key) { return c.contains(key) && c[key].is_string() ? c[key].get<std::string>() : ""; };
  RooflineCeiling ceiling{number("memory_gbps"), number("compute_gflops"), text("memory") + "; " + text("compute"),
                          !text("memory_reached").empty() || !text("compute_reached").empty()};
  if (!(ceiling.gbps > 0) || !(ceiling.gflops > 0)) return;
  auto same = std::find_if(ceilings.begin(), ceilings.end(), [&](const RooflineCeiling& r) { return r.label == ceiling.label; });
  if (same == ceilings.end()) {
    ceilings.push_back(ceiling);
    return;
  }
  same->gbps = std::max(same->gbps, ceiling.gbps);
  same->gflops = std::max(same->gflops, ceiling.gflops);
  same->raised = same->raised || ceiling.raised;
}

std::string roofline_svg(const std::vector<RooflineCeiling>& ceilings, const std::vector<RooflinePoint>& points) {
  if (std::none_of(points.begin(), points.end(), placeable)) return {};
  const Axes axes = fit_axes(ceilings, points);
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  std::string svg = "<svg class=\"roofline\" viewBox=\"0 0 " + number(width) + " " + number(height) +
                    "\" role=\"img\" aria-label=\"roofline: GFLOP/s against flop per byte, log-log\" data-log-x-min=\"" +
                    number(axes.x_min) + "\" data-log-x-max=\"" + number(axes.x_max) + "\" data-log-y-min=\"" +
                    number(axes.y_min) + "\" data-log-y-max=\"" + number(axes.y_max) + "\">\n";
  svg += "<defs><clipPath id=\"plot-clip\"><rect x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" +
         number(plot_w) + "\" height=\"" + number(plot_h) + "\"/></clipPath></defs>\n";
  svg += "<rect class=\"plot-area\" x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" + number(plot_w) +
         "\" height=\"" + number(plot_h) + "\" fill=\"none\"/>\n";
  for (double d = axes.x_min; d <= axes.x_max + 1e-9; d += 1) {
    const double x = left + (d - axes.x_min) / (axes.x_max - axes.x_min) * plot_w;
    svg += "<line class=\"grid\" x1=\"" + number(x) + "\" y1=\"" + number(top) + "\" x2=\"" + number(x) + "\" y2=\"" +
           number(height - bottom) + "\"/><text x=\"" + number(x) + "\" y=\"" + number(height - bottom + 16) +
           "\" text-anchor=\"middle\">" + decade_label(d) + "</text>\n";
  }
  for (double d = axes.y_min; d <= axes.y_max + 1e-9; d += 1) {
    const double y = height - bottom - (d - axes.y_min) / (axes.y_max - axes.y_min) * plot_h;
    svg += "<line class=\"grid\" x1=\"" + number(left) + "\" y1=\"" + number(y) + "\" x2=\"" + number(width - right) +
           "\" y2=\"" + number(y) + "\"/><text x=\"" + number(left - 6) + "\" y=\"" + number(y + 4) +
           "\" text-anchor=\"end\">" + decade_label(d) + "</text>\n";
  }
  svg += "<text x=\"" + number(left + plot_w / 2) + "\" y=\"" + number(height - 8) +
         "\" text-anchor=\"middle\">arithmetic intensity (flop per byte)</text>\n";
  svg += "<text transform=\"translate(14 " + number(top + plot_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">GFLOP/s</text>\n";

  // Each ceiling: the memory slope up to its ridge point, then the flat compute roof, clipped to the plot.
  svg += "<g clip-path=\"url(#plot-clip)\">\n";
  std::vector<std::pair<double, std::string>> labels;  // {baseline y, text}: written after the lines, apart
  for (const auto& c : ceilings) {
    if (c.gbps <= 0 || c.gflops <= 0) continue;
    const double x_start = std::pow(10.0, axes.x_min), x_end = std::pow(10.0, axes.x_max), ridge = c.gflops / c.gbps;
    svg += "<polyline class=\"ceiling\" points=\"" + number(axes.x(x_start)) + "," + number(axes.y(c.gbps * x_start)) + " " +
           number(axes.x(ridge)) + "," + number(axes.y(c.gflops)) + " " + number(axes.x(x_end)) + "," +
           number(axes.y(c.gflops)) + "\"><title>" + html::escape(c.label) +
           (c.raised ? html::escape("; raised to what judge code reached while grading") : "") + "</title></polyline>\n";
    labels.emplace_back(axes.y(c.gflops) - 5, html::fixed(c.gflops, 1) + " GFLOP/s, " + html::fixed(c.gbps, 1) + " GB/s");
  }
  // Every label sits right-aligned above its roof. Two calibrations of one GPU kind give roofs a few units apart,
  // whose labels once lay on top of each other: each is written once, and moved down below the one above it.
  std::sort(labels.begin(), labels.end());
  constexpr double label_height = 14;
  double last_y = -1e300;
  std::vector<std::string> written;
  for (auto [y, text] : labels) {
    if (std::find(written.begin(), written.end(), text) != written.end()) continue;
    written.push_back(text);
    y = std::max(y, last_y + label_height);
    last_y = y;
    svg += "<text class=\"ceiling-label\" x=\"" + number(width - right - 4) + "\" y=\"" + number(y) +
           "\" text-anchor=\"end\">" + html::escape(text) + "</text>\n";
  }
  svg += "</g>\n";
  for (const auto& p : points) {
    if (!placeable(p)) continue;
    const double intensity = p.gflops / p.gbps;
    const double x = axes.x(intensity), y = axes.y(p.gflops);
    svg += "<circle class=\"pt pt-" + html::escape(p.series) + "\" cx=\"" + number(x) + "\" cy=\"" + number(y) +
           "\" r=\"" + (p.series == "reference" ? "8" : "6") + "\" data-item=\"" + html::escape(p.item) +
           "\" data-series=\"" + html::escape(p.series) + "\" data-intensity=\"" + html::fixed(intensity, 6) +
           "\" data-gflops=\"" + html::fixed(p.gflops, 6) + "\"" +
           (p.colour.empty() ? "" : " style=\"fill:" + html::escape(p.colour) + "\"") + "><title>" + html::escape(p.tooltip) + "</title></circle>\n";
    if (!p.tag.empty())
      svg += "<text x=\"" + number(x + 8) + "\" y=\"" + number(y - 6) + "\">" + html::escape(p.tag) + "</text>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace grader
