// labkit.h: what a lab harness is written against.
//
// A harness describes one problem (inputs, outputs, how to call each implementation) by deriving from
// labkit::Problem and registering it with LABKIT_PROBLEM. The lab kit supplies main(): it talks to the
// grader over the worker protocol (see worker_protocol.md beside the lab kit sources), builds the problem
// for each case, poisons outputs, calls the implementation, times it and sends outputs back. The same
// harness is linked twice: with the student's code (the candidate) and with the lab's baseline (the judge).
//
//   struct Matvec : labkit::Problem {
//     std::vector<double> a, x, y; int64_t m = 0, n = 0;
//     std::vector<std::string> variants() const override { return {"rowptr", "contiguous"}; }
//     void setup(labkit::Case& c) override {
//       m = c.params.integer("m"); n = c.params.integer("n");
//       c.input("a", a, {m, n}, -1.0, 1.0);   // from the dataset if the grader sent one, else random
//       c.input("x", x, {n}, -1.0, 1.0);
//       y.resize(m);
//     }
//     void poison() override { labkit::poison(y); }
//     void run(std::string_view v) override { if (v == "contiguous") matvec(a.data(), ...); ... }
//     std::vector<labkit::ArrayRef> inputs() override { return {labkit::ref("a", a, {m, n}), ...}; }
//     std::vector<labkit::ArrayRef> outputs() override { return {labkit::ref("y", y, {m})}; }
//   };
//   LABKIT_PROBLEM(Matvec)
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace labkit {

// A harness error (bad parameters, a shape that does not match): reported to the grader as an internal
// error of the lab, never blamed on the student.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class DType : std::uint8_t { f32, f64, i32, i64 };

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::f32;
  else if constexpr (std::is_same_v<T, double>) return DType::f64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return DType::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return DType::i64;
  else static_assert(sizeof(T) == 0, "labkit arrays hold float, double, int32_t or int64_t");
}

inline std::size_t dtype_size(DType t) { return (t == DType::f32 || t == DType::i32) ? 4 : 8; }
const char* dtype_name(DType t);  // "f32", "f64", "i32", "i64": the names the protocol uses

// A named, shaped view of host memory the harness owns. Row-major.
struct ArrayRef {
  std::string name;
  DType dtype = DType::f64;
  std::vector<std::int64_t> shape;
  const void* data = nullptr;

  std::int64_t elements() const {
    std::int64_t count = 1;
    for (auto extent : shape) count *= extent;
    return count;
  }
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * dtype_size(dtype); }
};

template <class T>
ArrayRef ref(std::string name, const std::vector<T>& values, std::vector<std::int64_t> shape) {
  return ArrayRef{std::move(name), dtype_of<T>(), std::move(shape), values.data()};
}
template <class T>
ArrayRef ref(std::string name, const T* values, std::vector<std::int64_t> shape) {
  return ArrayRef{std::move(name), dtype_of<T>(), std::move(shape), values};
}

// Case parameters from lab.toml, already evaluated by the grader (numbers only).
class Params {
 public:
  std::int64_t integer(std::string_view key) const;
  std::int64_t integer(std::string_view key, std::int64_t fallback) const;
  double real(std::string_view key) const;
  double real(std::string_view key, double fallback) const;
  bool has(std::string_view key) const { return values_.count(std::string(key)) != 0; }

  void set(std::string key, double value) { values_[std::move(key)] = value; }
  const std::map<std::string, double>& all() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

// xoshiro256** seeded through splitmix64: fast, and the same stream on every machine and compiler,
// so a seed replays a case exactly (std::uniform_real_distribution is not portable across libraries).
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  double uniform(double lo, double hi) {  // [lo, hi)
    return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }
  std::int64_t below(std::int64_t bound) { return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(bound)); }

  // values[i] = uniform(lo, hi) converted to the element type, for i < count, in order: the same values, and the
  // same generator state after, as count calls of uniform(). Where the process may start threads (allow_threads), a
  // large array is drawn in shares by several threads, each starting at its share's first draw (discard), so that
  // setting up a 2^28-element input costs milliseconds, not a second in each of the candidate's and the judge's
  // workers for every timed item (lab 8; lab 6's 1 GiB A).
  void fill(float* values, std::size_t count, double lo, double hi);
  void fill(double* values, std::size_t count, double lo, double hi);
  void fill(std::int32_t* values, std::size_t count, double lo, double hi);
  void fill(std::int64_t* values, std::size_t count, double lo, double hi);
  template <class T>
  void fill(std::vector<T>& values, double lo, double hi) {
    fill(values.data(), values.size(), lo, hi);
  }

  // Moves the generator `count` draws on, as count calls of next() would, in about 2 log2(count) products of
  // 256 x 256 bit matrices (the generator's step is linear over GF(2)): a jump-ahead to any position.
  void discard(std::uint64_t count);

  // Whether fill() may start threads in this process: the lab kit's main() sets it from the problem
  // (Problem::may_start_threads) before each setup. Off by default: the syscall filter ends a candidate that starts
  // a thread in a lab that does not allow threads (SIGSYS), whoever's code starts it.
  static void allow_threads(bool allowed);
  // The threads fill() would draw `count` elements with: 1 below 2^22 elements or where threads are not allowed,
  // else the CPUs this process may run on, at most 16.
  static int fill_threads(std::size_t count);

 private:
  std::uint64_t s_[4];
};

// What setup() gets for one case: its parameters, its seed, a generator seeded from it, and any input
// arrays the grader sent (public dataset cases).
class Case {
 public:
  Case(Params params, std::uint64_t seed, std::map<std::string, ArrayRef> supplied)
      : params(std::move(params)), seed(seed), rng(seed), supplied_(std::move(supplied)) {}

  const Params params;
  const std::uint64_t seed;
  Rng rng;

  // Fills `values` with the input called `name`: the grader's array when it sent one (its shape must
  // equal `shape`), otherwise uniform random numbers in [lo, hi) drawn from this case's generator.
  template <class T>
  void input(std::string_view name, std::vector<T>& values, const std::vector<std::int64_t>& shape, double lo, double hi) {
    std::int64_t count = 1;
    for (auto extent : shape) count *= extent;
    values.resize(static_cast<std::size_t>(count));
    if (const ArrayRef* given = supplied(name)) {
      check_supplied(*given, dtype_of<T>(), shape);
      std::memcpy(values.data(), given->data, given->bytes());
    } else {
      rng.fill(values, lo, hi);
    }
  }
  const ArrayRef* supplied(std::string_view name) const;

 private:
  void check_supplied(const ArrayRef& given, DType dtype, const std::vector<std::int64_t>& shape) const;
  std::map<std::string, ArrayRef> supplied_;
};

// Fills outputs with a value no correct implementation writes: NaN for floating point (and NaN never
// passes a check), a large sentinel for integers. Run before every call, so unwritten elements show.
template <class T>
void poison(std::vector<T>& values) {
  if constexpr (std::is_floating_point_v<T>) {
    for (auto& v : values) v = std::numeric_limits<T>::quiet_NaN();
  } else {
    for (auto& v : values) v = std::numeric_limits<T>::max();
  }
}

// The same for `count` elements at `values`: host memory a harness holds outside a vector (lab 6's y, which the code
// under test allocates). A large array is written in shares by several threads where the process may start them
// (Rng::fill_threads): lab 6's 256 MiB y was poisoned on one thread before every call, some 35 calls an item.
void poison(float* values, std::size_t count);
void poison(double* values, std::size_t count);
void poison(std::int32_t* values, std::size_t count);
void poison(std::int64_t* values, std::size_t count);

// One lab's problem. The lab kit drives it: setup once per case or benchmark, then for each call
// poison(), run() and finish(); outputs() is read after the last call.
class Problem {
 public:
  virtual ~Problem() = default;

  // The implementations the harness can call, by the names lab.toml uses.
  virtual std::vector<std::string> variants() const = 0;

  // Builds inputs for a case (from c.params and c.rng, or arrays the grader supplied) and allocates outputs.
  virtual void setup(Case& c) = 0;

  // Marks every output element as not yet written.
  virtual void poison() = 0;

  // Calls implementation `variant` once. May return before the work is done (GPU launches).
  virtual void run(std::string_view variant) = 0;

  // Waits until everything run() started has finished (GPU harnesses synchronise the whole device).
  virtual void finish() {}

  // Brackets the one call the grader profiles (a `run` command with "profile": true): true before run(), false
  // after finish(). GPU harnesses tell Nsight Compute, which the grader starts with profiling off, to count
  // between the two (CudaProblem: cudaProfilerStart/Stop), so setup and the poisoning of outputs are left out.
  virtual void profile(bool on) { (void)on; }

  // Between timed trials: whatever keeps a trial honest and cold where the lab asks (flush caches,
  // perturb inputs). Not timed.
  virtual void prepare_trial() {}

  // Fresh inputs. Every timed call (and every run the grader checks it against) sees inputs no earlier call of
  // its process saw: before each such call the lab kit restores the inputs set up, then changes a few elements
  // of every array inputs() returns, at positions drawn from the grader's per-run seed and the call's index.
  // Each changed element takes the value of another element of the same array (so values stay in the range and
  // kind the harness drew: whole numbers stay whole); NaN and Inf are never moved, so a harness may mark unused
  // entries with NaN (lab 3's upper triangle). The judge applies the same change for the same call index, so
  // the grader compares the candidate's outputs with the judge's for the same inputs.
  //
  // inputs() must therefore return views of the harness's own arrays, the very memory the calls read. A
  // harness that also keeps a copy elsewhere (device memory, a second layout) brings it up to date here:
  // `changed` lists, per input array (by name), the elements whose values changed since the last call.
  // CudaProblem updates the device copies named with mirror(); see cuda.h.
  //
  // Where a call has two inputs or more, the smallest one whose values are all finite is also rotated as a whole
  // (by a secret number of elements, never whole rows), so that no part of the last answer still holds: `all`
  // then says that every element of it changed, and `elements` is empty (a copy is cheaper to replace whole than
  // element by element, and a list of every element would cost more than the call being timed).
  struct Changed {
    std::string name;
    std::vector<std::int64_t> elements;  // row-major offsets into the array inputs() returned under `name`
    bool all = false;                    // every element of the array changed (it was rotated); `elements` empty
  };
  virtual void inputs_changed(const std::vector<Changed>& changed) { (void)changed; }

  // The rotated input, where the calls read a copy of it kept elsewhere (device memory): the harness may rotate
  // that copy itself, left by `by` elements of setup()'s original (0: the original), and return true. The lab kit
  // then leaves the host array as setup() made it, changes no single element of it, and does not report it to
  // inputs_changed(). The default (false) has the lab kit rotate the host array. CudaProblem rotates the inputs
  // named with mirror() on the device (cuda.h).
  virtual bool rotate_copy(const std::string& name, std::int64_t by) {
    (void)name;
    (void)by;
    return false;
  }

  // Whether the lab kit may start threads of its own in this process (Rng::fill of a large input). Only where the
  // syscall filter lets the lab's processes start threads (policy.h, lab_allows_threads): every GPU lab, since the
  // CUDA runtime starts threads of its own; CudaProblem says yes. A CPU lab's candidate that started one would trap.
  virtual bool may_start_threads() const { return false; }

  // How many elements of each input array the lab kit changes before a fresh call. Enough that a cache keyed
  // on a sample of the inputs misses a change, and that a stale answer fails the check; a harness whose
  // outputs depend on the inputs only weakly (a sum with a loose tolerance) may ask for more.
  virtual int fresh_elements() const { return 64; }

  // Seconds for one call of `variant`, from the start of run() to the end of finish(). CPU harnesses keep
  // this default (a steady clock); GPU harnesses override it with device events.
  virtual double time_once(std::string_view variant);

  // Views of the inputs and outputs, host memory. Read after finish(); a GPU harness copies back here.
  virtual std::vector<ArrayRef> inputs() = 0;
  virtual std::vector<ArrayRef> outputs() = 0;
};

using ProblemFactory = std::unique_ptr<Problem> (*)();
// Called once by LABKIT_PROBLEM; the lab kit's main() uses the factory it registered.
bool register_problem(ProblemFactory factory);

}  // namespace labkit

#define LABKIT_PROBLEM(Type)                                                                  \
  static const bool labkit_problem_registered_ =                                              \
      ::labkit::register_problem([]() -> std::unique_ptr<::labkit::Problem> { return std::make_unique<Type>(); });
