// condition.h: a comparison of two expressions, the form lab.toml's conditions on facts and counters take
// (inspect/fact_list.h names them): a hint's `when`, and anything else that asks what the code compiled to.
//
//   Condition c = Condition::parse("accumulators < reference_accumulators");
//   c.holds({{"accumulators", 1}, {"reference_accumulators", 4}});   // true
//   c.holds({{"accumulators", 1}});                                  // throws ExprEvalError: no reference here
#pragma once

#include <string>
#include <vector>

#include "spec/expr.h"

namespace grader {

struct Condition {
  Expr left;
  std::string op;  // <, <=, >, >=, ==, !=
  Expr right;
  std::string text;  // as written

  // Throws ExprSyntaxError (its column within `text`) when there is no comparison or a side is no expression.
  static Condition parse(const std::string& text);
  // Throws ExprEvalError when a side names a variable `variables` lacks (a fact that was not read).
  bool holds(const Variables& variables) const;
  std::vector<std::string> names() const;  // both sides' variables, sorted, unique
};

}  // namespace grader
