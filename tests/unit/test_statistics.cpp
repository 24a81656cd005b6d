// test_statistics.cpp: summarize() (grader/src/measure/statistics.h): median and quartiles by linear
// interpolation between order statistics, and the relative spread (IQR / median) the measurement stops on.
#include <doctest/doctest.h>

#include <vector>

#include "measure/statistics.h"

using grader::Summary;
using grader::summarize;

TEST_CASE("odd number of samples: the median is the middle one") {
  const Summary s = summarize({1, 2, 3, 4, 5});
  CHECK(s.median == doctest::Approx(3));
  CHECK(s.q1 == doctest::Approx(2));
  CHECK(s.q3 == doctest::Approx(4));
}

TEST_CASE("even number of samples: the median is between the middle two") {
  const Summary s = summarize({1, 2, 3, 4});
  CHECK(s.median == doctest::Approx(2.5));
  // Type 7: q1 at position 0.75, q3 at position 2.25.
  CHECK(s.q1 == doctest::Approx(1.75));
  CHECK(s.q3 == doctest::Approx(3.25));
}

TEST_CASE("unsorted input is sorted first") {
  const Summary sorted = summarize({10, 20, 30, 40, 50, 60, 70});
  const Summary shuffled = summarize({40, 10, 70, 30, 60, 20, 50});
  CHECK(shuffled.median == doctest::Approx(sorted.median));
  CHECK(shuffled.q1 == doctest::Approx(sorted.q1));
  CHECK(shuffled.q3 == doctest::Approx(sorted.q3));
  CHECK(shuffled.median == doctest::Approx(40));
  CHECK(shuffled.q1 == doctest::Approx(25));
  CHECK(shuffled.q3 == doctest::Approx(55));
}

TEST_CASE("one outlier does not move the median") {
  const Summary s = summarize({1.0, 1.0, 1.0, 1.0, 1000.0});
  CHECK(s.median == doctest::Approx(1.0));
}

TEST_CASE("a single sample is every quantile") {
  const Summary s = summarize({0.25});
  CHECK(s.median == 0.25);
  CHECK(s.q1 == 0.25);
  CHECK(s.q3 == 0.25);
  CHECK(s.relative_spread() == 0);
}

TEST_CASE("two samples") {
  const Summary s = summarize({2, 4});
  CHECK(s.median == doctest::Approx(3));
  CHECK(s.q1 == doctest::Approx(2.5));
  CHECK(s.q3 == doctest::Approx(3.5));
}

TEST_CASE("empty samples give zeros") {
  const Summary s = summarize({});
  CHECK(s.median == 0);
  CHECK(s.q1 == 0);
  CHECK(s.q3 == 0);
  CHECK(s.relative_spread() == 0);
}

TEST_CASE("relative spread is the interquartile range over the median") {
  const Summary s = summarize({1, 2, 3, 4, 5});
  CHECK(s.relative_spread() == doctest::Approx((4.0 - 2.0) / 3.0));
  CHECK(summarize({7, 7, 7, 7}).relative_spread() == 0);
  const Summary zero{0, 0, 1};  // a zero median: no division by zero
  CHECK(zero.relative_spread() == 0);
}
