// test_labkit_rng.cpp: the lab kit's generator (grader/labkit/src/rng.cpp). A fill drawn by several threads from
// jumped-ahead states must give the very values, and leave the very state, that one thread's uniform() calls
// give: a seed replays a case, and the candidate and the judge must draw the same inputs.
#include <doctest/doctest.h>

#include <labkit/labkit.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

template <class T>
std::vector<T> drawn_one_by_one(labkit::Rng& rng, std::size_t count, double lo, double hi) {
  std::vector<T> values(count);
  for (auto& v : values) v = static_cast<T>(rng.uniform(lo, hi));
  return values;
}

}  // namespace

TEST_CASE("discard moves the generator as that many draws do") {
  for (std::uint64_t count : {0ULL, 1ULL, 4095ULL, 4096ULL, 100003ULL}) {
    labkit::Rng stepped(42), jumped(42);
    for (std::uint64_t i = 0; i < count; ++i) stepped.next();
    jumped.discard(count);
    CHECK_MESSAGE(stepped.next() == jumped.next(), "after " << count << " draws");
  }
}

TEST_CASE("threads only where the process may start them, and only for large arrays") {
  // A CPU lab's candidate that starts a thread is ended by the syscall filter: off until the lab kit allows it.
  labkit::Rng::allow_threads(false);
  CHECK(labkit::Rng::fill_threads(std::size_t{1} << 28) == 1);
  labkit::Rng::allow_threads(true);
  CHECK(labkit::Rng::fill_threads((std::size_t{1} << 22) - 1) == 1);
  CHECK(labkit::Rng::fill_threads(std::size_t{1} << 28) >= 1);
  CHECK(labkit::Rng::fill_threads(std::size_t{1} << 28) <= 16);
  labkit::Rng::allow_threads(false);
}

TEST_CASE("a large fill, drawn in shares, equals one thread's draws and leaves the same state") {
  labkit::Rng::allow_threads(true);
  // Over the one-thread bound (2^22) and not a multiple of any share count, so the last share is short.
  const std::size_t count = (std::size_t{1} << 22) + 12345;
  labkit::Rng by_hand(7), filled(7);
  const auto expected = drawn_one_by_one<float>(by_hand, count, -1.0, 1.0);
  std::vector<float> values(count);
  filled.fill(values, -1.0, 1.0);
  CHECK(std::memcmp(expected.data(), values.data(), count * sizeof(float)) == 0);
  CHECK(by_hand.next() == filled.next());

  labkit::Rng by_hand_doubles(9), filled_doubles(9);
  const auto expected_doubles = drawn_one_by_one<double>(by_hand_doubles, count, -3.0, 5.0);
  std::vector<double> doubles(count);
  filled_doubles.fill(doubles.data(), doubles.size(), -3.0, 5.0);
  CHECK(std::memcmp(expected_doubles.data(), doubles.data(), count * sizeof(double)) == 0);
  CHECK(by_hand_doubles.next() == filled_doubles.next());
  labkit::Rng::allow_threads(false);
}

TEST_CASE("a small fill of whole numbers equals one thread's draws") {
  labkit::Rng by_hand(3), filled(3);
  const auto expected = drawn_one_by_one<std::int32_t>(by_hand, 1000, -50.0, 50.0);
  std::vector<std::int32_t> values(1000);
  filled.fill(values, -50.0, 50.0);
  CHECK(expected == values);
  CHECK(by_hand.next() == filled.next());
}

TEST_CASE("poison writes every element of a large array in shares, and a small one on this thread") {
  for (const bool threads : {false, true}) {
    labkit::Rng::allow_threads(threads);
    // An odd count past the threads' threshold: the last share is shorter than the others.
    const std::size_t count = (std::size_t{1} << 22) + 12345;
    std::vector<double> reals(count + 2, 1.0);
    labkit::poison(reals.data() + 1, count);
    CHECK(reals.front() == 1.0);  // nothing before or after the array is touched
    CHECK(reals.back() == 1.0);
    std::size_t poisoned = 0;
    for (std::size_t i = 1; i <= count; ++i) poisoned += reals[i] != reals[i] ? 1 : 0;  // NaN
    CHECK_MESSAGE(poisoned == count, (threads ? "threads" : "one thread"));
    std::vector<std::int32_t> small(7, 0);
    labkit::poison(small.data(), small.size());
    for (const auto value : small) CHECK(value == std::numeric_limits<std::int32_t>::max());
  }
  labkit::Rng::allow_threads(false);
}
