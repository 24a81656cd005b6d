// test_lab1_judge.cpp: lab 1's judge-only variants. The grading never checks a baseline's outputs, so a judge
// "tuned" matvec that skipped the leftover rows or columns would be a yardstick doing less work than the
// student, and nobody would see it. Here it is held to the judge's own plain loop on every shape of leftovers;
// read_a to the row sums.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

// The judge's source as the grader builds it (matvec.h is found beside it); tests/CMakeLists.txt says why this
// file is built with -Wno-psabi.
#include "../../labs/lab1-matvec/baseline.cpp"

namespace {

struct Shape {
  std::int64_t m, n;
};

std::vector<double> random_values(std::size_t count, std::mt19937_64& generator) {
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> values(count);
  for (double& v : values) v = value(generator);
  return values;
}

// Summation orders differ, so the answers differ in the last bits; a skipped element moves one by 0.01 or more.
void check_close(const std::vector<double>& got, const std::vector<double>& expected) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(std::abs(got[i] - expected[i]) <= 1e-12 * (1.0 + std::abs(expected[i])));
  }
}

// Every m and n mod 4, around the four-row and four-column steps, and the 1 x 1 edge.
const Shape shapes[] = {{1, 1}, {3, 5}, {4, 4}, {5, 7}, {6, 9}, {7, 10}, {8, 11}, {17, 13}, {64, 100}, {101, 1003}};

// Runs `judge(a, x, y, m, n)` on random inputs of every shape above and holds y to the judge's plain loop on the
// same A and x. With `x_all_ones`, x is all ones: the plain loop then gives the row sums of A.
template <typename Judge>
void check_every_shape(Judge judge, bool x_all_ones) {
  std::mt19937_64 generator(1);
  for (const Shape& shape : shapes) {
    CAPTURE(shape.m);
    CAPTURE(shape.n);
    const auto a = random_values(static_cast<std::size_t>(shape.m * shape.n), generator);
    const auto x = x_all_ones ? std::vector<double>(static_cast<std::size_t>(shape.n), 1.0)
                              : random_values(static_cast<std::size_t>(shape.n), generator);
    std::vector<double> expected(static_cast<std::size_t>(shape.m)), got(expected.size(), NAN);
    matvec_contiguous(a.data(), x.data(), expected.data(), shape.m, shape.n);
    judge(a.data(), x.data(), got.data(), shape.m, shape.n);
    check_close(got, expected);
  }
}

}  // namespace

TEST_CASE("lab 1's tuned matvec computes A x on every shape of leftover rows and columns") {
  check_every_shape(lab1_judge_tuned, /*x_all_ones=*/false);
}

TEST_CASE("lab 1's read_a computes the row sums of A on every shape") {
  auto read_a = [](const double* a, const double*, double* y, std::int64_t m, std::int64_t n) {
    lab1_judge_read_a(a, y, m, n);
  };
  check_every_shape(read_a, /*x_all_ones=*/true);
}
