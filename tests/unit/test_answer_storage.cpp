// Unit tests for run/answer_storage.h: the memory of a worker's large answers, kept for its next ones.
#include <doctest/doctest.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "run/answer_storage.h"

namespace {

using grader::AnswerStorage;
using grader::Array;

constexpr std::size_t kMiB = std::size_t{1} << 20;

std::vector<Array> answer_of(std::vector<std::size_t> sizes) {
  std::vector<Array> arrays;
  for (const std::size_t bytes : sizes) {
    Array array;
    array.bytes.resize(bytes);
    arrays.push_back(std::move(array));
  }
  return arrays;
}

}  // namespace

TEST_CASE("a kept buffer holds the next answer that fits in it, and one too small for it is not used") {
  AnswerStorage storage;
  std::vector<Array> done = answer_of({4 * kMiB});
  const std::byte* memory = done[0].bytes.data();
  storage.keep(done);
  CHECK(done[0].bytes.empty());
  CHECK(storage.kept() == 1);

  const std::vector<std::byte> larger = storage.take(8 * kMiB);
  CHECK(larger.size() == 8 * kMiB);
  CHECK(larger.data() != memory);
  CHECK(storage.kept() == 1);  // still there for an answer it fits

  const std::vector<std::byte> smaller = storage.take(3 * kMiB);
  CHECK(smaller.size() == 3 * kMiB);
  CHECK(smaller.data() == memory);
  CHECK(storage.kept() == 0);
}

TEST_CASE("the smallest kept buffer that fits is taken; small answers and more than most_kept are not kept") {
  AnswerStorage storage;
  std::vector<Array> done = answer_of({2 * kMiB, 64 * 1024});
  const std::byte* two = done[0].bytes.data();
  storage.keep(done);
  CHECK(storage.kept() == 1);  // 64 KiB is below least_kept_bytes
  std::vector<Array> large = answer_of({16 * kMiB});
  storage.keep(large);
  CHECK(storage.kept() == 2);
  CHECK(storage.take(kMiB + 1).data() == two);

  std::vector<Array> many = answer_of({2 * kMiB, 3 * kMiB, 4 * kMiB, 5 * kMiB});
  const std::byte* smallest = many[0].bytes.data();
  storage.keep(many);
  CHECK(storage.kept() == AnswerStorage::most_kept);
  // The largest stay: 16 and 5 MiB; the 2, 3 and 4 MiB buffers went.
  const std::vector<std::byte> taken = storage.take(kMiB);
  CHECK(taken.data() != smallest);
  CHECK(taken.capacity() == 5 * kMiB);
}
