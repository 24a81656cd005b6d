// report.h: what a TA reads of the similarity stage, all written into --out and nowhere else (it holds students'
// code):
//   similarity.html            the pairs at or above the threshold, highest first, each file's share, reviewed marks
//   similarity.csv             every pair with anything in common, for spreadsheets (cells escaped as grades.csv's)
//   similarity/pair-<h>.html   one page per pair above the threshold: both submissions side by side, each matched
//                              region marked and linked to its other half; starter lines greyed, not counted
#pragma once

#include <string>
#include <vector>

#include "similarity/compare.h"
#include "similarity/corpus.h"
#include "similarity/reviewed.h"
#include "spec/lab_spec.h"

namespace grader {

struct SimilarityView {
  const LabSpec& spec;
  const Corpus& corpus;
  const std::vector<PairScore>& pairs;  // highest score first
  const ReviewedPairs& reviewed;
  double threshold = 0.5;               // 0..1
  int min_run = default_min_run;
};

inline constexpr const char* similarity_index_name = "similarity.html";
inline constexpr const char* similarity_csv_name = "similarity.csv";
inline constexpr const char* similarity_pages_folder = "similarity";

bool flagged(const SimilarityView& view, const PairScore& pair);

// The pair page's file name inside similarity_pages_folder: stable across runs (a hash of the two ids), whatever the
// ids hold.
std::string pair_page_name(const std::string& a, const std::string& b);

std::string similarity_index_html(const SimilarityView& view);
std::string pair_page_html(const SimilarityView& view, const PairScore& pair);
std::string similarity_csv(const SimilarityView& view);

}  // namespace grader
