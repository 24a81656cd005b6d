// fresh_inputs.cpp: see fresh_inputs.h.
#include "fresh_inputs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
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
  std::map<std::string, std::vector<std::int64_t>> touched;
  std::set<std::string> whole;
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {  // reverse: a position changed twice ends original
    std::memcpy(element(it->array, it->offset), it->bytes, dtype_size(arrays_[it->array].dtype));
    touched[arrays_[it->array].name].push_back(it->offset);
  }
  saved_.clear();
  if (rotation_ != 0) {  // undone after the elements: they were changed in the rotated array
    rotate_left(rotated_, arrays_[rotated_].elements() - rotation_);
    whole.insert(arrays_[rotated_].name);
    rotation_ = 0;
  }
  if (index != 0) {
    if (arrays_.empty()) {
      arrays_ = problem.inputs();
      rotated_ = array_to_rotate();
    }
    std::uint64_t mixed = seed ^ (index * 0x9e3779b97f4a7c15ULL);
    Rng rng(mixed);
    if (rotated_ < arrays_.size()) {
      rotation_ = rotation(arrays_[rotated_], rng);
      rotate_left(rotated_, rotation_);
      whole.insert(arrays_[rotated_].name);
    }
    const int count = std::max(1, problem.fresh_elements());
    for (std::size_t a = 0; a < arrays_.size(); ++a) {
      const ArrayRef& array = arrays_[a];
      const std::int64_t n = array.elements();
      if (n < 2) continue;
      const std::size_t size = dtype_size(array.dtype);
      for (int k = 0; k < count; ++k) {
        const std::int64_t target = rng.below(n), source = rng.below(n);
        if (target == source || !finite_element(array, target) || !finite_element(array, source)) continue;
        Saved saved{a, target, {}};
        std::memcpy(saved.bytes, element(a, target), size);
        saved_.push_back(saved);
        std::memcpy(element(a, target), element(a, source), size);
        touched[array.name].push_back(target);
      }
    }
  }
  for (const auto& name : whole) {  // every element of a rotated array changed
    auto& elements = touched[name];
    elements.resize(static_cast<std::size_t>(elements_of(name)));
    std::iota(elements.begin(), elements.end(), std::int64_t{0});
  }
  if (touched.empty()) return;
  std::vector<Problem::Changed> changed;
  for (auto& [name, elements] : touched) changed.push_back({name, std::move(elements), whole.count(name) > 0});
  problem.inputs_changed(changed);
}

std::size_t FreshInputs::array_to_rotate() const {
  std::size_t best = arrays_.size();
  if (arrays_.size() < 2) return best;
  for (std::size_t a = 0; a < arrays_.size(); ++a) {
    const ArrayRef& array = arrays_[a];
    if (array.elements() < 2 || (best < arrays_.size() && array.bytes() >= arrays_[best].bytes())) continue;
    bool finite = true;
    for (std::int64_t i = 0; i < array.elements() && finite; ++i) finite = finite_element(array, i);
    if (finite) best = a;
  }
  return best;
}

std::int64_t FreshInputs::rotation(const ArrayRef& array, Rng& rng) {
  const std::int64_t n = array.elements();
  const std::int64_t row = array.shape.size() > 1 ? array.shape.back() : 0;
  std::int64_t by = 1 + rng.below(n - 1);
  if (row > 1 && by % row == 0) by = by + 1 < n ? by + 1 : 1;
  return by;
}

void FreshInputs::rotate_left(std::size_t array, std::int64_t by) {
  auto* first = static_cast<char*>(element(array, 0));
  const auto size = static_cast<std::int64_t>(dtype_size(arrays_[array].dtype));
  std::rotate(first, first + by * size, first + arrays_[array].elements() * size);
}

std::int64_t FreshInputs::elements_of(const std::string& name) const {
  for (const auto& array : arrays_)
    if (array.name == name) return array.elements();
  return 0;
}

void* FreshInputs::element(std::size_t array, std::int64_t offset) {
  return const_cast<char*>(static_cast<const char*>(arrays_[array].data)) +
         offset * static_cast<std::int64_t>(dtype_size(arrays_[array].dtype));
}

}  // namespace labkit
