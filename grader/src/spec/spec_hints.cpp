// spec_hints.cpp: a benchmark's `hints`, the next steps a report offers a student according to where the timed
// result sits and what the code compiled to (`when`, conditions on facts and counters). Each is checked where it is written: a hint that could never be shown (it follows a hint of the same
// figure with a higher or equal `below`), one on the roofline for an item with neither flops nor bytes, or one with
// no words is refused with its position, so a lab's feedback cannot silently vanish.
#include <algorithm>
#include <map>

#include "inspect/fact_list.h"

#include "spec/spec_items.h"

namespace grader {

namespace {

// Long enough for two sentences of advice; a longer hint is a handout section, and belongs there.
constexpr std::size_t longest_hint = 400;

// `when`: one condition ("spill_bytes > 0") or an array of them, all of which must hold. Each may read the
// benchmark's parameters, the machine's variables, and facts and counters (inspect/fact_list.h).
std::vector<Condition> read_conditions(const SpecField& field, const std::vector<std::string>& param_names) {
  std::vector<SpecField> written;
  if (field.is_array()) written = field.as_nonempty_array();
  else written.push_back(field);
  std::vector<Condition> conditions;
  for (const SpecField& one : written) {
    const std::string text = one.as_nonempty_string();
    Condition condition;
    try {
      condition = Condition::parse(text);
    } catch (const ExprSyntaxError& error) {
      one.fail("'when' must be a comparison such as \"spill_bytes > 0\" (at column " + std::to_string(error.column()) +
               " of \"" + text + "\": " + error.what() + ")");
    }
    for (const std::string& name : condition.names()) {
      if (is_fact_variable(name)) continue;
      try {
        check_expr(one, Expr::parse(name), param_names, "benchmark");
      } catch (const SpecError& error) {
        one.fail(error.message() + ", nor a fact or counter (docs/lab-toml.md, hints, lists them)");
      }
    }
    conditions.push_back(std::move(condition));
  }
  return conditions;
}

}  // namespace

std::vector<Hint> read_hints(const SpecField& field, const PerformanceItem& item,
                             const std::vector<std::string>& param_names) {
  std::vector<Hint> hints;
  std::map<Metric, double> highest_constant_below;  // per figure: a later, lower hint would never be shown
  for (const SpecTable& table : field.as_array_of_tables()) {
    Hint hint;
    hint.where = table.where();
    hint.of = item.metric;
    if (auto of = table.optional("of")) {
      hint.of = of->as_choice({"speedup", "roofline"}) == 0 ? Metric::speedup : Metric::roofline;
      if (hint.of == Metric::roofline && !item.flops && !item.bytes)
        of->fail("a hint on the roofline needs the benchmark's 'flops' or 'bytes', which place it there");
    }

    if (auto when = table.optional("when")) hint.when = read_conditions(*when, param_names);
    if (auto below = table.optional("below")) {
      hint.below = below->as_expr();
      check_expr(*below, *hint.below, param_names, "benchmark");
      if (hint.below->is_constant()) {
        const double value = hint.below->evaluate({});
        if (value <= 0) below->fail("'below' must be above 0, got " + Expr::constant(value).text());
        auto highest = highest_constant_below.find(hint.of);
        if (highest != highest_constant_below.end() && value <= highest->second)
          below->fail("this hint is never shown: an earlier hint on the " + std::string(to_string(hint.of)) +
                      " applies below " + Expr::constant(highest->second).text() +
                      " already (order hints by ascending 'below'; a hint with 'when' may come first)");
        // A hint with conditions may not apply: it hides no later hint.
        if (hint.when.empty()) highest_constant_below[hint.of] = value;
      }
    } else if (hint.when.empty()) {
      table.required("below");  // neither: the message names 'below', the usual one
    }

    const SpecField text = table.required("text");
    hint.text = text.as_nonempty_string();
    if (hint.text.size() > longest_hint)
      text.fail("a hint is at most " + std::to_string(longest_hint) + " bytes (this one has " +
                std::to_string(hint.text.size()) + "); put the longer explanation in the handout");
    hints.push_back(std::move(hint));
  }
  if (hints.empty()) field.fail("'hints' must list at least one hint, or be left out");
  return hints;
}

}  // namespace grader
