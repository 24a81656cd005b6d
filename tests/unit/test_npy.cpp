// test_npy.cpp: .npy reading and writing: round trips, headers written by hand per the NumPy format
// description, and the files we refuse.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "data/npy.h"

using namespace grader;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test process, so parallel CTest runs do not share files; removed at exit.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("test_npy_" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

fs::path temp_dir() {
  static const TempDir dir;
  return dir.path;
}

void write_bytes(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <class T>
std::string raw(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// A version 1.0 file the way the format description allows it, independent of npy_header().
std::string npy_v1(std::string_view dict, std::string_view data, std::size_t align = 16) {
  std::string header(dict);
  while ((10 + header.size() + 1) % align != 0) header += ' ';
  header += '\n';
  std::string file("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  return file + header + std::string(data);
}

std::string npy_v2(std::string_view dict, std::string_view data) {
  std::string header(dict);
  while ((12 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string file("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) file += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return file + header + std::string(data);
}

std::string error_reading(const fs::path& path) {
  try {
    (void)read_npy(path);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(no error)";
}

std::string error_reading(std::string_view file_bytes, const std::string& name) {
  const fs::path path = temp_dir() / name;
  write_bytes(path, file_bytes);
  return error_reading(path);
}

template <class T>
Array counting_array(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto extent : shape) n *= extent;
  std::vector<T> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<T>(i * 3) - static_cast<T>(7);
  return make_array<T>("x", shape, std::span<const T>(values));
}

}  // namespace

TEST_CASE("every dtype and shape survives a write and a read unchanged") {
  const std::vector<std::vector<std::int64_t>> shapes = {{}, {1}, {5}, {3, 4}, {2, 3, 2}, {0}, {2, 0}};
  for (DType dtype : {DType::f32, DType::f64, DType::i32, DType::i64}) {
    for (const auto& shape : shapes) {
      const Array original = visit_dtype(dtype, [&](auto tag) { return counting_array<decltype(tag)>(shape); });
      const fs::path path = temp_dir() / "round.npy";
      write_npy(path, original);
      const Array back = read_npy(path);
      INFO(to_string(dtype), " ", format_shape(shape));
      CHECK(back.name == "round");  // the file's stem
      CHECK(back.dtype == original.dtype);
      CHECK(back.shape == original.shape);
      CHECK(back.bytes == original.bytes);
      CHECK(fs::file_size(path) == npy_header(dtype, shape).size() + original.bytes.size());
    }
  }
}

TEST_CASE("the header is what numpy.save writes, byte for byte") {
  // Per numpy/lib/format.py (1.23+): keys sorted, "'key': repr(value), " each, then "}", then
  // 21 - len(repr(shape[0])) spaces of room for the shape to grow, then spaces to a multiple of 64 bytes
  // counted from the file's start, then "\n". Length field: little-endian uint16 after magic and version.
  const std::string dict_2d = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }";  // 59 characters
  REQUIRE(dict_2d.size() == 59);
  // 10 + 59 + 20 (growth) = 89; +1 newline = 90; padded to 128: 38 more spaces. Length = 128 - 10 = 118.
  const std::string expected_2d = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict_2d + std::string(20 + 38, ' ') + "\n";
  const std::int64_t shape_2d[] = {3, 4};
  CHECK(npy_header(DType::f64, shape_2d) == expected_2d);

  const std::string dict_1d = "{'descr': '<i4', 'fortran_order': False, 'shape': (1000,), }";  // 60 characters
  REQUIRE(dict_1d.size() == 60);
  // 10 + 60 + 17 = 87; +1 = 88; to 128: 40 more spaces.
  const std::string expected_1d = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict_1d + std::string(17 + 40, ' ') + "\n";
  const std::int64_t shape_1d[] = {1000};
  CHECK(npy_header(DType::i32, shape_1d) == expected_1d);

  // 0-d: "()" and no growth room (NumPy adds it only when there is an axis).
  const std::string dict_0d = "{'descr': '<f4', 'fortran_order': False, 'shape': (), }";  // 55 characters
  REQUIRE(dict_0d.size() == 55);
  // 10 + 55 + 1 = 66, one past a 64-byte boundary, so padded to 128: 62 spaces.
  const std::string expected_0d = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict_0d + std::string(62, ' ') + "\n";
  CHECK(npy_header(DType::f32, {}) == expected_0d);

  // A header that would end exactly on a boundary gets a whole extra block of padding, as NumPy's does
  // (padlen = 64 - (10 + hlen) % 64 is 64, not 0): here magic through newline would be exactly 128 bytes.
  const std::int64_t aligned_shape[] = {1, 1000000000, 1000000000, 100000000000000};
  const std::string aligned = npy_header(DType::i64, aligned_shape);
  CHECK(aligned.size() == 192);
  CHECK(aligned.substr(10, 117).ends_with("100000000000000), }" + std::string(20, ' ')));
  CHECK(aligned.find_first_not_of(' ', 10 + 117) == 191);

  for (std::int64_t rows = 1; rows < 100000; rows = rows * 10 + 3) {
    const std::vector<std::int64_t> shape = {rows, 7, 123456789};
    const std::string header = npy_header(DType::i64, shape);
    CHECK(header.size() % 64 == 0);
    CHECK(header.back() == '\n');
  }
}

TEST_CASE("reads hand-built version 1.0 and 2.0 files") {
  SUBCASE("1.0, 16-byte alignment as NumPy before 1.14 wrote, keys in another order, double quotes") {
    const std::vector<std::int32_t> values = {1, -2, 3, 2147483647, -2147483647 - 1, 0};
    const std::string file = npy_v1("{\"shape\": (2, 3), \"fortran_order\": False, \"descr\": \"<i4\"}", raw(values));
    write_bytes(temp_dir() / "v1.npy", file);
    const Array a = read_npy(temp_dir() / "v1.npy");
    CHECK(a.dtype == DType::i32);
    CHECK(a.shape == std::vector<std::int64_t>{2, 3});
    CHECK(a.at(3) == 2147483647.0);
    CHECK(a.at(4) == -2147483648.0);
  }
  SUBCASE("2.0: a four-byte header length") {
    const std::vector<float> values = {0.5f, -1.25f, 3.0f, 1e30f};
    const std::string file = npy_v2("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", raw(values));
    write_bytes(temp_dir() / "v2.npy", file);
    const Array a = read_npy(temp_dir() / "v2.npy");
    CHECK(a.dtype == DType::f32);
    CHECK(a.shape == std::vector<std::int64_t>{4});
    CHECK(a.at(1) == -1.25);
    CHECK(a.at(3) == static_cast<double>(1e30f));
    // parse_npy reads the same bytes from memory.
    const Array b = parse_npy(std::as_bytes(std::span(file.data(), file.size())), "memory");
    CHECK(b.bytes == a.bytes);
  }
  SUBCASE("Python 2 long integers in the shape") {
    const std::vector<double> values = {1, 2};
    const std::string file = npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (2L,), }", raw(values));
    CHECK(parse_npy(std::as_bytes(std::span(file.data(), file.size())), "py2").shape == std::vector<std::int64_t>{2});
  }
}

TEST_CASE("refuses what datasets must not hold, naming the file and the reason") {
  const std::vector<double> six(6, 1.0);
  const std::string good_dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";

  SUBCASE("Fortran order") {
    const std::string message = error_reading(
        npy_v1("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", raw(six)), "fortran.npy");
    CHECK(message.find("fortran.npy") != std::string::npos);
    CHECK(message.find("fortran_order is True") != std::string::npos);
  }
  SUBCASE("big-endian") {
    const std::string message = error_reading(
        npy_v1("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }", raw(six)), "big.npy");
    CHECK(message.find("big.npy") != std::string::npos);
    CHECK(message.find("big-endian dtype '>f8'") != std::string::npos);
  }
  SUBCASE("other dtypes") {
    const std::string message = error_reading(
        npy_v1("{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }", std::string(12, '\0')), "u2.npy");
    CHECK(message.find("dtype '<u2' is not supported") != std::string::npos);
  }
  SUBCASE("structured dtypes") {
    const std::string message = error_reading(
        npy_v1("{'descr': [('x', '<f8'), ('y', '<i4')], 'fortran_order': False, 'shape': (1,), }", std::string(12, '\0')),
        "record.npy");
    CHECK(message.find("structured") != std::string::npos);
  }
  SUBCASE("data cut short") {
    std::string file = npy_v1(good_dict, raw(six));
    file.pop_back();
    const std::string message = error_reading(file, "short.npy");
    CHECK(message.find("short.npy") != std::string::npos);
    CHECK(message.find("truncated: shape [2, 3] of f64 needs 48 bytes of data, the file has 47") != std::string::npos);
  }
  SUBCASE("a file cut inside its header") {
    const std::string file = npy_v1(good_dict, raw(six)).substr(0, 30);
    CHECK(error_reading(file, "cut.npy").find("truncated: the file ends inside the header") != std::string::npos);
    CHECK(error_reading(file.substr(0, 9), "cut9.npy").find("truncated") != std::string::npos);
  }
  SUBCASE("bytes after the data") {
    const std::string message = error_reading(npy_v1(good_dict, raw(six) + "xx"), "long.npy");
    CHECK(message.find("2 more bytes follow") != std::string::npos);
  }
  SUBCASE("not a .npy file, or a version we do not read") {
    CHECK(error_reading(std::string("PK\x03\x04 a zip file"), "zip.npy").find("not a .npy file") != std::string::npos);
    std::string v3 = npy_v2(good_dict, raw(six));
    v3[6] = '\x03';
    CHECK(error_reading(v3, "v3.npy").find("version 3.0 is not supported") != std::string::npos);
  }
  SUBCASE("a header that is not a dict NumPy writes") {
    CHECK(error_reading(npy_v1("{'descr': '<f8', 'shape': (2, 3), }", raw(six)), "nokey.npy").find("lacks") !=
          std::string::npos);
    CHECK(error_reading(npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (2, -3), }", raw(six)), "neg.npy")
              .find("non-negative integer") != std::string::npos);
  }
  SUBCASE("a missing file") {
    CHECK(error_reading(temp_dir() / "absent.npy").find("absent.npy: cannot read") != std::string::npos);
  }
}

TEST_CASE("write_npy refuses bytes that do not match the shape") {
  Array bad = make_array<double>("y", {2, 2}, {1, 2, 3});
  CHECK_THROWS_AS(write_npy(temp_dir() / "bad.npy", bad), std::invalid_argument);
}
