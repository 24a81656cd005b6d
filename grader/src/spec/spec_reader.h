// spec_reader.h: typed reading of lab.toml values with their positions (internal to grader/src/spec).
//
// Every value is read through a SpecField, which remembers where it was written and under which key, so a
// wrong value becomes "lab.toml:41:10: expected a number for 'points', got a string" without the section
// parsers passing positions around. Every table is read through a SpecTable, which refuses keys that
// known_spec_keys() does not list.
//
//   SpecTable lab = root.required("lab").as_table();
//   spec.id = lab.required("id").as_nonempty_string();
//   if (auto gpu = lab.optional("gpu")) spec.gpu = gpu->as_bool();
//
// Fields and tables point into the parsed document and its SpecSource, and live only while it is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader {

// A number as an error message about lab.toml quotes it.
std::string number_text(double value);

// The lab.toml being read: its name for messages, and its text, to place an error inside an expression string.
struct SpecSource {
  std::string file;
  std::string_view text;

  SourcePosition at(const toml::source_position& position) const;
  [[noreturn]] void fail(const toml::source_position& position, const std::string& message) const;
};

class SpecTable;

// One value, the key path it was found under ("correctness[].cases") and how messages name it ("'cases'").
class SpecField {
 public:
  // An element of an array keeps the array's key, and messages call it "an element of '<key>'".
  SpecField(const toml::node& node, std::string path, std::string key, toml::source_position key_position,
            const SpecSource& source, bool array_element = false);

  const std::string& key() const { return key_; }  // "cases", or a parameter's name
  SourcePosition where() const;
  SourcePosition key_where() const;
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_at_key(const std::string& message) const;

  bool is_float() const { return node_->is_floating_point(); }  // a TOML float literal: 0.5, 1e3
  bool is_array() const { return node_->is_array(); }
  std::string as_string() const;
  std::string as_nonempty_string() const;
  bool as_bool() const;
  double as_number() const;  // a TOML integer or float, finite: nan and inf are refused where they are written
  double as_number_in(double minimum, double maximum) const;
  double as_number_at_least(double minimum) const;
  double as_positive_number() const;
  std::int64_t as_integer() const;
  std::int64_t as_integer_at_least(std::int64_t minimum) const;
  int as_int_at_least(int minimum) const;  // an integer that must also fit an int
  std::int64_t as_integer_in(std::int64_t minimum, std::int64_t maximum) const;
  // One of `choices`, returned as its index: as_choice({"judge", "candidate"}) is 1 for "candidate".
  std::size_t as_choice(std::initializer_list<std::string_view> choices) const;
  std::size_t as_choice(const std::vector<std::string>& choices) const;  // known_spec_values(key)
  // A number becomes a constant; a string is parsed, and a syntax error is placed at its column in the file.
  Expr as_expr() const;

  SpecTable as_table() const;                 // a table whose keys known_spec_keys() lists
  std::vector<SpecField> as_entries() const;  // a table of free keys (parameters), in file order
  std::vector<SpecField> as_array() const;    // the elements of an array, named "an element of '<key>'"
  std::vector<SpecTable> as_array_of_tables() const;
  std::vector<SpecField> as_nonempty_array() const;
  std::vector<std::string> as_strings() const;         // an array of non-empty strings
  std::vector<std::string> as_unique_strings() const;  // ... none listed twice

 private:
  [[noreturn]] void fail_type(std::string_view expected) const;
  const toml::table& table_or_fail() const;

  const toml::node* node_;
  std::string path_;
  std::string key_;
  std::string label_;  // how messages name the value: "'points'", "an element of 'variants'"
  toml::source_position key_position_;
  const SpecSource* source_;
};

// One table, with its key path in known_spec_keys() terms: "" for the root, "build", "correctness[]",
// "correctness[].cases[]", "performance[].baseline". Construction refuses keys the spec does not define.
class SpecTable {
 public:
  SpecTable(const toml::table& table, std::string path, const SpecSource& source);

  SourcePosition where() const;
  [[noreturn]] void fail(const std::string& message) const;

  std::optional<SpecField> optional(std::string_view key) const;
  SpecField required(std::string_view key) const;  // missing: an error at the table's own position
  std::string label() const;                       // "[lab]", "[[correctness]]", "'correctness[].cases[]'"

 private:
  void refuse_unknown_keys() const;
  SpecField field(std::string_view key, const toml::node& node, toml::source_position key_position) const;

  const toml::table* table_;
  std::string path_;
  const SpecSource* source_;
};

// "a string", "an integer", ...: the words a type error uses for what it found.
std::string_view describe_type(const toml::node& node);

}  // namespace grader
