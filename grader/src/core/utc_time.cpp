#include "core/utc_time.h"

#include <ctime>

namespace grader {

std::string utc_now_text(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, format, &utc);
  return text;
}

}  // namespace grader
