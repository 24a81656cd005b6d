#include "handout/graded_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>
#include <vector>

#include "spec/expr.h"

namespace grader {

namespace {

constexpr std::string_view opening = "<!-- graded-table ";
constexpr std::string_view closing = "<!-- /graded-table -->";


// A table cell: a '|' would end it.
std::string cell(std::string text) {
  for (auto at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) text.replace(at, 1, "\\|");
  return text;
}

std::string code(const std::string& text) { return "`" + text + "`"; }

using Names = std::vector<std::pair<std::string, Expr>>;

Names names_of(const LabSpec& spec) {
  Names names;
  for (const HandoutName& named : spec.handout_names) names.emplace_back(named.name, named.means);
  return names;
}

// The names an expression, as printed, shows (and the names those are written with, in turn).
void collect_used(const std::string& printed, const LabSpec& spec, std::set<std::string>& used) {
  const Names names = names_of(spec);
  for (std::size_t i = 0; i < spec.handout_names.size(); ++i) {
    const std::string& name = spec.handout_names[i].name;
    if (used.count(name)) continue;
    // A whole word of the printed text.
    for (auto at = printed.find(name); at != std::string::npos; at = printed.find(name, at + 1)) {
      const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      const bool starts = at == 0 || !word(printed[at - 1]);
      const bool ends = at + name.size() == printed.size() || !word(printed[at + name.size()]);
      if (!starts || !ends) continue;
      used.insert(name);
      Names earlier(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i));
      collect_used(spec.handout_names[i].means.readable(earlier), spec, used);
      break;
    }
  }
}

std::string params_text(const std::vector<Param>& params, const Names& names) {
  std::string text;
  for (const Param& param : params) text += (text.empty() ? "" : ", ") + param.name + " = " + param.value.readable(names);
  return text;
}

std::string tolerance_text(const Tolerance& tolerance) {
  return "atol " + readable_number(tolerance.atol) + ", rtol " + readable_number(tolerance.rtol);
}

bool is_visible(const CaseSpec& c) { return c.visibility == Visibility::visible; }

std::string correctness_table(const LabSpec& spec) {
  std::string table = "| item | variant | points | tolerance | visible cases |\n|---|---|---|---|---|\n";
  for (const CorrectnessItem& item : spec.correctness) {
    if (std::none_of(item.cases.begin(), item.cases.end(), is_visible)) continue;
    std::string variants;
    for (const auto& variant : item.variants) variants += (variants.empty() ? "" : ", ") + code(variant);
    if (!item.build_flags.empty()) {
      std::string flags;
      for (const auto& flag : item.build_flags) flags += (flags.empty() ? "" : " ") + flag;
      variants += ", built with " + code(flags);
    }
    // A case with a tolerance of its own says so after its name; the column holds the item's, where a case uses it.
    const Tolerance tolerance = item.tolerance.value_or(spec.tolerance);
    bool item_tolerance_used = false;
    std::string cases;
    for (const CaseSpec& c : item.cases) {
      if (!is_visible(c)) continue;
      cases += (cases.empty() ? "" : "; ") + c.name;
      if (c.tolerance && (c.tolerance->atol != tolerance.atol || c.tolerance->rtol != tolerance.rtol))
        cases += " (" + tolerance_text(*c.tolerance) + ")";
      else
        item_tolerance_used = true;
    }
    const std::string tolerances = item_tolerance_used ? tolerance_text(tolerance) : "each case's, after its name";
    table += "| " + cell(item.name) + " | " + cell(variants) + " | " + readable_number(item.points) + " | " + cell(tolerances) +
             " | " + cell(cases) + " |\n";
  }
  return table;
}

std::string measures(const PerformanceItem& item, const Names& names) {
  const std::string yours = "your " + code(item.variant);
  std::string text;
  if (item.metric == Metric::roofline) {
    std::string precision = item.precision;
    std::transform(precision.begin(), precision.end(), precision.begin(), [](unsigned char c) { return std::toupper(c); });
    text = "roofline: the rate of " + yours + " / this machine's ceiling (" +
           (item.read_only_memory ? "the read-only" : "the read-write") + " memory bandwidth or the " + precision +
           " peak, whichever binds)";
  } else {
    const BaselineSpec& baseline = item.baseline;
    const std::string variant = code(baseline.variant.empty() ? item.variant : baseline.variant);
    std::string base = baseline.process == BaselineSpec::Process::candidate ? "your " + variant : "the judge's " + variant;
    if (!baseline.params.empty()) base += " with " + params_text(baseline.params, names);
    if (!baseline.cap.empty()) base += " (at most the judge's " + code(baseline.cap) + ")";
    text = "speedup: " + base + " time / " + yours + " time";
  }
  if (!item.params.empty()) text += ", at " + params_text(item.params, names);
  std::string shortfall;
  for (const auto& [variable, least] : item.requires_machine)
    shortfall += (shortfall.empty() ? "" : " or ") + variable + " < " + readable_number(least);
  if (!shortfall.empty()) text += "; not timed where " + shortfall;
  return text;
}

std::string tiers_text(const PerformanceItem& item, const Names& names) {
  if (item.max_points() == 0) return "none: shown for the report";
  std::string text;
  for (std::size_t i = 0; i < item.tiers.size(); ++i) {
    const Tier& tier = item.tiers[i];
    std::string at;
    if (tier.at.is_constant()) {
      const double value = tier.at.evaluate({});
      at = item.metric == Metric::roofline ? readable_number(value * 100) + "%" : readable_number(value) + "x";
    } else {
      at = code(tier.at.readable(names));
    }
    text += (i == 0 ? readable_number(tier.points) + " points at " : ", " + readable_number(tier.points) + " at ") + at;
  }
  if (item.metric == Metric::roofline) text += " of the roofline";
  return text;
}

std::string performance_table(const LabSpec& spec) {
  const Names names = names_of(spec);
  std::string table = "| item | measures | points | tiers |\n|---|---|---|---|\n";
  std::set<std::string> used;
  for (const PerformanceItem& item : spec.performance) {
    if (item.visibility != Visibility::visible) continue;
    const std::string how = measures(item, names), tiers = tiers_text(item, names);
    collect_used(how + " " + tiers, spec, used);
    table += "| " + cell(item.name) + " | " + cell(how) + " | " + readable_number(item.max_points()) + " | " + cell(tiers) + " |\n";
  }
  if (!used.empty()) {
    table += "\nIn these formulas:\n\n";
    for (std::size_t i = 0; i < spec.handout_names.size(); ++i) {
      const HandoutName& named = spec.handout_names[i];
      if (!used.count(named.name)) continue;
      const Names earlier(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i));
      table += "- " + code(named.name) + " = " + code(named.means.readable(earlier)) + ": " + named.text + "\n";
    }
  }
  return table;
}

std::string total_line(const LabSpec& spec) {
  double correctness = 0, performance = 0;
  for (const CorrectnessItem& item : spec.correctness)
    if (std::any_of(item.cases.begin(), item.cases.end(), is_visible)) correctness += item.points;
  for (const PerformanceItem& item : spec.performance)
    if (item.visibility == Visibility::visible) performance += item.max_points();
  return "Total: " + readable_number(correctness + performance) + " points (" + readable_number(correctness) + " correctness, " +
         readable_number(performance) + " performance).\n";
}

bool has_timed_items(const LabSpec& spec) {
  return std::any_of(spec.performance.begin(), spec.performance.end(),
                     [](const PerformanceItem& item) { return item.visibility == Visibility::visible; });
}

std::string trimmed_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
    line.remove_suffix(1);
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return std::string(line);
}

}  // namespace

std::string graded_table(const LabSpec& spec, std::string_view kind) {
  // The total closes the last table: the performance table, or the correctness table of a lab that times nothing.
  if (kind == "correctness")
    return "\n" + correctness_table(spec) + (has_timed_items(spec) ? "" : "\n" + total_line(spec)) + "\n";
  if (kind == "performance") return "\n" + performance_table(spec) + "\n" + total_line(spec) + "\n";
  throw std::logic_error("no graded table of kind '" + std::string(kind) + "'");
}

std::string with_graded_tables(std::string_view handout, const LabSpec& spec, const std::string& file) {
  std::string result;
  std::set<std::string> seen;
  std::string open_kind;  // non-empty while inside a block
  int open_line = 0, number_of_line = 0;
  std::size_t start = 0;
  while (start < handout.size()) {
    std::size_t end = handout.find('\n', start);
    end = end == std::string_view::npos ? handout.size() : end + 1;
    const std::string_view line = handout.substr(start, end - start);
    start = end;
    ++number_of_line;
    const std::string bare = trimmed_line(line);
    const std::string where = file + ":" + std::to_string(number_of_line) + ": ";
    if (bare.starts_with(opening) && bare.ends_with("-->")) {
      if (!open_kind.empty())
        throw HandoutError(where + "a graded table opens inside the " + open_kind + " table opened at line " +
                           std::to_string(open_line));
      std::string kind = trimmed_line(bare.substr(opening.size(), bare.size() - opening.size() - 3));
      if (std::find(std::begin(graded_table_kinds), std::end(graded_table_kinds), kind) == std::end(graded_table_kinds))
        throw HandoutError(where + "unknown graded table '" + kind + "'; the kinds are correctness and performance");
      if (!seen.insert(kind).second) throw HandoutError(where + "the " + kind + " table is marked twice");
      if (kind == "performance" && !has_timed_items(spec))
        throw HandoutError(where + "a performance table, but " + spec.file.string() + " times no visible item");
      result += line;
      result += graded_table(spec, kind);
      open_kind = kind;
      open_line = number_of_line;
      continue;
    }
    if (bare == closing) {
      if (open_kind.empty()) throw HandoutError(where + std::string(closing) + " closes no table");
      open_kind.clear();
      result += line;
      continue;
    }
    if (open_kind.empty()) result += line;  // prose: kept as it is; a block's old text is dropped
  }
  if (!open_kind.empty())
    throw HandoutError(file + ":" + std::to_string(open_line) + ": the " + open_kind + " table is never closed (" +
                       std::string(closing) + ")");
  if (!seen.count("correctness"))
    throw HandoutError(file + ": no <!-- graded-table correctness --> ... " + std::string(closing) +
                       " where the correctness table goes (docs/instructor-guide.md, \"The handout\")");
  if (has_timed_items(spec) && !seen.count("performance"))
    throw HandoutError(file + ": no <!-- graded-table performance --> ... " + std::string(closing) +
                       " where the performance table goes (docs/instructor-guide.md, \"The handout\")");
  return result;
}

}  // namespace grader
