// test_scaffold_templates.cpp: `grader new-lab`'s rendering (grader/src/scaffold/scaffold.h): placeholders, the
// real templates in grader/templates/ rendered into a temporary course, and the requests it refuses.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>

#include "scaffold/scaffold.h"

using namespace grader;
namespace fs = std::filesystem;

namespace {

const fs::path templates = fs::path(TESTS_DIR) / ".." / "grader" / "templates";

// An empty course (labs/ and the rest), removed at exit.
class TempCourse {
 public:
  TempCourse() {
    static int count = 0;
    root_ = fs::temp_directory_path() / ("test_scaffold_" + std::to_string(getpid()) + "_" + std::to_string(++count));
    for (const char* top : {"labs", "skeletons", "reference", "datasets", "docs"}) fs::create_directories(root_ / top);
  }
  ~TempCourse() { fs::remove_all(root_); }
  TempCourse(const TempCourse&) = delete;
  TempCourse& operator=(const TempCourse&) = delete;
  const fs::path& root() const { return root_; }

  // Every file under the root, relative: what a refused request must leave as it was.
  std::vector<std::string> files() const {
    std::vector<std::string> found;
    for (const auto& item : fs::recursive_directory_iterator(root_))
      found.push_back(item.path().lexically_relative(root_).string());
    std::sort(found.begin(), found.end());
    return found;
  }

 private:
  fs::path root_;
};

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string scaffold_error(const fs::path& root, const NewLabRequest& request) {
  try {
    (void)scaffold_lab(templates, root, request);
  } catch (const ScaffoldError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("placeholders come from the id, the slug and the title") {
  const auto values = placeholder_values({"lab9", "stencil-2d", "", false});
  CHECK(values.at("NAME") == "lab9-stencil-2d");
  CHECK(values.at("FILE") == "stencil_2d");
  CHECK(values.at("TITLE") == "Stencil 2d");
  CHECK(values.at("TITLE_TOML") == "\"Stencil 2d\"");
  CHECK(placeholder_values({"lab9", "x", "A \"quoted\" \\ title", false}).at("TITLE_TOML") ==
        "\"A \\\"quoted\\\" \\\\ title\"");
  CHECK_THROWS_AS(placeholder_values({"lab9", "x", "two\nlines", false}), ScaffoldError);
  CHECK_THROWS_AS(placeholder_values({"lab9", "a/b", "", false}), ScaffoldError);
  CHECK_THROWS_AS(placeholder_values({"", "x", "", false}), ScaffoldError);
}

TEST_CASE("fill_placeholders replaces @KEY@ and leaves other @ alone; an unknown key is an error naming the file") {
  const std::map<std::string, std::string> values{{"ID", "lab9"}, {"FILE", "demo"}};
  CHECK(fill_placeholders("#include \"@FILE@.h\"  // @ID@", values, "t") == "#include \"demo.h\"  // lab9");
  CHECK(fill_placeholders("mail me@example.org, @ alone, @lower@", values, "t") == "mail me@example.org, @ alone, @lower@");
  CHECK(fill_placeholders("@ID@@FILE@", values, "t") == "lab9demo");
  try {
    (void)fill_placeholders("x @NOPE@ y", values, "templates/cpp/x.in");
    FAIL("an unknown placeholder was accepted");
  } catch (const ScaffoldError& error) {
    CHECK(std::string(error.what()) == "templates/cpp/x.in: unknown placeholder @NOPE@");
  }
}

TEST_CASE("the C++ templates render into a lab whose lab.toml validates, below the lab directories only") {
  const TempCourse course;
  const ScaffoldResult result = scaffold_lab(templates, course.root(), {"lab9", "vector-ops", "", false});
  CHECK(result.spec.name() == "lab9-vector-ops");
  CHECK(result.spec.title == "Vector ops");
  CHECK_FALSE(result.spec.gpu);
  CHECK(result.spec.build.student_files == std::vector<std::string>{"vector_ops.cpp"});
  CHECK(result.spec.build.headers == std::vector<std::string>{"vector_ops.h"});
  const std::vector<fs::path> expected = {
      "datasets/lab9-vector-ops/manifest.toml", "labs/lab9-vector-ops/README.md",
      "labs/lab9-vector-ops/baseline.cpp",     "labs/lab9-vector-ops/harness.cpp",
      "labs/lab9-vector-ops/lab.toml",         "labs/lab9-vector-ops/vector_ops.h",
      "reference/lab9-vector-ops/vector_ops.cpp", "skeletons/lab9-vector-ops/vector_ops.cpp"};
  CHECK(result.written == expected);
  for (const auto& file : result.written) {
    const std::string text = read(course.root() / file);
    INFO(file.string());
    CHECK(text.find('@') == std::string::npos);  // no placeholder left over (the templates use no other @)
  }
  CHECK(read(course.root() / "labs/lab9-vector-ops/harness.cpp").find("#include \"vector_ops.h\"") != std::string::npos);
  bool hidden = false;
  for (const auto& item : result.spec.correctness)
    for (const auto& c : item.cases) hidden = hidden || c.visibility == Visibility::hidden;
  CHECK(hidden);  // the scaffold shows the instructor a hidden case
}

TEST_CASE("the CUDA templates render into a GPU lab on the lab kit's cuda.h") {
  const TempCourse course;
  const ScaffoldResult result = scaffold_lab(templates, course.root(), {"lab10", "gpu-vec", "GPU vectors", true});
  CHECK(result.spec.gpu);
  CHECK(result.spec.build.language == "cuda");
  CHECK(result.spec.title == "GPU vectors");
  CHECK(result.spec.build.harness == std::vector<std::string>{"harness.cu"});
  const std::string harness = read(course.root() / "labs/lab10-gpu-vec/harness.cu");
  CHECK(harness.find("#include <labkit/cuda.h>") != std::string::npos);
  CHECK(fs::is_regular_file(course.root() / "reference/lab10-gpu-vec/gpu_vec.cu"));
  CHECK(fs::is_regular_file(course.root() / "skeletons/lab10-gpu-vec/gpu_vec.cu"));
}

TEST_CASE("a lab is never overwritten, and a bad id or slug writes nothing") {
  const TempCourse course;
  (void)scaffold_lab(templates, course.root(), {"lab9", "vector-ops", "", false});
  const auto before = course.files();

  CHECK(scaffold_error(course.root(), {"lab9", "other", "", false}).find("labs/lab9-vector-ops already is lab9") !=
        std::string::npos);
  CHECK(scaffold_error(course.root(), {"lab10", "vector-ops", "", false}).find("already has the slug 'vector-ops'") !=
        std::string::npos);
  CHECK(scaffold_error(course.root(), {"lab1x", "fine", "", false}).find("'id' must be \"lab\" followed by digits") !=
        std::string::npos);
  CHECK(scaffold_error(course.root(), {"lab11", "Not_Slug", "", false}).find("'slug' must be lowercase") !=
        std::string::npos);
  fs::create_directories(course.root() / "skeletons" / "lab12-left");
  std::ofstream(course.root() / "skeletons" / "lab12-left" / "left.cpp") << "// an old skeleton\n";
  const auto with_left_over = course.files();
  CHECK(scaffold_error(course.root(), {"lab12", "left", "", false}).find("skeletons/lab12-left/left.cpp exists already") !=
        std::string::npos);
  CHECK(course.files() == with_left_over);
  fs::remove_all(course.root() / "skeletons" / "lab12-left");
  CHECK(course.files() == before);
}

TEST_CASE("missing templates are a clear error") {
  const TempCourse course;
  try {
    (void)scaffold_lab(course.root() / "no-templates", course.root(), {"lab9", "demo", "", false});
    FAIL("no error without templates");
  } catch (const ScaffoldError& error) {
    CHECK(std::string(error.what()).find("no templates in") != std::string::npos);
  }
  CHECK(course.files() == std::vector<std::string>{"datasets", "docs", "labs", "reference", "skeletons"});
}
