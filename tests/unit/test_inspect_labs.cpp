// test_inspect_labs.cpp: facts of every lab's reference and skeleton (grader/src/inspect/code_facts.h), compiled here
// with each lab's own flags. Every timed item's variant must be found in both trees (the report and the step rules
// read nothing otherwise), a CUDA variant must launch a kernel, and where the lab's lesson is a fact the reference
// must show it and the skeleton must not. The table of key facts is printed: `test_inspect_labs -s` shows it
// (`asan_unit_tests --source-file=*/test_inspect_labs.cpp -s` where the sanitizer build is, tests/CMakeLists.txt).
// CUDA labs are read where nvcc is (their part is skipped, and said so, elsewhere). No step of a reference breaks a
// step rule.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>

#include "core/environment.h"
#include "core/tool.h"
#include "inspect/code_facts.h"
#include "inspect/fact_list.h"
#include "spec/lab_spec.h"
#include "steps/step_code.h"
#include "steps/step_rules.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

const fs::path root = fs::path(TESTS_DIR) / "..";

// The tree's student files compiled as the grader compiles them (the lab's flags, its headers and the lab kit's),
// nvcc keeping the PTX; then read.
CodeFacts facts_of_tree(const Environment& env, const LabSpec& spec, const fs::path& tree, const fs::path& out,
                        const std::vector<std::string>& extra_flags = {}) {
  fs::create_directories(out);
  std::vector<fs::path> objects;
  for (const auto& name : spec.build.student_files) {
    const fs::path source = tree / name, object = out / (name + ".o");
    const bool cuda = source.extension() == ".cu";
    std::vector<std::string> argv = cuda ? std::vector<std::string>{*env.nvcc, "-std=c++20", "-arch=sm_90", "--keep", "--keep-dir", out.string()}
                                         : std::vector<std::string>{env.cxx, "-std=c++20"};
    argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
    argv.insert(argv.end(), spec.build.flags.begin(), spec.build.flags.end());
    argv.insert(argv.end(), {"-I" + spec.dir.string(), "-I" + env.labkit_include().string(), "-c", source.string(), "-o", object.string()});
    const ToolResult built = run_tool(argv, out, 600);
    INFO(built.output);
    REQUIRE_MESSAGE(built.ok(), tree.string() << "/" << name << " does not compile");
    objects.push_back(object);
  }
  return read_code_facts(env, spec, objects, "sm_90");
}

// Whether every condition of `hint` holds for code with facts `yours` beside the reference's `theirs`.
bool hint_holds(const Hint& hint, const Variables& yours, const Variables& theirs) {
  Variables scope = yours;
  for (const auto& [name, value] : theirs) scope[std::string(reference_prefix) + name] = value;
  for (const Condition& condition : hint.when) {
    try {
      if (!condition.holds(scope)) return false;
    } catch (const ExprEvalError&) {
      return false;
    }
  }
  return true;
}

std::string shown(const Variables& facts, const std::string& key) {
  const auto found = facts.find(key);
  return found == facts.end() ? "-" : format_fact(*find_fact(key), found->second);
}

}  // namespace

TEST_CASE("every lab's reference and skeleton: each timed variant's facts") {
  const Environment env = discover_environment(root);
  TempDir dir("test-inspect-labs");
  std::vector<std::string> skipped;
  for (const auto& entry : fs::directory_iterator(root / "labs")) {
    const LabSpec spec = load_lab_spec(entry.path());
    if (spec.build.language == "cuda" && !env.nvcc) {
      skipped.push_back(spec.id);
      continue;
    }
    CAPTURE(spec.id);
    const CodeFacts reference = facts_of_tree(env, spec, root / "reference" / spec.name(), dir.path() / spec.id / "reference");
    const CodeFacts skeleton = facts_of_tree(env, spec, root / "skeletons" / spec.name(), dir.path() / spec.id / "skeleton");
    REQUIRE_MESSAGE(reference.read(), reference.unavailable);
    REQUIRE_MESSAGE(skeleton.read(), skeleton.unavailable);
    if (!reference.cuda) {
      // The grader compiles C++ with line tables (-g1, build/build.cpp) for the listing beside the source lines:
      // the code must be the same without them, function by function, and the lines must name the student's file.
      const CodeFacts lined = facts_of_tree(env, spec, root / "reference" / spec.name(), dir.path() / spec.id / "reference-g1", {"-g1"});
      REQUIRE_MESSAGE(lined.read(), lined.unavailable);
      REQUIRE(lined.cpu.functions.size() == reference.cpu.functions.size());
      for (std::size_t i = 0; i < lined.cpu.functions.size(); ++i) {
        const CpuFunction& with = lined.cpu.functions[i];
        const CpuFunction& without = reference.cpu.functions[i];
        INFO(spec.id << ": " << without.name);
        CHECK(with.symbol == without.symbol);
        CHECK(with.code_hash == without.code_hash);
        CHECK(with.instructions == without.instructions);
      }
      for (const auto& item : spec.performance) {
        const auto facts = variant_facts(lined, item.variant);
        if (!facts || !facts->hot_loop) continue;
        const auto& sources = facts->hot_loop->listing_sources;
        INFO(spec.id << ": " << item.variant);
        CHECK(std::any_of(sources.begin(), sources.end(), [&](const std::string& location) {
          return std::any_of(spec.build.student_files.begin(), spec.build.student_files.end(),
                             [&](const std::string& file) { return location.rfind(fs::path(file).filename().string() + ":", 0) == 0; });
        }));
        const auto plain = variant_facts(reference, item.variant);
        REQUIRE((plain.has_value() && plain->hot_loop.has_value()));
        CHECK(std::all_of(plain->hot_loop->listing_sources.begin(), plain->hot_loop->listing_sources.end(),
                          [](const std::string& location) { return location.empty(); }));
      }
    }
    std::cout << "\n" << spec.name() << " (read in " << reference.seconds << " s and " << skeleton.seconds << " s)\n";
    // The reference is honest: no step of it breaks a step rule, whatever the routes the rules follow (data, second
    // names, branches through pointers; steps/step_rules.h).
    for (const auto& finding : check_step_rules(spec.steps, submission_code(reference)))
      FAIL_CHECK("the reference's " << finding.variant << " step is caught: " << finding.what);
    // A hint chosen from facts never tells the reference to fix what it does; and the skeleton, which teaches
    // nothing yet, meets at least one of the lab's.
    int skeleton_hints = 0;
    for (const auto& item : spec.performance) {
      const auto theirs = variant_facts(reference, item.variant);
      const auto yours = variant_facts(skeleton, item.variant);
      if (!theirs || !yours) continue;
      const Variables r = fact_variables(*theirs), s = fact_variables(*yours);
      for (const Hint& hint : item.hints) {
        if (hint.when.empty()) continue;
        INFO(item.name << ": " << hint.text);
        CHECK_FALSE(hint_holds(hint, r, r));
        skeleton_hints += hint_holds(hint, s, r) ? 1 : 0;
      }
    }
    CHECK(skeleton_hints > 0);
    std::set<std::string> variants;
    for (const auto& item : spec.performance) variants.insert(item.variant);
    for (const auto& variant : variants) {
      CAPTURE(variant);
      const auto theirs = variant_facts(reference, variant);
      const auto yours = variant_facts(skeleton, variant);
      REQUIRE_MESSAGE(theirs.has_value(), "the reference's function for variant '" << variant << "' is not found");
      REQUIRE_MESSAGE(yours.has_value(), "the skeleton's function for variant '" << variant << "' is not found");
      CHECK(theirs->function == yours->function);  // the same interface function in both trees
      if (reference.cuda) CHECK_FALSE(theirs->kernels.empty());
      const Variables r = fact_variables(*theirs), s = fact_variables(*yours);
      std::cout << "  " << variant << " (" << plain_name(theirs->function) << ")\n";
      for (const auto& fact : fact_definitions()) {
        const std::string key(fact.key);
        if (!r.count(key) && !s.count(key)) continue;
        if ((!r.count(key) || r.at(key) == 0) && (!s.count(key) || s.at(key) == 0)) continue;
        std::cout << "    " << key << std::string(key.size() < 24 ? 24 - key.size() : 1, ' ') << "reference " << shown(r, key)
                  << std::string(shown(r, key).size() < 16 ? 16 - shown(r, key).size() : 1, ' ') << "skeleton " << shown(s, key)
                  << "\n";
      }
    }
  }
  if (!skipped.empty()) {
    std::string list;
    for (const auto& id : skipped) list += " " + id;
    MESSAGE("CUDA labs not read (no nvcc here):" << list);
  }
}

// A fact a hint can name but no page explains is a fact nobody uses: the lab author's reference and the students'
// guide each name every one, in backticks.
TEST_CASE("docs/lab-toml.md and docs/student-guide.md name every fact") {
  for (const char* page : {"lab-toml.md", "student-guide.md"}) {
    std::ifstream in(root / "docs" / page);
    REQUIRE(in.good());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& fact : fact_definitions()) {
      INFO(page << ": " << fact.key);
      CHECK(text.find("`" + std::string(fact.key) + "`") != std::string::npos);
    }
  }
}
