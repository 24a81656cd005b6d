// test_next_step.cpp: which hint (lab.toml `hints`) a timed result earns (grader/src/score/next_step.h), and that the
// reports carry it as "next step".
#include <doctest/doctest.h>

#include "report/writers.h"
#include "score/next_step.h"

using namespace grader;

namespace {

// lab1's bandwidth item in small: two hints on the roofline, one on the speedup, in that file order.
PerformanceItem item_with_hints() {
  PerformanceItem item;
  item.metric = Metric::roofline;
  item.hints = {{Metric::roofline, Expr::constant(0.3), {}, "dependency chain", {}},
                {Metric::roofline, Expr::parse("0.1*threads"), {}, "contiguous block", {}},
                {Metric::speedup, Expr::constant(5), {}, "speedup hint", {}}};
  return item;
}

Measurement at(double fraction, double speedup) {
  Measurement m;
  m.roofline_fraction = fraction;
  m.speedup = speedup;
  return m;
}

}  // namespace

TEST_CASE("the first hint in file order whose `below` is not reached applies") {
  const PerformanceItem item = item_with_hints();
  const Variables scope{{"threads", 8}};  // the second hint's below: 0.8
  CHECK(next_step(item, scope, at(0.1, 1)) == "dependency chain");
  CHECK(next_step(item, scope, at(0.3, 1)) == "contiguous block");  // `below` is strict
  CHECK(next_step(item, scope, at(0.79, 9)) == "contiguous block");
  CHECK(next_step(item, scope, at(0.9, 2)) == "speedup hint");
  CHECK(next_step(item, scope, at(0.9, 6)).empty());
}

TEST_CASE("a roofline hint never applies where the machine has no calibration") {
  const PerformanceItem item = item_with_hints();
  CHECK(next_step(item, {{"threads", 8}}, at(0, 1)) == "speedup hint");
}

// Hints on facts (inspect/fact_list.h): a scalar loop, then fewer accumulators than the reference, then the tiers.
PerformanceItem item_with_fact_hints() {
  PerformanceItem item;
  item.metric = Metric::speedup;
  item.hints = {{Metric::speedup, Expr::constant(2), {Condition::parse("vector_bits <= 64")}, "scalar loop", {}},
                {Metric::speedup, std::nullopt, {Condition::parse("accumulators < reference_accumulators")}, "more sums", {}},
                {Metric::speedup, Expr::constant(3), {}, "tier hint", {}}};
  return item;
}

TEST_CASE("a hint's `when` reads the code's facts; one naming a fact that was not read does not apply") {
  const PerformanceItem item = item_with_fact_hints();
  const Variables scalar{{"vector_bits", 64}, {"accumulators", 1}, {"reference_accumulators", 4}};
  CHECK(next_step(item, scalar, at(0, 1.5)) == "scalar loop");
  CHECK(next_step(item, scalar, at(0, 2.5)) == "more sums");  // past the first hint's `below`
  const Variables vector{{"vector_bits", 256}, {"accumulators", 4}, {"reference_accumulators", 4}};
  CHECK(next_step(item, vector, at(0, 1.5)) == "tier hint");
  // No facts at all (objdump missing, no reference): the fact hints never apply, the tiers still do.
  CHECK(next_step(item, {}, at(0, 1.5)) == "tier hint");
  CHECK(next_step(item, {{"vector_bits", 64}, {"accumulators", 1}}, at(0, 2.5)) == "tier hint");
  // Not timed (a CUDA lab without a GPU): only a hint without `below` can apply.
  CHECK(next_step(item, scalar, nullptr) == "more sums");
  CHECK(next_step(item, vector, nullptr).empty());
}

TEST_CASE("a condition compares two expressions") {
  CHECK(Condition::parse("spill_bytes > 0").holds({{"spill_bytes", 28}}));
  CHECK_FALSE(Condition::parse("spill_bytes > 0").holds({{"spill_bytes", 0}}));
  CHECK(Condition::parse("global_load_bits*2 <= reference_global_load_bits").holds({{"global_load_bits", 32}, {"reference_global_load_bits", 128}}));
  CHECK(Condition::parse("shuffles == 0").holds({{"shuffles", 0}}));
  CHECK(Condition::parse("shuffles != 0").holds({{"shuffles", 5}}));
  CHECK(Condition::parse("min(a, b) >= 2").holds({{"a", 2}, {"b", 3}}));
  CHECK(Condition::parse("x < 1").names() == std::vector<std::string>{"x"});
  CHECK_THROWS_AS(Condition::parse("spill_bytes"), ExprSyntaxError);
  CHECK_THROWS_AS(Condition::parse("spill_bytes > "), ExprSyntaxError);
  CHECK_THROWS_AS(Condition::parse("x > 0").holds({}), ExprEvalError);
}

TEST_CASE("every report format carries the next step") {
  Report report;
  report.lab_name = "lab9-demo";
  TestResult test;
  test.name = "fast bandwidth";
  test.kind = TestKind::performance;
  test.verdict = Verdict::below_threshold;
  test.next_step = "split the sum";
  report.tests.push_back(test);
  CHECK(to_json(report)["tests"][0]["next_step"] == "split the sum");
  CHECK(to_gradescope(report)["tests"][0]["output"].get<std::string>().find("next step: split the sum") != std::string::npos);
  CHECK(render_text(report, false).find("next step: split the sum") != std::string::npos);
}
