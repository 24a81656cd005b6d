// strip.h: a lab.toml without its hidden cases and benchmarks, for the student release (`grader release`).
//
// Hidden cases and benchmarks live inline in lab.toml (visibility = "hidden" or "after_due_date"; both are
// graded only when staff grade, so both stay out of the student repository). The file is cut by lines, so
// every comment of what remains is kept:
//   - a hidden case's inline table is removed from its line, with its comma; a line left empty goes entirely,
//     with the comment lines directly above it (they describe the case), and a line that still holds visible
//     cases loses its trailing comment (it may describe the hidden one);
//   - a hidden [[performance]] table, and a [[correctness]] table whose cases are all hidden, is removed from
//     its header to the next table's header, with the comment lines directly above its header; comment lines
//     directly above the next header stay (they describe the next table).
// A layout that cannot be cut by lines (a hidden benchmark written as an inline table, for one) is an error
// naming the file and line. The result is parsed again with the grader's own parser and must hold exactly the
// visible cases and benchmarks of the original, and nothing hidden.
//
//   [[correctness]]                                            [[correctness]]
//   name = "rows"                                              name = "rows"
//   points = 10                                                points = 10
//   variants = ["rowptr"]                          ->          variants = ["rowptr"]
//   cases = [                                                  cases = [
//     { name = "square 8", params = { m = 8, n = 8 } },          { name = "square 8", params = { m = 8, n = 8 } },
//     # the size nobody tests                                  ]
//     { name = "tall 4099", params = { m = 4099, n = 1 }, visibility = "hidden" },
//   ]
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "spec/lab_spec.h"

namespace grader {

// The release cannot be made as asked (a layout it cannot cut, a leak it found, a result that does not
// validate). Nothing of the release is left behind when it is thrown from write_release.
class ReleaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline bool withheld_from_students(Visibility visibility) { return visibility != Visibility::visible; }

struct StrippedSpec {
  std::string text;                       // the new lab.toml; the original text when nothing was hidden
  int cases_removed = 0;                  // hidden cases, those of removed items included
  int items_removed = 0;                  // hidden benchmarks and correctness items whose cases were all hidden
  int withheld = 0;                       // what the new file's `lab.withheld` adds: hidden cases + benchmarks
  std::vector<std::string> hidden_names;  // the names of everything removed, cases and items
};

// `spec` is `text` as parse_lab_spec read it (spec.file names the file in messages, and the result is parsed
// again against spec.file's directory). Throws ReleaseError.
StrippedSpec strip_hidden(std::string_view text, const LabSpec& spec);

}  // namespace grader
