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
  item.hints = {{Metric::roofline, Expr::constant(0.3), "dependency chain", {}},
                {Metric::roofline, Expr::parse("0.1*threads"), "contiguous block", {}},
                {Metric::speedup, Expr::constant(5), "speedup hint", {}}};
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
