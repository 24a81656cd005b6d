// values.h: command-line numbers read whole and in range. CLI11 alone turned `--seed -1` into 2^64-1,
// `--max-archive-mb -1` into no limit at all and 17592186044416 MiB into 0 bytes; each now ends the command with exit
// 2 and one line that says what was expected.
//
//   parse_whole_number("--seed", "42", 0, UINT64_MAX)  == 42
//   parse_whole_number("--seed", "-1", 0, UINT64_MAX)  throws CommandFailure(usage, "--seed expects a whole number ...")
#pragma once

#include <cstdint>
#include <string>

namespace grader {

std::uint64_t parse_whole_number(const std::string& option, const std::string& text, std::uint64_t minimum,
                                 std::uint64_t maximum);

}  // namespace grader
