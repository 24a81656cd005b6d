// rng.cpp: the lab kit's generator (labkit.h, Rng): xoshiro256** seeded through splitmix64, its jump-ahead to any
// position, and the fill of large arrays by several threads that gives the very values one thread would; and the
// poisoning of large arrays (labkit.h, poison) in the same shares.
//
// Threads only where the process may start them (Rng::allow_threads: a GPU lab's problem; the syscall filter ends a
// CPU lab's candidate that starts one). Why threads, and why a jump-ahead: every worker draws its inputs in setup(), the candidate's and the judge's, for
// every case and every timed item. One thread draws about a billion numbers in a second, so lab 8's 2^28 floats
// cost a second per setup and lab 6's 1 GiB A more; on a GPU lab that is most of a grading. The values must not
// change (a seed replays a case, and the judge and the candidate must draw the same), so each thread starts where
// the draws before its share end: the generator's step is a linear map of its 256 bits over GF(2), and so is any
// number of steps, a 256 x 256 bit matrix computed by squaring.
#include <labkit/labkit.h>

#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

namespace labkit {

namespace {

inline std::uint64_t rotate_left(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// One step of xoshiro256**: returns the output and advances the state. Rng::next and the fills share it.
inline std::uint64_t xoshiro_step(std::uint64_t (&s)[4]) {
  const std::uint64_t result = rotate_left(s[1] * 5, 7) * 9;
  const std::uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotate_left(s[3], 45);
  return result;
}

// The generator's state as a vector of 256 bits, and a linear map of it: column j is the image of bit j.
struct Bits {
  std::uint64_t word[4] = {0, 0, 0, 0};
};
using BitMatrix = std::vector<Bits>;  // 256 columns

Bits apply_matrix(const BitMatrix& map, const Bits& v) {
  Bits image;
  for (int j = 0; j < 256; ++j) {
    if (((v.word[j >> 6] >> (j & 63)) & 1) == 0) continue;
    for (int w = 0; w < 4; ++w) image.word[w] ^= map[j].word[w];
  }
  return image;
}

// (a b) e_j = a (b e_j).
BitMatrix multiply_matrices(const BitMatrix& a, const BitMatrix& b) {
  BitMatrix product(256);
  for (int j = 0; j < 256; ++j) product[j] = apply_matrix(a, b[j]);
  return product;
}

// The map that `count` steps make.
BitMatrix steps_matrix(std::uint64_t count) {
  BitMatrix one_step(256), result(256);
  for (int j = 0; j < 256; ++j) {
    std::uint64_t s[4] = {0, 0, 0, 0};
    s[j >> 6] = std::uint64_t{1} << (j & 63);
    xoshiro_step(s);
    for (int w = 0; w < 4; ++w) one_step[j].word[w] = s[w];
    result[j].word[j >> 6] = std::uint64_t{1} << (j & 63);  // the identity
  }
  for (BitMatrix power = one_step; count != 0; count >>= 1) {  // powers of one map commute: any order
    if (count & 1) result = multiply_matrices(power, result);
    if (count > 1) power = multiply_matrices(power, power);
  }
  return result;
}

void apply_to_state(const BitMatrix& map, std::uint64_t (&s)[4]) {
  Bits v;
  for (int w = 0; w < 4; ++w) v.word[w] = s[w];
  const Bits image = apply_matrix(map, v);
  for (int w = 0; w < 4; ++w) s[w] = image.word[w];
}

// Below this many elements one thread draws them: the jump matrix (a few milliseconds) and starting threads
// would cost more than they save.
constexpr std::size_t one_thread_below = std::size_t{1} << 22;
constexpr int most_threads = 16;

std::atomic<bool> threads_allowed{false};  // Rng::allow_threads

template <class T>
void draw_share(std::uint64_t (&s)[4], T* values, std::size_t count, double lo, double hi) {
  // The expression Rng::uniform evaluates, term for term, so the values are the same bits.
  for (std::size_t i = 0; i < count; ++i)
    values[i] = static_cast<T>(lo + (hi - lo) * static_cast<double>(xoshiro_step(s) >> 11) * 0x1.0p-53);
}

// Share t is [t * share, min(count, (t + 1) * share)); it starts from the state `t * share` draws on. This thread
// draws share 0 and every share whose thread could not be started (RLIMIT_NPROC, memory), in order, so the values
// stay the same whatever starts. The generator ends where the last share ends.
template <class T>
void fill_in_shares(std::uint64_t (&state)[4], T* values, std::size_t count, double lo, double hi) {
  const int threads = Rng::fill_threads(count);
  if (threads == 1) {
    draw_share(state, values, count, lo, hi);
    return;
  }
  const std::size_t share = (count + threads - 1) / threads;
  const int shares = static_cast<int>((count + share - 1) / share);
  std::vector<std::array<std::uint64_t, 4>> starts(static_cast<std::size_t>(shares));
  const BitMatrix jump = steps_matrix(share);
  std::copy(state, state + 4, starts[0].begin());
  for (int t = 1; t < shares; ++t) {
    std::uint64_t s[4];
    std::copy(starts[t - 1].begin(), starts[t - 1].end(), s);
    apply_to_state(jump, s);
    std::copy(s, s + 4, starts[t].begin());
  }
  auto draw = [&](int t) {
    std::uint64_t s[4];
    std::copy(starts[t].begin(), starts[t].end(), s);
    const std::size_t first = static_cast<std::size_t>(t) * share;
    draw_share(s, values + first, std::min(count, first + share) - first, lo, hi);
    std::copy(s, s + 4, starts[t].begin());  // where share t ended
  };
  std::vector<std::thread> helpers;
  int first_not_started = shares;
  for (int t = 1; t < shares; ++t) {
    try {
      helpers.emplace_back(draw, t);
    } catch (const std::system_error&) {
      first_not_started = t;
      break;
    }
  }
  draw(0);
  for (int t = first_not_started; t < shares; ++t) draw(t);
  for (auto& helper : helpers) helper.join();
  std::copy(starts[shares - 1].begin(), starts[shares - 1].end(), state);
}

// Every element of values[0, count) set to `value`, in shares as fill_in_shares draws them (poison()).
template <class T>
void write_in_shares(T* values, std::size_t count, T value) {
  const int threads = Rng::fill_threads(count);
  const std::size_t share = (count + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
  auto write = [&](std::size_t first) { std::fill_n(values + first, std::min(count, first + share) - first, value); };
  std::vector<std::thread> helpers;
  std::size_t first_not_started = count;
  for (std::size_t first = share; first < count; first += share) {
    try {
      helpers.emplace_back(write, first);
    } catch (const std::system_error&) {
      first_not_started = first;
      break;
    }
  }
  if (count > 0) write(0);
  for (std::size_t first = first_not_started; first < count; first += share) write(first);
  for (auto& helper : helpers) helper.join();
}

template <class T>
void poison_in_shares(T* values, std::size_t count) {
  if constexpr (std::is_floating_point_v<T>) write_in_shares(values, count, std::numeric_limits<T>::quiet_NaN());
  else write_in_shares(values, count, std::numeric_limits<T>::max());
}

}  // namespace

void poison(float* values, std::size_t count) { poison_in_shares(values, count); }
void poison(double* values, std::size_t count) { poison_in_shares(values, count); }
void poison(std::int32_t* values, std::size_t count) { poison_in_shares(values, count); }
void poison(std::int64_t* values, std::size_t count) { poison_in_shares(values, count); }

Rng::Rng(std::uint64_t seed) {
  for (auto& word : s_) {  // splitmix64
    seed += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    word = z ^ (z >> 31);
  }
}

std::uint64_t Rng::next() { return xoshiro_step(s_); }

void Rng::allow_threads(bool allowed) { threads_allowed = allowed; }

int Rng::fill_threads(std::size_t count) {
  if (count < one_thread_below || !threads_allowed) return 1;
  cpu_set_t allowed;  // the CPUs this process may run on (a worker the grader pinned gets those)
  const int cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 1;
  return std::clamp(cpus, 1, most_threads);
}

void Rng::discard(std::uint64_t count) {
  if (count < 4096) {  // stepping is cheaper than the matrix
    for (; count != 0; --count) xoshiro_step(s_);
    return;
  }
  apply_to_state(steps_matrix(count), s_);
}

void Rng::fill(float* values, std::size_t count, double lo, double hi) { fill_in_shares(s_, values, count, lo, hi); }
void Rng::fill(double* values, std::size_t count, double lo, double hi) { fill_in_shares(s_, values, count, lo, hi); }
void Rng::fill(std::int32_t* values, std::size_t count, double lo, double hi) {
  fill_in_shares(s_, values, count, lo, hi);
}
void Rng::fill(std::int64_t* values, std::size_t count, double lo, double hi) {
  fill_in_shares(s_, values, count, lo, hi);
}

}  // namespace labkit
