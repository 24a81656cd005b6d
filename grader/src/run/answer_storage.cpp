// answer_storage.cpp: see answer_storage.h.
#include "run/answer_storage.h"

#include <algorithm>
#include <utility>

namespace grader {

std::vector<std::byte> AnswerStorage::take(std::size_t bytes) {
  auto best = kept_.end();
  for (auto it = kept_.begin(); it != kept_.end(); ++it)
    if (it->capacity() >= bytes && (best == kept_.end() || it->capacity() < best->capacity())) best = it;
  if (best == kept_.end()) return std::vector<std::byte>(bytes);
  std::vector<std::byte> storage = std::move(*best);
  kept_.erase(best);
  // Its old size's bytes are in place already: shrinking writes nothing, and growing zeroes only the rest.
  storage.resize(bytes);
  return storage;
}

void AnswerStorage::keep(std::vector<Array>& arrays) {
  for (auto& array : arrays) {
    if (array.bytes.capacity() >= least_kept_bytes) kept_.push_back(std::move(array.bytes));
    array.bytes = {};
  }
  // The largest stay: a smaller one cannot hold the next answer of the largest size.
  std::sort(kept_.begin(), kept_.end(), [](const auto& l, const auto& r) { return l.capacity() > r.capacity(); });
  if (kept_.size() > most_kept) kept_.resize(most_kept);
}

}  // namespace grader
