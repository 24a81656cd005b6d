// reply_read_seconds.cpp: how long the grader takes to read a worker's large answer (issue 35). A GPU lab's timed
// round sends its outputs back through the reply pipe: lab 6's tall y is 256 MiB, lab 7's C 64 MiB. A child writes
// that many bytes to fd 4 from a work directory holding a few files, under the write budget every worker has, and
// the grader's side reads them with ChildProcess::read_exact, as Worker::receive does: into a fresh buffer (its
// allocation timed too), and into one an earlier answer left (run/answer_storage.h).
//
//   bench_reply_read [MiB ...]      (default: 64 256)
//
// Prints, per size and buffer, the seconds and GB/s of the read, the best of three.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run/answer_storage.h"
#include "run/process.h"

namespace {

namespace fs = std::filesystem;

double read_answer_seconds(const fs::path& workdir, std::size_t bytes, grader::AnswerStorage* storage) {
  grader::LaunchOptions options;
  options.argv = {"/bin/sh", "-c", "head -c " + std::to_string(bytes) + " /dev/zero >&4; sleep 5"};
  options.workdir = workdir;
  options.environment = {{"PATH", "/usr/bin:/bin"}};
  options.limits.wall_seconds = 60;
  options.limits.cpu_seconds = 60;
  options.limits.file_bytes = 1u << 20;
  grader::ChildProcess child = grader::ChildProcess::launch(options);
  const auto began = std::chrono::steady_clock::now();
  std::vector<grader::Array> answer(1);
  answer[0].bytes = storage != nullptr ? storage->take(bytes) : std::vector<std::byte>(bytes);
  const grader::ReadStatus status = child.read_exact(answer[0].bytes.data(), bytes, std::chrono::seconds(60));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  child.kill();
  if (storage != nullptr) storage->keep(answer);
  if (status != grader::ReadStatus::ok) {
    std::fprintf(stderr, "the answer of %zu bytes was not read whole\n", bytes);
    std::exit(1);
  }
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> mebibytes;
  for (int i = 1; i < argc; ++i) mebibytes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (mebibytes.empty()) mebibytes = {64, 256};
  char name[] = "/tmp/bench-reply-XXXXXX";
  if (mkdtemp(name) == nullptr) return 1;
  const fs::path workdir = name;
  chmod(name, 0755);
  // A worker's directory holds its program and a few files of its own.
  for (int i = 0; i < 8; ++i) std::ofstream(workdir / ("file" + std::to_string(i))) << std::string(4096, 'x');
  for (const std::size_t mib : mebibytes) {
    grader::AnswerStorage storage;
    for (grader::AnswerStorage* kept : {static_cast<grader::AnswerStorage*>(nullptr), &storage}) {
      double best = 1e9;
      for (int round = 0; round < 3; ++round) best = std::min(best, read_answer_seconds(workdir, mib << 20, kept));
      std::printf("%4zu MiB answer, %s buffer: %.3f s, %.2f GB/s\n", mib, kept != nullptr ? "a kept" : "a fresh", best,
                  static_cast<double>(mib << 20) / best / 1e9);
    }
  }
  std::error_code ignored;
  fs::remove_all(workdir, ignored);
  return 0;
}
