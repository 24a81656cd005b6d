#include "measure/fresh.h"

namespace grader {

std::string FreshCalls::next(const std::string& variant, int calls) {
  const std::string name = replay(variant, next_);
  last_first_ = next_;
  next_ += static_cast<std::uint64_t>(calls > 0 ? calls : 0);
  return name;
}

std::string FreshCalls::replay(const std::string& variant, std::uint64_t index) const {
  return variant + "@" + std::to_string(seed_) + ":" + std::to_string(index);
}

}  // namespace grader
