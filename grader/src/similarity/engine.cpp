#include "similarity/engine.h"

#include <charconv>
#include <cstdlib>

#include "core/environment.h"
#include "core/tool.h"

namespace grader {

namespace {

// "12-40" at `text`'s start, after "line ".
bool read_line_range(std::string_view& text, int& first, int& last) {
  constexpr std::string_view word = "line ";
  if (!text.starts_with(word)) return false;
  text.remove_prefix(word.size());
  auto [after_first, first_error] = std::from_chars(text.data(), text.data() + text.size(), first);
  if (first_error != std::errc() || after_first == text.data() + text.size() || *after_first != '-') return false;
  auto [after_last, last_error] = std::from_chars(after_first + 1, text.data() + text.size(), last);
  if (last_error != std::errc()) return false;
  text.remove_prefix(static_cast<std::size_t>(after_last - text.data()));
  return true;
}

std::string_view trim_left(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  return text;
}

// "a.cu: line 12-40" -> name and range; the engine pads the left column with spaces up to a '|'.
bool read_side(std::string_view& text, std::string& name, int& first, int& last) {
  const auto colon = text.find(": line ");
  if (colon == std::string_view::npos || colon == 0) return false;
  name = std::string(text.substr(0, colon));
  text.remove_prefix(colon + 2);
  return read_line_range(text, first, last);
}

}  // namespace

std::vector<EngineRun> parse_runs(std::string_view output) {
  std::vector<EngineRun> runs;
  while (!output.empty()) {
    const auto end = output.find('\n');
    std::string_view line = output.substr(0, end);
    output.remove_prefix(end == std::string_view::npos ? output.size() : end + 1);
    EngineRun run;
    if (!read_side(line, run.a, run.a_first, run.a_last)) continue;
    line = trim_left(line);
    if (!line.starts_with('|')) continue;
    line.remove_prefix(1);
    if (!read_side(line, run.b, run.b_first, run.b_last)) continue;
    line = trim_left(line);
    if (!line.starts_with('[')) continue;
    line.remove_prefix(1);
    if (std::from_chars(line.data(), line.data() + line.size(), run.tokens).ec != std::errc()) continue;
    runs.push_back(std::move(run));
  }
  return runs;
}

std::map<std::string, std::vector<int>> parse_token_counts(std::string_view output) {
  // File a.cu: showing the token stream
  // line # = 3, token # = 0:
  //  namespace -> NORM(n)        (one line per token, indented)
  std::map<std::string, std::vector<int>> counts;
  std::vector<int>* file = nullptr;
  int line_number = 0;
  constexpr std::string_view file_word = "File ", stream_words = ": showing the token stream", line_words = "line # = ";
  while (!output.empty()) {
    const auto end = output.find('\n');
    const std::string_view line = output.substr(0, end);
    output.remove_prefix(end == std::string_view::npos ? output.size() : end + 1);
    if (line.starts_with(file_word) && line.ends_with(stream_words)) {
      file = &counts[std::string(line.substr(file_word.size(), line.size() - file_word.size() - stream_words.size()))];
      line_number = 0;
    } else if (line.starts_with(line_words)) {
      const std::string_view number = line.substr(line_words.size());
      if (std::from_chars(number.data(), number.data() + number.size(), line_number).ec != std::errc()) line_number = 0;
    } else if (line.starts_with(' ') && file != nullptr && line_number > 0) {
      if (file->size() < static_cast<std::size_t>(line_number)) file->resize(static_cast<std::size_t>(line_number), 0);
      ++(*file)[static_cast<std::size_t>(line_number - 1)];
    }
  }
  return counts;
}

Engine::Engine(std::filesystem::path folder, int min_run) : folder_(std::move(folder)), min_run_(min_run) {
  if (!find_on_path(similarity_engine))
    throw MissingEngine(std::string("the similarity engine ") + similarity_engine +
                        " is not installed (Debian's similarity-tester): `bash grader/setup.sh` installs it for course "
                        "staff, or `apt-get install similarity-tester`");
}

std::string Engine::run(std::vector<std::string> arguments) const {
  arguments.insert(arguments.begin(), similarity_engine);
  ToolOptions options;
  options.timeout_seconds = 600;
  options.output_cap = std::size_t{1} << 30;  // a large class's runs: tens of MB; a cap reached is an error below
  // The engine reads students' files: like the compiler, it runs as the build user when the grader is root.
  options.as_build_user = true;
  const char* path = std::getenv("PATH");
  options.environment = {std::string("PATH=") + (path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin"), "LC_ALL=C"};
  const ToolResult result = run_tool(arguments, folder_, options);
  if (!result.ok())
    throw EngineError(quote_command({arguments.begin(), arguments.begin() + std::min<std::size_t>(arguments.size(), 8)}) +
                      (arguments.size() > 8 ? " ..." : "") +
                      (result.timed_out ? " ran out of time" : " failed (exit " + std::to_string(result.exit_code) + ")") +
                      ": " + result.output.substr(0, 2000));
  if (result.output.size() >= options.output_cap) throw EngineError("the similarity engine printed more than 1 GiB");
  return result.output;
}

std::vector<EngineRun> Engine::against_base(const std::vector<std::string>& files, const std::vector<std::string>& base) const {
  if (files.empty() || base.empty()) return {};
  // -S: the files are compared with the base only, never with each other.
  std::vector<std::string> arguments{"-n", "-S", "-r", std::to_string(min_run_)};
  arguments.insert(arguments.end(), files.begin(), files.end());
  arguments.push_back("/");
  arguments.insert(arguments.end(), base.begin(), base.end());
  return parse_runs(run(arguments));
}

std::vector<EngineRun> Engine::pairwise(const std::vector<std::string>& files, const std::vector<std::string>& old_files) const {
  if (files.empty() || files.size() + old_files.size() < 2) return {};
  std::vector<std::string> arguments{"-e", "-n", "-s", "-r", std::to_string(min_run_)};
  arguments.insert(arguments.end(), files.begin(), files.end());
  if (!old_files.empty()) {
    arguments.push_back("/");  // what follows are old files: compared with the new ones only
    arguments.insert(arguments.end(), old_files.begin(), old_files.end());
  }
  return parse_runs(run(arguments));
}

std::map<std::string, std::vector<int>> Engine::token_counts(const std::vector<std::string>& files) const {
  if (files.empty()) return {};
  std::vector<std::string> arguments{"--"};  // the engine's "secret option": print the token stream and stop
  arguments.insert(arguments.end(), files.begin(), files.end());
  return parse_token_counts(run(arguments));
}

}  // namespace grader
