// test_array.cpp: dtype names, layout checks of untrusted arrays, coordinates and value text.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "data/array.h"

using namespace grader;

TEST_CASE("dtype names are the protocol's, both ways") {
  for (DType dtype : {DType::f32, DType::f64, DType::i32, DType::i64}) {
    CHECK(parse_dtype(to_string(dtype)) == dtype);
  }
  CHECK(to_string(DType::f32) == "f32");
  CHECK_FALSE(parse_dtype("float64"));
  CHECK_FALSE(parse_dtype("F64"));
  CHECK(dtype_size(DType::i32) == 4);
  CHECK(dtype_size(DType::i64) == 8);
  CHECK(is_floating(DType::f32));
  CHECK_FALSE(is_floating(DType::i64));
}

TEST_CASE("layout_problem catches bytes and shapes that disagree, including hostile shapes") {
  Array y = make_array<double>("y", {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(layout_problem(y) == "");
  CHECK(y.elements() == 6);
  y.bytes.pop_back();
  CHECK(layout_problem(y) == "y: shape [2, 3] of f64 needs 48 bytes, got 47");
  CHECK_THROWS_AS(check_array(y), std::invalid_argument);

  const std::int64_t negative[] = {-2, -3};  // product 6, but no array has a negative extent
  CHECK(layout_problem("z", DType::f64, negative, 48) == "z: shape [-2, -3] of f64 has a negative extent");
  const std::int64_t huge[] = {std::int64_t{1} << 40, std::int64_t{1} << 40};  // the product overflows int64
  CHECK(layout_problem("z", DType::f32, huge, 0).find("more elements than memory can hold") != std::string::npos);
  const std::int64_t empty[] = {0, std::int64_t{1} << 62};
  CHECK(layout_problem("z", DType::f64, empty, 0) == "");
  CHECK(layout_problem("s", DType::i32, {}, 4) == "");  // 0-d: one element
}

TEST_CASE("at() converts each dtype to double and checks bounds") {
  CHECK(make_array<float>("a", {2}, {0.5f, -2.f}).at(1) == -2.0);
  CHECK(make_array<std::int32_t>("a", {1}, {-7}).at(0) == -7.0);
  CHECK(make_array<std::int64_t>("a", {1}, {std::int64_t{1} << 40}).at(0) == 1099511627776.0);
  const Array a = make_array<double>("a", {2}, {1, 2});
  CHECK_THROWS_AS((void)a.at(2), std::out_of_range);
  CHECK_THROWS_AS((void)a.at(-1), std::out_of_range);
}

TEST_CASE("flat indices become row-major coordinates") {
  const std::int64_t shape[] = {20, 10};
  CHECK(unravel_index(shape, 127) == std::vector<std::int64_t>{12, 7});
  CHECK(format_index(shape, 127) == "[12, 7]");
  const std::int64_t cube[] = {2, 3, 4};
  CHECK(format_index(cube, 23) == "[1, 2, 3]");
  CHECK(format_shape(std::vector<std::int64_t>{}) == "[]");
}

TEST_CASE("values are written in their own dtype, exactly") {
  CHECK(format_element(make_array<float>("a", {1}, {0.1f}), 0) == "0.1");
  CHECK(format_element(make_array<double>("a", {1}, {0.1}), 0) == "0.1");
  CHECK(format_element(make_array<std::int64_t>("a", {1}, {std::numeric_limits<std::int64_t>::max()}), 0) ==
        "9223372036854775807");
  CHECK(format_value(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(format_value(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(format_value(3.25) == "3.25");
}
