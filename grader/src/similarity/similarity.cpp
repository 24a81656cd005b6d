#include "similarity/similarity.h"

#include <fstream>

#include "core/atomic_file.h"
#include "core/scratch.h"
#include "similarity/report.h"
#include "similarity/reviewed.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

// A pair's page is written plainly, not atomically: thousands of them each with an fsync took most of a large
// class's time, and every run rewrites them all (the index and the CSV, which a TA opens, stay atomic).
void write_page(const fs::path& path, const std::string& html) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << html;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

SimilarityOutcome write_similarity_report(const Environment& env, const LabSpec& spec, const SimilarityOptions& options) {
  // Read first: a malformed file of marks stops the run before anything is rewritten.
  const ReviewedPairs reviewed = read_reviewed(options.out / reviewed_file_name);
  // Students' code is copied only into this process's private scratch folder (removed when it ends) and into --out.
  const fs::path work = scratch_root() / "similarity";
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path starter = options.starter.empty() ? env.root / "skeletons" / spec.name() : options.starter;
  std::error_code ec;
  const fs::path skip = fs::weakly_canonical(fs::absolute(options.out), ec);
  Corpus corpus = read_corpus(spec, options.submissions, options.past, starter, skip, work / "read", options.limits);
  const std::vector<PairScore> pairs = compare_corpus(corpus, work / "engine", options.min_run);

  const SimilarityView view{spec, corpus, pairs, reviewed, options.threshold, options.min_run};
  SimilarityOutcome outcome;
  for (const auto& s : corpus.submissions) {
    ++(s.past ? outcome.past : outcome.submissions);
    if (!s.problem.empty()) outcome.not_read.push_back((s.past ? "past: " : "") + s.id + ": " + s.problem);
  }
  outcome.pairs = pairs.size();
  fs::create_directories(options.out / similarity_pages_folder);
  // Pages of pairs no longer above the threshold go: the folder holds this run's pairs only.
  for (const auto& entry : fs::directory_iterator(options.out / similarity_pages_folder))
    if (entry.path().filename().string().starts_with("pair-")) fs::remove(entry.path(), ec);
  for (const auto& pair : pairs) {
    if (!flagged(view, pair)) continue;
    ++outcome.flagged;
    const std::string page = pair_page_name(corpus.submissions[pair.a].id, corpus.submissions[pair.b].id);
    write_page(options.out / similarity_pages_folder / page, pair_page_html(view, pair));
  }
  write_file_atomically(options.out / similarity_csv_name, similarity_csv(view));
  outcome.index = options.out / similarity_index_name;
  write_file_atomically(outcome.index, similarity_index_html(view));
  fs::remove_all(work, ec);
  return outcome;
}

}  // namespace grader
