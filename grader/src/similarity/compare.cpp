#include "similarity/compare.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <numeric>
#include <tuple>

#include "similarity/engine.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find('\n', start);
    if (end == std::string::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The engine runs as the build user when the grader is root: it must be able to read what is written here.
void write_readable(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
  ::chmod(path.c_str(), 0644);
}

// The file's extension as the lab names it, so the engine and a reader of the work folder see .cu or .cpp.
std::string extension_of(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? ".txt" : name.substr(dot);
}

struct FileRef {
  std::size_t submission = 0, file = 0;
};

// The lines of each side of one pair that a run covers, per file.
struct PairLines {
  std::map<std::size_t, std::vector<bool>> a, b;
  std::vector<MatchedRegion> regions;
};

void cover(std::vector<bool>& lines, std::size_t count, int first, int last) {
  if (lines.size() < count) lines.resize(count, false);
  for (int line = std::max(first, 1); line <= last && static_cast<std::size_t>(line) <= count; ++line)
    lines[static_cast<std::size_t>(line - 1)] = true;
}

// Per file of `submission`, its own tokens on covered lines.
std::vector<int> covered_tokens(const std::map<std::size_t, std::vector<bool>>& covered, const SubmissionText& submission) {
  std::vector<int> tokens(submission.files.size(), 0);
  for (const auto& [file, lines] : covered) {
    const auto& counts = submission.files[file].tokens;
    for (std::size_t line = 0; line < lines.size() && line < counts.size(); ++line)
      if (lines[line]) tokens[file] += counts[line];
  }
  return tokens;
}

}  // namespace

void mark_starter_lines(const std::vector<std::string>& lines, int first, int last, std::vector<bool>& starter) {
  if (starter.size() < lines.size()) starter.resize(lines.size(), false);
  for (int line = std::max(first, 1); line <= last && static_cast<std::size_t>(line) <= lines.size(); ++line) {
    const std::string& text = lines[static_cast<std::size_t>(line - 1)];
    if (line == first && text.find("*/") != std::string::npos) continue;
    if (line == last && text.find("/*") != std::string::npos) continue;
    starter[static_cast<std::size_t>(line - 1)] = true;
  }
}

std::vector<PairScore> compare_corpus(Corpus& corpus, const fs::path& work, int min_run) {
  fs::create_directories(work);
  ::chmod(work.c_str(), 0755);
  const Engine engine(work, min_run);

  // Copies under short names the engine's output cannot garble (an id may hold spaces, colons or worse).
  std::map<std::string, FileRef> by_name;
  std::vector<std::string> current_names, past_names, starter_names;
  std::vector<std::vector<std::string>> lines_of(corpus.submissions.size());
  for (std::size_t s = 0; s < corpus.submissions.size(); ++s) {
    auto& submission = corpus.submissions[s];
    for (std::size_t f = 0; f < submission.files.size(); ++f) {
      auto& file = submission.files[f];
      file.engine_name = "s" + std::to_string(s) + "f" + std::to_string(f) + extension_of(file.name);
      write_readable(work / file.engine_name, file.text);
      by_name[file.engine_name] = {s, f};
      (submission.past ? past_names : current_names).push_back(file.engine_name);
    }
  }
  for (std::size_t i = 0; i < corpus.starter.size(); ++i) {
    auto& file = corpus.starter[i];
    file.engine_name = "starter" + std::to_string(i) + extension_of(file.name);
    write_readable(work / file.engine_name, file.text);
    starter_names.push_back(file.engine_name);
  }
  std::vector<std::string> every_name = current_names;
  every_name.insert(every_name.end(), past_names.begin(), past_names.end());

  // 1. The starter code, blanked wherever a submission repeats it (line numbers kept, so pages can show them).
  for (const auto& run : engine.against_base(every_name, starter_names)) {
    const auto found = by_name.find(run.a);
    if (found == by_name.end()) continue;
    auto& file = corpus.submissions[found->second.submission].files[found->second.file];
    mark_starter_lines(split_lines(file.text), run.a_first, run.a_last, file.starter);
  }
  for (auto& submission : corpus.submissions)
    for (auto& file : submission.files) {
      std::vector<std::string> lines = split_lines(file.text);
      file.starter.resize(lines.size(), false);
      for (std::size_t i = 0; i < lines.size(); ++i)
        if (file.starter[i]) lines[i].clear();
      std::string blanked;
      for (const auto& line : lines) blanked += line + "\n";
      write_readable(work / file.engine_name, blanked);
    }

  // 2. Own tokens per line.
  const auto counts = engine.token_counts(every_name);
  for (auto& submission : corpus.submissions)
    for (auto& file : submission.files) {
      const auto found = counts.find(file.engine_name);
      file.tokens = found == counts.end() ? std::vector<int>() : found->second;
      file.tokens.resize(file.starter.size(), 0);
    }

  // 3. Every pair.
  std::map<std::pair<std::size_t, std::size_t>, PairLines> pairs;
  for (const auto& run : engine.pairwise(current_names, past_names)) {
    const auto a = by_name.find(run.a), b = by_name.find(run.b);
    if (a == by_name.end() || b == by_name.end()) continue;
    FileRef first = a->second, second = b->second;
    int first_from = run.a_first, first_to = run.a_last, second_from = run.b_first, second_to = run.b_last;
    if (first.submission == second.submission) continue;  // a student's own files repeating each other
    if (first.submission > second.submission) {
      std::swap(first, second);
      std::swap(first_from, second_from);
      std::swap(first_to, second_to);
    }
    auto& pair = pairs[{first.submission, second.submission}];
    cover(pair.a[first.file], corpus.submissions[first.submission].files[first.file].starter.size(), first_from, first_to);
    cover(pair.b[second.file], corpus.submissions[second.submission].files[second.file].starter.size(), second_from, second_to);
    pair.regions.push_back({first.file, second.file, first_from, first_to, second_from, second_to, run.tokens});
  }

  std::vector<PairScore> scores;
  for (auto& [key, lines] : pairs) {
    PairScore score;
    score.a = key.first;
    score.b = key.second;
    const auto& a = corpus.submissions[key.first];
    const auto& b = corpus.submissions[key.second];
    for (const auto& file : a.files) score.own_a += file.own_tokens();
    for (const auto& file : b.files) score.own_b += file.own_tokens();
    score.file_matched_a = covered_tokens(lines.a, a);
    score.file_matched_b = covered_tokens(lines.b, b);
    score.matched_a = std::accumulate(score.file_matched_a.begin(), score.file_matched_a.end(), 0);
    score.matched_b = std::accumulate(score.file_matched_b.begin(), score.file_matched_b.end(), 0);
    if (score.matched_a + score.matched_b == 0) continue;  // every run lay in starter lines
    std::sort(lines.regions.begin(), lines.regions.end(), [](const MatchedRegion& x, const MatchedRegion& y) {
      return std::tie(x.file_a, x.a_first, x.b_first) < std::tie(y.file_a, y.a_first, y.b_first);
    });
    score.regions = std::move(lines.regions);
    scores.push_back(std::move(score));
  }
  std::stable_sort(scores.begin(), scores.end(), [](const PairScore& x, const PairScore& y) { return x.score() > y.score(); });
  return scores;
}

}  // namespace grader
