#include "cli/values.h"

#include <charconv>

#include "cli/common.h"

namespace grader {

std::uint64_t parse_whole_number(const std::string& option, const std::string& text, std::uint64_t minimum,
                                 std::uint64_t maximum) {
  const std::string expected = option + " expects a whole number from " + std::to_string(minimum) + " to " +
                               std::to_string(maximum) + ", got '" + text + "'";
  std::uint64_t value = 0;
  // from_chars takes no sign, no spaces and no "0x": exactly the digits a person means.
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < minimum || value > maximum)
    throw CommandFailure(ExitCode::usage, expected);
  return value;
}

}  // namespace grader
