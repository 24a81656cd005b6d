// look.h: a timed variant's facts as the report shows them (report.h, CodeLook): one row per fact the submission or
// the reference has, the submission's beside the reference's, and the listing of the submission's hot loop (CPU) or
// of its first kernel's PTX (CUDA). The reference's listing is never shown: it would be the answer.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inspect/code_facts.h"
#include "report/report.h"

namespace grader {

// The student's source files by file name ("matvec.cpp"), one string a line: the lines the listing shows.
using SourceFiles = std::map<std::string, std::vector<std::string>>;

// `yours` or `reference` may be absent (not found, not read); `note` says why, for the report. `your_counters` and
// `reference_counters`: facts from a profiled call (inspect/counters.h, counter_variables), shown as rows like the rest.
// `sources`: the submission's files, for the hot loop's source lines.
CodeLook make_look(const std::optional<VariantFacts>& yours, const std::optional<VariantFacts>& reference,
                   const std::string& note, const Variables& your_counters = {}, const Variables& reference_counters = {},
                   const SourceFiles& sources = {});

// The hot loop's instructions under the source lines they came from, in source order (files in the order the loop
// first reaches them). Empty where no instruction has a source line.
std::vector<SourceLine> source_listing(const CpuLoop& loop, const SourceFiles& sources);

// Longest listing a report carries: a hot loop is a few dozen lines; a kernel's PTX can run to thousands.
inline constexpr std::size_t listing_lines = 400;

}  // namespace grader
