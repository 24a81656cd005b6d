// npy.h: read and write NumPy .npy files, the format of the public datasets (datasets/<lab>/*.npy).
//
// Only what datasets need: C order, little-endian float32/float64/int32/int64 ('<f4' '<f8' '<i4' '<i8'),
// format versions 1.0 and 2.0 when reading. Anything else is refused with the file and the reason, so a
// dataset saved the wrong way in NumPy is caught when it is added, not misread at grading time.
// The format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
//
//   write_npy("/tmp/y.npy", make_array<double>("y", {2, 2}, {1, 2, 3, 4}));   // numpy.load reads it
//   Array y = read_npy("/tmp/y.npy");   // y.name == "y" (the file's stem), y.shape == {2, 2}
#pragma once

#include <filesystem>
#include <span>
#include <string_view>

#include "data/array.h"

namespace grader {

// Reads a .npy file; the Array's name is the file's stem (callers that know a better name set it).
// Throws std::runtime_error, "<path>: <what is wrong>", for an unreadable, truncated or unsupported file.
Array read_npy(const std::filesystem::path& path);

// The same for a file already in memory; `source` names it in error messages.
Array parse_npy(std::span<const std::byte> file, std::string_view source);

// Writes version 1.0 as NumPy (1.23 and later) writes it, byte for byte: header keys sorted, spare spaces for
// the shape to grow, padded with spaces to a multiple of 64 bytes and ended with a newline. Throws
// std::invalid_argument for an array whose bytes do not match its shape, std::runtime_error if writing fails.
void write_npy(const std::filesystem::path& path, const Array& array);

// The header write_npy writes for this dtype and shape (magic string through the final newline).
std::string npy_header(DType dtype, std::span<const std::int64_t> shape);

}  // namespace grader
