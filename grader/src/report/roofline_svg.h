// roofline_svg.h: a log-log roofline drawn as inline SVG: arithmetic intensity (flop per byte) across, GFLOP/s up,
// the machine's calibrated ceilings as lines, a mark per timed kernel. The student's report and the class dashboard
// both draw one.
//
// The plot says how it maps figures to its drawing, so a test (tests/browser) can check each mark against the JSON it
// came from: the <svg> carries data-log-x-min/-max and data-log-y-min/-max (decades), the plotting area is the
// <rect class="plot-area">, and every mark is a <circle class="pt pt-SERIES"> with data-intensity and data-gflops.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace grader {

struct RooflineCeiling {
  double gbps = 0, gflops = 0;  // memory and compute ceilings
  std::string label;            // as calibrated: "read-only memory bandwidth (1 thread, 35.0 GB/s); FP64 peak (...)"
  bool raised = false;          // above the calibration: judge code reached more while grading
};

struct RooflinePoint {
  double gflops = 0, gbps = 0;  // achieved rates; intensity is their ratio
  std::string series;           // "candidate", "baseline", "reference", or a dashboard's item class
  std::string item;             // the performance item it belongs to
  std::string tag;              // a short mark drawn beside it ("1"), empty for none
  std::string tooltip;
  std::string colour;           // a CSS colour overriding the series' own; empty keeps it
};

// Adds the ceilings of one report item (its JSON "measurement") to a plot's. Items held to the same calibrated
// ceilings share one line, drawn at the highest rate any of them was raised to (judge code beat the calibration in
// its grading: measure/ceilings.h), so no mark that sits under its own item's ceiling sits above the plot's line.
void add_item_ceilings(std::vector<RooflineCeiling>& ceilings, const nlohmann::json& measurement);

// Points without both rates cannot be placed and are left out (the caller says so). Empty without any point.
std::string roofline_svg(const std::vector<RooflineCeiling>& ceilings, const std::vector<RooflinePoint>& points);

}  // namespace grader
