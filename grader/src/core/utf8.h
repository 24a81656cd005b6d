// utf8.h: text from a student or a compiler made safe for every writer. A source line with a Latin-1 byte that the
// compiler echoes, a folder named `jos\xe9`, an archive entry's name: any of them once made the JSON writer throw
// (nlohmann's type_error.316) and stopped a whole class at that student. Each writer passes such text through here.
//
//   valid_utf8("jos\xe9")  ==  "jos\xef\xbf\xbd"   (U+FFFD, the replacement character)
#pragma once

#include <string>
#include <string_view>

namespace grader {

// `text` with every byte that does not start or continue a well-formed UTF-8 sequence (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF) replaced by U+FFFD. Valid text comes back unchanged.
std::string valid_utf8(std::string_view text);

bool is_valid_utf8(std::string_view text);

}  // namespace grader
