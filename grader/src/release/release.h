// release.h: `grader release`: the student repository, made from the course repository.
//
// What ships, top-level entry by entry (anything not listed stays behind: reference/, .git, build trees, .ci,
// and whatever else is at the top):
//
//   CMakeLists.txt, README.md, .gitignore, LICENSE*   as they are
//   grader/        the grader's sources and lab kit, without grader/templates (new-lab's templates hold the
//                  scaffold's own reference solution)
//   bench/         only CMakeLists.txt (the top-level CMakeLists.txt adds it), which defines no benchmark without
//                  reference/; the benchmarks measure, and some copy, the reference solutions
//   docs/          without the staff's guides: instructor-guide.md, ta-guide.md and lab-toml.md (the lab
//                  author's reference, whose examples quote the labs' hidden cases)
//   tests/         CMakeLists.txt and the unit tests that bring their own data; a unit test that reads the
//                  course's own files (TESTS_DIR "/.." ...) checks the staff repository (lab1's hidden cases, the
//                  staff docs) and stays behind, as do tests/e2e (selftest needs reference/), tests/submissions
//                  and tests/instructor
//   labs/<lab>/    each released lab, its lab.toml without hidden cases and benchmarks (release/strip.h)
//   skeletons/<lab>/
//   datasets/<lab>/  the manifest's entries that a released visible case uses, and their files; entries of hidden
//                  cases (and entries no case uses) are withheld, seeds included
//
// Everywhere: no symbolic links (the release refuses them: a link could reach reference/), no hidden files but
// .gitignore, no build artefacts (a directory holding a CMakeCache.txt, CMakeFiles/, __pycache__/, *.o, *.a, *.so,
// *.pyc). Each lab is read back with the grader's parser and its datasets verified, and finally the release is
// scanned for leaks (release/leaks.h); any problem removes the release and throws ReleaseError.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/environment.h"
#include "release/strip.h"
#include "spec/lab_spec.h"

namespace grader {

struct ReleasedLab {
  std::string name;  // "lab1-matvec"
  int hidden_cases = 0;
  int hidden_items = 0;
  int datasets_withheld = 0;
};

struct ReleaseSummary {
  std::vector<ReleasedLab> labs;
  std::size_t files = 0;               // files written
  std::vector<std::string> left_out;   // "reference/ (the solutions)", one line per thing left behind
};

// Writes the student repository for `labs` (loaded from env.root) into `out`, which must not exist or be an
// empty directory, and must not lie inside env.root. Throws ReleaseError.
ReleaseSummary write_release(const Environment& env, const std::vector<LabSpec>& labs, const std::filesystem::path& out);

}  // namespace grader
