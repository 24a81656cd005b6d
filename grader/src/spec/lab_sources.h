// lab_sources.h: what lab.toml's reader can learn from the lab's own C++ and CUDA files without building them
// (internal to grader/src/spec).
//
// A variant lab.toml names that the harness does not know, or a candidate variant the student-facing header does not
// declare, once surfaced only when a submission was graded: the harness threw, and the grading ended as the grader's
// internal error (exit 4). The lab kit's harnesses name their variants with string literals (variants() returns
// them, directly or from a table) and read integer parameters with params.integer("m"), so reading the sources as
// text tells these mistakes at load, where they are the instructor's, with lab.toml's line and column.
//
//   const LabSources sources = LabSources::read(spec.dir, spec.build);
//   sources.knows_variant("unrolled");        // "unrolled" is a string literal of harness.cpp or baseline.cpp
//   sources.header_declares("unrolled");      // matvec.h declares matvec_unrolled(...)
//   sources.reads_as_integer("m");            // harness.cpp calls c.params.integer("m")
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include "spec/lab_spec.h"

namespace grader {

class LabSources {
 public:
  // Reads [build] headers, harness and baseline, and every other C++ or CUDA file beside lab.toml (a table of variants
  // in a header the harness includes), from `lab_dir`; files that cannot be read are left out.
  // The tokens are C++'s: comments and character literals are skipped, so a name in a comment counts for nothing.
  static LabSources read(const std::filesystem::path& lab_dir, const BuildSpec& build);

  // Whether `variant` is a string literal of the lab's sources: how the lab kit's variants() names it. True when no
  // source defines variants() (a lab not written against the lab kit: nothing to read).
  bool knows_variant(const std::string& variant) const;
  // Whether a header declares a function for `variant`: a function named `variant`, or one whose name holds it as
  // whole '_'-separated words (matvec_unrolled, matmul_register_blocked for "register"). True when the headers declare
  // no function at all.
  bool header_declares(const std::string& variant) const;
  // Whether a source reads the parameter with params.integer("name").
  bool reads_as_integer(const std::string& name) const;

  bool has_harness() const { return has_harness_; }
  bool has_headers() const { return has_headers_; }

 private:
  bool has_harness_ = false;
  bool has_headers_ = false;
  std::set<std::string> literals_;            // every string literal of the lab's sources
  std::set<std::string> integer_params_;      // the literal in every integer("...") of them
  std::set<std::string> declared_functions_;  // every identifier the headers follow with '('
};

}  // namespace grader
