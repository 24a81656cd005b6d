// fact_list.h: every fact and counter the grader can name, in one list: the variables lab.toml's hint conditions and
// step rules may read, the rows of a report's "what your code does", and what docs/student-guide.md explains (a
// test holds the guide to this list). A reference's value of fact `x` is the variable `reference_x`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

enum class FactSource { cpu_code, gpu_code, gpu_counter, cpu_counter };

// How a value reads in a report.
enum class FactFormat {
  count,        // 12
  ratio,        // 1.50
  bits,         // 256-bit; for vector_bits: scalar (64-bit), none (0)
  bytes,        // 4096 B
  percent,      // 62%: a fraction 0..1
};

struct FactDefinition {
  std::string_view key;    // "vector_bits": the variable's name
  std::string_view label;  // "vector width of the hot loop"
  FactSource source;
  FactFormat format;
};

const std::vector<FactDefinition>& fact_definitions();
const FactDefinition* find_fact(std::string_view key);

// The prefix of a reference's value: reference_vector_bits.
inline constexpr std::string_view reference_prefix = "reference_";

// Whether `name` is a fact, a counter or a reference's value of one: what a hint condition may read beside the
// item's parameters and the machine's variables.
bool is_fact_variable(std::string_view name);

// The value as a report shows it ("ymm (256-bit)", "4", "62%").
std::string format_fact(const FactDefinition& fact, double value);

}  // namespace grader
