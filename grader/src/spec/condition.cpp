#include "spec/condition.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace grader {

Condition Condition::parse(const std::string& text) {
  // The comparison: the first of these outside parentheses (two-character ones are tried first at each place).
  int depth = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth != 0) continue;
    for (std::string_view op : std::array<std::string_view, 6>{"<=", ">=", "==", "!=", "<", ">"}) {
      if (text.compare(at, op.size(), op) != 0) continue;
      Condition condition;
      condition.op = std::string(op);
      condition.text = text;
      const std::string left = text.substr(0, at), right = text.substr(at + op.size());
      try {
        condition.left = Expr::parse(left);
      } catch (const ExprSyntaxError& error) {
        throw ExprSyntaxError(error.column(), error.what());
      }
      try {
        condition.right = Expr::parse(right);
      } catch (const ExprSyntaxError& error) {
        throw ExprSyntaxError(static_cast<int>(at + op.size()) + error.column(), error.what());
      }
      return condition;
    }
  }
  throw ExprSyntaxError(1, "a condition compares two expressions with <, <=, >, >=, == or != (\"spill_bytes > 0\")");
}

bool Condition::holds(const Variables& variables) const {
  const double a = left.evaluate(variables), b = right.evaluate(variables);
  if (op == "<") return a < b;
  if (op == "<=") return a <= b;
  if (op == ">") return a > b;
  if (op == ">=") return a >= b;
  // Facts are counts and ratios read from text: equal within rounding.
  const bool equal = std::fabs(a - b) <= 1e-9 * std::max(1.0, std::max(std::fabs(a), std::fabs(b)));
  return op == "==" ? equal : !equal;
}

std::vector<std::string> Condition::names() const {
  std::vector<std::string> all = left.names();
  const std::vector<std::string> more = right.names();
  all.insert(all.end(), more.begin(), more.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace grader
