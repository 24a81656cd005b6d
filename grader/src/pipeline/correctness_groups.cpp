#include "pipeline/correctness_groups.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <utility>

namespace grader {

std::vector<std::vector<std::size_t>> correctness_groups(const std::vector<CorrectnessItem>& items) {
  std::vector<std::size_t> group_of(items.size());
  std::iota(group_of.begin(), group_of.end(), std::size_t{0});
  // By (build flags, variant): the key of the process the items share (Grading::candidate_for).
  std::map<std::pair<std::vector<std::string>, std::string>, std::size_t> first_with;
  for (std::size_t i = 0; i < items.size(); ++i)
    for (const auto& variant : items[i].variants) {
      const auto [found, fresh] = first_with.emplace(std::make_pair(items[i].build_flags, variant), i);
      if (fresh) continue;
      const std::size_t from = group_of[i], into = group_of[found->second];
      for (auto& g : group_of)
        if (g == from) g = into;
    }
  std::map<std::size_t, std::vector<std::size_t>> groups;  // by the group's mark, members in the items' order
  for (std::size_t i = 0; i < items.size(); ++i) groups[group_of[i]].push_back(i);
  std::vector<std::vector<std::size_t>> ordered;
  for (auto& [mark, members] : groups) ordered.push_back(std::move(members));
  std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return ordered;
}

}  // namespace grader
