// expr_readable.cpp: an Expr written for a reader, as a handout's "What is graded" table shows a tier
// (handout/graded_table.h). Thresholds that scale with the machine nest the same part many times
// ("min(min(max(threads, 2), 16), cpu_scaling)" four times in one tier of lab 3); a lab names such parts in
// lab.toml's [handout] names, and the printer writes each as its name: "P (0.85 - 0.05 log2(P))".
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

#include "spec/expr_node.h"

namespace grader {

namespace {

using Node = Expr::Node;
using Kind = Node::Kind;

// How tightly each form binds: an operand that binds more loosely than its place needs is parenthesised.
enum Binding { sum = 1, product = 2, negation = 3, power = 4, atom = 5 };


// Fully parenthesised, spaces removed: two trees are the same expression exactly when their keys are equal.
std::string key(const Node& node) {
  switch (node.kind) {
    case Kind::number: return readable_number(node.value);
    case Kind::variable: return node.name;
    case Kind::negate: return "(-" + key(*node.operands[0]) + ")";
    case Kind::call: {
      std::string text = node.name + "(";
      for (std::size_t i = 0; i < node.operands.size(); ++i) text += (i ? "," : "") + key(*node.operands[i]);
      return text + ")";
    }
    default: break;
  }
  static constexpr std::array<char, 9> symbol{' ', ' ', ' ', '+', '-', '*', '/', '^', ' '};
  return "(" + key(*node.operands[0]) + symbol[static_cast<int>(node.kind)] + key(*node.operands[1]) + ")";
}

struct Named {
  std::string name;
  std::string key;
};

struct Printed {
  std::string text;
  Binding binding;
};

class Printer {
 public:
  explicit Printer(std::vector<Named> names) : names_(std::move(names)) {}

  Printed print(const Node& node) const {
    if (!names_.empty()) {
      const std::string own = key(node);
      for (const Named& named : names_)
        if (named.key == own) return {named.name, atom};
    }
    switch (node.kind) {
      case Kind::number: return {readable_number(node.value), node.value < 0 ? negation : atom};
      case Kind::variable: return {node.name, atom};
      case Kind::negate: return {"-" + operand(*node.operands[0], negation), negation};
      case Kind::call: {
        std::string text = node.name + "(";
        for (std::size_t i = 0; i < node.operands.size(); ++i) text += (i ? ", " : "") + print(*node.operands[i]).text;
        return {text + ")", atom};
      }
      case Kind::add: return {operand(*node.operands[0], sum) + " + " + operand(*node.operands[1], sum), sum};
      case Kind::subtract: return {operand(*node.operands[0], sum) + " - " + operand(*node.operands[1], product), sum};
      case Kind::multiply: {
        const Node& left = *node.operands[0];
        const std::string right = operand(*node.operands[1], product);
        // "0.2 (P - 1)", "4 p": a number in front reads as a coefficient, as a handout writes it.
        const bool coefficient = left.kind == Kind::number && left.value >= 0 && !is_named(left) &&
                                 !right.empty() && !std::isdigit(static_cast<unsigned char>(right.front()));
        return {operand(left, product) + (coefficient ? " " : " * ") + right, product};
      }
      case Kind::divide: return {operand(*node.operands[0], product) + " / " + operand(*node.operands[1], negation), product};
      case Kind::power: return {operand(*node.operands[0], atom) + "^" + operand(*node.operands[1], negation), power};
    }
    return {"?", atom};
  }

 private:
  // The operand, parenthesised when it binds more loosely than `needed`.
  std::string operand(const Node& node, Binding needed) const {
    const Printed printed = print(node);
    return printed.binding < needed ? "(" + printed.text + ")" : printed.text;
  }

  bool is_named(const Node& node) const {
    const std::string own = key(node);
    for (const Named& named : names_)
      if (named.key == own) return true;
    return false;
  }

  std::vector<Named> names_;
};

}  // namespace

std::string readable_number(double value) {
  // Whole numbers as a reader writes them: 50000000, not 5e+07.
  if (value == static_cast<double>(static_cast<long long>(value)) && std::abs(value) < 1e15)
    return std::to_string(static_cast<long long>(value));
  std::array<char, 64> buffer{};
  auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  std::string text(buffer.data(), error == std::errc() ? end : buffer.data());
  // 1e-06 as a reader writes it: 1e-6.
  for (const char* padded : {"e-0", "e+0"})
    if (auto at = text.find(padded); at != std::string::npos) text.erase(at + 2, 1);
  return text;
}

std::string Expr::readable(const std::vector<std::pair<std::string, Expr>>& names) const {
  std::vector<Named> keyed;
  for (const auto& [name, means] : names) keyed.push_back({name, key(*means.root_)});
  return Printer(std::move(keyed)).print(*root_).text;
}

bool Expr::same_as(const Expr& other) const { return key(*root_) == key(*other.root_); }

}  // namespace grader
