// array.h: the grader's view of one named array: dtype, shape and raw bytes (row-major, little-endian).
//
// Workers send arrays in this form (grader/labkit/worker_protocol.md), datasets store them as .npy files
// (data/npy.h), and the check (check/compare.h) reads them element by element. The grader never needs the
// typed values beyond that, so an Array keeps the bytes exactly as they arrived.
//
//   Array y = make_array<double>("y", {2, 3}, {1, 2, 3, 4, 5, 6});
//   y.elements();                          // 6
//   y.at(4);                               // 5.0
//   format_index(y.shape, 4);              // "[1, 1]"
//   layout_problem(y);                     // "" (bytes agree with dtype and shape)
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace grader {

// The protocol and the .npy files are little-endian; the grader copies bytes straight into values.
static_assert(std::endian::native == std::endian::little, "the grader reads little-endian array bytes as is");

enum class DType : std::uint8_t { f32, f64, i32, i64 };

std::string_view to_string(DType dtype);                  // "f32", "f64", "i32", "i64": the protocol's names
std::optional<DType> parse_dtype(std::string_view name);  // nullopt for any other name
std::size_t dtype_size(DType dtype);                      // 4 or 8
bool is_floating(DType dtype);

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::f32;
  else if constexpr (std::is_same_v<T, double>) return DType::f64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return DType::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return DType::i64;
  else static_assert(sizeof(T) == 0, "arrays hold float, double, int32_t or int64_t");
}

struct Array {
  std::string name;
  DType dtype = DType::f64;
  std::vector<std::int64_t> shape;  // empty: a 0-d array of one element
  std::vector<std::byte> bytes;     // elements() * dtype_size(dtype) of them once layout_problem() is ""

  // Product of the extents. Meaningful only for an array whose layout_problem() is "".
  std::int64_t elements() const;

  // Element i (row-major flat index) converted to double. i64 values beyond 2^53 round.
  // Throws std::out_of_range when i is not an index into bytes.
  double at(std::int64_t i) const;

  // Element i as the array's own type, without a bounds check: for loops over many elements.
  template <class T>
  T load(std::int64_t i) const {
    T value;
    std::memcpy(&value, bytes.data() + static_cast<std::size_t>(i) * sizeof(T), sizeof(T));
    return value;
  }
};

// Why the bytes cannot be this dtype and shape ("y: shape [3, 4] of f64 needs 96 bytes, got 80"; a negative
// extent; an element count that overflows), or "" when they can. Arrays from workers are untrusted: call this
// (or check_array) before reading elements.
std::string layout_problem(const Array& array);
void check_array(const Array& array);  // throws std::invalid_argument with layout_problem()'s text
// The same for an array announced but not yet received: check a worker's header before allocating its bytes.
std::string layout_problem(std::string_view name, DType dtype, std::span<const std::int64_t> shape,
                           std::uint64_t byte_count);

// Calls f(T{}) with the C++ type of dtype, so one template serves every dtype.
template <class F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    case DType::i32: return f(std::int32_t{});
    case DType::i64: break;
  }
  return f(std::int64_t{});
}

template <class T>
Array make_array(std::string name, std::vector<std::int64_t> shape, std::span<const T> values) {
  Array array{std::move(name), dtype_of<T>(), std::move(shape), {}};
  array.bytes.resize(values.size_bytes());
  if (!values.empty()) std::memcpy(array.bytes.data(), values.data(), values.size_bytes());  // data() may be null
  return array;
}
template <class T>
Array make_array(std::string name, std::vector<std::int64_t> shape, std::initializer_list<T> values) {
  return make_array<T>(std::move(name), std::move(shape), std::span<const T>(values.begin(), values.size()));
}

std::string format_shape(std::span<const std::int64_t> shape);  // "[3, 5]"; "[]" for 0-d
// The row-major coordinates of a flat index: unravel_index({3, 5}, 7) == {1, 2}.
std::vector<std::int64_t> unravel_index(std::span<const std::int64_t> shape, std::int64_t flat);
std::string format_index(std::span<const std::int64_t> shape, std::int64_t flat);  // "[1, 2]"

// Element i in the array's own type, written so it reads back to the same value: "3.25", "0.1" for an f32 0.1
// (not its double expansion), "9223372036854775807" exactly for an i64, "NaN", "inf", "-inf".
std::string format_element(const Array& array, std::int64_t i);
std::string format_value(double value);  // the same for a double: shortest round-trip text

}  // namespace grader
