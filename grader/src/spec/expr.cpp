// expr.cpp: a recursive-descent parser and a tree evaluator for the expression language of expr.h.
//
//   expression := term (('+' | '-') term)*
//   term       := unary (('*' | '/') unary)*
//   unary      := '-' unary | power
//   power      := primary ('^' unary)?          right-associative: 2^3^2 is 2^9; -2^2 is -(2^2)
//   primary    := number | name | name '(' expression (',' expression)* ')' | '(' expression ')'
#include "spec/expr.h"
#include "spec/expr_node.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <string_view>

namespace grader {

namespace {

using Node = Expr::Node;
using NodePtr = std::shared_ptr<const Node>;

struct Function {
  std::string_view name;
  int arity;
  double (*apply)(const double* arguments);
};

// Domain errors (sqrt of a negative, log2 of zero) are left to the finiteness check in evaluate(), which
// names the whole expression; the functions themselves stay one line each.
constexpr std::array<Function, 6> functions{{
    {"min", 2, [](const double* a) { return std::min(a[0], a[1]); }},
    {"max", 2, [](const double* a) { return std::max(a[0], a[1]); }},
    {"sqrt", 1, [](const double* a) { return std::sqrt(a[0]); }},
    {"log2", 1, [](const double* a) { return std::log2(a[0]); }},
    {"floor", 1, [](const double* a) { return std::floor(a[0]); }},
    {"ceil", 1, [](const double* a) { return std::ceil(a[0]); }},
}};

const Function* find_function(std::string_view name) {
  for (const Function& function : functions) {
    if (function.name == name) return &function;
  }
  return nullptr;
}

std::string function_list() {
  std::string list;
  for (const Function& function : functions) {
    if (!list.empty()) list += ", ";
    list += function.name;
  }
  return list;
}

// Shortest decimal text that reads back as the same double: 10000 -> "10000", 0.55 -> "0.55", 1e6 -> "1e+06".
std::string render_number(double value) {
  std::array<char, 64> buffer{};
  auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), error == std::errc() ? end : buffer.data());
}

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

NodePtr make_number(double value) {
  auto node = std::make_shared<Node>();
  node->kind = Node::Kind::number;
  node->value = value;
  return node;
}

NodePtr make_operation(Node::Kind kind, std::vector<NodePtr> operands, std::string name = {}) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  node->name = std::move(name);
  node->operands = std::move(operands);
  return node;
}

// The parser, the evaluator and the tree's destructor all recurse once per level: 20,000 nested parentheses or
// 200,000 '-' signs once overflowed the stack and crashed every grader command. Real expressions are a line long.
constexpr std::size_t longest_expression = 1000;  // characters: also bounds a left-deep chain like 1+1+1+...
constexpr int deepest_nesting = 64;               // parentheses, calls, unary minus and '^' inside one another

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  NodePtr parse_all() {
    if (text_.size() > longest_expression)
      fail(static_cast<int>(longest_expression) + 1,
           "the expression is " + std::to_string(text_.size()) + " characters long; at most " +
               std::to_string(longest_expression) + " are allowed");
    skip_spaces();
    if (at_end()) fail(1, "empty expression");
    NodePtr root = parse_expression();
    skip_spaces();
    if (!at_end()) {
      fail(column(), "expected an operator or the end of the expression, found " + describe_here());
    }
    return root;
  }

 private:
  NodePtr parse_expression() {
    NodePtr left = parse_term();
    while (true) {
      skip_spaces();
      if (accept('+')) {
        left = make_operation(Node::Kind::add, {left, parse_term()});
      } else if (accept('-')) {
        left = make_operation(Node::Kind::subtract, {left, parse_term()});
      } else {
        return left;
      }
    }
  }

  NodePtr parse_term() {
    NodePtr left = parse_unary();
    while (true) {
      skip_spaces();
      if (accept('*')) {
        left = make_operation(Node::Kind::multiply, {left, parse_unary()});
      } else if (accept('/')) {
        left = make_operation(Node::Kind::divide, {left, parse_unary()});
      } else {
        return left;
      }
    }
  }

  // Counts one level of nesting while alive; past deepest_nesting, a syntax error at the current column.
  class Level {
   public:
    explicit Level(Parser& parser) : parser_(parser) {
      if (++parser_.depth_ > deepest_nesting)
        parser_.fail(parser_.column(), "nested more than " + std::to_string(deepest_nesting) + " levels deep");
    }
    ~Level() { --parser_.depth_; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;

   private:
    Parser& parser_;
  };

  NodePtr parse_unary() {
    Level level(*this);
    skip_spaces();
    if (accept('-')) return make_operation(Node::Kind::negate, {parse_unary()});
    return parse_power();
  }

  NodePtr parse_power() {
    NodePtr base = parse_primary();
    skip_spaces();
    // The exponent is a unary, not a primary, so 2^-1 reads as it does on paper; recursing through
    // parse_unary makes ^ right-associative.
    if (accept('^')) return make_operation(Node::Kind::power, {base, parse_unary()});
    return base;
  }

  NodePtr parse_primary() {
    skip_spaces();
    if (at_end()) fail(column(), "unexpected end of expression: expected a number, a name or '('");
    const char c = text_[position_];
    if (is_digit(c) || c == '.') return parse_number();
    if (is_name_start(c)) return parse_name_or_call();
    if (accept('(')) {
      const int open_column = column() - 1;
      Level level(*this);
      NodePtr inside = parse_expression();
      skip_spaces();
      if (!accept(')')) {
        fail(column(),
             "expected ')' to close the '(' at column " + std::to_string(open_column) + ", found " + describe_here());
      }
      return inside;
    }
    fail(column(), "expected a number, a name or '(', found " + describe_here());
  }

  NodePtr parse_number() {
    const std::size_t start = position_;
    while (!at_end() && is_digit(text_[position_])) ++position_;
    if (!at_end() && text_[position_] == '.') {
      ++position_;
      while (!at_end() && is_digit(text_[position_])) ++position_;
    }
    if (position_ - start == 1 && text_[start] == '.') fail(static_cast<int>(start) + 1, "'.' is not a number");
    if (!at_end() && (text_[position_] == 'e' || text_[position_] == 'E')) {
      ++position_;
      if (!at_end() && (text_[position_] == '+' || text_[position_] == '-')) ++position_;
      if (at_end() || !is_digit(text_[position_])) fail(column(), "expected digits after the exponent 'e'");
      while (!at_end() && is_digit(text_[position_])) ++position_;
    }
    // "2m" is a missing '*', not the number 2 followed by a name; say so where the name starts.
    if (!at_end() && is_name_start(text_[position_])) {
      fail(column(), "expected an operator after the number, found " + describe_here());
    }
    double value = 0;
    const char* first = text_.data() + start;
    const char* last = text_.data() + position_;
    auto [end, error] = std::from_chars(first, last, value);
    if (error != std::errc() || end != last) {
      fail(static_cast<int>(start) + 1, "'" + std::string(first, last) + "' is not a representable number");
    }
    return make_number(value);
  }

  NodePtr parse_name_or_call() {
    const int name_column = column();
    const std::size_t start = position_;
    while (!at_end() && is_name_char(text_[position_])) ++position_;
    std::string name(text_.substr(start, position_ - start));

    skip_spaces();
    const Function* function = find_function(name);
    if (!accept('(')) {
      if (function != nullptr) {
        fail(name_column, "'" + name + "' is a function; call it with parentheses, as in " + name + "(...)");
      }
      auto node = std::make_shared<Node>();
      node->kind = Node::Kind::variable;
      node->name = std::move(name);
      return node;
    }
    if (function == nullptr) {
      fail(name_column, "unknown function '" + name + "'; the functions are " + function_list());
    }

    Level level(*this);
    std::vector<NodePtr> arguments{parse_expression()};
    skip_spaces();
    while (accept(',')) {
      arguments.push_back(parse_expression());
      skip_spaces();
    }
    if (!accept(')')) fail(column(), "expected ',' or ')' in the call of " + name + ", found " + describe_here());
    if (static_cast<int>(arguments.size()) != function->arity) {
      fail(name_column, name + " takes " + std::to_string(function->arity) + " argument" +
                            (function->arity == 1 ? "" : "s") + ", got " + std::to_string(arguments.size()));
    }
    return make_operation(Node::Kind::call, std::move(arguments), std::move(name));
  }

  void skip_spaces() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[position_]))) ++position_;
  }
  bool accept(char c) {
    if (at_end() || text_[position_] != c) return false;
    ++position_;
    return true;
  }
  bool at_end() const { return position_ >= text_.size(); }
  int column() const { return static_cast<int>(position_) + 1; }
  std::string describe_here() const {
    return at_end() ? std::string("the end of the expression") : "'" + std::string(1, text_[position_]) + "'";
  }
  [[noreturn]] void fail(int column, const std::string& message) const { throw ExprSyntaxError(column, message); }

  std::string_view text_;
  std::size_t position_ = 0;
  int depth_ = 0;
};

double evaluate_node(const Node& node, const Variables& variables, const std::string& text) {
  auto operand = [&](std::size_t i) { return evaluate_node(*node.operands[i], variables, text); };
  switch (node.kind) {
    case Node::Kind::number: return node.value;
    case Node::Kind::variable: {
      auto found = variables.find(node.name);
      if (found == variables.end()) {
        throw ExprEvalError("unknown variable '" + node.name + "' in '" + text + "'");
      }
      return found->second;
    }
    case Node::Kind::negate: return -operand(0);
    case Node::Kind::add: return operand(0) + operand(1);
    case Node::Kind::subtract: return operand(0) - operand(1);
    case Node::Kind::multiply: return operand(0) * operand(1);
    case Node::Kind::divide: {
      const double numerator = operand(0);
      const double denominator = operand(1);
      if (denominator == 0) throw ExprEvalError("division by zero in '" + text + "'");
      return numerator / denominator;
    }
    case Node::Kind::power: return std::pow(operand(0), operand(1));
    case Node::Kind::call: {
      std::array<double, 2> arguments{};
      for (std::size_t i = 0; i < node.operands.size(); ++i) arguments[i] = operand(i);
      return find_function(node.name)->apply(arguments.data());
    }
  }
  return 0;  // unreachable: every kind returns above
}

void collect_names(const Node& node, std::set<std::string>& names) {
  if (node.kind == Node::Kind::variable) names.insert(node.name);
  for (const NodePtr& child : node.operands) collect_names(*child, names);
}

}  // namespace

Expr::Expr() : text_("0"), root_(make_number(0)) {}

Expr Expr::constant(double value) {
  Expr expr;
  expr.text_ = render_number(value);
  expr.root_ = make_number(value);
  return expr;
}

Expr Expr::parse(const std::string& text) {
  Expr expr;
  expr.root_ = Parser(text).parse_all();
  expr.text_ = text;
  return expr;
}

double Expr::evaluate(const Variables& variables) const {
  const double value = evaluate_node(*root_, variables, text_);
  // sqrt(-1), log2(0) and 10^400 would otherwise reach a size or a threshold as NaN or infinity.
  if (!std::isfinite(value)) {
    throw ExprEvalError("'" + text_ + "' is not a finite number (" + render_number(value) + ")");
  }
  return value;
}

std::vector<std::string> Expr::names() const {
  std::set<std::string> names;
  collect_names(*root_, names);
  return {names.begin(), names.end()};
}

bool Expr::is_constant() const { return names().empty(); }

}  // namespace grader
