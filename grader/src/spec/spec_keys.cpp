// spec_keys.cpp: every key lab.toml may contain. The parser refuses any other key, and a test proves that
// docs/lab-toml.md documents each one, so this list is the single place where a key comes into existence.
//
// A path names a key by its tables, "[]" standing for each element of an array of tables:
// "correctness[].cases[].dataset" is the dataset key of any case of any [[correctness]] item.
// Parameter tables (".params") list free names and have no entries of their own here.
#include "spec/lab_spec.h"

namespace grader {

const std::vector<std::string>& known_spec_keys() {
  static const std::vector<std::string> keys{
      "lab",
      "lab.id",
      "lab.slug",
      "lab.title",
      "lab.gpu",
      "lab.withheld",

      "build",
      "build.language",
      "build.student_files",
      "build.headers",
      "build.harness",
      "build.baseline",
      "build.flags",
      "build.link_flags",
      "build.judge_link_flags",
      "build.max_file_kb",

      "policy",
      "policy.forbid",
      "policy.allow",
      "policy.forbid_headers",

      "limits",
      "limits.wall_seconds",
      "limits.cpu_seconds",
      "limits.memory_mb",
      "limits.output_kb",
      "limits.processes",
      "limits.file_mb",
      "limits.open_files",

      "timing",
      "timing.warmup",
      "timing.min_reps",
      "timing.max_reps",
      "timing.max_seconds",
      "timing.target_noise",
      "timing.noise_retry_seconds",

      "tolerance",
      "tolerance.rtol",
      "tolerance.atol",

      "correctness",
      "correctness[].name",
      "correctness[].points",
      "correctness[].variants",
      "correctness[].build_flags",
      "correctness[].tolerance",
      "correctness[].tolerance.rtol",
      "correctness[].tolerance.atol",
      "correctness[].cases",
      "correctness[].cases[].name",
      "correctness[].cases[].params",
      "correctness[].cases[].dataset",
      "correctness[].cases[].visibility",
      "correctness[].cases[].tolerance",
      "correctness[].cases[].tolerance.rtol",
      "correctness[].cases[].tolerance.atol",

      "performance",
      "performance[].name",
      "performance[].variant",
      "performance[].params",
      "performance[].baseline",
      "performance[].baseline.process",
      "performance[].baseline.variant",
      "performance[].baseline.params",
      "performance[].baseline.cap",
      "performance[].baseline.oracle",
      "performance[].compare",
      "performance[].bound",
      "performance[].flops",
      "performance[].bytes",
      "performance[].metric",
      "performance[].precision",
      "performance[].memory",
      "performance[].requires_machine",
      "performance[].cpu_threads",
      "performance[].tiers",
      "performance[].tiers[].at",
      "performance[].tiers[].points",
      "performance[].hints",
      "performance[].hints[].below",
      "performance[].hints[].of",
      "performance[].hints[].text",
      "performance[].hints[].when",
      "performance[].requires",
      "performance[].visibility",
      "performance[].tolerance",
      "performance[].tolerance.rtol",
      "performance[].tolerance.atol",

      "handout",
      "handout.names",
      "handout.names[].name",
      "handout.names[].means",
      "handout.names[].text",

      "steps",
      "steps.best",
      "steps.forbid",
      "steps.step",
      "steps.step[].variant",
      "steps.step[].function",
      "steps.step[].requires",
      "steps.step[].forbids",
      "steps.step[].judge",
      "steps.step[].params",
      "steps.step[].max_speedup",
  };
  return keys;
}

const std::vector<std::pair<std::string, std::vector<std::string>>>& known_spec_value_forms() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> forms{
      {"build.language", {"c++", "cuda"}},
      {"visibility", {"visible", "hidden", "after_due_date"}},  // of a case and of a performance item
      {"performance[].baseline.process", {"judge", "candidate"}},
      {"performance[].compare", {"<variant>", std::string(candidate_compare_prefix) + "<variant>"}},
      {"performance[].metric", {"speedup", "roofline"}},
      {"performance[].precision", {"fp32", "fp64"}},
      {"performance[].memory", {"read_write", "read"}},
  };
  return forms;
}

const std::vector<std::string>& known_spec_values(std::string_view key) {
  for (const auto& [name, values] : known_spec_value_forms())
    if (name == key) return values;
  throw std::logic_error("no value forms are listed for '" + std::string(key) + "'");
}

}  // namespace grader
