// prairielearn_writer.cpp: the report as PrairieLearn's external-grader results.json (writers.h). The texts are
// Gradescope's (to_gradescope), which already keep a hidden case's inputs out of what a student reads; what
// PrairieLearn adds is a score from 0 to 1, `gradable`, and no visibility of its own: every test it is given is
// shown, so a test Gradescope would hide is shown here only as "hidden test N" with its points and verdict.
#include <algorithm>
#include <cmath>

#include "report/writers.h"

namespace grader {

namespace {

using json = nlohmann::json;

// Submissions that never reached a test through the student's own slip (it did not compile, a file is missing) or
// through the grader's failure: PrairieLearn then marks the attempt "not gradable" and does not count it.
bool gradable(Verdict verdict) {
  return verdict != Verdict::build_error && verdict != Verdict::missing_file && verdict != Verdict::internal_error;
}

}  // namespace

json to_prairielearn(const Report& report) {
  const json gradescope = to_gradescope(report);
  json tests = json::array();
  int hidden = 0;
  for (std::size_t i = 0; i < report.tests.size(); ++i) {
    const TestResult& test = report.tests[i];
    const json& written = gradescope["tests"][i];
    json entry = {{"points", written["score"]}, {"max_points", written["max_score"]}};
    if (test.visibility == Visibility::visible) {
      entry["name"] = test.name;
      entry["output"] = written["output"];
      entry["message"] = std::string(info(test.verdict).label);
    } else {
      entry["name"] = "hidden test " + std::to_string(++hidden);
      entry["message"] = std::string(info(test.verdict).label);
    }
    tests.push_back(entry);
  }
  const double fraction = report.max_score > 0 && std::isfinite(report.score) ? report.score / report.max_score : 0.0;
  json results = {{"gradable", gradable(report.verdict)},
                  {"score", std::clamp(fraction, 0.0, 1.0)},
                  {"message", gradescope["output"]},
                  {"tests", tests}};
  if (!gradable(report.verdict)) results["format_errors"] = json::array({gradescope["output"]});
  return results;
}

}  // namespace grader
