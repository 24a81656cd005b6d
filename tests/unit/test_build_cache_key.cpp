// test_build_cache_key.cpp: the lab build cache's key (build/build.h) holds what -march=native resolves to, for a
// lab whose flags say so: a cache shared by a login node and GPU nodes of another CPU kind (`grader lab5 --slurm`)
// must not hand one objects built for the other. Fake compilers stand in for two CPU kinds.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "build/build.h"
#include "temp_dir.h"

using namespace grader;

namespace fs = std::filesystem;

namespace {

// A "compiler" whose --version is the same on both machines and whose native target is `cpu`, as GCC prints it.
fs::path fake_compiler(const fs::path& dir, const std::string& name, const std::string& cpu) {
  const fs::path path = dir / name;
  std::ofstream(path) << "#!/bin/sh\n"
                         "case \"$*\" in\n"
                         "  *--version*) echo 'g++ (Fake) 12.2.0' ;;\n"
                         "  *--help=target*) printf '  -march=  \\t\\t" << cpu << "\\n  -mavx512f  \\t\\t"
                      << (cpu == "znver3" ? "[disabled]" : "[enabled]") << "\\n' ;;\n"
                         "  *) exit 1 ;;\n"
                         "esac\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

LabSpec lab_with_flags(const fs::path& dir, std::vector<std::string> flags) {
  LabSpec spec;
  spec.id = "lab9";
  spec.dir = dir;
  spec.build.language = "c++";
  spec.build.flags = std::move(flags);
  return spec;
}

}  // namespace

TEST_CASE("flags that tune for this CPU are recognised, alone or passed through nvcc") {
  CHECK(tunes_for_this_cpu({"-O2", "-march=native"}));
  CHECK(tunes_for_this_cpu({"-mtune=native"}));
  CHECK(tunes_for_this_cpu({"-Xcompiler=-march=native,-fopenmp"}));
  CHECK_FALSE(tunes_for_this_cpu({"-O3", "-march=x86-64-v3", "-fopenmp"}));
  CHECK_FALSE(tunes_for_this_cpu({}));
}

TEST_CASE("a -march=native lab's cache key changes with the CPU kind; a portable lab's does not") {
  TempDir dir("test-build-cache-key");
  fs::create_directories(dir.path() / "grader" / "labkit" / "include" / "labkit");
  fs::create_directories(dir.path() / "grader" / "labkit" / "src");
  const fs::path login = fake_compiler(dir.path(), "g++-zen", "znver3");
  const fs::path node = fake_compiler(dir.path(), "g++-sapphire", "sapphirerapids");
  // One CXX path on both machines, as on a cluster: a link that points at this machine's compiler.
  const fs::path cxx = dir.path() / "g++";
  Environment env;
  env.root = dir.path();
  env.cxx = cxx.string();
  const LabSpec native = lab_with_flags(dir.path(), {"-O2", "-march=native"});
  const LabSpec portable = lab_with_flags(dir.path(), {"-O2"});

  fs::create_symlink(login, cxx);
  CHECK(native_cpu_target(cxx.string()).find("znver3") != std::string::npos);
  const std::string native_on_login = lab_cache_key(env, native, ""), portable_on_login = lab_cache_key(env, portable, "");

  fs::remove(cxx);
  fs::create_symlink(node, cxx);
  CHECK(native_cpu_target(cxx.string()).find("sapphirerapids") != std::string::npos);
  CHECK(lab_cache_key(env, native, "") != native_on_login);
  CHECK(lab_cache_key(env, portable, "") == portable_on_login);
  // Asked again, the same answer: the key of one machine is stable.
  CHECK(lab_cache_key(env, native, "") == lab_cache_key(env, native, ""));
}

TEST_CASE("the real compiler says what -march=native means here") {
  CHECK(native_cpu_target("g++").find("-march=") != std::string::npos);
}
