// environment.h: where this grader finds its labs, its lab kit, its cache and its compilers.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace grader {

struct Environment {
  std::filesystem::path root;   // the repository: labs/, skeletons/, reference/, datasets/, grader/labkit/
  std::filesystem::path cache;  // harness objects, calibrations
  std::string cxx;              // the C++ compiler for student code and harnesses
  std::optional<std::string> nvcc;  // absent when no CUDA toolkit was found

  std::filesystem::path labs_dir() const { return root / "labs"; }
  std::filesystem::path labkit_include() const { return root / "grader" / "labkit" / "include"; }
  std::filesystem::path labkit_sources() const { return root / "grader" / "labkit" / "src"; }
};

// Root: --root, else $GRADER_ROOT, else the source tree the grader was built from.
// Cache: $GRADER_CACHE, else the build tree's cache/. Compiler: $CXX, else the one CMake used.
// nvcc: $CUDA_HOME/bin/nvcc, $PATH, /usr/local/cuda/bin/nvcc.
Environment discover_environment(const std::optional<std::filesystem::path>& root_override);

// An executable called `name` on $PATH, or nothing.
std::optional<std::string> find_on_path(const std::string& name);

}  // namespace grader
