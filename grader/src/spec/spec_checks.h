// spec_checks.h: what lab.toml's reader can prove before any submission is graded, by evaluating the spec's
// expressions for every thread count a machine may have (1 to 1024). Without these, a size of 0, a `flops` that
// divides by zero or a tier ladder that descends on a 64-thread node surfaced only when students were graded,
// as their failure.
#pragma once

#include <filesystem>

#include "spec/lab_sources.h"
#include "spec/lab_spec.h"

namespace grader {

// Case and benchmark parameters: finite and at most 2^40 in size; whole numbers from 0 where written as integers or
// expressions or read by the harness with params.integer(), and from 1 for sizes (names a benchmark's `flops` or
// `bytes` reads), in every case and benchmark; together they multiply to at most 2^57, and where they give a
// benchmark's `bytes`, it fits [limits] memory_mb. `flops` and `bytes` finite and not negative; `cpu_threads` at
// least 1; tiers given by expressions strictly ascending. A lab with no graded item. Throws SpecError at the case,
// benchmark or tier.
void check_spec_values(const LabSpec& spec, const LabSources& sources);

// Every `dataset` a case names is an entry of <root>/datasets/<lab>/manifest.toml, whose parameters obey the rules
// of check_spec_values. Throws SpecError at the case.
// Called where a lab is loaded to be used (cli/common.cpp's load_lab), not by load_lab_spec: `grader release`
// validates a released lab.toml before it writes the lab's datasets beside it.
void check_spec_datasets(const LabSpec& spec, const std::filesystem::path& root);

}  // namespace grader
