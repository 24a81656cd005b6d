#include "batch/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "batch/gradebook.h"
#include "core/utf8.h"
#include "report/verdict.h"
#include "run/sandbox.h"

namespace grader {

using json = nlohmann::json;

namespace {

constexpr int histogram_bins = 10;
constexpr std::size_t ranking_length = 5;

std::string id_of(const json& report) { return report["batch"].value("student", ""); }

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::string milliseconds(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f ms", seconds * 1e3);
  return buffer;
}

// Every correctness test passed (nothing was refused or failed before or during them).
bool all_correct(const json& report) {
  if (!went_through(report)) return false;
  bool any = false;
  for (const auto& test : report.value("tests", json::array())) {
    if (test.value("kind", "") != "correctness") continue;
    any = true;
    if (test.value("status", "") != "passed") return false;
  }
  return any;
}

const json* find_test(const json& report, const std::string& name) {
  const auto tests = report.find("tests");
  if (tests == report.end() || !tests->is_array()) return nullptr;
  for (const auto& test : *tests)
    if (test.value("name", "") == name) return &test;
  return nullptr;
}

// A cell of someone else's text: no '|' or line break to break the table, and, since summary.md is pasted into
// spreadsheets too, a leading '=', '+', '-', '@', tab or CR neutralised like grades.csv's (batch/gradebook.h).
std::string table_cell(std::string text) {
  std::string out = starts_like_formula(text) ? "'" : "";
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

std::string summary_markdown(const LabSpec& spec, const std::vector<json>& reports, const SummaryFacts& facts) {
  std::string md = "# " + spec.name() + ": class summary\n\n";
  const double max_score = spec.max_score();
  md += std::to_string(reports.size()) + " of " + std::to_string(std::max(facts.roster_size, reports.size())) +
        " students graded; maximum " + format_points(max_score) + " points. Derived from the per-student reports in this "
        "folder (grades.csv is the gradebook).\n";
  if (!facts.not_graded.empty()) {
    md += "\n**Not graded yet** (run the same command again to grade them):";
    for (const auto& id : facts.not_graded) md += " " + table_cell(id);
    md += "\n";
  }
  md += facts.gpu_section;  // which GPU graded whom, and any taken out of rotation
  // Student code that ran unboxed could read the TA's files and reach the network: said first, not buried below.
  std::vector<std::string> unboxed;
  std::string why_unboxed;
  for (const auto& r : reports) {
    const std::string isolation = r.value("isolation", "");
    const auto at = isolation.find(no_sandbox_words);
    if (at == std::string::npos) continue;
    unboxed.push_back(table_cell(id_of(r)));
    why_unboxed = isolation.substr(at + std::string(no_sandbox_words).size());
    why_unboxed = why_unboxed.substr(0, why_unboxed.find(';'));
  }
  if (!unboxed.empty()) {
    md += "\n**Warning: graded without the sandbox.** The code of " + std::to_string(unboxed.size()) + " student(s) ran "
          "with no bubblewrap sandbox (" + table_cell(why_unboxed) + "): it could read what the grading user can read and "
          "reach the network. Install bubblewrap (or allow user namespaces) and regrade them if that matters; "
          "docs/ta-guide.md, \"The sandbox\". Students:";
    for (const auto& id : unboxed) md += " " + id;
    md += "\n";
  }
  if (reports.empty()) return valid_utf8(md);

  std::vector<double> scores;
  for (const auto& r : reports) scores.push_back(r.value("score", 0.0));
  double sum = 0;
  for (double s : scores) sum += s;
  md += "\n| | points |\n|---|---|\n";
  md += "| mean | " + format_points(sum / static_cast<double>(scores.size())) + " |\n";
  md += "| median | " + format_points(median_of(scores)) + " |\n";
  md += "| lowest | " + format_points(*std::min_element(scores.begin(), scores.end())) + " |\n";
  md += "| highest | " + format_points(*std::max_element(scores.begin(), scores.end())) + " |\n";

  // Histogram in tenths of the maximum; a full score falls in the last bin.
  std::vector<int> bins(histogram_bins, 0);
  for (double s : scores) {
    int bin = max_score > 0 ? static_cast<int>(std::floor(s / max_score * histogram_bins)) : 0;
    bins[std::clamp(bin, 0, histogram_bins - 1)]++;
  }
  const int widest = *std::max_element(bins.begin(), bins.end());
  md += "\n## Scores\n\n```\n";
  for (int b = 0; b < histogram_bins; ++b) {
    const double low = max_score * b / histogram_bins, high = max_score * (b + 1) / histogram_bins;
    std::string label = "[" + format_points(low) + ", " + format_points(high) + (b + 1 == histogram_bins ? "]" : ")");
    label.resize(std::max<std::size_t>(label.size(), 14), ' ');
    const int bar = widest > 0 ? (bins[b] * 40 + widest - 1) / widest : 0;
    md += label + "|" + std::string(bar, '#') + " " + std::to_string(bins[b]) + "\n";
  }
  md += "```\n";

  std::map<std::string, int> statuses;
  int build_failures = 0;
  for (const auto& r : reports) {
    statuses[student_status(r)]++;
    if (r.value("status", "") == "build_error") ++build_failures;
  }
  md += "\n## Status\n\n| status | students |\n|---|---|\n";
  for (const auto& [status, count] : statuses) md += "| " + status + " | " + std::to_string(count) + " |\n";
  md += "\nBuild failures: " + std::to_string(build_failures) + ".\n";

  md += "\n## Items\n\n| item | max | mean | passed | other verdicts |\n|---|---|---|---|---|\n";
  for (const auto& item : gradebook_items(spec)) {
    double total = 0, item_max = 0;
    int passed = 0;
    std::map<std::string, int> failures;
    for (const auto& r : reports) {
      const json* test = find_test(r, item);
      if (!test) continue;
      total += test->value("score", 0.0);
      item_max = std::max(item_max, test->value("max_score", 0.0));
      const std::string verdict = test->value("status", "");
      if (verdict == "passed") ++passed;
      else failures[verdict]++;
    }
    std::string failed;
    for (const auto& [verdict, count] : failures) failed += (failed.empty() ? "" : ", ") + verdict + " " + std::to_string(count);
    md += "| " + table_cell(item) + " | " + format_points(item_max) + " | " +
          format_points(total / static_cast<double>(reports.size())) + " | " + std::to_string(passed) + " | " +
          (failed.empty() ? "-" : failed) + " |\n";
  }

  if (!spec.performance.empty()) {
    const std::string item = spec.performance.front().name;
    struct Timed {
      std::string id;
      double seconds;
      double speedup;
    };
    std::vector<Timed> timed;
    for (const auto& r : reports) {
      if (!all_correct(r)) continue;
      const json* test = find_test(r, item);
      if (!test || !test->contains("measurement")) continue;
      const json& m = (*test)["measurement"];
      const double seconds = m["candidate"].value("median_s", 0.0);
      if (seconds > 0) timed.push_back({id_of(r), seconds, m.value("speedup", 0.0)});
    }
    md += "\n## Fastest and slowest correct submissions\n\nBy the candidate's median time in \"" + table_cell(item) + "\"";
    if (timed.empty()) {
      md += ": none was timed (a --quick batch, or no submission was correct).\n";
    } else {
      std::sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) { return a.seconds < b.seconds; });
      md += " (" + std::to_string(timed.size()) + " timed).\n\n| | student | median time | speedup |\n|---|---|---|---|\n";
      auto row = [&](const char* which, const Timed& t) {
        char speedup[32];
        std::snprintf(speedup, sizeof speedup, "%.2fx", t.speedup);
        md += std::string("| ") + which + " | " + table_cell(t.id) + " | " + milliseconds(t.seconds) + " | " + speedup + " |\n";
      };
      // Up to five each way; a small class is split in two halves, so nobody is listed twice.
      const std::size_t fastest = std::min(ranking_length, (timed.size() + 1) / 2);
      const std::size_t slowest = std::min(ranking_length, timed.size() - fastest);
      for (std::size_t i = 0; i < fastest; ++i) row("fastest", timed[i]);
      for (std::size_t i = 0; i < slowest; ++i) row("slowest", timed[timed.size() - 1 - i]);
    }
  }

  std::vector<std::string> internal, refused, miscased;
  for (const auto& r : reports) {
    std::string details = r.value("status_details", "");
    // An internal error of the whole report, or of one item (a report stored by a grader before issue 31 said
    // `graded` then): the grade is incomplete either way.
    if (student_status(r) == to_string(Verdict::internal_error)) {
      if (details.empty())
        for (const auto& test : r.value("tests", json::array()))
          if (test.value("status", "") == to_string(Verdict::internal_error)) {
            details = test.value("name", "") + ": " + test.value("details", "");
            break;
          }
      internal.push_back(table_cell(id_of(r)) + ": " + table_cell(details));
    } else if (r["batch"].value("refused", false)) refused.push_back(table_cell(id_of(r)) + ": " + table_cell(details));
    std::string found;
    for (const auto& mismatch : r["batch"].value("case_mismatches", std::vector<std::string>{}))
      found += (found.empty() ? "" : ", ") + table_cell(mismatch);
    if (!found.empty()) miscased.push_back(table_cell(id_of(r)) + ": found " + found);
  }
  if (!internal.empty() || !refused.empty() || !miscased.empty()) {
    md += "\n## Needs a person\n\n";
    for (const auto& line : internal) md += "- internal error (not the student's fault; `--regrade` once fixed): " + line + "\n";
    for (const auto& line : refused) md += "- submission refused: " + line + "\n";
    for (const auto& line : miscased)
      md += "- a file name differs only in letter case (graded as missing; rename it and `--regrade` if your course "
            "allows): " + line + "\n";
  }
  return valid_utf8(md);
}

}  // namespace grader
