// test_compare.cpp: the element-wise check of stage 6: the tolerance boundary, NaN and Inf, dtype and shape
// mismatches, where the worst element is reported, and what the summary tells a student.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "check/compare.h"

using namespace grader;

namespace {

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
constexpr double Inf = std::numeric_limits<double>::infinity();

Array f64(std::vector<std::int64_t> shape, const std::vector<double>& values, std::string name = "y") {
  return make_array<double>(std::move(name), std::move(shape), std::span<const double>(values));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the tolerance boundary: exactly atol + rtol*|expected| passes, just beyond fails") {
  // Values chosen so every quantity is exact in binary: 0.25 + 0.5 * 100 = 50.25.
  const Tolerance tolerance{0.5, 0.25};
  const Array expected = f64({2}, {100, -100});
  CHECK(compare_arrays(f64({2}, {150.25, -150.25}), expected, tolerance).passed);
  CHECK(compare_arrays(f64({2}, {49.75, -49.75}), expected, tolerance).passed);

  const double beyond = std::nextafter(150.25, Inf);
  const CheckResult result = compare_arrays(f64({2}, {beyond, -100}), expected, tolerance);
  CHECK_FALSE(result.passed);
  CHECK(result.mismatches == 1);

  // rtol only, atol 0: an exact answer passes, the next double fails.
  CHECK(compare_arrays(f64({1}, {3.25}), f64({1}, {3.25}), Tolerance{0, 0}).passed);
  CHECK_FALSE(compare_arrays(f64({1}, {std::nextafter(3.25, 4.0)}), f64({1}, {3.25}), Tolerance{0, 0}).passed);
}

TEST_CASE("NaN never passes, whatever the tolerance") {
  const Tolerance huge{1e300, Inf};
  const CheckResult result = compare_arrays(f64({3}, {1, NaN, 3}), f64({3}, {1, 2, 3}), huge);
  CHECK_FALSE(result.passed);
  CHECK_FALSE(result.internal_error);
  CHECK(result.mismatches == 1);
  REQUIRE(result.worst);
  CHECK(result.worst->flat_index == 1);
  CHECK(result.worst->got_text == "NaN");
  CHECK(contains(result.summary, "got NaN (never written, or NaN computed)"));
  CHECK(std::isinf(result.max_abs_error));
}

TEST_CASE("Inf passes only where the same Inf is expected") {
  const Tolerance loose{1e10, 1e10};
  CHECK_FALSE(compare_arrays(f64({1}, {Inf}), f64({1}, {1e300}), loose).passed);
  CHECK_FALSE(compare_arrays(f64({1}, {-Inf}), f64({1}, {Inf}), loose).passed);
  CHECK_FALSE(compare_arrays(f64({1}, {1e300}), f64({1}, {Inf}), loose).passed);
  const CheckResult same = compare_arrays(f64({2}, {Inf, -Inf}), f64({2}, {Inf, -Inf}), Tolerance{0, 0});
  CHECK(same.passed);
  CHECK(same.max_abs_error == 0);
}

TEST_CASE("NaN in the expected output is the judge's fault, not the submission's") {
  const CheckResult result = compare_arrays(f64({2, 2}, {1, 2, 3, 4}), f64({2, 2}, {1, 2, NaN, 4}), Tolerance{});
  CHECK_FALSE(result.passed);
  CHECK(result.internal_error);
  CHECK(result.expected_nan == 1);
  CHECK(result.mismatches == 0);
  CHECK(contains(result.summary, "the expected output has NaN at [1, 0]"));
}

TEST_CASE("a shape or dtype that differs fails before any element is read") {
  const CheckResult shape = compare_arrays(f64({3, 5}, std::vector<double>(15)), f64({5, 3}, std::vector<double>(15)), Tolerance{});
  CHECK_FALSE(shape.passed);
  CHECK(shape.summary == "shape [3, 5], expected [5, 3]");

  const std::vector<float> floats(4, 1.f);
  const CheckResult dtype = compare_arrays(make_array<float>("y", {4}, std::span<const float>(floats)),
                                           f64({4}, {1, 1, 1, 1}), Tolerance{1, 1});
  CHECK_FALSE(dtype.passed);
  CHECK_FALSE(dtype.internal_error);
  CHECK(dtype.summary == "dtype f32, expected f64");

  Array short_bytes = f64({4}, {1, 2, 3, 4});
  short_bytes.bytes.resize(24);  // a worker that sent fewer bytes than its shape says
  const CheckResult truncated = compare_arrays(short_bytes, f64({4}, {1, 2, 3, 4}), Tolerance{});
  CHECK_FALSE(truncated.passed);
  CHECK(contains(truncated.summary, "needs 32 bytes, got 24"));
}

TEST_CASE("the worst element of a 2-D output is reported by row and column, with the mismatch count") {
  // 20 x 10, expected i + j/100; four elements wrong, the worst at [12, 7].
  std::vector<double> want(200), got(200);
  for (int i = 0; i < 20; ++i) {
    for (int j = 0; j < 10; ++j) want[i * 10 + j] = got[i * 10 + j] = i + j / 100.0;
  }
  want[12 * 10 + 7] = 3.25;
  got[12 * 10 + 7] = 0;        // error 3.25: the worst
  got[0 * 10 + 1] += 1e-3;     // small errors, each past rtol 1e-6
  got[5 * 10 + 0] -= 1e-2;
  got[19 * 10 + 9] += 0.5;
  const CheckResult result = compare_arrays(f64({20, 10}, got), f64({20, 10}, want), Tolerance{1e-6, 0});
  CHECK_FALSE(result.passed);
  CHECK(result.elements == 200);
  CHECK(result.mismatches == 4);
  REQUIRE(result.worst);
  CHECK(result.worst->flat_index == 127);
  CHECK(result.worst->index == std::vector<std::int64_t>{12, 7});
  CHECK(result.worst->expected == 3.25);
  CHECK(result.worst->got == 0);
  CHECK(result.max_abs_error == 3.25);

  REQUIRE(result.first_mismatches.size() == 4);
  CHECK(result.first_mismatches[0].index == std::vector<std::int64_t>{0, 1});
  CHECK(result.first_mismatches[1].index == std::vector<std::int64_t>{5, 0});
  CHECK(result.first_mismatches[2].index == std::vector<std::int64_t>{12, 7});
  CHECK(result.first_mismatches[3].index == std::vector<std::int64_t>{19, 9});

  CHECK(contains(result.summary, "4 of 200 elements wrong; worst at [12, 7]: expected 3.25, got 0"));
  CHECK(contains(result.summary, "first wrong at [0, 1], [5, 0], [12, 7], [19, 9]"));
}

TEST_CASE("only the first five mismatches are listed, but all are counted") {
  std::vector<double> got(100, 1.0);
  const CheckResult result = compare_arrays(f64({100}, got), f64({100}, std::vector<double>(100, 2.0)), Tolerance{});
  CHECK(result.mismatches == 100);
  CHECK(result.first_mismatches.size() == max_listed_mismatches);
  CHECK(result.first_mismatches.back().index == std::vector<std::int64_t>{4});
  CHECK(contains(result.summary, "100 of 100 elements wrong"));
  CHECK(contains(result.summary, "[3], [4], ..."));
}

TEST_CASE("a passing check reports its error norms") {
  const CheckResult result = compare_arrays(f64({2}, {3, 4.5}), f64({2}, {3, 4}), Tolerance{0.2, 0});
  CHECK(result.passed);
  CHECK(result.mismatches == 0);
  CHECK(result.max_abs_error == 0.5);
  CHECK(result.relative_error_norm == doctest::Approx(0.5 / 5.0));
  REQUIRE(result.worst);  // the element closest to its limit
  CHECK(result.worst->flat_index == 1);
  CHECK(contains(result.summary, "all 2 elements within tolerance"));

  const CheckResult empty = compare_arrays(f64({0, 3}, {}), f64({0, 3}, {}), Tolerance{});
  CHECK(empty.passed);
  CHECK_FALSE(empty.worst);
}

TEST_CASE("integers compare exactly, beyond what a double holds") {
  const std::int64_t big = (std::int64_t{1} << 60) + 1;
  const Array want = make_array<std::int64_t>("count", {2}, {big, 7});
  CHECK(compare_arrays(make_array<std::int64_t>("count", {2}, {big, 7}), want, Tolerance{0, 0}).passed);
  const CheckResult off_by_one = compare_arrays(make_array<std::int64_t>("count", {2}, {big + 1, 7}), want, Tolerance{0, 0});
  CHECK_FALSE(off_by_one.passed);
  CHECK(contains(off_by_one.summary, "expected 1152921504606846977, got 1152921504606846978"));

  // The lab kit poisons integer outputs with the type's maximum.
  const CheckResult unwritten = compare_arrays(make_array<std::int32_t>("n", {1}, {2147483647}),
                                               make_array<std::int32_t>("n", {1}, {5}), Tolerance{0, 0});
  CHECK(contains(unwritten.summary, "got 2147483647 (the value outputs are poisoned with: never written?)"));
}

TEST_CASE("f32 values are shown as f32, not as their double expansion") {
  const CheckResult result = compare_arrays(make_array<float>("y", {1}, {0.2f}), make_array<float>("y", {1}, {0.1f}),
                                            Tolerance{1e-6, 0});
  CHECK(contains(result.summary, "expected 0.1, got 0.2"));
}

TEST_CASE("compare_outputs names missing, unexpected and repeated outputs") {
  const std::vector<Array> expected = {f64({1}, {1}, "y"), f64({1}, {2}, "z")};
  const std::vector<Array> got = {f64({1}, {1}, "y"), f64({1}, {5}, "w"), f64({1}, {5}, "w")};
  const std::vector<CheckResult> results = compare_outputs(got, expected, Tolerance{});
  REQUIRE(results.size() == 3);
  CHECK(results[0].name == "y");
  CHECK(results[0].passed);
  CHECK(results[1].name == "z");
  CHECK(contains(results[1].summary, "missing"));
  CHECK(results[2].name == "w");
  CHECK(contains(results[2].summary, "unexpected"));
  CHECK_FALSE(all_passed(results));

  const std::vector<Array> twice = {f64({1}, {1}, "y"), f64({1}, {1}, "y"), f64({1}, {2}, "z")};
  const std::vector<CheckResult> repeated = compare_outputs(twice, expected, Tolerance{});
  REQUIRE(repeated.size() == 3);
  CHECK(contains(repeated[2].summary, "output 'y' was sent 2 times"));

  const std::vector<Array> right = {f64({1}, {2}, "z"), f64({1}, {1}, "y")};  // order does not matter
  CHECK(all_passed(compare_outputs(right, expected, Tolerance{})));
}

TEST_CASE("a negative or NaN tolerance is refused") {
  const Tolerance negative{-1, 0}, not_a_number{0, NaN};
  CHECK_THROWS_AS(compare_arrays(f64({1}, {1}), f64({1}, {1}), negative), std::invalid_argument);
  CHECK_THROWS_AS(compare_arrays(f64({1}, {1}), f64({1}, {1}), not_a_number), std::invalid_argument);
}
