#include "core/utf8.h"

namespace grader {

namespace {

constexpr std::string_view replacement = "\xef\xbf\xbd";

// The length of the well-formed sequence at the start of `text`, or 0 when its first byte starts none.
std::size_t sequence_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char first = byte(0);
  if (first < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte (RFC 3629's table)
  if (first >= 0xC2 && first <= 0xDF) length = 2;
  else if (first == 0xE0) length = 3, low = 0xA0;
  else if (first >= 0xE1 && first <= 0xEC) length = 3;
  else if (first == 0xED) length = 3, high = 0x9F;  // no surrogates
  else if (first >= 0xEE && first <= 0xEF) length = 3;
  else if (first == 0xF0) length = 4, low = 0x90;
  else if (first >= 0xF1 && first <= 0xF3) length = 4;
  else if (first == 0xF4) length = 4, high = 0x8F;  // nothing past U+10FFFF
  else return 0;
  if (text.size() < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  return length;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::size_t length = sequence_length(text);
    if (length == 0) {
      out += replacement;
      text.remove_prefix(1);
    } else {
      out += text.substr(0, length);
      text.remove_prefix(length);
    }
  }
  return out;
}

bool is_valid_utf8(std::string_view text) {
  while (!text.empty()) {
    const std::size_t length = sequence_length(text);
    if (length == 0) return false;
    text.remove_prefix(length);
  }
  return true;
}

}  // namespace grader
