#include <doctest/doctest.h>

#include <string>

#include "spec/expr.h"

using grader::Expr;
using grader::ExprEvalError;
using grader::ExprSyntaxError;

namespace {

double eval(const std::string& text, const grader::Variables& variables = {}) {
  return Expr::parse(text).evaluate(variables);
}

// Parses `text`, which must fail, and returns the error's column after checking its message.
int syntax_error_column(const std::string& text, const std::string& fragment) {
  try {
    (void)Expr::parse(text);
  } catch (const ExprSyntaxError& error) {
    INFO("message: " << error.what());
    CHECK(std::string(error.what()).find(fragment) != std::string::npos);
    return error.column();
  }
  FAIL("'" << text << "' parsed, but it is not an expression");
  return 0;
}

}  // namespace

TEST_CASE("numbers in every written form") {
  CHECK(eval("1") == 1);
  CHECK(eval("2.5") == 2.5);
  CHECK(eval("1e6") == 1e6);
  CHECK(eval("1.5E-3") == doctest::Approx(1.5e-3));
  CHECK(eval(".5") == 0.5);
  CHECK(eval("  7  ") == 7);
}

TEST_CASE("precedence: * and / before + and -, parentheses first") {
  CHECK(eval("2+3*4") == 14);
  CHECK(eval("(2+3)*4") == 20);
  CHECK(eval("10-4-3") == 3);  // left-associative
  CHECK(eval("24/4/3") == 2);  // left-associative
  CHECK(eval("2*3^2") == 18);  // ^ before *
}

TEST_CASE("^ is right-associative") {
  CHECK(eval("2^3^2") == 512);  // 2^(3^2), not (2^3)^2 = 64
  CHECK(eval("2^-1") == 0.5);
}

TEST_CASE("unary minus binds looser than ^ and tighter than *") {
  CHECK(eval("-2^2") == -4);
  CHECK(eval("-3*2") == -6);
  CHECK(eval("--3") == 3);
  CHECK(eval("4 - -1") == 5);
}

TEST_CASE("functions") {
  CHECK(eval("min(3, 5)") == 3);
  CHECK(eval("max(3, 5)") == 5);
  CHECK(eval("sqrt(16)") == 4);
  CHECK(eval("log2(1024)") == 10);
  CHECK(eval("floor(2.7)") == 2);
  CHECK(eval("ceil(2.1)") == 3);
  CHECK(eval("max(m, 1) * 2", {{"m", 0}}) == 2);
}

TEST_CASE("variables, as in the header's example") {
  CHECK(eval("2*m*n + max(m, 1)", {{"m", 3}, {"n", 4}}) == 27);
  CHECK(eval("0.9*threads", {{"threads", 10}}) == doctest::Approx(9));
}

TEST_CASE("names() lists each variable once, sorted, and no function names") {
  CHECK(Expr::parse("n*m + max(m, k) + threads").names() == std::vector<std::string>{"k", "m", "n", "threads"});
  CHECK(Expr::parse("2*3").names().empty());
  CHECK(Expr::parse("2*3").is_constant());
  CHECK_FALSE(Expr::parse("2*n").is_constant());
}

TEST_CASE("text() keeps the source, and constants render short") {
  CHECK(Expr::parse("2*m*n").text() == "2*m*n");
  CHECK(Expr::constant(10000).text() == "10000");
  CHECK(Expr::constant(0.55).text() == "0.55");
  CHECK(Expr::constant(1.3).evaluate({}) == 1.3);
  CHECK(Expr().text() == "0");
  CHECK(Expr().evaluate({}) == 0);
}

TEST_CASE("syntax errors carry the 1-based column of the offending character") {
  CHECK(syntax_error_column("", "empty") == 1);
  CHECK(syntax_error_column("2*m*", "end of expression") == 5);
  CHECK(syntax_error_column("2 + * 3", "found '*'") == 5);
  CHECK(syntax_error_column("(1 + 2", "expected ')'") == 7);
  CHECK(syntax_error_column("1 + 2)", "found ')'") == 6);
  CHECK(syntax_error_column("2m", "operator after the number") == 2);
  CHECK(syntax_error_column("1e+", "exponent") == 4);
  CHECK(syntax_error_column("3 $ 4", "found '$'") == 3);
  CHECK(syntax_error_column("2 * pow(2, 3)", "unknown function 'pow'") == 5);
  CHECK(syntax_error_column("max(1)", "max takes 2 arguments, got 1") == 1);
  CHECK(syntax_error_column("1 + sqrt", "is a function") == 5);
}

TEST_CASE("evaluation errors name the problem") {
  try {
    eval("2*m*k", {{"m", 1}});
    FAIL("an unknown variable evaluated");
  } catch (const ExprEvalError& error) {
    CHECK(std::string(error.what()).find("unknown variable 'k'") != std::string::npos);
  }
  CHECK_THROWS_WITH_AS(eval("1/(n-2)", {{"n", 2}}), doctest::Contains("division by zero"), ExprEvalError);
  CHECK_THROWS_WITH_AS(eval("sqrt(-1)"), doctest::Contains("not a finite number"), ExprEvalError);
  CHECK_THROWS_AS(eval("log2(0)"), ExprEvalError);
}

TEST_CASE("readable: spaces, coefficients, only the parentheses the meaning needs, and names for parts") {
  CHECK(Expr::parse("1+0.2*(threads-1)").readable() == "1 + 0.2 (threads - 1)");
  CHECK(Expr::parse("(a-b)-(c-d)").readable() == "a - b - (c - d)");
  CHECK(Expr::parse("a/(b*c)").readable() == "a / (b * c)");
  CHECK(Expr::parse("(-2)^2 + -x").readable() == "(-2)^2 + -x");
  CHECK(Expr::parse("2*3").readable() == "2 * 3");  // a number after a coefficient would read as one number
  const std::vector<std::pair<std::string, Expr>> names{{"p", Expr::parse("min(max(threads, 2), 16)")},
                                                        {"P", Expr::parse("min(min(max(threads,2),16), cpu_scaling)")}};
  CHECK(Expr::parse("min(min(max(threads, 2), 16), cpu_scaling) * (0.85 - 0.05*log2(min(min(max(threads, 2), 16), cpu_scaling)))")
            .readable(names) == "P * (0.85 - 0.05 log2(P))");
  CHECK(Expr::parse("4*min(max(threads, 2), 16)").readable(names) == "4 p");
  CHECK(names[1].second.readable({names[0]}) == "min(p, cpu_scaling)");
  CHECK(Expr::parse("2*m").same_as(Expr::parse("2 * (m)")));
  CHECK_FALSE(Expr::parse("2*m").same_as(Expr::parse("m*2")));
}
