// look.h: a timed variant's facts as the report shows them (report.h, CodeLook): one row per fact the submission or
// the reference has, the submission's beside the reference's, and the listing of the submission's hot loop (CPU) or
// of its first kernel's PTX (CUDA). The reference's listing is never shown: it would be the answer.
#pragma once

#include <optional>

#include "inspect/code_facts.h"
#include "report/report.h"

namespace grader {

// `yours` or `reference` may be absent (not found, not read); `note` says why, for the report. `your_counters` and
// `reference_counters`: facts from a profiled call (inspect/counters.h, counter_variables), shown as rows like the rest.
CodeLook make_look(const std::optional<VariantFacts>& yours, const std::optional<VariantFacts>& reference,
                   const std::string& note, const Variables& your_counters = {}, const Variables& reference_counters = {});

// Longest listing a report carries: a hot loop is a few dozen lines; a kernel's PTX can run to thousands.
inline constexpr std::size_t listing_lines = 400;

}  // namespace grader
