// params.cpp: evaluates a case's or benchmark's parameters, which may read each other, in dependency order.
#include <algorithm>
#include <set>

#include "spec/lab_spec.h"

namespace grader {

Variables evaluate_params(const std::vector<Param>& params, const Variables& machine) {
  Variables values = machine;
  std::set<std::string> pending;
  for (const Param& param : params) pending.insert(param.name);

  // Tables are a handful of entries, so repeated passes are simpler than a topological sort and as fast.
  while (!pending.empty()) {
    bool progressed = false;
    for (const Param& param : params) {
      if (pending.count(param.name) == 0) continue;
      const std::vector<std::string> reads = param.value.names();
      const bool ready =
          std::none_of(reads.begin(), reads.end(), [&](const std::string& name) { return pending.count(name) != 0; });
      if (!ready) continue;
      values[param.name] = param.value.evaluate(values);  // an unknown name throws here, naming it
      pending.erase(param.name);
      progressed = true;
    }
    if (!progressed) {
      std::string names;
      for (const std::string& name : pending) names += (names.empty() ? "" : ", ") + name;
      throw ExprEvalError("parameters that read each other in a cycle: " + names);
    }
  }
  return values;
}

}  // namespace grader
