// array.cpp: dtype names, layout checks and the text forms of shapes, indices and values.
#include "data/array.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace grader {

std::string_view to_string(DType dtype) {
  switch (dtype) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType dtype : {DType::f32, DType::f64, DType::i32, DType::i64}) {
    if (to_string(dtype) == name) return dtype;
  }
  return std::nullopt;
}

std::size_t dtype_size(DType dtype) { return (dtype == DType::f32 || dtype == DType::i32) ? 4 : 8; }

bool is_floating(DType dtype) { return dtype == DType::f32 || dtype == DType::f64; }

std::int64_t Array::elements() const {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

double Array::at(std::int64_t i) const {
  const auto size = static_cast<std::int64_t>(dtype_size(dtype));
  if (i < 0 || i >= static_cast<std::int64_t>(bytes.size()) / size) {
    throw std::out_of_range("array " + name + ": element " + std::to_string(i) + " is outside its " +
                            std::to_string(bytes.size() / size) + " elements");
  }
  return visit_dtype(dtype, [&](auto tag) { return static_cast<double>(load<decltype(tag)>(i)); });
}

std::string layout_problem(const Array& array) {
  return layout_problem(array.name, array.dtype, array.shape, array.bytes.size());
}

std::string layout_problem(std::string_view name, DType dtype, std::span<const std::int64_t> shape,
                           std::uint64_t byte_count) {
  const std::string what = std::string(name) + ": shape " + format_shape(shape) + " of " + std::string(to_string(dtype));
  const auto item = static_cast<std::int64_t>(dtype_size(dtype));
  // Bytes fit in memory, so any element count past max / item cannot match them; checking against that
  // bound as we multiply also keeps the product from overflowing on a hostile shape.
  const std::int64_t limit = std::numeric_limits<std::int64_t>::max() / item;
  std::int64_t count = 1;
  for (std::int64_t extent : shape) {
    if (extent < 0) return what + " has a negative extent";
    if (extent != 0 && count > limit / extent) return what + " has more elements than memory can hold";
    count *= extent;
  }
  const std::int64_t needed = count * item;
  if (static_cast<std::uint64_t>(needed) != byte_count) {
    return what + " needs " + std::to_string(needed) + " bytes, got " + std::to_string(byte_count);
  }
  return "";
}

void check_array(const Array& array) {
  if (std::string problem = layout_problem(array); !problem.empty()) throw std::invalid_argument(problem);
}

std::string format_shape(std::span<const std::int64_t> shape) {
  std::string text = "[";
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) text += ", ";
    text += std::to_string(shape[d]);
  }
  return text + "]";
}

std::vector<std::int64_t> unravel_index(std::span<const std::int64_t> shape, std::int64_t flat) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] <= 0) continue;  // no element has this index; leave 0 rather than divide by zero
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

std::string format_index(std::span<const std::int64_t> shape, std::int64_t flat) {
  return format_shape(unravel_index(shape, flat));
}

namespace {

// Shortest text that reads back as the same value of type T ("0.1" for the float nearest 0.1).
template <class T>
std::string shortest(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  }
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace

std::string format_element(const Array& array, std::int64_t i) {
  (void)array.at(i);  // the bounds check
  return visit_dtype(array.dtype, [&](auto tag) { return shortest(array.load<decltype(tag)>(i)); });
}

std::string format_value(double value) { return shortest(value); }

}  // namespace grader
