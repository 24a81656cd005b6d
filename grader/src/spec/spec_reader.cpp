// spec_reader.cpp: typed reading of lab.toml values with their positions; see spec_reader.h.
#include "spec/spec_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace grader {

namespace {

bool is_known_key(const std::string& path) {
  static const std::unordered_set<std::string> known(known_spec_keys().begin(), known_spec_keys().end());
  return known.count(path) != 0;
}

std::string child_path(const std::string& table_path, std::string_view key) {
  return table_path.empty() ? std::string(key) : table_path + "." + std::string(key);
}

// The keys known_spec_keys() allows directly inside the table at `table_path`, for "did you mean".
std::vector<std::string> keys_of_table(const std::string& table_path) {
  const std::string prefix = table_path.empty() ? "" : table_path + ".";
  std::vector<std::string> keys;
  for (const std::string& path : known_spec_keys()) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
    std::string rest = path.substr(prefix.size());
    if (rest.find_first_of(".[") == std::string::npos) keys.push_back(std::move(rest));
  }
  return keys;
}

// Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`: "pionts" is 1 from "points".
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string unknown_key_message(const std::string& key, const std::string& table_path, const std::string& label) {
  std::string message = "unknown key '" + key + "' " + (table_path.empty() ? "at " : "in ") + label;
  const std::vector<std::string> keys = keys_of_table(table_path);
  const std::string* closest = nullptr;
  std::size_t closest_distance = 0;
  for (const std::string& candidate : keys) {
    const std::size_t distance = edit_distance(key, candidate);
    // A typo is an edit or two, and few for the word's length: 'x' is not a misspelt 'id'.
    const bool typo = distance <= 2 && distance * 3 <= std::max(key.size(), candidate.size());
    if (typo && (closest == nullptr || distance < closest_distance)) {
      closest_distance = distance;
      closest = &candidate;
    }
  }
  if (closest != nullptr) return message + "; did you mean '" + *closest + "'?";
  std::string list;
  for (const std::string& candidate : keys) list += (list.empty() ? "" : ", ") + candidate;
  return message + "; the keys allowed there are " + list + " (see docs/lab-toml.md)";
}

// Where the 0-based character `offset` of a string value lies in the file. Exact for a one-line string
// written without escapes (every expression in practice); otherwise the string's own position, since
// escapes and line breaks make the text and the file disagree.
toml::source_position position_in_string(const SpecSource& source, const toml::node& node, std::size_t offset) {
  const toml::source_position start = node.source().begin;
  const std::string& value = **node.as_string();
  std::string_view text = source.text;
  for (toml::source_index line = 1; line < start.line; ++line) {
    const std::size_t newline = text.find('\n');
    if (newline == std::string_view::npos) return start;
    text.remove_prefix(newline + 1);
  }
  const std::string_view line = text.substr(0, text.find('\n'));
  const std::size_t quote = start.column - 1;  // toml++ counts columns in code points; lab.toml lines are ASCII
  if (quote >= line.size() || (line[quote] != '"' && line[quote] != '\'')) return start;
  const std::string_view raw = line.substr(quote + 1);
  const bool written_as_is =
      raw.size() > value.size() && raw.substr(0, value.size()) == value && raw[value.size()] == line[quote];
  if (!written_as_is) return start;
  return {start.line, static_cast<toml::source_index>(start.column + 1 + offset)};
}

}  // namespace

std::string number_text(double value) { return Expr::constant(value).text(); }

std::string_view describe_type(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

SourcePosition SpecSource::at(const toml::source_position& position) const {
  return {file, static_cast<int>(position.line), static_cast<int>(position.column)};
}

void SpecSource::fail(const toml::source_position& position, const std::string& message) const {
  throw SpecError(at(position), message);
}

// ---- SpecField -----------------------------------------------------------------------------------------

SpecField::SpecField(const toml::node& node, std::string path, std::string key, toml::source_position key_position,
                     const SpecSource& source, bool array_element)
    : node_(&node),
      path_(std::move(path)),
      key_(std::move(key)),
      label_(array_element ? "an element of '" + key_ + "'" : "'" + key_ + "'"),
      key_position_(key_position),
      source_(&source) {}

SourcePosition SpecField::where() const { return source_->at(node_->source().begin); }
SourcePosition SpecField::key_where() const { return source_->at(key_position_); }
void SpecField::fail(const std::string& message) const { source_->fail(node_->source().begin, message); }
void SpecField::fail_at_key(const std::string& message) const { source_->fail(key_position_, message); }

void SpecField::fail_type(std::string_view expected) const {
  fail("expected " + std::string(expected) + " for " + label_ + ", got " + std::string(describe_type(*node_)));
}

std::string SpecField::as_string() const {
  if (!node_->is_string()) fail_type("a string");
  return **node_->as_string();
}

std::string SpecField::as_nonempty_string() const {
  std::string value = as_string();
  if (value.empty()) fail(label_ + " must not be empty");
  return value;
}

bool SpecField::as_bool() const {
  if (!node_->is_boolean()) fail_type("true or false");
  return **node_->as_boolean();
}

double SpecField::as_number() const {
  if (node_->is_integer()) return static_cast<double>(**node_->as_integer());
  if (!node_->is_floating_point()) fail_type("a number");
  // TOML allows nan and inf; no tolerance, limit or point count means either (atol = inf passes every answer).
  const double value = **node_->as_floating_point();
  if (!std::isfinite(value)) fail(label_ + " must be a finite number, got " + std::string(std::isnan(value) ? "nan" : value < 0 ? "-inf" : "inf"));
  return value;
}

double SpecField::as_number_in(double minimum, double maximum) const {
  const double value = as_number_at_least(minimum);
  if (value > maximum) fail(label_ + " must be at most " + number_text(maximum) + ", got " + number_text(value));
  return value;
}

std::int64_t SpecField::as_integer_in(std::int64_t minimum, std::int64_t maximum) const {
  const std::int64_t value = as_integer_at_least(minimum);
  if (value > maximum) fail(label_ + " must be at most " + std::to_string(maximum) + ", got " + std::to_string(value));
  return value;
}

double SpecField::as_number_at_least(double minimum) const {
  const double value = as_number();
  if (value < minimum) fail(label_ + " must be at least " + number_text(minimum) + ", got " + number_text(value));
  return value;
}

double SpecField::as_positive_number() const {
  const double value = as_number();
  if (!(value > 0)) fail(label_ + " must be greater than 0, got " + number_text(value));
  return value;
}

std::int64_t SpecField::as_integer() const {
  if (!node_->is_integer()) fail_type("an integer");
  return **node_->as_integer();
}

std::int64_t SpecField::as_integer_at_least(std::int64_t minimum) const {
  const std::int64_t value = as_integer();
  if (value < minimum) fail(label_ + " must be at least " + std::to_string(minimum) + ", got " + std::to_string(value));
  return value;
}

int SpecField::as_int_at_least(int minimum) const {
  const std::int64_t value = as_integer_at_least(minimum);
  if (value > std::numeric_limits<int>::max()) fail(label_ + " is too large: " + std::to_string(value));
  return static_cast<int>(value);
}

std::size_t SpecField::as_choice(const std::vector<std::string>& choices) const {
  const std::string value = as_string();
  std::string listed;
  for (std::size_t index = 0; index < choices.size(); ++index) {
    if (value == choices[index]) return index;
    listed += (index == 0 ? "\"" : ", \"") + choices[index] + "\"";
  }
  fail("expected one of " + listed + " for " + label_ + ", got \"" + value + "\"");
}

std::size_t SpecField::as_choice(std::initializer_list<std::string_view> choices) const {
  const std::string value = as_string();
  std::string listed;
  std::size_t index = 0;
  for (std::string_view choice : choices) {
    if (value == choice) return index;
    listed += (index++ == 0 ? "\"" : ", \"") + std::string(choice) + "\"";
  }
  fail("expected one of " + listed + " for " + label_ + ", got \"" + value + "\"");
}

Expr SpecField::as_expr() const {
  if (node_->is_integer() || node_->is_floating_point()) return Expr::constant(as_number());
  if (!node_->is_string()) fail_type("a number or an expression string");
  const std::string& text = **node_->as_string();
  try {
    return Expr::parse(text);
  } catch (const ExprSyntaxError& error) {
    const toml::source_position at = position_in_string(*source_, *node_, static_cast<std::size_t>(error.column() - 1));
    source_->fail(at, "invalid expression \"" + text + "\" for " + label_ + ": " + error.what());
  }
}

const toml::table& SpecField::table_or_fail() const {
  if (!node_->is_table()) fail_type("a table");
  return *node_->as_table();
}

SpecTable SpecField::as_table() const { return SpecTable(table_or_fail(), path_, *source_); }

std::vector<SpecField> SpecField::as_entries() const {
  std::vector<SpecField> entries;
  for (auto&& [key, node] : table_or_fail()) {
    entries.emplace_back(node, path_ + "." + std::string(key.str()), std::string(key.str()),
                         key.source().begin, *source_);
  }
  // toml++ keeps a table's keys sorted; the author's order reads better in reports and messages.
  std::sort(entries.begin(), entries.end(), [](const SpecField& a, const SpecField& b) {
    const SourcePosition pa = a.key_where();
    const SourcePosition pb = b.key_where();
    return std::pair(pa.line, pa.column) < std::pair(pb.line, pb.column);
  });
  return entries;
}

std::vector<SpecField> SpecField::as_array() const {
  if (!node_->is_array()) fail_type("an array");
  std::vector<SpecField> elements;
  for (const toml::node& element : *node_->as_array()) {
    elements.emplace_back(element, path_ + "[]", key_, element.source().begin, *source_, true);
  }
  return elements;
}

std::vector<SpecField> SpecField::as_nonempty_array() const {
  std::vector<SpecField> elements = as_array();
  if (elements.empty()) fail("'" + key() + "' must not be empty");
  return elements;
}

std::vector<std::string> SpecField::as_strings() const {
  std::vector<std::string> strings;
  for (const SpecField& element : as_array()) strings.push_back(element.as_nonempty_string());
  return strings;
}

std::vector<std::string> SpecField::as_unique_strings() const {
  std::vector<std::string> strings;
  for (const SpecField& element : as_array()) {
    std::string value = element.as_nonempty_string();
    if (std::find(strings.begin(), strings.end(), value) != strings.end()) {
      element.fail("'" + value + "' is listed twice in '" + key() + "'");
    }
    strings.push_back(std::move(value));
  }
  return strings;
}

std::vector<SpecTable> SpecField::as_array_of_tables() const {
  if (!node_->is_array()) fail_type("an array of tables");
  std::vector<SpecTable> tables;
  for (const SpecField& element : as_array()) tables.push_back(element.as_table());
  return tables;
}

// ---- SpecTable -----------------------------------------------------------------------------------------

SpecTable::SpecTable(const toml::table& table, std::string path, const SpecSource& source)
    : table_(&table), path_(std::move(path)), source_(&source) {
  refuse_unknown_keys();
}

void SpecTable::refuse_unknown_keys() const {
  // toml++ iterates keys sorted by name; report the unknown key written first, as a reader would find it.
  const toml::key* first_unknown = nullptr;
  for (auto&& [key, node] : *table_) {
    if (is_known_key(child_path(path_, key.str()))) continue;
    const auto at = [](const toml::key& k) { return std::pair(k.source().begin.line, k.source().begin.column); };
    if (first_unknown == nullptr || at(key) < at(*first_unknown)) first_unknown = &key;
  }
  if (first_unknown != nullptr) {
    source_->fail(first_unknown->source().begin,
                  unknown_key_message(std::string(first_unknown->str()), path_, label()));
  }
}

SourcePosition SpecTable::where() const { return source_->at(table_->source().begin); }
void SpecTable::fail(const std::string& message) const { source_->fail(table_->source().begin, message); }

std::string SpecTable::label() const {
  if (path_.empty()) return "the top level";
  if (path_.find('.') == std::string::npos) {
    const bool array_element = path_.size() > 2 && path_.compare(path_.size() - 2, 2, "[]") == 0;
    return array_element ? "[[" + path_.substr(0, path_.size() - 2) + "]]" : "[" + path_ + "]";
  }
  return "'" + path_ + "'";
}

SpecField SpecTable::field(std::string_view key, const toml::node& node, toml::source_position key_position) const {
  return SpecField(node, child_path(path_, key), std::string(key), key_position, *source_);
}

std::optional<SpecField> SpecTable::optional(std::string_view key) const {
  auto found = table_->find(key);
  if (found == table_->end()) return std::nullopt;
  return field(key, found->second, found->first.source().begin);
}

SpecField SpecTable::required(std::string_view key) const {
  std::optional<SpecField> found = optional(key);
  if (!found) fail("missing required key '" + std::string(key) + "' " + (path_.empty() ? "at " : "in ") + label());
  return *found;
}

}  // namespace grader
