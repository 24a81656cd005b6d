// leaks.h: proof that a student release reveals nothing it must not. `grader release` runs it on what it wrote
// and refuses to leave a release behind that fails it; the instructor tests run their own, independent scan.
//
// A leak is any of:
//   - a file under reference/, or a file whose bytes are those of a reference file;
//   - a line of a reference file (trimmed, longer than 20 characters, not an #include) found nowhere in labs/,
//     skeletons/ or the grader's own sources, not even inside a longer line: a line only a solution has. Found
//     anywhere in the release (a handout, a doc, a test, a benchmark), it gives part of a solution away;
//   - the name of a hidden case, benchmark or dataset (unless a visible one has the same name);
//   - the seed of a withheld dataset, as a whole number (unless a released dataset has the same seed). Seeds of
//     fewer than 4 digits are too common a number to search for, and are not searched.
//
//   LeakEvidence evidence = reference_evidence(root);
//   evidence.hidden_names = {"<a hidden case's name>"};
//   for (const Leak& leak : find_leaks(release_dir, evidence)) std::puts(to_string(leak).c_str());
//   // docs/notes.md:12: quotes reference/lab9-demo/demo.cpp: "<the line only the solution has>"
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace grader {

struct LeakEvidence {
  std::map<std::string, std::string> reference_digests;  // SHA-256 of each non-empty reference file -> its path
  std::map<std::string, std::string> reference_lines;    // line only a solution has -> the reference file
  std::set<std::string> hidden_names;
  std::set<std::string> hidden_seeds;  // decimal
};

struct Leak {
  std::string file;  // relative to the release
  int line = 0;      // 0: the file as a whole
  std::string what;
};
std::string to_string(const Leak& leak);  // "docs/notes.md:12: quotes reference/..."

// What reference/ of the course repository at `root` holds that no shipped file may: its files and the lines
// only they have. Hidden names and seeds are added by the caller, who knows what it withheld.
LeakEvidence reference_evidence(const std::filesystem::path& root);

// Every leak in the directory tree at `release`, file by file in path order.
std::vector<Leak> find_leaks(const std::filesystem::path& release, const LeakEvidence& evidence);

}  // namespace grader
