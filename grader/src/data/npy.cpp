// npy.cpp: the .npy reader (magic string, header dictionary, data) and writer.
//
// A .npy file is "\x93NUMPY", two version bytes, the header length (2 bytes in 1.0, 4 in 2.0, little-endian),
// a header that is a Python dict literal such as {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
// padded with spaces and a newline, then the raw data.
#include "data/npy.h"

#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>

namespace grader {

namespace {

constexpr std::string_view k_magic = "\x93NUMPY";
// NumPy's own read refuses headers over 10000 bytes; ours are a few hundred. The cap keeps a damaged
// length field from making us allocate gigabytes.
constexpr std::size_t k_max_header_bytes = 1 << 16;
constexpr std::size_t k_align = 64;               // NumPy's ARRAY_ALIGN
constexpr std::size_t k_growth_axis_digits = 21;  // NumPy's GROWTH_AXIS_MAX_DIGITS

[[noreturn]] void fail(std::string_view source, const std::string& message) {
  throw std::runtime_error(std::string(source) + ": " + message);
}

std::string_view descr_of(DType dtype) {
  switch (dtype) {
    case DType::f32: return "<f4";
    case DType::f64: return "<f8";
    case DType::i32: return "<i4";
    case DType::i64: break;
  }
  return "<i8";
}

// Bytes of data a header announces, or nullopt when the count overflows (a damaged or hostile header).
std::optional<std::uint64_t> data_bytes(DType dtype, const std::vector<std::int64_t>& shape) {
  std::uint64_t bytes = dtype_size(dtype);
  for (std::int64_t extent : shape) {
    const auto e = static_cast<std::uint64_t>(extent);
    if (e != 0 && bytes > std::numeric_limits<std::uint64_t>::max() / e) return std::nullopt;
    bytes *= e;
  }
  return bytes;
}

// The subset of Python literal syntax NumPy writes in headers: a dict of str keys whose values are str,
// bool, tuples of int, or (for structured dtypes, which we refuse) lists.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  struct Value {
    enum class Kind { string, boolean, tuple, list } kind;
    std::string string;
    bool boolean = false;
    std::vector<std::int64_t> tuple;
  };

  // Calls on_entry(key, value) for each entry of the dict.
  template <class F>
  void parse_dict(F&& on_entry) {
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      std::string key = parse_string();
      expect(':');
      Value value = parse_value();
      on_entry(key, value);
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') error("expected ',' or '}'");
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) error("text after the closing '}'");
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) error(std::string("expected '") + c + "'");
    ++pos_;
  }
  [[noreturn]] void error(const std::string& what) const {
    fail(source_, "the header is not one NumPy writes: " + what + " at character " + std::to_string(pos_ + 1) +
                      " of \"" + std::string(text_.substr(0, text_.find_last_not_of(" \n") + 1)) + "\"");
  }

  std::string parse_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') error("expected a quoted string");
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) error("unterminated string");
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }

  std::int64_t parse_int() {
    skip_space();
    std::int64_t value = 0;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (value > (std::numeric_limits<std::int64_t>::max() - 9) / 10) error("an extent too large");
      value = value * 10 + (text_[pos_++] - '0');
    }
    if (pos_ == start) error("expected a non-negative integer");
    if (peek() == 'L') ++pos_;  // Python 2 wrote long integers as 3L
    return value;
  }

  Value parse_value() {
    skip_space();
    Value value{};
    if (peek() == '\'' || peek() == '"') {
      value.kind = Value::Kind::string;
      value.string = parse_string();
    } else if (text_.substr(pos_, 4) == "True" || text_.substr(pos_, 5) == "False") {
      value.kind = Value::Kind::boolean;
      value.boolean = text_[pos_] == 'T';
      pos_ += value.boolean ? 4 : 5;
    } else if (peek() == '(') {
      value.kind = Value::Kind::tuple;
      ++pos_;
      skip_space();
      while (peek() != ')') {
        value.tuple.push_back(parse_int());
        skip_space();
        if (peek() == ',') ++pos_;
        else if (peek() != ')') error("expected ',' or ')' in the shape");
        skip_space();
      }
      ++pos_;
    } else if (peek() == '[') {
      // A structured dtype's descr. Its contents do not matter: the file is refused either way.
      value.kind = Value::Kind::list;
      int depth = 0;
      do {
        if (pos_ >= text_.size()) error("unterminated list");
        if (text_[pos_] == '[') ++depth;
        if (text_[pos_] == ']') --depth;
        ++pos_;
      } while (depth > 0);
    } else {
      error("expected a string, True, False or a tuple");
    }
    return value;
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
};

struct Layout {
  DType dtype = DType::f64;
  std::vector<std::int64_t> shape;
  std::size_t data_offset = 0;  // where the data starts: the size of magic, version, length and header
  std::uint64_t data_bytes = 0;
};

// From the first bytes of a file (at least 12, or all of a shorter file): where the header ends.
std::size_t header_end(std::span<const std::byte> prefix, std::string_view source) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(prefix[i]); };
  if (prefix.size() < k_magic.size() ||
      std::string_view(reinterpret_cast<const char*>(prefix.data()), k_magic.size()) != k_magic) {
    fail(source, "not a .npy file (it does not start with \"\\x93NUMPY\")");
  }
  if (prefix.size() < 8) fail(source, "truncated: the file ends inside the .npy version");
  const unsigned major = byte(6), minor = byte(7);
  if ((major != 1 && major != 2) || minor != 0) {
    fail(source, ".npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                     " is not supported (1.0 and 2.0 are)");
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (prefix.size() < 8 + length_bytes) fail(source, "truncated: the file ends inside the header length");
  std::size_t length = 0;
  for (std::size_t i = 0; i < length_bytes; ++i) length |= std::size_t(byte(8 + i)) << (8 * i);
  if (length > k_max_header_bytes) {
    fail(source, "the header claims " + std::to_string(length) + " bytes; a .npy header of this kind needs "
                     "a few hundred (is the file damaged?)");
  }
  return 8 + length_bytes + length;
}

// From the bytes through the header, and the file's size: dtype, shape and where the data lies.
Layout parse_layout(std::span<const std::byte> head, std::uint64_t file_size, std::string_view source) {
  Layout layout;
  layout.data_offset = header_end(head, source);
  if (head.size() < layout.data_offset) fail(source, "truncated: the file ends inside the header");
  const std::size_t text_start = head[6] == std::byte{1} ? 10 : 12;
  const std::string_view text(reinterpret_cast<const char*>(head.data()) + text_start,
                              layout.data_offset - text_start);

  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<std::int64_t>> shape;
  HeaderParser parser(text, source);
  parser.parse_dict([&](const std::string& key, const HeaderParser::Value& value) {
    using Kind = HeaderParser::Value::Kind;
    if (key == "descr" && value.kind == Kind::list) {
      fail(source, "structured (record) dtypes are not supported; datasets hold plain f32, f64, i32 or i64 arrays");
    } else if (key == "descr" && value.kind == Kind::string) {
      descr = value.string;
    } else if (key == "fortran_order" && value.kind == Kind::boolean) {
      fortran_order = value.boolean;
    } else if (key == "shape" && value.kind == Kind::tuple) {
      shape = value.tuple;
    } else if (key == "descr" || key == "fortran_order" || key == "shape") {
      fail(source, "the header's '" + key + "' has the wrong type");
    } else {
      fail(source, "the header has a key NumPy does not write: '" + key + "'");
    }
  });
  if (!descr || !fortran_order || !shape) {
    fail(source, "the header lacks one of 'descr', 'fortran_order' and 'shape'");
  }

  if (*fortran_order) {
    fail(source, "fortran_order is True (column-major data) and only C order is supported; "
                 "save numpy.ascontiguousarray(a) instead");
  }
  std::optional<DType> dtype;
  for (DType candidate : {DType::f32, DType::f64, DType::i32, DType::i64}) {
    if (*descr == descr_of(candidate)) dtype = candidate;
  }
  if (!dtype) {
    if (descr->size() == 3 && (*descr)[0] == '>') {
      fail(source, "big-endian dtype '" + *descr + "' is not supported; save a.astype('<" + descr->substr(1) +
                       "') instead");
    }
    fail(source, "dtype '" + *descr + "' is not supported; datasets hold '<f4', '<f8', '<i4' or '<i8' "
                 "(f32, f64, i32, i64)");
  }
  layout.dtype = *dtype;
  layout.shape = std::move(*shape);

  const std::optional<std::uint64_t> bytes = data_bytes(layout.dtype, layout.shape);
  if (!bytes) fail(source, "shape " + format_shape(layout.shape) + " has more elements than any file can hold");
  layout.data_bytes = *bytes;
  const std::uint64_t present = file_size - layout.data_offset;
  const std::string announced = "shape " + format_shape(layout.shape) + " of " + std::string(to_string(*dtype)) +
                                " needs " + std::to_string(*bytes) + " bytes of data";
  if (present < *bytes) fail(source, "truncated: " + announced + ", the file has " + std::to_string(present));
  if (present > *bytes) {
    fail(source, announced + ", but " + std::to_string(present - *bytes) + " more bytes follow (is the file damaged?)");
  }
  return layout;
}

}  // namespace

Array parse_npy(std::span<const std::byte> file, std::string_view source) {
  const Layout layout = parse_layout(file, file.size(), source);
  Array array;
  array.dtype = layout.dtype;
  array.shape = layout.shape;
  const auto data = file.subspan(layout.data_offset);
  array.bytes.assign(data.begin(), data.end());
  return array;
}

Array read_npy(const std::filesystem::path& path) {
  const std::string source = path.string();
  std::error_code error;
  const std::uint64_t file_size = std::filesystem::file_size(path, error);
  if (error) fail(source, "cannot read: " + error.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(source, "cannot open for reading");

  // Read the fixed prefix first to learn the header's length, then the header, then the data straight
  // into the array: no second copy of what may be a large file.
  const auto read = [&](std::byte* into, std::size_t count) {
    in.read(reinterpret_cast<char*>(into), static_cast<std::streamsize>(count));
    if (static_cast<std::size_t>(in.gcount()) != count) fail(source, "read error (did the file change?)");
  };
  std::vector<std::byte> head(std::min<std::uint64_t>(file_size, 12));
  read(head.data(), head.size());
  const std::size_t end = header_end(head, source);
  if (end > file_size) fail(source, "truncated: the file ends inside the header");
  const std::size_t have = head.size();
  head.resize(end);
  if (end > have) read(head.data() + have, end - have);
  const Layout layout = parse_layout(head, file_size, source);
  in.seekg(static_cast<std::streamoff>(layout.data_offset));  // a header shorter than 12 bytes was over-read

  Array array;
  array.name = path.stem().string();
  array.dtype = layout.dtype;
  array.shape = layout.shape;
  array.bytes.resize(layout.data_bytes);
  read(array.bytes.data(), array.bytes.size());
  return array;
}

std::string npy_header(DType dtype, std::span<const std::int64_t> shape) {
  // Python's repr of a tuple: "()", "(8,)", "(3, 4)".
  std::string shape_text = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) shape_text += ", ";
    shape_text += std::to_string(shape[d]);
  }
  shape_text += shape.size() == 1 ? ",)" : ")";

  std::string dict = "{'descr': '" + std::string(descr_of(dtype)) + "', 'fortran_order': False, 'shape': " +
                     shape_text + ", }";
  // NumPy leaves room for the first extent to grow to 21 digits so that appending can rewrite the header
  // in place; we do the same so our files are the bytes numpy.save would write.
  if (!shape.empty()) dict.append(k_growth_axis_digits - std::to_string(shape[0]).size(), ' ');
  const std::size_t with_newline = dict.size() + 1;
  const std::size_t padding = k_align - (10 + with_newline) % k_align;  // 64, not 0, when already aligned
  const std::size_t length = with_newline + padding;
  if (length > 0xffff) throw std::invalid_argument("npy header too long for format 1.0");

  std::string header(k_magic);
  header += '\x01';
  header += '\x00';
  header += static_cast<char>(length & 0xff);
  header += static_cast<char>(length >> 8);
  header += dict;
  header.append(padding, ' ');
  header += '\n';
  return header;
}

void write_npy(const std::filesystem::path& path, const Array& array) {
  check_array(array);
  const std::string header = npy_header(array.dtype, array.shape);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path.string(), "cannot open for writing");
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(array.bytes.data()), static_cast<std::streamsize>(array.bytes.size()));
  out.close();
  if (!out) fail(path.string(), "write error (is the disk full?)");
}

}  // namespace grader
