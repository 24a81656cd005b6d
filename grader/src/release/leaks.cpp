// leaks.cpp: the scan of a student release; see leaks.h.
#include "release/leaks.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <sstream>

#include "data/sha256.h"
#include "spec/mutants.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t shortest_reference_line = 21;  // "longer than 20 characters"
constexpr std::size_t shortest_seed = 4;

std::string_view without_edge_blanks(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The file's bytes, and whether they look like text (no NUL byte).
bool read_text(const fs::path& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  text = bytes.str();
  return text.find('\0') == std::string::npos;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return lines;
}

// Regular files under `dir`, relative to `base`, sorted. Missing directories hold none.
std::vector<fs::path> files_under(const fs::path& dir, const fs::path& base) {
  std::vector<fs::path> files;
  std::error_code error;
  if (!fs::is_directory(dir, error)) return files;
  for (auto it = fs::recursive_directory_iterator(dir, error); !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    if (it->is_regular_file()) files.push_back(it->path().lexically_relative(base));
  }
  std::sort(files.begin(), files.end());
  return files;
}

// `token` in `line` as a whole number: no digit right before or after it.
bool contains_number(std::string_view line, std::string_view token) {
  for (std::size_t at = line.find(token); at != std::string_view::npos; at = line.find(token, at + 1)) {
    const bool digit_before = at > 0 && std::isdigit(static_cast<unsigned char>(line[at - 1]));
    const std::size_t after = at + token.size();
    const bool digit_after = after < line.size() && std::isdigit(static_cast<unsigned char>(line[after]));
    if (!digit_before && !digit_after) return true;
  }
  return false;
}

}  // namespace

std::string to_string(const Leak& leak) {
  return leak.file + (leak.line > 0 ? ":" + std::to_string(leak.line) : std::string()) + ": " + leak.what;
}

LeakEvidence reference_evidence(const fs::path& root) {
  LeakEvidence evidence;
  // The course's own shipped code: a reference line found in it, even inside a longer line, gives nothing away.
  std::string shipped;
  for (const char* dir : {"labs", "skeletons", "grader"}) {
    for (const auto& file : files_under(root / dir, root)) {
      if (file.string().starts_with("grader/templates/")) continue;  // not shipped (the scaffold's own reference)
      // Not shipped either: a lab's mutants are the reference with one mistake (spec/mutants.h).
      if (auto part = file.begin(); part != file.end() && *part == "labs" && ++part != file.end() && ++part != file.end() &&
                                    *part == kMutantsFolder)
        continue;
      std::string text;
      if (read_text(root / file, text)) shipped += text + "\n";
    }
  }
  for (const auto& file : files_under(root / "reference", root)) {
    std::string text;
    const bool is_text = read_text(root / file, text);
    if (!text.empty()) evidence.reference_digests.emplace(sha256_file(root / file), file.string());
    if (!is_text) continue;
    for (std::string_view line : split_lines(text)) {
      const std::string trimmed(without_edge_blanks(line));
      if (trimmed.size() < shortest_reference_line || trimmed.starts_with("#include")) continue;
      if (evidence.reference_lines.count(trimmed)) continue;
      const std::boyer_moore_horspool_searcher searcher(trimmed.begin(), trimmed.end());
      if (std::search(shipped.begin(), shipped.end(), searcher) == shipped.end())
        evidence.reference_lines.emplace(trimmed, file.string());
    }
  }
  return evidence;
}

std::vector<Leak> find_leaks(const fs::path& release, const LeakEvidence& evidence) {
  std::vector<Leak> leaks;
  std::vector<std::string> seeds;
  for (const auto& seed : evidence.hidden_seeds)
    if (seed.size() >= shortest_seed) seeds.push_back(seed);

  for (const auto& file : files_under(release, release)) {
    const std::string name = file.string();
    if (name.starts_with("reference/") || name == "reference")
      leaks.push_back({name, 0, "a file of reference/"});
    for (const auto& hidden : evidence.hidden_names)
      if (name.find(hidden) != std::string::npos) leaks.push_back({name, 0, "its path names hidden '" + hidden + "'"});

    std::string text;
    const bool is_text = read_text(release / file, text);
    if (!text.empty()) {
      const auto same = evidence.reference_digests.find(sha256_file(release / file));
      if (same != evidence.reference_digests.end()) leaks.push_back({name, 0, "is a copy of " + same->second});
    }
    if (!is_text) continue;
    // Every occurrence of `needle` in the file, reported at its line.
    auto each_line_holding = [&](const std::string& needle, const std::string& what) {
      if (needle.empty()) return;
      const std::boyer_moore_horspool_searcher searcher(needle.begin(), needle.end());
      for (auto at = std::search(text.begin(), text.end(), searcher); at != text.end();
           at = std::search(at + 1, text.end(), searcher)) {
        const int line = 1 + static_cast<int>(std::count(text.begin(), at, '\n'));
        if (leaks.empty() || leaks.back().file != name || leaks.back().line != line || leaks.back().what != what)
          leaks.push_back({name, line, what});
      }
    };
    for (const auto& [quoted, source] : evidence.reference_lines)
      each_line_holding(quoted, "quotes " + source + ": \"" + quoted + "\"");
    for (const auto& hidden : evidence.hidden_names) each_line_holding(hidden, "names hidden '" + hidden + "'");
    if (!seeds.empty()) {
      const auto lines = split_lines(text);
      for (std::size_t i = 0; i < lines.size(); ++i)
        for (const auto& seed : seeds)
          if (contains_number(lines[i], seed))
            leaks.push_back({name, static_cast<int>(i) + 1, "holds the seed " + seed + " of a withheld dataset"});
    }
  }
  return leaks;
}

}  // namespace grader
