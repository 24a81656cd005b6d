// compare.cpp: the element-wise check, its error norms, and the words a student reads about it.
#include "check/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <type_traits>

namespace grader {

namespace {

constexpr double k_inf = std::numeric_limits<double>::infinity();

// What one pass over the elements learns; the element reports are built afterwards from the indices, so
// the loop itself never allocates or formats.
struct Scan {
  std::int64_t mismatches = 0;
  std::int64_t expected_nan = 0;
  std::int64_t first_expected_nan = -1;
  std::int64_t worst = -1;
  double worst_excess = -k_inf;
  std::int64_t first[max_listed_mismatches] = {};
  double max_abs_error = 0;
  double sum_sq_error = 0;
  double sum_sq_expected = 0;
};

// |got - expected| and whether it is within atol + rtol * |expected|, for one element of type T.
struct Verdict {
  double abs_error;
  double allowed;
  bool ok;
};

template <class T>
Verdict judge(T got, T expected, const Tolerance& tolerance) {
  const double e = static_cast<double>(expected);
  const double allowed = tolerance.atol + tolerance.rtol * std::fabs(e);
  if constexpr (std::is_floating_point_v<T>) {
    if (got == expected) return {0.0, allowed, true};  // also equal infinities, whose difference is NaN
    if (!std::isfinite(got) || !std::isfinite(expected)) return {k_inf, allowed, false};
    const double error = std::fabs(static_cast<double>(got) - e);
    return {error, allowed, error <= allowed};
  } else {
    // The difference of two int64 always fits in uint64; converting the values to double first would lose
    // it (two i64 values past 2^53 that differ by 1 would compare equal).
    const auto g = static_cast<std::int64_t>(got), x = static_cast<std::int64_t>(expected);
    const std::uint64_t difference = g >= x ? std::uint64_t(g) - std::uint64_t(x) : std::uint64_t(x) - std::uint64_t(g);
    const double error = static_cast<double>(difference);
    return {error, allowed, difference == 0 || error <= allowed};
  }
}

template <class T>
void scan(const Array& got, const Array& expected, const Tolerance& tolerance, Scan& s) {
  const std::int64_t n = expected.elements();
  for (std::int64_t i = 0; i < n; ++i) {
    const T x = expected.load<T>(i);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) {
        if (s.expected_nan++ == 0) s.first_expected_nan = i;
        continue;
      }
      if (std::isfinite(x)) s.sum_sq_expected += double(x) * double(x);
    } else {
      s.sum_sq_expected += double(x) * double(x);
    }
    const Verdict v = judge(got.load<T>(i), x, tolerance);
    // NaN counts as worst of all: inf - inf (an infinite tolerance) must not hide it.
    const double excess = v.ok ? v.abs_error - v.allowed : (std::isinf(v.abs_error) ? k_inf : v.abs_error - v.allowed);
    if (s.worst < 0 || excess > s.worst_excess) {
      s.worst = i;
      s.worst_excess = excess;
    }
    if (v.abs_error > s.max_abs_error) s.max_abs_error = v.abs_error;
    s.sum_sq_error += v.abs_error * v.abs_error;
    if (!v.ok) {
      if (s.mismatches < static_cast<std::int64_t>(max_listed_mismatches)) s.first[s.mismatches] = i;
      ++s.mismatches;
    }
  }
}

ElementReport report_element(const Array& got, const Array& expected, std::int64_t i, const Tolerance& tolerance) {
  ElementReport r;
  r.flat_index = i;
  r.index = unravel_index(expected.shape, i);
  r.expected = expected.at(i);
  r.got = got.at(i);
  r.expected_text = format_element(expected, i);
  r.got_text = format_element(got, i);
  const Verdict v = visit_dtype(expected.dtype, [&](auto tag) {
    using T = decltype(tag);
    return judge(got.load<T>(i), expected.load<T>(i), tolerance);
  });
  r.abs_error = v.abs_error;
  r.allowed = v.allowed;
  return r;
}

// What a wrong value most likely means. Outputs are poisoned before each call (labkit::poison: NaN for
// floating point, the type's maximum for integers), so those values usually mark elements never written.
std::string explain_got(const Array& got, const ElementReport& r) {
  if (std::isnan(r.got)) return " (never written, or NaN computed)";
  if (std::isinf(r.got)) return " (overflow, or a division by zero?)";
  const bool poison = visit_dtype(got.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) return got.load<T>(r.flat_index) == std::numeric_limits<T>::max();
    else return false;
  });
  if (poison) return " (the value outputs are poisoned with: never written?)";
  return " (error " + format_value(r.abs_error) + ", allowed " + format_value(r.allowed) + ")";
}

std::string count_text(std::int64_t count, std::string_view one, std::string_view many) {
  return std::to_string(count) + " " + std::string(count == 1 ? one : many);
}

std::string failure_summary(const Array& got, const CheckResult& result) {
  std::string text = std::to_string(result.mismatches) + " of " + count_text(result.elements, "element", "elements") +
                     " wrong";
  if (result.worst) {
    const ElementReport& w = *result.worst;
    text += "; worst at " + format_shape(w.index) + ": expected " + w.expected_text + ", got " + w.got_text +
            explain_got(got, w);
  }
  if (result.first_mismatches.size() > 1) {
    text += "; first wrong at ";
    for (std::size_t k = 0; k < result.first_mismatches.size(); ++k) {
      text += (k > 0 ? ", " : "") + format_shape(result.first_mismatches[k].index);
    }
    if (result.mismatches > static_cast<std::int64_t>(result.first_mismatches.size())) text += ", ...";
  }
  return text;
}

CheckResult failed(std::string name, const Tolerance& tolerance, std::string summary, bool internal = false) {
  CheckResult result;
  result.name = std::move(name);
  result.tolerance = tolerance;
  result.internal_error = internal;
  result.summary = std::move(summary);
  return result;
}

}  // namespace

CheckResult compare_arrays(const Array& got, const Array& expected, const Tolerance& tolerance) {
  if (!(tolerance.rtol >= 0) || !(tolerance.atol >= 0)) {
    throw std::invalid_argument("tolerance for " + expected.name + " must be non-negative, got rtol " +
                                format_value(tolerance.rtol) + ", atol " + format_value(tolerance.atol));
  }
  if (std::string problem = layout_problem(expected); !problem.empty()) {
    return failed(expected.name, tolerance, "the expected output is malformed (" + problem + ")", true);
  }
  if (got.dtype != expected.dtype) {
    return failed(expected.name, tolerance,
                  "dtype " + std::string(to_string(got.dtype)) + ", expected " + std::string(to_string(expected.dtype)));
  }
  if (got.shape != expected.shape) {
    return failed(expected.name, tolerance, "shape " + format_shape(got.shape) + ", expected " + format_shape(expected.shape));
  }
  if (std::string problem = layout_problem(got); !problem.empty()) return failed(expected.name, tolerance, problem);

  Scan s;
  visit_dtype(expected.dtype, [&](auto tag) { scan<decltype(tag)>(got, expected, tolerance, s); });

  CheckResult result;
  result.name = expected.name;
  result.tolerance = tolerance;
  result.elements = expected.elements();
  result.mismatches = s.mismatches;
  result.expected_nan = s.expected_nan;
  result.max_abs_error = s.max_abs_error;
  const double error_norm = std::sqrt(s.sum_sq_error), expected_norm = std::sqrt(s.sum_sq_expected);
  result.relative_error_norm = error_norm == 0 ? 0 : expected_norm == 0 ? k_inf : error_norm / expected_norm;
  if (s.worst >= 0) result.worst = report_element(got, expected, s.worst, tolerance);
  for (std::int64_t k = 0; k < std::min<std::int64_t>(s.mismatches, max_listed_mismatches); ++k) {
    result.first_mismatches.push_back(report_element(got, expected, s.first[k], tolerance));
  }

  if (s.expected_nan > 0) {
    result.internal_error = true;
    result.summary = "the expected output has NaN at " + format_index(expected.shape, s.first_expected_nan) + " (" +
                     count_text(s.expected_nan, "element", "elements") +
                     " in all): the judge or the dataset is broken, not the submission";
  } else if (s.mismatches > 0) {
    result.summary = failure_summary(got, result);
  } else {
    result.passed = true;
    result.summary = result.elements == 0
                         ? "no elements to compare (shape " + format_shape(expected.shape) + ")"
                         : "all " + count_text(result.elements, "element", "elements") + " within tolerance; max abs error " +
                               format_value(result.max_abs_error) + ", relative error " +
                               format_value(result.relative_error_norm);
  }
  return result;
}

std::vector<CheckResult> compare_outputs(std::span<const Array> got, std::span<const Array> expected,
                                         const Tolerance& tolerance) {
  std::map<std::string_view, int> sent;  // how many times the candidate sent each name
  for (const Array& array : got) ++sent[array.name];

  std::vector<CheckResult> results;
  for (const Array& want : expected) {
    const auto match = std::find_if(got.begin(), got.end(), [&](const Array& a) { return a.name == want.name; });
    if (match == got.end()) {
      results.push_back(failed(want.name, tolerance, "missing: the program did not send output '" + want.name + "'"));
    } else {
      results.push_back(compare_arrays(*match, want, tolerance));
    }
  }
  for (const auto& [name, count] : sent) {
    const bool known = std::any_of(expected.begin(), expected.end(), [&](const Array& a) { return a.name == name; });
    if (!known) {
      results.push_back(failed(std::string(name), tolerance,
                               "unexpected: the program sent an output '" + std::string(name) + "' that the lab does not have"));
    } else if (count > 1) {
      results.push_back(failed(std::string(name), tolerance,
                               "output '" + std::string(name) + "' was sent " + std::to_string(count) + " times"));
    }
  }
  return results;
}

bool all_passed(std::span<const CheckResult> results) {
  return std::all_of(results.begin(), results.end(), [](const CheckResult& r) { return r.passed; });
}

bool any_internal_error(std::span<const CheckResult> results) {
  return std::any_of(results.begin(), results.end(), [](const CheckResult& r) { return r.internal_error; });
}

}  // namespace grader
