// test_build_flags.cpp: build_flag_macro_changes (build/build.h), the check that an item's build_flags leave the
// compiler's predefined macros as the graded build has them, so code cannot tell a checking build from the graded
// one (issue 32: lab 3's race detectors were built at -O0, and `#ifndef __OPTIMIZE__` chose serial code there).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "build/build.h"
#include "spec/lab_spec.h"

using namespace grader;

namespace {

Environment compiler_only() {
  Environment env;
  env.cxx = "g++";
  return env;
}

LabSpec lab_with_flags(std::vector<std::string> flags) {
  LabSpec spec;
  spec.id = "lab9";
  spec.build.language = "c++";
  spec.build.flags = std::move(flags);
  return spec;
}

bool names(const std::vector<std::string>& changes, const std::string& text) {
  return std::any_of(changes.begin(), changes.end(), [&](const std::string& c) { return c.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("-O0 after -O2 changes the predefined macros: __OPTIMIZE__ goes, __NO_INLINE__ comes") {
  const auto changes = build_flag_macro_changes(compiler_only(), lab_with_flags({"-O2", "-fopenmp"}), {"-O0"});
  CHECK(names(changes, "without __OPTIMIZE__ 1"));
  CHECK(names(changes, "with __NO_INLINE__ 1"));
}

TEST_CASE("lab 3's race-detector flags keep every predefined macro of the graded build") {
  const auto changes = build_flag_macro_changes(
      compiler_only(), lab_with_flags({"-O2", "-march=native", "-fopenmp"}),
      {"-fno-tree-loop-im", "-fno-tree-fre", "-fno-tree-pre", "-fno-tree-dominator-opts", "-fno-gcse",
       "-fno-predictive-commoning"});
  const std::string first = changes.empty() ? std::string() : changes.front();
  INFO(first);
  CHECK(changes.empty());
}

TEST_CASE("a sanitizer's flag is seen too") {
  const auto changes = build_flag_macro_changes(compiler_only(), lab_with_flags({"-O2"}), {"-fsanitize=thread"});
  CHECK(names(changes, "__SANITIZE_THREAD__"));
}

// Where the CUDA toolkit is, as the grader looks for it last; without it the case is skipped, and doctest says so.
const char* const kNvcc = "/usr/local/cuda/bin/nvcc";

TEST_CASE("a CUDA lab's flags are read through nvcc: -G is seen" * doctest::skip(!std::filesystem::exists(kNvcc))) {
  Environment env = compiler_only();
  env.nvcc = kNvcc;
  LabSpec spec = lab_with_flags({"-O3"});
  spec.build.language = "cuda";
  CHECK(build_flag_macro_changes(env, spec, {"-lineinfo"}).empty());
  CHECK_FALSE(build_flag_macro_changes(env, spec, {"-G"}).empty());
}
