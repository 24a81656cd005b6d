// utc_time.h: the wall clock's "now" in UTC as text, for the records a batch and a calibration keep.
#pragma once

#include <string>

namespace grader {

// strftime's `format` over the current time in UTC; by default ISO 8601 to the second ("2026-11-27T21:23:57Z").
std::string utc_now_text(const char* format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace grader
