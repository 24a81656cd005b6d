// expr_node.h: the tree an Expr holds (internal to grader/src/spec: the parser and evaluator in expr.cpp, the
// printer in expr_readable.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "spec/expr.h"

namespace grader {

struct Expr::Node {
  enum class Kind { number, variable, negate, add, subtract, multiply, divide, power, call };
  Kind kind = Kind::number;
  double value = 0;                                   // number
  std::string name;                                   // variable or function
  std::vector<std::shared_ptr<const Node>> operands;  // in source order
};

}  // namespace grader
