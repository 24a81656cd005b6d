// summary.h: summary.md, the class at a glance for the TA, derived from the students' reports like the
// gradebook: the score histogram, mean and median, how many students ended in each status, how many did
// not build, the fastest and slowest correct submissions by the first performance item's candidate median
// time, and the students who need a human (internal errors, refused archives); after a --gpus batch, which GPU graded
// whom and any GPU taken out of rotation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "spec/lab_spec.h"

namespace grader {

struct SummaryFacts {
  std::size_t roster_size = 0;                // students in the submissions folder
  std::vector<std::string> not_graded;        // in the roster, without a finished report
  std::string gpu_section;                    // --gpus: paragraphs from batch/gpu_batch.h, empty otherwise
};

std::string summary_markdown(const LabSpec& spec, const std::vector<nlohmann::json>& reports, const SummaryFacts& facts);

}  // namespace grader
