// lab_sources.cpp: reads a lab's sources as C++ tokens (identifiers, string literals, punctuation), skipping
// comments and character literals, so that a name in a comment ("// no 'fast' variant yet") counts for nothing.
#include "spec/lab_sources.h"

#include <cctype>
#include <fstream>
#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace grader {

namespace {

struct Token {
  enum class Kind { identifier, string, punctuation };
  Kind kind;
  std::string text;  // a string literal's contents, escapes left as written
};

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<Token> tokens_of(const std::string& text) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  const std::size_t size = text.size();
  while (i < size) {
    const char c = text[i];
    if (c == '/' && i + 1 < size && text[i + 1] == '/') {
      while (i < size && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < size && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? size : end + 2;
    } else if (c == 'R' && i + 1 < size && text[i + 1] == '"') {  // R"delimiter( ... )delimiter"
      const std::size_t open = text.find('(', i + 2);
      if (open == std::string::npos) break;
      const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      const std::size_t end = text.find(close, open + 1);
      tokens.push_back({Token::Kind::string, text.substr(open + 1, (end == std::string::npos ? size : end) - open - 1)});
      i = end == std::string::npos ? size : end + close.size();
    } else if (c == '"' || c == '\'') {
      std::string contents;
      ++i;
      while (i < size && text[i] != c && text[i] != '\n') {
        if (text[i] == '\\' && i + 1 < size) contents += text[i++];
        contents += text[i++];
      }
      ++i;
      if (c == '"') tokens.push_back({Token::Kind::string, contents});
    } else if (is_identifier_start(c)) {
      const std::size_t start = i;
      while (i < size && is_identifier_char(text[i])) ++i;
      tokens.push_back({Token::Kind::identifier, text.substr(start, i - start)});
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else {
      tokens.push_back({Token::Kind::punctuation, std::string(1, c)});
      ++i;
    }
  }
  return tokens;
}

std::optional<std::string> read_source_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_call(const std::vector<Token>& tokens, std::size_t i) {
  return tokens[i].kind == Token::Kind::identifier && i + 1 < tokens.size() &&
         tokens[i + 1].kind == Token::Kind::punctuation && tokens[i + 1].text == "(";
}

// The lab's C++ and CUDA files: those [build] lists, and any other beside lab.toml that they may include (a table of
// variants in a header of its own), so that a name written there is found too.
std::vector<std::filesystem::path> lab_source_files(const std::filesystem::path& lab_dir, const BuildSpec& build) {
  std::vector<std::filesystem::path> files;
  for (const auto* listed : {&build.harness, &build.baseline, &build.headers})
    for (const std::string& file : *listed) files.push_back(lab_dir / file);
  static const std::set<std::string> source_extensions{".h", ".hh", ".hpp", ".cuh", ".inc", ".c", ".cc", ".cpp", ".cu"};
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(lab_dir, error)) {
    if (!entry.is_regular_file(error) || source_extensions.count(entry.path().extension().string()) == 0) continue;
    if (std::find(files.begin(), files.end(), entry.path()) == files.end()) files.push_back(entry.path());
  }
  return files;
}

}  // namespace

LabSources LabSources::read(const std::filesystem::path& lab_dir, const BuildSpec& build) {
  LabSources sources;
  for (const std::filesystem::path& file : lab_source_files(lab_dir, build)) {
    const std::optional<std::string> text = read_source_text(file);
    if (!text) continue;
    const std::vector<Token> tokens = tokens_of(*text);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      // The lab kit's harness says which variants it runs in variants(): a lab whose sources define none is not
      // written against the lab kit, and its variants cannot be read here.
      if (is_call(tokens, i) && tokens[i].text == "variants") sources.has_harness_ = true;
      if (tokens[i].kind == Token::Kind::string) sources.literals_.insert(tokens[i].text);
      if (is_call(tokens, i) && tokens[i].text == "integer" && i + 2 < tokens.size() &&
          tokens[i + 2].kind == Token::Kind::string)
        sources.integer_params_.insert(tokens[i + 2].text);
    }
  }
  for (const std::string& file : build.headers) {
    const std::optional<std::string> text = read_source_text(lab_dir / file);
    if (!text) continue;
    const std::vector<Token> tokens = tokens_of(*text);
    for (std::size_t i = 0; i < tokens.size(); ++i)
      if (is_call(tokens, i)) sources.declared_functions_.insert(tokens[i].text);
  }
  sources.has_headers_ = !sources.declared_functions_.empty();
  return sources;
}

bool LabSources::knows_variant(const std::string& variant) const {
  return !has_harness_ || literals_.count(variant) != 0;
}

bool LabSources::header_declares(const std::string& variant) const {
  if (!has_headers_) return true;
  const std::string words = "_" + variant + "_";
  for (const std::string& function : declared_functions_)
    if (("_" + function + "_").find(words) != std::string::npos) return true;
  return false;
}

bool LabSources::reads_as_integer(const std::string& name) const { return integer_params_.count(name) != 0; }

}  // namespace grader
