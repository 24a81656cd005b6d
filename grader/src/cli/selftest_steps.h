// selftest_steps.h: selftest's proof that a lab's steps cannot be swapped (lab.toml [steps]). It builds the
// substitution itself (steps/substitution.h: the reference with its best function standing in for every step),
// grades it, and every step must be caught: each item that grades a step loses every point with the verdict
// not_this_step. The structure is tried first (a grading without timing); a step it lets through is then held to
// its timing band in a full grading.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/environment.h"
#include "pipeline/grade.h"
#include "spec/lab_spec.h"

namespace grader {

struct SubstitutionVerdict {
  bool checked = false;               // the lab has steps, and the substitution was graded
  std::vector<std::string> caught;    // "ijk: matmul_ijk calls matmul_best ..."
  std::vector<std::string> problems;  // each step that kept points, or why the substitution could not be graded
  double score = 0, max_score = 0;    // the substituted reference's
  std::size_t steps = 0;              // the lab's steps, each of which must be caught
};

// `options`: selftest's (hidden cases included); the submission is set here.
SubstitutionVerdict check_substitution(const Environment& env, const LabSpec& spec, GradeOptions options);
nlohmann::json to_json(const SubstitutionVerdict& verdict);

}  // namespace grader
