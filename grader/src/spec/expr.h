// expr.h: the small arithmetic language of lab.toml values that depend on the case or the machine:
// flop and byte counts ("2*m*n"), parameters and thresholds that scale with threads ("0.9*threads").
//
//   Expr e = Expr::parse("2*m*n + max(m, 1)");
//   e.evaluate({{"m", 3}, {"n", 4}});   // 27
//
// Grammar: numbers (1, 2.5, 1e6), names, + - * / ^ (power, right-associative), unary -, parentheses,
// and the functions min(a,b), max(a,b), sqrt(a), log2(a), floor(a), ceil(a).
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace grader {

using Variables = std::map<std::string, double>;

// A text that is not an expression; column() is 1-based within the expression text.
class ExprSyntaxError : public std::runtime_error {
 public:
  ExprSyntaxError(int column, const std::string& message) : std::runtime_error(message), column_(column) {}
  int column() const { return column_; }

 private:
  int column_;
};

// An expression that names a variable it was not given, or divides by zero.
class ExprEvalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A number as a reader writes it, the shortest text that reads back as the same value: 50000000 (not 5e+07),
// 7.5, 1e-10 (not 1e-010). Readable expressions and the handouts' tables print numbers so
// (spec/expr_readable.cpp).
std::string readable_number(double value);

class Expr {
 public:
  Expr();  // the constant 0
  static Expr constant(double value);
  static Expr parse(const std::string& text);  // throws ExprSyntaxError

  double evaluate(const Variables& variables) const;  // throws ExprEvalError
  const std::string& text() const { return text_; }
  std::vector<std::string> names() const;  // the variables it reads, sorted, unique
  bool is_constant() const;

  // The expression for a reader (spec/expr_readable.cpp): spaces around + and -, a number times something written
  // side by side, only the parentheses the meaning needs, and every part equal to one of `names` written as its name.
  //
  //   Expr::parse("1 + 0.2*(min(max(threads, 2), 16) - 1)").readable({{"p", Expr::parse("min(max(threads,2), 16)")}})
  //   // "1 + 0.2 (p - 1)"
  std::string readable(const std::vector<std::pair<std::string, Expr>>& names = {}) const;
  // Whether the two are the same expression, written alike or not ("2*m" and "2 * (m)").
  bool same_as(const Expr& other) const;

  struct Node;  // defined in expr.cpp

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace grader
