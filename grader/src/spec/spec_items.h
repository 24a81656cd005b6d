// spec_items.h: the graded parts of lab.toml, [[correctness]] and [[performance]] (internal to grader/src/spec).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spec/lab_sources.h"
#include "spec/lab_spec.h"
#include "spec/spec_reader.h"

namespace grader {

// A tolerance table; a key left out keeps the value of `inherited` (the enclosing item's, or the lab's).
Tolerance read_tolerance(const SpecTable& table, const Tolerance& inherited);

// Refuses an expression that reads a name it will not be given at run time (neither a machine variable nor one of
// `param_names`), and a constant expression with no value (1/0). `owner` is "case" or "benchmark".
void check_expr(const SpecField& field, const Expr& expr, const std::vector<std::string>& param_names,
                std::string_view owner);

// A benchmark's `hints` (spec/spec_hints.cpp), read after its metric, flops and bytes.
std::vector<Hint> read_hints(const SpecField& field, const PerformanceItem& item,
                             const std::vector<std::string>& param_names);

// [handout] names (spec/spec_handout.cpp): how the generated handout tables write parts of expressions.
std::vector<HandoutName> read_handout_names(const SpecTable& root);

// Who runs a variant: the student's build (a graded variant, a candidate baseline, "candidate:<v>" in compare) or
// the judge's alone (a judge baseline, a cap, a bound, a compare).
enum class VariantRunner { candidate, judge };

// A variant the harness does not know, or a candidate variant the header declares nothing for, would end every
// grading in the harness's own error, reported as the grader's internal error: refused at `field`, where lab.toml
// names it (spec/spec_variants.cpp).
void check_variant(const SpecField& field, const std::string& variant, const LabSources& sources, VariantRunner runs);

// Both check every variant they name against the lab's sources (spec/lab_sources.h).
std::vector<CorrectnessItem> read_correctness_items(const SpecTable& root, const Tolerance& lab_tolerance,
                                                    const LabSources& sources);

// A benchmark's parameter table (checked as performance[].params is): a step's timing band reads it too.
std::vector<Param> read_benchmark_params(const SpecField& table);

// [steps] (spec/spec_steps.cpp), read after the items, whose variants a step must name.
void read_steps_section(const SpecTable& root, LabSpec& spec);

// Reads after the correctness items, which `requires` names and whose variants gate performance points.
std::vector<PerformanceItem> read_performance_items(const SpecTable& root,
                                                    const std::vector<CorrectnessItem>& correctness,
                                                    const Tolerance& lab_tolerance, const LabSources& sources);

}  // namespace grader
