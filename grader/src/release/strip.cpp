// strip.cpp: cuts hidden cases and benchmarks out of a lab.toml by lines; see strip.h.
//
// Which cases are hidden comes from the LabSpec (the grader's own reading of the file); where each one is
// written comes from toml++'s source regions of the same text, matched item by item and case by case.
#include "release/strip.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <toml++/toml.h>

namespace grader {

namespace {

constexpr std::string_view blanks = " \t\r";

std::string_view without_blanks(std::string_view text) {
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

bool is_blank(std::string_view line) { return without_blanks(line).empty(); }
bool is_comment(std::string_view line) { return without_blanks(line).starts_with('#'); }

// The byte offset of a 1-based column counted in code points, the way toml++ counts columns.
std::size_t byte_offset(const std::string& line, int column) {
  std::size_t at = 0;
  for (int current = 1; current < column && at < line.size(); ++current) {
    ++at;
    while (at < line.size() && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80) ++at;
  }
  return at;
}

// Where a comment starts on a line of TOML, outside strings; npos when there is none.
std::size_t comment_start(std::string_view line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (quote == '"' && c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return i;
    }
  }
  return std::string_view::npos;
}

// Header lines ([table], [[array]]) of the tables written below `node`, `node` itself included.
void collect_headers(const toml::node& node, std::set<int>& lines) {
  if (const toml::table* table = node.as_table()) {
    if (!table->is_inline() && table->source().begin.line > 0) lines.insert(static_cast<int>(table->source().begin.line));
    for (auto&& [key, value] : *table) collect_headers(value, lines);
  } else if (const toml::array* array = node.as_array()) {
    for (const toml::node& element : *array) collect_headers(element, lines);
  }
}

class Cutter {
 public:
  Cutter(std::string_view text, const LabSpec& spec) : spec_(spec) {
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) {
        lines_.emplace_back(text.substr(start));
        final_newline_ = false;
        break;
      }
      lines_.emplace_back(text.substr(start, end - start));
      start = end + 1;
    }
    try {
      document_ = toml::parse(text, std::string_view(spec.file.string()));
    } catch (const toml::parse_error& error) {
      throw ReleaseError(spec.file.string() + ": " + std::string(error.description()));
    }
    for (auto&& [key, value] : document_) collect_headers(value, headers_);
  }

  // Removes `node` (a table): an inline table from its line, a [table] from its header to the next header.
  void remove(const toml::node& node, const std::string& what) {
    const toml::table* table = node.as_table();
    const int line = static_cast<int>(node.source().begin.line);
    if (table == nullptr || line < 1 || line > static_cast<int>(lines_.size()))
      fail(line, "cannot find where " + what + " is written");
    if (table->is_inline()) remove_inline(*table, what);
    else remove_block(*table, what);
  }

  [[noreturn]] void fail(int line, const std::string& message) const {
    throw ReleaseError(to_string(SourcePosition{spec_.file.string(), line, 1}) + ": " + message);
  }

  const toml::table& document() const { return document_; }

  // The text with every cut applied; blank lines where something was cut are collapsed into one.
  std::string render(const std::string& header) {
    settle_inline_cuts();
    std::string out = header;
    bool previous_blank = true, cut_since = false;
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      const int line = static_cast<int>(i) + 1;
      if (whole_.count(line)) {
        cut_since = true;
        continue;
      }
      const bool blank = is_blank(lines_[i]);
      if (blank && previous_blank && cut_since) continue;
      out += lines_[i];
      if (i + 1 < lines_.size() || final_newline_) out += '\n';
      previous_blank = blank;
      cut_since = false;
    }
    return out;
  }

 private:
  void remove_inline(const toml::table& table, const std::string& what) {
    const toml::source_region& region = table.source();
    const int line = static_cast<int>(region.begin.line);
    if (region.end.line != region.begin.line)
      fail(line, what + " is an inline table over several lines; the release cuts inline tables out of one line");
    const std::string& text = lines_[line - 1];
    const std::size_t begin = byte_offset(text, static_cast<int>(region.begin.column));
    std::size_t end = byte_offset(text, static_cast<int>(region.end.column));
    if (begin >= text.size() || text[begin] != '{' || end == 0 || end > text.size() || text[end - 1] != '}')
      fail(line, "cannot find the braces of " + what + " on its line");
    // Its comma goes with it, and the blanks around that comma.
    end = text.find_first_not_of(blanks, end) == std::string::npos ? text.size() : text.find_first_not_of(blanks, end);
    if (end < text.size() && text[end] == ',') {
      ++end;
      const std::size_t next = text.find_first_not_of(blanks, end);
      end = next == std::string::npos ? text.size() : next;
    }
    spans_[line].push_back({begin, end});
  }

  void remove_block(const toml::table& table, const std::string& what) {
    const int header = static_cast<int>(table.source().begin.line);
    if (!without_blanks(lines_[header - 1]).starts_with('['))
      fail(header, "cannot cut " + what + " out by lines: line " + std::to_string(header) + " is not its table header");
    std::set<int> own;
    collect_headers(table, own);
    int end = static_cast<int>(lines_.size()) + 1;
    for (int line : headers_) {
      if (line > header && !own.count(line)) {
        end = line;
        break;
      }
    }
    // Comment lines after the block's last blank line describe what follows it; those above its header describe it.
    while (end - 1 > header && is_comment(lines_[end - 2])) --end;
    int begin = header;
    while (begin > 1 && is_comment(lines_[begin - 2])) --begin;
    for (int line = begin; line < end; ++line) whole_.insert(line);
  }

  // Applies the cuts inside lines. A line left without content goes entirely, with the comment lines directly
  // above it; a line that keeps content loses its trailing comment, which may have described what was cut.
  void settle_inline_cuts() {
    for (auto& [line, spans] : spans_) {
      std::string& text = lines_[line - 1];
      std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      for (const auto& [begin, end] : spans) text.erase(begin, end - begin);
      const std::size_t comment = comment_start(text);
      if (comment != std::string::npos) text.erase(comment);
      while (!text.empty() && blanks.find(text.back()) != std::string_view::npos) text.pop_back();
      if (is_blank(text)) {
        whole_.insert(line);
        for (int above = line - 1; above >= 1 && is_comment(lines_[above - 1]) && !whole_.count(above); --above)
          whole_.insert(above);
      }
    }
    spans_.clear();
  }

  const LabSpec& spec_;
  std::vector<std::string> lines_;
  bool final_newline_ = true;
  toml::table document_;
  std::set<int> headers_;
  std::set<int> whole_;
  std::map<int, std::vector<std::pair<std::size_t, std::size_t>>> spans_;
};

// The array `key` of the document, which must hold exactly `count` elements (the spec's items).
const toml::array* items_of(const Cutter& cutter, const char* key, std::size_t count) {
  const toml::array* items = cutter.document()[key].as_array();
  const std::size_t size = items == nullptr ? 0 : items->size();
  if (size != count)
    cutter.fail(0, std::string("the file's '") + key + "' holds " + std::to_string(size) + " items, the spec " +
                       std::to_string(count));
  return items;
}

// Visible cases and benchmarks by name, to prove the cut kept every one of them.
std::vector<std::string> visible_outline(const LabSpec& spec) {
  std::vector<std::string> outline;
  for (const auto& item : spec.correctness) {
    std::string line = "correctness " + item.name + ":";
    bool any = false;
    for (const auto& c : item.cases) {
      if (withheld_from_students(c.visibility)) continue;
      line += " [" + c.name + "]";
      any = true;
    }
    if (any) outline.push_back(line);
  }
  for (const auto& item : spec.performance)
    if (!withheld_from_students(item.visibility)) outline.push_back("performance " + item.name);
  return outline;
}

// `text` with `withheld = <count>` as the first key of its [lab] table.
std::string with_withheld_count(const std::string& text, int count, const LabSpec& spec) {
  std::istringstream lines(text);
  std::string out, line;
  bool placed = false;
  while (std::getline(lines, line)) {
    out += line + "\n";
    if (placed) continue;
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 5, "[lab]") == 0) {
      out += "# How many hidden cases and items the staff grade with, so your report can say so (grader release).\n";
      out += "withheld = " + std::to_string(count) + "\n";
      placed = true;
    }
  }
  if (!placed) throw ReleaseError(spec.file.string() + ": no [lab] table header to record the hidden cases' count under");
  return out;
}

}  // namespace

StrippedSpec strip_hidden(std::string_view text, const LabSpec& spec) {
  StrippedSpec result;
  Cutter cutter(text, spec);
  const toml::array* correctness = items_of(cutter, "correctness", spec.correctness.size());
  const toml::array* performance = items_of(cutter, "performance", spec.performance.size());

  std::set<std::string> removed_items;
  for (std::size_t i = 0; i < spec.correctness.size(); ++i) {
    const CorrectnessItem& item = spec.correctness[i];
    const toml::node& node = (*correctness)[i];
    const bool all_hidden = std::all_of(item.cases.begin(), item.cases.end(),
                                        [](const CaseSpec& c) { return withheld_from_students(c.visibility); });
    if (all_hidden) {
      cutter.remove(node, "correctness item '" + item.name + "' (every case of it is hidden)");
      removed_items.insert(item.name);
      result.hidden_names.push_back(item.name);
      ++result.items_removed;
      for (const auto& c : item.cases) result.hidden_names.push_back(c.name);
      result.cases_removed += static_cast<int>(item.cases.size());
      continue;
    }
    const toml::array* cases = node.as_table() ? (*node.as_table())["cases"].as_array() : nullptr;
    if (cases == nullptr || cases->size() != item.cases.size())
      cutter.fail(item.where.line, "cannot match the cases of correctness item '" + item.name + "' to the file");
    for (std::size_t j = 0; j < item.cases.size(); ++j) {
      const CaseSpec& c = item.cases[j];
      if (!withheld_from_students(c.visibility)) continue;
      cutter.remove((*cases)[j], "hidden case '" + c.name + "'");
      result.hidden_names.push_back(c.name);
      ++result.cases_removed;
    }
  }
  for (std::size_t i = 0; i < spec.performance.size(); ++i) {
    const PerformanceItem& item = spec.performance[i];
    if (withheld_from_students(item.visibility)) {
      cutter.remove((*performance)[i], "hidden performance item '" + item.name + "'");
      result.hidden_names.push_back(item.name);
      ++result.items_removed;
      continue;
    }
    for (const auto& required : item.requires_items)
      if (removed_items.count(required))
        cutter.fail(item.where.line, "performance item '" + item.name + "' requires '" + required +
                                         "', whose cases are all hidden, so the release leaves it out; give '" +
                                         required + "' a visible case or drop it from 'requires'");
  }
  if (result.cases_removed == 0 && result.items_removed == 0) {
    result.text = std::string(text);
    return result;
  }

  const std::string header = "# Student release (`grader release`): " + std::to_string(result.cases_removed) +
                             " hidden case(s) and " + std::to_string(result.items_removed) +
                             " hidden item(s) of this lab are graded when\n"
                             "# the course staff grade, and are not in this file.\n";
  // What a student's run in the staff repository would have counted as not run here: each hidden case, and
  // each hidden benchmark (a correctness item cut whole counts by its cases).
  int hidden_benchmarks = 0;
  for (const auto& item : spec.performance) hidden_benchmarks += withheld_from_students(item.visibility) ? 1 : 0;
  result.withheld = result.cases_removed + hidden_benchmarks;
  result.text = with_withheld_count(cutter.render(header), result.withheld, spec);

  // Proof: the grader reads the new file, which holds every visible case and benchmark and nothing hidden.
  LabSpec stripped;
  try {
    stripped = parse_lab_spec(result.text, spec.file);
  } catch (const SpecError& error) {
    throw ReleaseError(spec.file.string() + ": without its hidden cases and items the file is no longer valid (" +
                       error.what() + ")");
  }
  for (const auto& item : stripped.correctness)
    for (const auto& c : item.cases)
      if (withheld_from_students(c.visibility))
        throw ReleaseError(to_string(c.where) + ": hidden case '" + c.name + "' is still there after the cut");
  for (const auto& item : stripped.performance)
    if (withheld_from_students(item.visibility))
      throw ReleaseError(to_string(item.where) + ": hidden item '" + item.name + "' is still there after the cut");
  if (stripped.withheld != result.withheld)
    throw ReleaseError(spec.file.string() + ": the released file does not record how many hidden cases it lost");
  if (visible_outline(stripped) != visible_outline(spec))
    throw ReleaseError(spec.file.string() + ": cutting the hidden cases out lost or changed a visible one");
  return result;
}

}  // namespace grader
