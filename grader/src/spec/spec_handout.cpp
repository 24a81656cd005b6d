// spec_handout.cpp: lab.toml's [handout] table, which only changes how `grader handout` writes a handout's
// "What is graded" tables (handout/graded_table.h). A name is checked where it is written: a name that is not a
// short identifier, a second name for one expression or one name twice, and a `means` that reads anything but
// the machine's variables are refused with their position.
#include <cctype>

#include "spec/spec_items.h"

namespace grader {

namespace {

// A symbol in a formula, as a handout writes p or S_mem: a letter, then letters, digits or '_'.
constexpr std::size_t longest_name = 12;

bool is_short_identifier(const std::string& name) {
  if (name.empty() || name.size() > longest_name || !std::isalpha(static_cast<unsigned char>(name.front()))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

std::vector<HandoutName> read_handout_names(const SpecTable& root) {
  std::vector<HandoutName> names;
  const std::optional<SpecField> handout = root.optional("handout");
  if (!handout) return names;
  const SpecTable table = handout->as_table();
  const std::optional<SpecField> field = table.optional("names");
  if (!field) return names;
  for (const SpecTable& entry : field->as_array_of_tables()) {
    HandoutName named;
    named.where = entry.where();
    const SpecField name = entry.required("name");
    named.name = name.as_nonempty_string();
    if (!is_short_identifier(named.name))
      name.fail("'name' is a symbol for a formula: a letter, then letters, digits or '_', at most " +
                std::to_string(longest_name) + " characters; got \"" + named.name + "\"");
    const SpecField means = entry.required("means");
    named.means = means.as_expr();
    check_expr(means, named.means, {}, "name");
    for (const HandoutName& earlier : names) {
      if (earlier.name == named.name) name.fail("the name \"" + named.name + "\" is given twice in [handout] names");
      if (earlier.means.same_as(named.means))
        means.fail("\"" + earlier.name + "\" already names this expression; one name for each");
    }
    named.text = entry.required("text").as_nonempty_string();
    names.push_back(std::move(named));
  }
  return names;
}

}  // namespace grader
