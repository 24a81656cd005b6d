#include "report/html_report.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "report/html_page.h"
#include "report/roofline_svg.h"
#include "report/writers.h"

namespace grader {

namespace {

// Escaped, each line break kept as one: a status's second line (how to get a GPU, issue 37) stays a line of its own.
std::string escaped_lines(const std::string& text) {
  std::string out;
  for (char c : html::escape(text)) out += c == '\n' ? std::string("<br>") : std::string(1, c);
  return out;
}

using json = nlohmann::json;
using html::escape;
using html::fixed;

std::string text_of(const json& value, const char* key) {
  auto found = value.find(key);
  return found != value.end() && found->is_string() ? found->get<std::string>() : std::string();
}

double number_of(const json& value, const char* key) {
  auto found = value.find(key);
  return found != value.end() && found->is_number() ? found->get<double>() : 0.0;
}

// The text report's markers, as badges.
std::string badge(const std::string& status) {
  if (status == "passed") return "<span class=\"status s-pass\">PASS</span>";
  if (status == "below_threshold") return "<span class=\"status s-part\">PART</span>";
  if (status == "not_run") return "<span class=\"status s-none\">----</span>";
  return "<span class=\"status s-fail\">FAIL</span>";
}

std::string figure_of(const std::string& metric, double value) {
  return metric == "roofline" ? fixed(100 * value, 0) + "%" : fixed(value, 2) + "x";
}

// Where each of a row of centred labels goes: its centre, moved inward where it would leave the drawing, and the
// first line (0, 1, ...) on which it clears every label before it by a gap. Tiers close together ("1.50x: 0 pts",
// "1.80x full: 20 pts") once overlapped on one line. `widths` are estimates in the drawing's units.
struct PlacedLabel {
  double x = 0;
  int line = 0;
};
std::vector<PlacedLabel> place_labels(const std::vector<double>& centres, const std::vector<double>& widths,
                                      double drawing_width) {
  constexpr double gap = 8;
  std::vector<double> line_ends;  // the right edge of the last label on each line
  std::vector<PlacedLabel> placed;
  for (std::size_t i = 0; i < centres.size(); ++i) {
    const double half = widths[i] / 2;
    const double x = std::clamp(centres[i], half, std::max(half, drawing_width - half));
    std::size_t line = 0;
    while (line < line_ends.size() && line_ends[line] + gap > x - half) ++line;
    if (line == line_ends.size()) line_ends.push_back(0);
    line_ends[line] = x + half;
    placed.push_back({x, static_cast<int>(line)});
  }
  return placed;
}

// 12px system-ui: no glyph of a tier's label is wider than 7 units; the estimate errs wide, so labels never touch.
double label_width(const std::string& text) { return 7.0 * static_cast<double>(text.size()); }

// The tier ladder: the metric's axis from 0 to past full marks, a tick per tier with its points, the full-marks
// tier in green, and the student's figure as a marker.
std::string ladder_svg(const json& m) {
  const json& tiers = m.value("tiers", json::array());
  if (tiers.empty()) return {};
  const std::string metric = text_of(m, "metric");
  const double value = number_of(m, "metric_value"), full = number_of(m, "full_marks_at");
  const double top = std::max({full * 1.3, value * 1.08, 1e-9});
  constexpr double width = 600, x0 = 10, x1 = 590;
  auto x = [&](double v) { return x0 + std::clamp(v / top, 0.0, 1.0) * (x1 - x0); };
  std::vector<double> centres, widths;
  std::vector<std::string> labels;
  for (const auto& tier : tiers) {
    const bool is_full = &tier == &tiers.back();
    labels.push_back(figure_of(metric, number_of(tier, "at")) + (is_full ? " full" : "") + ": " +
                     html::fixed(number_of(tier, "points"), 0) + " pts");
    centres.push_back(x(number_of(tier, "at")));
    widths.push_back(label_width(labels.back()));
  }
  const std::vector<PlacedLabel> placed = place_labels(centres, widths, width);
  int lines = 1;
  for (const PlacedLabel& label : placed) lines = std::max(lines, label.line + 1);
  constexpr double line_height = 14;
  std::string svg = "<svg class=\"ladder\" viewBox=\"0 0 " + fixed(width, 0) + " " + fixed(58 + line_height * (lines - 1), 0) +
                    "\" role=\"img\" aria-label=\"tiers: " + escape(figure_of(metric, value)) + ", full marks from " +
                    escape(figure_of(metric, full)) + "\">\n";
  svg += "<rect class=\"track\" x=\"" + fixed(x0, 1) + "\" y=\"20\" width=\"" + fixed(x1 - x0, 1) + "\" height=\"12\" rx=\"6\"/>\n";
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const bool is_full = i + 1 == tiers.size();
    const double y = 52 + line_height * placed[i].line;
    svg += "<line class=\"tier" + std::string(is_full ? " full" : "") + "\" x1=\"" + fixed(centres[i], 1) + "\" y1=\"14\" x2=\"" +
           fixed(centres[i], 1) + "\" y2=\"38\"/><text class=\"tier-label\" x=\"" +
           fixed(placed[i].x, 1) + "\" y=\"" + fixed(y, 0) + "\" text-anchor=\"middle\">" + escape(labels[i]) + "</text>\n";
  }
  const double label_x = std::clamp(x(value), 50.0, width - 50);  // the marker's words stay inside the drawing
  svg += "<path class=\"you\" d=\"M" + fixed(x(value), 1) + " 19 l-6 -8 h12 z\"/><text x=\"" + fixed(label_x, 1) +
         "\" y=\"9\" text-anchor=\"middle\" font-weight=\"700\">you " + escape(figure_of(metric, value)) + "</text>\n";
  return svg + "</svg>\n";
}

std::string timing_row(const json& t, const std::string& note) {
  const double gflops = number_of(t, "gflops"), gbps = number_of(t, "gbps");
  return "<tr><td>" + escape(text_of(t, "label")) + "</td><td>" + html::duration(number_of(t, "median_s")) + "</td><td>" +
         (gflops > 0 ? fixed(gflops, 2) : "-") + "</td><td>" + (gbps > 0 ? fixed(gbps, 2) : "-") + "</td><td>" +
         escape(note) + "</td></tr>\n";
}

std::string correctness_item(const json& test) {
  std::string out = "<div class=\"item\" data-item=\"" + escape(text_of(test, "name")) + "\">\n<div class=\"item-head\">" +
                    badge(text_of(test, "status")) + "<span class=\"name\">" + escape(text_of(test, "name")) +
                    "</span><span class=\"pts\">" + html::points(number_of(test, "score"), number_of(test, "max_score")) +
                    "</span></div>\n";
  if (!text_of(test, "details").empty()) out += "<p class=\"details\">" + escape(text_of(test, "details")) + "</p>\n";
  std::string failing;
  int count = 0;
  for (const auto& c : test.value("cases", json::array())) {
    const std::string status = text_of(c, "status");
    if (status == "passed" || status == "not_run") continue;
    ++count;
    failing += "<tr><td>" + escape(text_of(c, "name")) + "</td><td>" + escape(text_of(c, "variant")) + "</td><td>" +
               escape(status) + "</td><td>" + escape(text_of(c, "details")) + "</td></tr>\n";
  }
  if (count > 0)
    out += html::folded(std::to_string(count) + " failing case" + (count == 1 ? "" : "s"),
                        "<div class=\"scroll\"><table><tr><th>case</th><th>variant</th><th>verdict</th><th>details</th></tr>\n" +
                            failing + "</table></div>\n");
  return out + "</div>\n";
}

// The hot loop's instructions under the student's source lines (report.h, SourceLine), folded: its floating-point
// arithmetic highlighted, since that is what the facts above count.
std::string source_listing_section(const json& look) {
  const json& lines = look.value("source_listing", json::array());
  if (!lines.is_array() || lines.empty()) return "";
  std::string body = "<div class=\"source\">\n";
  for (const auto& line : lines) {
    const std::string location = text_of(line, "location");
    body += "<div class=\"src\"><span class=\"loc\">" + escape(location.empty() ? "(no line)" : location) + "</span>" +
            escape(text_of(line, "text")) + "</div>\n";
    for (const auto& instruction : line.value("instructions", json::array())) {
      const bool fp = instruction.value("fp", false);
      body += "<div class=\"asm" + std::string(fp ? " fp" : "") + "\">" + escape(text_of(instruction, "text")) + "</div>\n";
    }
  }
  body += "</div>\n";
  return html::folded("hot loop beside your source lines (floating-point arithmetic highlighted)", body);
}

// The counters the grader read over one more call of each side (measure/cpu_counters.h): a row per figure.
std::string counters_section(const json& counters) {
  std::string head;
  for (const auto& side : counters.value("sides", json::array())) head += "<th>" + escape(text_of(side, "label")) + "</th>";
  std::string rows;
  for (const auto& row : counters.value("rows", json::array())) {
    rows += "<tr data-counter=\"" + escape(text_of(row, "key")) + "\"><td>" + escape(text_of(row, "label")) + "</td>";
    for (const auto& value : row.value("values", json::array()))
      rows += "<td>" + escape(value.is_string() ? value.get<std::string>() : std::string("-")) + "</td>";
    rows += "</tr>\n";
  }
  std::string out = "<div class=\"counters\"><h3>How it ran <span class=\"meta\">(counted by the grader over one more call "
                    "of each, outside the timed rounds)</span></h3>\n";
  if (!rows.empty()) out += "<div class=\"scroll\"><table><tr><th></th>" + head + "</tr>\n" + rows + "</table></div>\n";
  if (const std::string skipped = text_of(counters, "skipped"); !skipped.empty())
    out += "<p class=\"meta\">" + escape(skipped) + "</p>\n";
  if (const std::string why = text_of(counters, "unavailable"); !why.empty())
    out += "<p class=\"meta counters-missing\">" + std::string(rows.empty() ? "no counts: " : "only software counts: ") +
           escape(why) + "</p>\n";
  return out + "</div>\n";
}

// "what your code does": the variant's facts beside the reference's (a GPU lab's Nsight Compute counters among
// them), its hot loop or PTX folded under them, and `counted`: a CPU lab's counters (counters_section).
std::string look_section(const json& look, const std::string& counted) {
  std::string what = escape(text_of(look, "function"));
  std::string launched;
  for (const auto& kernel : look.value("kernels", json::array()))
    if (kernel.is_string()) launched += (launched.empty() ? "" : ", ") + escape(kernel.get<std::string>());
  if (!launched.empty()) what += (what.empty() ? "" : " &rarr; ") + launched;
  std::string rows;
  for (const auto& row : look.value("facts", json::array())) {
    const auto zero = [&](const char* key) {
      auto found = row.find(key);
      return found == row.end() || !found->is_number() || found->get<double>() == 0;
    };
    if (zero("yours_value") && zero("reference_value")) continue;  // as report.h's worth_showing
    const auto shown = [&](const char* key) { return text_of(row, key).empty() ? std::string("-") : escape(text_of(row, key)); };
    rows += "<tr data-fact=\"" + escape(text_of(row, "key")) + "\"><td>" + escape(text_of(row, "label")) + "</td><td>" +
            shown("yours") + "</td><td>" + shown("reference") + "</td></tr>\n";
  }
  std::string out = "<div class=\"look\"><h3>What your code does" +
                    (what.empty() ? std::string() : " <span class=\"meta\">(" + what + ")</span>") + "</h3>\n";
  if (!rows.empty())
    out += "<div class=\"scroll\"><table><tr><th></th><th>yours</th><th>reference</th></tr>\n" + rows + "</table></div>\n";
  if (!text_of(look, "note").empty()) out += "<p class=\"meta\">" + escape(text_of(look, "note")) + "</p>\n";
  if (!text_of(look, "counters").empty())
    out += "<p class=\"meta ncu-counters\">" + escape(text_of(look, "counters")) + "</p>\n";
  std::string listing;
  for (const auto& line : look.value("listing", json::array()))
    if (line.is_string()) listing += line.get<std::string>() + "\n";
  if (!listing.empty()) out += html::folded_text(text_of(look, "listing_title"), listing);
  out += source_listing_section(look);
  return out + counted + "</div>\n";
}

std::string performance_item(const json& test, int number) {
  std::string out = "<div class=\"item\" data-item=\"" + escape(text_of(test, "name")) + "\">\n<div class=\"item-head\">" +
                    badge(text_of(test, "status")) + "<span class=\"name\">" + std::to_string(number) + ". " +
                    escape(text_of(test, "name")) + "</span><span class=\"pts\">" +
                    html::points(number_of(test, "score"), number_of(test, "max_score")) + "</span></div>\n";
  if (auto m = test.find("measurement"); m != test.end() && m->is_object()) {
    const double fraction = number_of(*m, "roofline_fraction");
    const json& range = m->value("speedup_range", json::array({0, 0}));
    std::string note = (fraction > 0 ? fixed(100 * fraction, 0) + "% of roofline; " : std::string()) +
                       fixed(number_of(*m, "speedup"), 2) + "x [" + fixed(range.size() == 2 ? range[0].get<double>() : 0, 2) +
                       "-" + fixed(range.size() == 2 ? range[1].get<double>() : 0, 2) + "]";
    out += "<div class=\"scroll\"><table><tr><th></th><th>median</th><th>GFLOP/s</th><th>GB/s</th><th></th></tr>\n" +
           timing_row((*m)["candidate"], note) + timing_row((*m)["baseline"], "baseline");
    for (const auto& t : m->value("compare", json::array())) out += timing_row(t, "for comparison");
    out += "</table></div>\n";
    if (!text_of(*m, "roofline_bound").empty())
      out += "<p class=\"meta\">roofline bound: " + escape(text_of(*m, "roofline_bound")) + "</p>\n";
    out += ladder_svg(*m);
  }
  if (!text_of(test, "details").empty()) out += "<p class=\"details\">" + escape(text_of(test, "details")) + "</p>\n";
  std::string counted;  // one look block: the facts, then the counters; the counters alone where no facts were read
  if (auto m = test.find("measurement"); m != test.end() && m->is_object())
    if (auto counters = m->find("cpu_counters"); counters != m->end() && counters->is_object()) counted = counters_section(*counters);
  if (auto look = test.find("look"); look != test.end() && look->is_object()) out += look_section(*look, counted);
  else out += counted;
  if (!text_of(test, "next_step").empty())
    out += "<p class=\"next-step\"><strong>next step:</strong> " + escape(text_of(test, "next_step")) + "</p>\n";
  return out + "</div>\n";
}

// The student's kernels, their baselines and the reference, on the ceilings their items are held to.
std::string roofline_section(const json& report, const json& reference) {
  std::vector<RooflineCeiling> ceilings;
  std::vector<RooflinePoint> points;
  std::vector<std::string> unplaced;
  std::map<std::string, const json*> reference_items;
  if (reference.is_object() && reference.contains("items") && reference["items"].is_array())
    for (const auto& item : reference["items"]) reference_items[text_of(item, "name")] = &item;  // pointers into `reference`
  int number = 0;
  for (const auto& test : report.value("tests", json::array())) {
    if (text_of(test, "kind") != "performance") continue;
    ++number;
    auto m = test.find("measurement");
    if (m == test.end() || !m->is_object()) continue;
    const std::string name = text_of(test, "name");
    add_item_ceilings(ceilings, *m);
    const json& candidate = (*m)["candidate"];
    if (number_of(candidate, "gflops") <= 0 || number_of(candidate, "gbps") <= 0) {
      unplaced.push_back(std::to_string(number) + ". " + name);
      continue;
    }
    const std::string tag = std::to_string(number);
    // Items that share one timing (lab1's speedup and bandwidth) share one place: one label names them all.
    std::string shown_tag = tag;
    for (auto& earlier : points)
      if (earlier.series == "candidate" && !earlier.tag.empty() && earlier.gflops == number_of(candidate, "gflops") &&
          earlier.gbps == number_of(candidate, "gbps")) {
        earlier.tag += ", " + tag;
        shown_tag.clear();
        break;
      }
    points.push_back({number_of(candidate, "gflops"), number_of(candidate, "gbps"), "candidate", name, shown_tag,
                      tag + ". " + name + ": your " + text_of(candidate, "label"), ""});
    const json& baseline = (*m)["baseline"];
    points.push_back({number_of(baseline, "gflops"), number_of(baseline, "gbps"), "baseline", name, "",
                      tag + ". " + name + ": baseline " + text_of(baseline, "label"), ""});
    if (auto found = reference_items.find(name); found != reference_items.end())
      points.push_back({number_of(*found->second, "gflops"), number_of(*found->second, "gbps"), "reference", name, "",
                        tag + ". " + name + ": the reference solution on this machine", ""});
  }
  const std::string svg = roofline_svg(ceilings, points);
  if (svg.empty()) return {};
  std::string out = "<h2>Your kernels on this machine's roofline</h2>\n" + svg +
                    "<p class=\"legend\"><span><span class=\"swatch\" style=\"background:var(--you)\"></span>yours (numbered "
                    "as the items below)</span><span><span class=\"swatch\" style=\"border:2px solid var(--base)\"></span>"
                    "baseline</span><span><span class=\"swatch\" style=\"border:2px solid var(--ref)\"></span>reference "
                    "solution" + std::string(reference.is_object() ? "" : " (not recorded here: run `grader selftest`)") +
                    "</span><span>lines: memory and compute ceilings, as calibrated or, where judge code beat that while "
                    "grading, as it reached them</span></p>\n";
  if (!unplaced.empty()) {
    out += "<p class=\"meta\">Not on the plot (the item declares no flops or no bytes): ";
    for (std::size_t i = 0; i < unplaced.size(); ++i) out += (i ? ", " : "") + escape(unplaced[i]);
    out += "</p>\n";
  }
  return out;
}

std::string machine_line(const json& machine) {
  std::string line = escape(text_of(machine, "hostname")) + ", " + escape(text_of(machine, "cpu")) + ", " +
                     std::to_string(machine.value("threads", 0)) + " threads";
  if (machine.value("calibrated", false))
    line += "; calibrated " + fixed(number_of(machine, "read_bandwidth_1t_gbps"), 1) + " GB/s read, " +
            fixed(number_of(machine, "peak_fp64_gflops_1t"), 1) + " GFLOP/s on 1 thread; " +
            fixed(number_of(machine, "read_bandwidth_all_gbps"), 1) + " GB/s read, " +
            fixed(number_of(machine, "peak_fp64_gflops_all"), 1) + " GFLOP/s on all";
  if (!text_of(machine, "gpu").empty()) line += "; GPU " + escape(text_of(machine, "gpu"));
  if (!text_of(machine, "gpu_uuid").empty())
    line += "; graded on GPU " + std::to_string(static_cast<int>(number_of(machine, "gpu_index"))) + " (" + escape(text_of(machine, "gpu_uuid")) + ")";
  return line;
}

// The report's JSON inside the page, never run (a data block, which the page's policy lets no script read anyway): a
// TA or a test can take the figures back out of any HTML report. '<' occurs only inside JSON strings, where it is
// written \u003c, so no build log can end the block or open a comment in it.
std::string data_island(const json& report) {
  std::string text;
  for (char c : json_text(report, -1)) text += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return "<script type=\"application/json\" id=\"grader-report\">" + text + "</script>\n";
}

}  // namespace

std::string render_html_report(const json& report, const json& reference) {
  const std::string lab_name = text_of(report, "lab_name");
  std::string body = "<header>\n<h1>" + escape(lab_name + ": " + text_of(report, "title")) + "</h1>\n<p class=\"meta\">submission " +
                     escape(text_of(report, "submission")) + " &middot; seed " +
                     std::to_string(report.value("seed", std::uint64_t{0})) + " &middot; " +
                     machine_line(report.value("machine", json::object())) + "</p>\n</header>\n";
  const std::string status = text_of(report, "status");  // "graded" ("passed" in older reports): every stage ran
  body += "<section class=\"total\"><span class=\"score\" id=\"total\">" +
          html::points(number_of(report, "score"), number_of(report, "max_score")) + "</span>" +
          (status == graded_status || status == "passed" ? std::string() : badge(status) + " <span>" + escaped_lines(text_of(report, "status_details")) + "</span>") +
          "</section>\n";
  for (const auto& warning : report.value("warnings", json::array()))
    if (warning.is_string()) body += "<p class=\"warning\">warning: " + escape(warning.get<std::string>()) + "</p>\n";
  if (const int hidden = report.value("hidden_not_run", 0); hidden > 0)
    body += "<p class=\"meta\">" + std::to_string(hidden) +
            " hidden case(s) or item(s) were not run here; they run when your work is graded.</p>\n";

  std::string correctness, performance;
  int number = 0;
  for (const auto& test : report.value("tests", json::array())) {
    if (text_of(test, "kind") == "performance") performance += performance_item(test, ++number);
    else correctness += correctness_item(test);
  }
  // The text report's order: correctness, then the timed items, here after the plot they are numbered on.
  if (!correctness.empty()) body += "<h2>Correctness</h2>\n" + correctness;
  body += roofline_section(report, reference);
  if (!performance.empty()) body += "<h2>Performance</h2>\n" + performance;

  if (!text_of(report, "build_log").empty())
    body += html::folded_text(status == "build_error" ? "build log (the build failed)" : "build log", text_of(report, "build_log"));
  if (!text_of(report, "candidate_output").empty())
    body += html::folded_text("your program printed (the start of it)", text_of(report, "candidate_output"));
  if (auto sanitizer = report.find("sanitizer"); sanitizer != report.end() && sanitizer->is_object())
    body += html::folded_text("compute-sanitizer (" + text_of(*sanitizer, "tool") + "): " +
                                  std::to_string(sanitizer->value("errors", -1)) + " error(s)",
                              text_of(*sanitizer, "output"));
  // Long and rarely read, like the build log: folded, and unfolded on paper.
  if (!text_of(report, "isolation").empty())
    body += html::folded_text("how your code was run (isolation)", text_of(report, "isolation"));
  body += data_island(report);
  return html::page(lab_name + " report: " + html::points(number_of(report, "score"), number_of(report, "max_score")), body);
}

}  // namespace grader
