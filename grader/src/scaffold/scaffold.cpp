// scaffold.cpp: renders a lab from grader/templates/; see scaffold.h.
#include "scaffold/scaffold.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "catalog/catalog.h"
#include "handout/graded_table.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

// The only top-level directories a new lab may write to (docs/design.md: adding a lab touches nothing else).
const std::set<std::string>& lab_directories() {
  static const std::set<std::string> names{"labs", "skeletons", "reference", "datasets", "docs"};
  return names;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScaffoldError("cannot read the template " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw ScaffoldError("cannot write " + path.string());
}

// A TOML basic string, quotes included.
std::string toml_string(std::string_view text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// "stencil-2d" -> "Stencil 2d"
std::string title_from_slug(const std::string& slug) {
  std::string title = slug;
  std::replace(title.begin(), title.end(), '-', ' ');
  if (!title.empty()) title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  return title;
}

// A directory under the system's temporary directory, removed with the object.
class StagingDirectory {
 public:
  StagingDirectory() {
    std::string pattern = (fs::temp_directory_path() / "grader-new-lab-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw ScaffoldError("cannot create a temporary directory");
    path_ = pattern;
  }
  ~StagingDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  StagingDirectory(const StagingDirectory&) = delete;
  StagingDirectory& operator=(const StagingDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct TemplateFile {
  fs::path source;       // grader/templates/cpp/labs/@NAME@/lab.toml.in
  fs::path destination;  // labs/lab9-demo/lab.toml, relative to the root
};

std::vector<TemplateFile> list_templates(const fs::path& flavour_dir, const std::map<std::string, std::string>& values) {
  std::vector<TemplateFile> files;
  for (const auto& item : fs::recursive_directory_iterator(flavour_dir)) {
    if (item.is_directory()) continue;
    const fs::path relative = item.path().lexically_relative(flavour_dir);
    if (!item.is_regular_file() || item.path().extension() != ".in")
      throw ScaffoldError(item.path().string() + " is not a template: every file under " + flavour_dir.string() +
                          " is a regular file named *.in");
    std::string destination = relative.string();
    destination.resize(destination.size() - 3);  // ".in"
    destination = fill_placeholders(destination, values, item.path().string());
    const fs::path path = fs::path(destination).lexically_normal();
    if (path.empty() || path.is_absolute() || *path.begin() == ".." || !lab_directories().count(path.begin()->string()))
      throw ScaffoldError(item.path().string() + " would write " + destination +
                          "; a lab lives in labs/, skeletons/, reference/, datasets/ and docs/ only");
    files.push_back({item.path(), path});
  }
  std::sort(files.begin(), files.end(),
            [](const TemplateFile& a, const TemplateFile& b) { return a.destination < b.destination; });
  if (files.empty()) throw ScaffoldError("no templates (*.in) under " + flavour_dir.string());
  return files;
}

// Every lab has a unique id and a unique slug: `grader lab9` and `grader stencil` must each name one lab.
void refuse_existing_lab(const fs::path& root, const NewLabRequest& request) {
  const Catalog catalog(root / "labs");
  for (const auto& entry : catalog.entries()) {
    const std::string existing = "labs/" + entry.dir.filename().string();
    if (entry.id == request.id) throw ScaffoldError(existing + " already is " + request.id + "; choose another id");
    if (entry.slug == request.slug)
      throw ScaffoldError(existing + " already has the slug '" + request.slug + "'; choose another slug");
  }
}

// The outermost directory of `path` (below root) that does not exist yet, or empty when its parent exists.
fs::path first_missing_directory(const fs::path& root, const fs::path& relative) {
  fs::path current = root;
  for (const auto& part : relative.parent_path()) {
    current /= part;
    if (!fs::exists(current)) return current;
  }
  return {};
}

}  // namespace

std::map<std::string, std::string> placeholder_values(const NewLabRequest& request) {
  // The spec parser checks the id and slug in full once the lab.toml is rendered; these characters would make
  // paths before that.
  for (const std::string* word : {&request.id, &request.slug}) {
    if (word->empty() || word->find_first_of("/\\") != std::string::npos || *word == "." || *word == ".." ||
        std::any_of(word->begin(), word->end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
      throw ScaffoldError("'" + *word + "' is not a lab " + (word == &request.id ? "id" : "slug") +
                          ": ids are \"lab\" and digits (lab9), slugs lowercase letters, digits and inner dashes");
  }
  const std::string title = request.title.empty() ? title_from_slug(request.slug) : request.title;
  if (std::any_of(title.begin(), title.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    throw ScaffoldError("the title must be one line of text");
  std::string file = request.slug;
  std::replace(file.begin(), file.end(), '-', '_');
  return {{"ID", request.id},
          {"SLUG", request.slug},
          {"NAME", request.id + "-" + request.slug},
          {"FILE", file},
          {"TITLE", title},
          {"TITLE_TOML", toml_string(title)}};
}

std::string fill_placeholders(std::string_view text, const std::map<std::string, std::string>& values,
                              const std::string& where) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('@', at);
    if (open == std::string_view::npos) break;
    const std::size_t close = text.find('@', open + 1);
    const std::string_view key =
        close == std::string_view::npos ? std::string_view() : text.substr(open + 1, close - open - 1);
    const bool placeholder = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || c == '_';
    });
    if (!placeholder) {  // a lone '@' (an e-mail address, a decorator): text
      out.append(text.substr(at, open + 1 - at));
      at = open + 1;
      continue;
    }
    const auto value = values.find(std::string(key));
    if (value == values.end()) throw ScaffoldError(where + ": unknown placeholder @" + std::string(key) + "@");
    out.append(text.substr(at, open - at));
    out += value->second;
    at = close + 1;
  }
  out.append(text.substr(std::min(at, text.size())));
  return out;
}

ScaffoldResult scaffold_lab(const fs::path& templates_dir, const fs::path& root, const NewLabRequest& request) {
  const auto values = placeholder_values(request);
  const std::string flavour = request.cuda ? "cuda" : "cpp";
  const fs::path flavour_dir = templates_dir / flavour;
  if (!fs::is_directory(flavour_dir))
    throw ScaffoldError("no templates in " + flavour_dir.string() +
                        ": `grader new-lab` needs the grader's templates, which a student release does not carry");
  const std::string name = values.at("NAME");

  refuse_existing_lab(root, request);
  const std::vector<TemplateFile> templates = list_templates(flavour_dir, values);
  for (const auto& file : templates)
    if (fs::exists(root / file.destination) || fs::is_symlink(root / file.destination))
      throw ScaffoldError(file.destination.string() + " exists already; `grader new-lab` never overwrites a file");

  // Render into a staging tree first and read the lab.toml back with the grader's own parser: a bad id or slug,
  // or a broken template, is refused before anything is written under the root.
  StagingDirectory staging;
  for (const auto& file : templates)
    write_text(staging.path() / file.destination, fill_placeholders(read_text(file.source), values, file.source.string()));
  LabSpec staged;
  try {
    staged = load_lab_spec(staging.path() / "labs" / name);
  } catch (const SpecError& error) {
    throw ScaffoldError("the new lab's lab.toml (" + flavour_dir.string() + "/labs/@NAME@/lab.toml.in for " + name +
                        ") is not valid: line " + std::to_string(error.where().line) + ": " + error.message());
  }
  // The handout's "What is graded" tables come from the lab.toml just rendered, as `grader handout` writes them.
  const fs::path handout = staging.path() / "labs" / name / "README.md";
  if (fs::exists(handout)) {
    try {
      write_text(handout, with_graded_tables(read_text(handout), staged, "labs/" + name + "/README.md"));
    } catch (const HandoutError& error) {
      throw ScaffoldError(flavour_dir.string() + "/labs/@NAME@/README.md.in: " + error.what());
    }
  }

  ScaffoldResult result;
  std::vector<fs::path> created;  // what to take back if writing fails half-way
  try {
    for (const auto& file : templates) {
      const fs::path missing = first_missing_directory(root, file.destination);
      if (!missing.empty()) created.push_back(missing);
      write_text(root / file.destination, read_text(staging.path() / file.destination));
      created.push_back(root / file.destination);
      result.written.push_back(file.destination);
    }
    result.spec = load_lab_spec(root / "labs" / name);
  } catch (...) {
    std::error_code ignored;
    for (auto it = created.rbegin(); it != created.rend(); ++it) fs::remove_all(*it, ignored);
    throw;
  }
  return result;
}

}  // namespace grader
