// fresh_inputs.cpp: see fresh_inputs.h.
#include "fresh_inputs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

namespace labkit {

namespace {

bool finite_element(const ArrayRef& array, std::int64_t i) {
  switch (array.dtype) {
    case DType::f32: return std::isfinite(static_cast<const float*>(array.data)[i]);
    case DType::f64: return std::isfinite(static_cast<const double*>(array.data)[i]);
    default: return true;
  }
}

}  // namespace

void FreshInputs::apply(Problem& problem, std::uint64_t seed, std::uint64_t index) {
  if (index != 0 && arrays_.empty()) {
    arrays_ = problem.inputs();
    rotated_ = array_to_rotate();
    // Rotated where the calls read it (a device copy) if the harness can; else the host array is rebuilt from
    // this copy of what setup() made.
    rotated_elsewhere_ = rotated_ < arrays_.size() && problem.rotate_copy(arrays_[rotated_].name, 0);
    if (rotated_ < arrays_.size() && !rotated_elsewhere_) {
      const auto* first = static_cast<const unsigned char*>(arrays_[rotated_].data);
      pristine_.assign(first, first + arrays_[rotated_].bytes());
    }
  }
  std::map<std::string, std::vector<std::int64_t>> touched;
  std::set<std::string> whole;
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {  // reverse: a position changed twice ends original
    std::memcpy(element(it->array, it->offset), it->bytes, dtype_size(arrays_[it->array].dtype));
    if (it->array != rotated_) touched[arrays_[it->array].name].push_back(it->offset);
  }
  saved_.clear();
  const bool was_rotated = rotation_ != 0;
  rotation_ = 0;
  Rng rng(seed ^ (index * 0x9e3779b97f4a7c15ULL));
  if (index != 0 && rotated_ < arrays_.size()) rotation_ = rotation(arrays_[rotated_], rng);
  if ((was_rotated || rotation_ != 0) && rotated_elsewhere_) {
    problem.rotate_copy(arrays_[rotated_].name, rotation_);
  } else if (was_rotated || rotation_ != 0) {  // also undoes the element changes made in it
    copy_rotated_from_pristine(rotation_);
    whole.insert(arrays_[rotated_].name);
  }
  if (index != 0) {
    const int count = std::max(1, problem.fresh_elements());
    for (std::size_t a = 0; a < arrays_.size(); ++a) {
      const ArrayRef& array = arrays_[a];
      const std::int64_t n = array.elements();
      if (n < 2) continue;
      const std::size_t size = dtype_size(array.dtype);
      for (int k = 0; k < count; ++k) {
        const std::int64_t target = rng.below(n), source = rng.below(n);
        if (a == rotated_ && rotated_elsewhere_) continue;  // its host array is not what the calls read
        if (target == source || !finite_element(array, target) || !finite_element(array, source)) continue;
        Saved saved{a, target, {}};
        std::memcpy(saved.bytes, element(a, target), size);
        saved_.push_back(saved);
        std::memcpy(element(a, target), element(a, source), size);
        if (a != rotated_) touched[array.name].push_back(target);
      }
    }
  }
  if (touched.empty() && whole.empty()) return;
  std::vector<Problem::Changed> changed;
  for (auto& [name, elements] : touched) changed.push_back({name, std::move(elements), false});
  for (const auto& name : whole) changed.push_back({name, {}, true});  // every element: no list of them
  problem.inputs_changed(changed);
}

std::size_t FreshInputs::array_to_rotate() const {
  if (arrays_.size() < 2) return arrays_.size();
  // Smallest first (the first listed among equals), so the scan for non-finite values stops at the first array
  // that has none: scanned in the order listed, lab 6's 1 GiB A was read whole at every item's first fresh call,
  // in both workers, before x (64 KiB) was found to be the one.
  std::vector<std::size_t> by_size(arrays_.size());
  for (std::size_t a = 0; a < arrays_.size(); ++a) by_size[a] = a;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [this](std::size_t l, std::size_t r) { return arrays_[l].bytes() < arrays_[r].bytes(); });
  for (const std::size_t a : by_size) {
    const ArrayRef& array = arrays_[a];
    if (array.elements() < 2) continue;
    bool finite = true;
    for (std::int64_t i = 0; i < array.elements() && finite; ++i) finite = finite_element(array, i);
    if (finite) return a;
  }
  return arrays_.size();
}

std::int64_t FreshInputs::rotation(const ArrayRef& array, Rng& rng) {
  const std::int64_t n = array.elements();
  const std::int64_t row = array.shape.size() > 1 ? array.shape.back() : 0;
  std::int64_t by = 1 + rng.below(n - 1);
  if (row > 1 && by % row == 0) by = by + 1 < n ? by + 1 : 1;
  return by;
}

void FreshInputs::copy_rotated_from_pristine(std::int64_t by) {
  // Two copies of the saved original, in one pass: an in-place std::rotate moves single bytes around cycles
  // and costs several times more (a 64 MB operand of lab 7: 23 ms against 4).
  auto* first = static_cast<unsigned char*>(element(rotated_, 0));
  const std::size_t bytes = pristine_.size();
  const std::size_t shift = static_cast<std::size_t>(by) * dtype_size(arrays_[rotated_].dtype);
  std::memcpy(first, pristine_.data() + shift, bytes - shift);
  std::memcpy(first + (bytes - shift), pristine_.data(), shift);
}

void* FreshInputs::element(std::size_t array, std::int64_t offset) {
  return const_cast<char*>(static_cast<const char*>(arrays_[array].data)) +
         offset * static_cast<std::int64_t>(dtype_size(arrays_[array].dtype));
}

}  // namespace labkit
