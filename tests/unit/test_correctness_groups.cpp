// test_correctness_groups.cpp: which correctness items a GPU lab grades at once (grader/src/pipeline/
// correctness_groups.h): items that share a variant's process, directly or through another item, are one group in
// the items' order; an item built with flags of its own has a process of its own.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pipeline/correctness_groups.h"

using namespace grader;

namespace {

CorrectnessItem item(const std::string& name, std::vector<std::string> variants, std::vector<std::string> flags = {}) {
  CorrectnessItem made;
  made.name = name;
  made.variants = std::move(variants);
  made.build_flags = std::move(flags);
  return made;
}

}  // namespace

TEST_CASE("one group per item when no two items share a variant (labs 5 to 8)") {
  const std::vector<CorrectnessItem> items = {item("naive", {"naive"}), item("shared", {"shared"}), item("best", {"best"})};
  CHECK(correctness_groups(items) == std::vector<std::vector<std::size_t>>{{0}, {1}, {2}});
}

TEST_CASE("items that share a variant, directly or through another, are one group in order") {
  const std::vector<CorrectnessItem> items = {
      item("a", {"v1"}), item("b", {"v2"}), item("c", {"v3"}), item("d", {"v1", "v3"}), item("e", {"v4"}),
      item("f", {"v2"})};
  CHECK(correctness_groups(items) == std::vector<std::vector<std::size_t>>{{0, 2, 3}, {1, 5}, {4}});
}

TEST_CASE("the same variant built with other flags is another process, so another group") {
  const std::vector<CorrectnessItem> items = {item("plain", {"omp"}), item("races", {"omp"}, {"-O0"}),
                                              item("races again", {"omp"}, {"-O0"})};
  CHECK(correctness_groups(items) == std::vector<std::vector<std::size_t>>{{0}, {1, 2}});
}

TEST_CASE("no items, no groups") { CHECK(correctness_groups({}).empty()); }
