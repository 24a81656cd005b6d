#include "batch/dashboard.h"

#include <algorithm>
#include <map>

#include "batch/gradebook.h"
#include "batch/store.h"
#include "report/html_page.h"
#include "report/roofline_svg.h"

namespace grader {

namespace {

using json = nlohmann::json;
using html::escape;
using html::fixed;

// One colour per timed item on the class roofline, told apart in print and by most colour-blind readers.
constexpr const char* item_colours[] = {"#0969da", "#cf222e", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#1b7c83", "#57606a"};

std::string student_id(const json& report) { return report.value("batch", json::object()).value("student", std::string("?")); }

double share(const json& report) {
  const double max = report.value("max_score", 0.0);
  return max > 0 ? std::clamp(report.value("score", 0.0) / max, 0.0, 1.0) : 0.0;
}

// Ten bins of the total as a share of the maximum; full marks fall in the last.
std::string histogram(const std::vector<json>& reports) {
  int bins[10] = {};
  for (const auto& r : reports) ++bins[std::min(9, static_cast<int>(share(r) * 10))];
  const int most = std::max(1, *std::max_element(std::begin(bins), std::end(bins)));
  std::string svg = "<svg class=\"histogram\" viewBox=\"0 0 600 200\" role=\"img\" aria-label=\"score histogram\">\n";
  for (int i = 0; i < 10; ++i) {
    const double h = 150.0 * bins[i] / most, x = 20 + i * 57;
    svg += "<rect class=\"bar\" x=\"" + fixed(x, 1) + "\" y=\"" + fixed(165 - h, 1) + "\" width=\"50\" height=\"" + fixed(h, 1) +
           "\" data-bin=\"" + std::to_string(i) + "\" data-count=\"" + std::to_string(bins[i]) + "\"/>";
    if (bins[i] > 0)
      svg += "<text x=\"" + fixed(x + 25, 1) + "\" y=\"" + fixed(160 - h, 1) + "\" text-anchor=\"middle\">" +
             std::to_string(bins[i]) + "</text>";
    svg += "<text x=\"" + fixed(x + 25, 1) + "\" y=\"185\" text-anchor=\"middle\">" + std::to_string(i * 10) + "-" +
           std::to_string(i == 9 ? 100 : i * 10 + 9) + "%</text>\n";
  }
  return svg + "</svg>\n";
}

// Per item: how many students earned full points, some, none; and the mean.
std::string item_spread(const LabSpec& spec, const std::vector<json>& reports) {
  std::string rows;
  for (const auto& item : gradebook_items(spec)) {
    int full = 0, some = 0, none = 0, graded = 0;
    double sum = 0, max = 0;
    for (const auto& r : reports)
      for (const auto& t : r.value("tests", json::array())) {
        if (t.value("name", "") != item) continue;
        const double score = t.value("score", 0.0), item_max = t.value("max_score", 0.0);
        max = std::max(max, item_max);
        ++graded, sum += score;
        (item_max > 0 && score >= item_max - 1e-9 ? full : score > 0 ? some : none) += 1;
      }
    const double n = std::max(1, graded);
    auto segment = [&](int count, double start, const char* colour) {
      return count == 0 ? std::string() : "<rect x=\"" + fixed(300 * start / n, 2) + "\" y=\"0\" width=\"" +
                                              fixed(300 * count / n, 2) + "\" height=\"14\" fill=\"" + colour + "\"/>";
    };
    rows += "<tr data-item=\"" + escape(item) + "\"><td>" + escape(item) + "</td><td>" + fixed(sum / n, 1) + " / " +
            html::fixed(max, max == static_cast<int>(max) ? 0 : 1) + "</td><td>" + std::to_string(full) + " / " +
            std::to_string(some) + " / " + std::to_string(none) + "</td><td style=\"min-width:10rem\"><svg viewBox=\"0 0 300 14\" "
            "role=\"img\" aria-label=\"full, partial, none\">" + segment(full, 0, "var(--pass)") +
            segment(some, full, "var(--part)") + segment(none, full + some, "var(--fail)") + "</svg></td></tr>\n";
  }
  return "<div class=\"scroll\"><table><tr><th>item</th><th>mean</th><th>full / some / none</th><th></th></tr>\n" + rows +
         "</table></div>\n";
}

std::string class_roofline(const LabSpec& spec, const std::vector<json>& reports, const json& reference) {
  std::map<std::string, std::string> colour_of;
  std::string legend;
  for (const auto& item : spec.performance) {
    const std::string colour = item_colours[colour_of.size() % std::size(item_colours)];
    colour_of[item.name] = colour;
    legend += "<span><span class=\"swatch\" style=\"background:" + std::string(colour) + "\"></span>" + escape(item.name) + "</span>";
  }
  std::vector<RooflineCeiling> ceilings;
  std::vector<RooflinePoint> points;
  for (const auto& r : reports)
    for (const auto& t : r.value("tests", json::array())) {
      auto m = t.find("measurement");
      if (m == t.end() || !m->is_object()) continue;
      const std::string name = t.value("name", "");
      add_item_ceilings(ceilings, *m);
      const json& candidate = m->value("candidate", json::object());
      points.push_back({candidate.value("gflops", 0.0), candidate.value("gbps", 0.0), "student", name, "",
                        student_id(r) + ": " + name, colour_of.count(name) ? colour_of[name] : ""});
    }
  if (reference.is_object())
    for (const auto& item : reference.value("items", json::array()))
      points.push_back({item.value("gflops", 0.0), item.value("gbps", 0.0), "reference", item.value("name", ""), "",
                        "the reference solution: " + item.value("name", std::string()), ""});
  const std::string svg = roofline_svg(ceilings, points);
  if (svg.empty()) return "<p class=\"meta\">No timed kernel to place on the roofline (a --quick batch times nothing).</p>\n";
  return svg + "<p class=\"legend\">" + legend +
         "<span><span class=\"swatch\" style=\"border:2px solid var(--ref)\"></span>reference solution" +
         (reference.is_object() ? "" : " (not recorded here: run `grader selftest`)") + "</span></p>\n";
}

// The statuses that ended students' gradings, then the items most often failed, each with a count.
std::string common_failures(const std::vector<json>& reports) {
  std::map<std::string, int> by_status, by_item;
  for (const auto& r : reports) {
    const std::string status = student_status(r);
    if (status != "passed") ++by_status[status];
    for (const auto& t : r.value("tests", json::array())) {
      const std::string verdict = t.value("status", "");
      if (verdict == "passed" || verdict == "below_threshold" || verdict == "not_run") continue;
      ++by_item[t.value("name", std::string()) + ": " + verdict];
    }
  }
  auto ranked = [](const std::map<std::string, int>& counts) {
    std::vector<std::pair<std::string, int>> list(counts.begin(), counts.end());
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (list.size() > 10) list.resize(10);
    std::string rows;
    for (const auto& [what, count] : list) rows += "<tr><td>" + std::to_string(count) + "</td><td>" + escape(what) + "</td></tr>\n";
    return rows;
  };
  if (by_status.empty() && by_item.empty()) return "<p>No failures: every student's code built, ran and was correct.</p>\n";
  return "<div class=\"scroll\"><table id=\"failures\"><tr><th>students</th><th>how the grading ended</th></tr>\n" +
         ranked(by_status) + "<tr><th>students</th><th>item: verdict</th></tr>\n" + ranked(by_item) + "</table></div>\n";
}

// Per timed item, how the class's code compiled (report.h, CodeLook): how many students' hot loops were scalar or
// on xmm, ymm, zmm registers; in a CUDA lab, the widest global load their kernels issue and, where counters were read
// (batch --counters), whether their loads were coalesced. Read from each report's
// `look`, so a dashboard regenerated from older reports simply has no such rows.
std::string class_facts(const std::vector<json>& reports) {
  std::string rows;
  std::vector<std::string> items;
  std::map<std::pair<std::string, std::string>, std::map<std::string, int>> counts;  // (item, fact label) -> value -> students
  for (const auto& r : reports)
    for (const auto& t : r.value("tests", json::array())) {
      const json& look = t.value("look", json::object());
      const std::string item = t.value("name", "");
      for (const auto& fact : look.value("facts", json::array())) {
        const std::string key = fact.value("key", "");
        if (key != "vector_bits" && key != "global_load_bits" && key != "sectors_per_load") continue;
        if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
        std::string yours = fact.value("yours", "");
        // A counter (batch --counters) is a number per student: the class is told apart by what it means. No
        // coalesced warp load takes more than 16 sectors (16-byte loads); every lane on its own sector is 32.
        if (key == "sectors_per_load" && !yours.empty()) {
          const auto value = fact.find("yours_value");
          if (value != fact.end() && value->is_number())
            yours = value->get<double>() <= 16 ? "coalesced (16 or fewer)" : "not coalesced (over 16)";
        }
        ++counts[{item, fact.value("label", key)}][yours.empty() ? "not read" : yours];
      }
    }
  for (const auto& item : items)
    for (const auto& [what, values] : counts) {
      if (what.first != item) continue;
      std::string spread;
      for (const auto& [value, students] : values)
        spread += (spread.empty() ? "" : ", ") + escape(value) + ": " + std::to_string(students);
      rows += "<tr data-item=\"" + escape(item) + "\"><td>" + escape(item) + "</td><td>" + escape(what.second) + "</td><td>" +
              spread + "</td></tr>\n";
    }
  if (rows.empty()) return "<p class=\"meta\">No report of this class carries what its code compiled to.</p>\n";
  return "<div class=\"scroll\"><table id=\"class-facts\"><tr><th>item</th><th>fact</th><th>students</th></tr>\n" + rows +
         "</table></div>\n";
}

std::string student_table(const std::vector<json>& reports) {
  std::string rows;
  for (const auto& r : reports) {
    const std::string id = student_id(r);
    const std::string file = r["batch"].value("file", file_stem(id));  // the name its JSON is stored under
    rows += "<tr data-student=\"" + escape(id) + "\"><td><a href=\"" + escape(file) + ".html\">" + escape(id) +
            "</a></td><td>" + html::points(r.value("score", 0.0), r.value("max_score", 0.0)) + "</td><td>" +
            escape(student_status(r)) + "</td></tr>\n";
  }
  return html::folded(std::to_string(reports.size()) + " students",
                      "<div class=\"scroll\"><table><tr><th>student</th><th>score</th><th>status</th></tr>\n" + rows +
                          "</table></div>\n");
}

}  // namespace

std::string class_dashboard_html(const LabSpec& spec, const std::vector<json>& reports, const json& reference,
                                 bool links_similarity) {
  std::vector<double> shares;
  for (const auto& r : reports) shares.push_back(share(r));
  std::sort(shares.begin(), shares.end());
  double mean = 0;
  for (double s : shares) mean += s / std::max<std::size_t>(1, shares.size());
  const double median = shares.empty() ? 0 : shares[shares.size() / 2];
  std::string body = "<header><h1>" + escape(spec.name() + ": " + spec.title) + "</h1><p class=\"meta\">class dashboard, " +
                     std::to_string(reports.size()) + " students graded &middot; regenerated from the students' reports, "
                     "like grades.csv</p></header>\n";
  body += "<section class=\"total\"><span class=\"score\">" + fixed(100 * mean, 0) + "%</span><span>mean score; median " +
          fixed(100 * median, 0) + "% of " + html::fixed(spec.max_score(), 0) + " points</span></section>\n";
  body += "<h2>Scores</h2>\n" + histogram(reports);
  body += "<h2>Points per item</h2>\n" + item_spread(spec, reports);
  body += "<h2>The class on this machine's roofline</h2>\n" + class_roofline(spec, reports, reference);
  body += "<h2>What the class's code does</h2>\n" + class_facts(reports);
  body += "<h2>Most common failures</h2>\n" + common_failures(reports);
  if (links_similarity)
    body += "<h2>Similar submissions</h2>\n<p id=\"similarity\"><a href=\"similarity.html\">The similarity report</a>: pairs "
            "of submissions with much code in common, the starter code left out (docs/ta-guide.md, \"Similar "
            "submissions\").</p>\n";
  body += "<h2>Students</h2>\n" + student_table(reports);
  return html::page(spec.name() + " class dashboard", body);
}

}  // namespace grader
