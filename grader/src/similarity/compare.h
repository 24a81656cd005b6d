// compare.h: every pair of submissions scored, the starter code left out. Three passes of the engine
// (similarity/engine.h) over copies of the files in a work folder:
//   1. each submission against the starter code (skeleton and headers): the lines it repeats are blanked;
//   2. the tokens left on each line are counted: a file's own tokens;
//   3. every submission against every other (and against each past one), pair by pair.
// A file's share is the part of its own tokens that lie in lines matched with the other submission; the pair's
// score is both sides' matched tokens over both sides' own tokens (1 for a copy, 0 for nothing in common), so it
// does not depend on which of the two is named first.
#pragma once

#include <filesystem>
#include <vector>

#include "similarity/corpus.h"

namespace grader {

// Lines [first, last] of file `file_a` of the pair's first submission repeat lines of `file_b` of the second.
struct MatchedRegion {
  std::size_t file_a = 0, file_b = 0;
  int a_first = 0, a_last = 0, b_first = 0, b_last = 0;
  int tokens = 0;  // the engine's count for the run, before starter lines were blanked out of it
};

struct PairScore {
  std::size_t a = 0, b = 0;  // indexes into Corpus::submissions, a < b
  int matched_a = 0, matched_b = 0;  // own tokens of each side on matched lines
  int own_a = 0, own_b = 0;          // own tokens of each side (starter lines left out)
  std::vector<int> file_matched_a, file_matched_b;  // matched own tokens per file of each side
  std::vector<MatchedRegion> regions;  // in the order of the first submission's files and lines

  double share_a() const { return own_a > 0 ? static_cast<double>(matched_a) / own_a : 0.0; }
  double share_b() const { return own_b > 0 ? static_cast<double>(matched_b) / own_b : 0.0; }
  double score() const { return own_a + own_b > 0 ? static_cast<double>(matched_a + matched_b) / (own_a + own_b) : 0.0; }
};

// The engine's least run, in tokens (its own default): shorter common stretches are not reported.
inline constexpr int default_min_run = 24;

// Scores every pair with anything in common, highest score first. Fills each file's `starter` and `tokens`.
// `work` is an empty folder the engine may read (it runs as the build user when the grader is root).
// Throws MissingEngine or EngineError (similarity/engine.h).
std::vector<PairScore> compare_corpus(Corpus& corpus, const std::filesystem::path& work, int min_run = default_min_run);

// The lines a run of the starter pass covers in a student's file, as blanked: all of [first, last] but a first line
// that closes a block comment or a last line that opens one (blanking those would turn comment text into code).
void mark_starter_lines(const std::vector<std::string>& lines, int first, int last, std::vector<bool>& starter);

}  // namespace grader
