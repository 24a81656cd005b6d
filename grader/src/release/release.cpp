// release.cpp: writes the student repository; see release.h for what ships and why.
#include "release/release.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "data/manifest.h"
#include "release/leaks.h"
#include "release/readme.h"
#include "spec/mutants.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

// Guides for the staff: they walk through the labs' solutions and quote their hidden cases.
const std::set<std::string>& staff_docs() {
  static const std::set<std::string> names{"instructor-guide.md", "ta-guide.md", "lab-toml.md"};
  return names;
}

// Top-level entries of the course repository that ship (release.h), and why the usual others stay behind.
const std::set<std::string>& shipped_top_level() {
  // course.toml: the course's cluster settings, which a student's `grader LAB --slurm` reads.
  static const std::set<std::string> names{"CMakeLists.txt", "README.md", ".gitignore", "course.toml", "grader", "bench", "docs",
                                           "tests", "labs", "skeletons", "datasets"};
  return names;
}

std::string why_left_out(const std::string& top) {
  if (top == "reference") return "the solutions";
  if (top == ".git") return "the course repository's history";
  if (top == "build" || top.starts_with("build-") || top.starts_with("build_")) return "a build tree";
  return "not part of the student repository";
}

// Why an entry of a shipped directory stays behind; empty when it ships.
std::string artefact(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  if (name.starts_with('.') && name != ".gitignore") return "a hidden file";
  if (entry.is_directory()) {
    // grader/src/build/ is source: a build tree is told by its CMakeCache.txt, not by its name.
    if (name == "CMakeFiles" || name == "__pycache__" || fs::exists(entry.path() / "CMakeCache.txt"))
      return "a build tree";
    return {};
  }
  const std::string extension = entry.path().extension().string();
  for (const char* built : {".o", ".obj", ".a", ".so", ".pyc", ".swp"})
    if (extension == built) return "a build artefact";
  if (name.ends_with('~')) return "an editor's backup";
  return {};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A unit test that reads the course's own files (TESTS_DIR "/../docs/...", fs::path(TESTS_DIR) / ".." / "labs")
// checks the staff repository, not the grader.
bool reads_course_files(const std::string& source) {
  for (std::size_t at = source.find("TESTS_DIR"); at != std::string::npos; at = source.find("TESTS_DIR", at + 1))
    if (source.substr(at, 40).find("..") != std::string::npos) return true;
  return false;
}

bool inside(const fs::path& path, const fs::path& dir) {
  const auto relative = path.lexically_relative(dir);
  return !relative.empty() && *relative.begin() != "..";
}

class Writer {
 public:
  Writer(fs::path root, fs::path out) : root_(std::move(root)), out_(std::move(out)) {}

  void copy_file(const fs::path& relative) {
    fs::create_directories((out_ / relative).parent_path());
    fs::copy_file(root_ / relative, out_ / relative);
    ++summary_.files;
  }

  void write_file(const fs::path& relative, const std::string& text) {
    fs::create_directories((out_ / relative).parent_path());
    std::ofstream out(out_ / relative, std::ios::binary);
    out << text;
    out.close();
    if (!out) throw ReleaseError("cannot write " + (out_ / relative).string());
    ++summary_.files;
  }

  // Copies root/relative into the release, entry by entry; `skip` may hold back an entry (returning why).
  void copy_tree(const fs::path& relative, const std::function<std::string(const fs::path&)>& skip = {}) {
    fs::create_directories(out_ / relative);
    std::vector<fs::directory_entry> entries{fs::directory_iterator(root_ / relative), fs::directory_iterator()};
    std::sort(entries.begin(), entries.end());
    for (const auto& entry : entries) {
      const fs::path path = relative / entry.path().filename();
      if (entry.is_symlink())
        throw ReleaseError(path.string() + " is a symbolic link; the release copies plain files only (a link could "
                                           "reach reference/): replace it with the file");
      std::string reason = artefact(entry);
      if (reason.empty() && skip) reason = skip(path);
      if (!reason.empty()) {
        leave_out(path.string() + (entry.is_directory() ? "/" : "") + " (" + reason + ")");
        continue;
      }
      if (entry.is_directory()) copy_tree(path, skip);
      else if (entry.is_regular_file()) copy_file(path);
      else leave_out(path.string() + " (not a regular file)");
    }
  }

  void leave_out(const std::string& what) { summary_.left_out.push_back(what); }
  ReleaseSummary& summary() { return summary_; }
  const fs::path& root() const { return root_; }
  const fs::path& out() const { return out_; }

 private:
  fs::path root_, out_;
  ReleaseSummary summary_;
};

// What the release withheld that the leak scan must then not find, and what it kept that may legitimately
// carry the same names and seeds.
struct Withheld {
  std::set<std::string> names, seeds, visible_names, released_seeds;
};

void release_datasets(Writer& writer, const LabSpec& stripped, ReleasedLab& released, Withheld& withheld) {
  const fs::path relative = fs::path("datasets") / stripped.name();
  const fs::path dir = writer.root() / relative;
  if (!fs::is_directory(dir)) return;
  if (!fs::exists(dir / "manifest.toml")) {
    writer.leave_out(relative.string() + "/ (no manifest.toml: nothing in it is a public dataset)");
    return;
  }
  Manifest manifest;
  try {
    manifest = load_manifest(dir);
  } catch (const std::exception& error) {
    throw ReleaseError(error.what());
  }
  std::set<std::string> used;
  for (const auto& item : stripped.correctness)
    for (const auto& c : item.cases)
      if (!c.dataset.empty()) used.insert(c.dataset);

  Manifest shipped;
  shipped.dir = writer.out() / relative;
  std::set<std::string> files{"manifest.toml"};
  for (const auto& entry : manifest.entries) {
    if (!used.count(entry.name)) {
      withheld.names.insert(entry.name);
      withheld.seeds.insert(std::to_string(entry.seed));
      ++released.datasets_withheld;
      continue;
    }
    // A public case without its files would be an internal error in every student's run.
    if (entry.expected.empty())
      throw ReleaseError((relative / "manifest.toml").string() + ": dataset '" + entry.name + "' has no files yet; run "
                         "`grader datasets generate " + stripped.id + "` (for a GPU lab, on a machine with a GPU), or "
                         "leave the lab out of the release with --labs");
    withheld.visible_names.insert(entry.name);
    withheld.released_seeds.insert(std::to_string(entry.seed));
    shipped.entries.push_back(entry);
    for (const auto* named : {&entry.inputs, &entry.expected})
      for (const auto& file : *named) files.insert(file.file);
  }
  fs::create_directories(shipped.dir);
  if (released.datasets_withheld == 0) writer.copy_file(relative / "manifest.toml");  // comments and all
  else writer.write_file(relative / "manifest.toml", format_manifest(shipped));
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "manifest.toml") continue;
    if (files.count(name) && entry.is_regular_file() && !entry.is_symlink()) writer.copy_file(relative / name);
    else writer.leave_out((relative / name).string() + " (no released dataset names it)");
  }
  std::vector<std::string> problems;
  try {
    problems = verify_manifest(load_manifest(shipped.dir));
  } catch (const std::exception& error) {
    problems.push_back(error.what());
  }
  for (const auto& problem : problems)
    throw ReleaseError("the released " + (relative / "manifest.toml").string() + " does not verify: " + problem +
                       "; `grader datasets verify " + stripped.id + "` in the course repository shows why");
}

void release_lab(Writer& writer, const LabSpec& spec, ReleaseSummary& summary, Withheld& withheld) {
  ReleasedLab released{spec.name()};
  const StrippedSpec stripped = strip_hidden(read_text(spec.file), spec);
  released.hidden_cases = stripped.cases_removed;
  released.hidden_items = stripped.items_removed;
  withheld.names.insert(stripped.hidden_names.begin(), stripped.hidden_names.end());

  const fs::path lab = fs::path("labs") / spec.name();
  const fs::path toml = lab / "lab.toml";
  writer.copy_tree(lab, [&](const fs::path& path) -> std::string {
    if (path == toml || path == lab / "README.md") return "rewritten";
    // Mutants (spec/mutants.h) are the reference with one mistake: near-solutions, for selftest only.
    if (path == lab / kMutantsFolder) return "the lab's mutants: the solution with one known mistake each";
    return "";
  });
  auto& left = writer.summary().left_out;  // lab.toml is not left out: it is written below, without hidden cases
  left.erase(std::find(left.begin(), left.end(), toml.string() + " (rewritten)"));
  // The handout without its staff blocks (the scaffold's note to the author, release/readme.h).
  const fs::path handout = lab / "README.md";
  if (const auto at = std::find(left.begin(), left.end(), handout.string() + " (rewritten)"); at != left.end()) {
    left.erase(at);
    writer.write_file(handout, student_readme(read_text(writer.root() / handout), staff_docs(), handout.string()));
  }
  writer.write_file(toml, stripped.text);

  LabSpec shipped;
  try {
    shipped = load_lab_spec(writer.out() / lab);
  } catch (const SpecError& error) {
    throw ReleaseError(std::string("the released lab.toml is not valid: ") + error.what());
  }
  for (const auto& item : shipped.correctness) {
    withheld.visible_names.insert(item.name);
    for (const auto& c : item.cases) withheld.visible_names.insert(c.name);
  }
  for (const auto& item : shipped.performance) withheld.visible_names.insert(item.name);

  const fs::path skeleton = fs::path("skeletons") / spec.name();
  if (fs::is_directory(writer.root() / skeleton)) writer.copy_tree(skeleton);
  release_datasets(writer, shipped, released, withheld);
  summary.labs.push_back(released);
}

// Directories holding one subdirectory per lab (labs/, skeletons/, datasets/): their own files ship, and the
// subdirectories of released labs (copied by release_lab); the other labs' stay behind.
void release_lab_directory(Writer& writer, const std::string& top, const std::set<std::string>& released) {
  const fs::path dir = writer.root() / top;
  if (!fs::is_directory(dir)) return;
  fs::create_directories(writer.out() / top);
  writer.copy_tree(top, [&](const fs::path& path) -> std::string {
    if (!fs::is_directory(writer.root() / path)) return "";
    return released.count(path.filename().string()) ? "released lab, copied on its own" : "not a released lab";
  });
  // Released labs were listed as held back above only because they are copied by release_lab.
  auto& left = writer.summary().left_out;
  left.erase(std::remove_if(left.begin(), left.end(),
                            [](const std::string& line) { return line.ends_with("(released lab, copied on its own)"); }),
             left.end());
}

void release_tests(Writer& writer) {
  const fs::path dir = writer.root() / "tests";
  if (!fs::is_directory(dir)) return;
  writer.copy_tree("tests", [&](const fs::path& path) -> std::string {
    const bool directory = fs::is_directory(writer.root() / path);
    if (path.parent_path() == "tests") {
      if (!directory) return "";
      const std::string name = path.filename().string();
      if (name == "unit") return "";
      if (name == "e2e") return "end-to-end tests of the staff repository: selftest needs reference/";
      if (name == "submissions") return "the staff's test submissions";
      if (name == "instructor") return "tests of new-lab and release: need reference/ and grader/templates";
      return "not one of the student repository's tests";
    }
    if (!directory && path.filename().string().starts_with("test_") && reads_course_files(read_text(writer.root() / path)))
      return "reads the course repository's own files (TESTS_DIR/..), which the release changes or leaves out";
    return "";
  });
}

}  // namespace

ReleaseSummary write_release(const Environment& env, const std::vector<LabSpec>& labs, const fs::path& out_arg) {
  const fs::path root = fs::weakly_canonical(env.root);
  const fs::path out = fs::weakly_canonical(fs::absolute(out_arg));
  if (inside(out, root) || out == root)
    throw ReleaseError(out.string() + " is inside the course repository " + root.string() + "; write the release elsewhere");
  if (fs::exists(out) && !(fs::is_directory(out) && fs::is_empty(out)))
    throw ReleaseError(out.string() + " exists and is not an empty directory; the release writes a fresh one");
  const bool made_out = !fs::exists(out);
  fs::create_directories(out);

  Writer writer(root, out);
  try {
    std::set<std::string> released;
    for (const auto& spec : labs) released.insert(spec.name());

    std::vector<fs::directory_entry> top{fs::directory_iterator(root), fs::directory_iterator()};
    std::sort(top.begin(), top.end());
    for (const auto& entry : top) {
      const std::string name = entry.path().filename().string();
      if (entry.is_symlink() && shipped_top_level().count(name))
        throw ReleaseError(name + " is a symbolic link; the release copies plain files only");
      const bool license = name.starts_with("LICENSE") || name.starts_with("COPYING");
      if (!shipped_top_level().count(name) && !(license && entry.is_regular_file())) {
        writer.leave_out(name + (entry.is_directory() ? "/" : "") + " (" + why_left_out(name) + ")");
        continue;
      }
      if (name == "README.md") writer.write_file(name, student_readme(read_text(entry.path()), staff_docs()));
      else if (entry.is_regular_file()) writer.copy_file(name);
      else if (name == "grader")
        writer.copy_tree("grader", [](const fs::path& path) {
          return path == "grader/templates" ? "new-lab's templates, with the scaffold's reference solution" : "";
        });
      else if (name == "docs")
        writer.copy_tree("docs", [](const fs::path& path) {
          return path.parent_path() == "docs" && staff_docs().count(path.filename().string()) ? "a guide for the staff" : "";
        });
      else if (name == "bench")
        writer.copy_tree("bench", [](const fs::path& path) {
          return path == "bench/CMakeLists.txt" ? "" : "the staff's benchmarks of the reference solutions";
        });
      else if (name == "tests") release_tests(writer);
      else if (name == "labs" || name == "skeletons" || name == "datasets") release_lab_directory(writer, name, released);
      else writer.copy_tree(name);
    }

    Withheld withheld;
    for (const auto& spec : labs) release_lab(writer, spec, writer.summary(), withheld);

    LeakEvidence evidence = reference_evidence(root);
    for (const auto& name : withheld.names)
      if (!name.empty() && !withheld.visible_names.count(name)) evidence.hidden_names.insert(name);
    for (const auto& seed : withheld.seeds)
      if (!withheld.released_seeds.count(seed)) evidence.hidden_seeds.insert(seed);
    const std::vector<Leak> leaks = find_leaks(out, evidence);
    if (!leaks.empty()) {
      std::string message = "the release would give away what students must not see, so none was left in " +
                            out.string() + ":";
      for (std::size_t i = 0; i < leaks.size() && i < 30; ++i) message += "\n  " + to_string(leaks[i]);
      if (leaks.size() > 30) message += "\n  ... and " + std::to_string(leaks.size() - 30) + " more";
      throw ReleaseError(message);
    }
  } catch (...) {
    std::error_code ignored;
    if (made_out) {
      fs::remove_all(out, ignored);
    } else {
      for (const auto& entry : fs::directory_iterator(out, ignored)) fs::remove_all(entry.path(), ignored);
    }
    throw;
  }
  return writer.summary();
}

}  // namespace grader
