#include "core/environment.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace grader {

namespace {

std::optional<std::string> env_value(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

bool is_executable(const std::filesystem::path& path) {
  return ::access(path.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(path);
}

}  // namespace

std::optional<std::string> find_on_path(const std::string& name) {
  auto path = env_value("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    auto candidate = std::filesystem::path(dir) / name;
    if (is_executable(candidate)) return candidate.string();
  }
  return std::nullopt;
}

Environment discover_environment(const std::optional<std::filesystem::path>& root_override) {
  Environment env;
  if (root_override) {
    env.root = *root_override;
  } else if (auto root = env_value("GRADER_ROOT")) {
    env.root = *root;
  } else {
    env.root = GRADER_DEFAULT_ROOT;
  }
  env.root = std::filesystem::absolute(env.root).lexically_normal();
  env.cache = env_value("GRADER_CACHE").value_or(GRADER_DEFAULT_CACHE);
  env.cxx = env_value("CXX").value_or(GRADER_DEFAULT_CXX);

  if (auto home = env_value("CUDA_HOME"); home && is_executable(std::filesystem::path(*home) / "bin" / "nvcc")) {
    env.nvcc = (std::filesystem::path(*home) / "bin" / "nvcc").string();
  } else if (auto on_path = find_on_path("nvcc")) {
    env.nvcc = on_path;
  } else if (is_executable("/usr/local/cuda/bin/nvcc")) {
    env.nvcc = "/usr/local/cuda/bin/nvcc";
  }
  return env;
}

}  // namespace grader
