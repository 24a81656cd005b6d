// html_page.h: the pieces every HTML page the grader writes shares (a student's report, the class dashboard): text
// escaped for HTML, numbers in a fixed form, and the page shell with its one inline style sheet. A page loads
// nothing from anywhere: no scripts, fonts or images but what is written into it, so it opens offline, from a
// mail attachment or an LMS, and makes no request a reader did not ask for.
#pragma once

#include <string>
#include <string_view>

namespace grader::html {

// `text` safe in element content and in quoted attribute values; bytes that are not UTF-8 become U+FFFD.
std::string escape(std::string_view text);

std::string fixed(double value, int digits);            // "3.14"
std::string points(double score, double max);           // "12 / 20", "12.5 / 20"
std::string duration(double seconds);                    // "1.234 s", "12.34 ms", "56.7 us"

// A whole document: <head> with the title and the style sheet, `body` as given.
std::string page(std::string_view title, const std::string& body);

// A folded section: <details><summary>summary</summary>body</details>. `summary` is escaped, `body` is not.
std::string folded(std::string_view summary, const std::string& body, bool open = false);

// Text shown as written (a build log, a program's output), folded under `summary`.
std::string folded_text(std::string_view summary, std::string_view text);

}  // namespace grader::html
