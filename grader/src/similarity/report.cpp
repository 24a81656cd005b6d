#include "similarity/report.h"

#include <algorithm>
#include <span>

#include "batch/gradebook.h"
#include "data/sha256.h"
#include "report/html_page.h"

namespace grader {

namespace {

using html::escape;

std::string percent(double share) { return html::fixed(100 * share, 0) + "%"; }

std::string shown_id(const SubmissionText& submission) { return (submission.past ? "past: " : "") + submission.id; }

const std::string* review_note(const SimilarityView& view, const PairScore& pair) {
  const auto found = view.reviewed.find(pair_key(view.corpus.submissions[pair.a].id, view.corpus.submissions[pair.b].id));
  return found == view.reviewed.end() ? nullptr : &found->second;
}

// The wide two-column layout of a pair page, on top of the shared sheet (report/html_page.cpp).
constexpr const char* pair_style = R"css(<style>
main{max-width:none}
.sides{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1rem}
@media (max-width:60rem){.sides{grid-template-columns:minmax(0,1fr)}}
.side h3{position:sticky;top:0;background:var(--bg);padding:.3rem 0}
.src{margin:0 0 1rem;padding:.4rem 0;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;white-space:pre;overflow-x:auto;
word-break:normal}
.src .line{display:block;padding-left:.4rem}
.src .ln{display:inline-block;width:3.2em;color:var(--dim);user-select:none}
.src .starter{color:#8c959f}
.src mark{display:block;background:#fff1c2;border-left:4px solid var(--part);color:inherit}
.src mark.odd{background:#ddf4ff;border-left-color:var(--you)}
.src mark:target{outline:2px solid var(--fail)}
.src .jump{float:right;margin-right:.4rem;font:600 11px system-ui,sans-serif;color:var(--you)}
.key span{margin-right:1rem}
</style>
)css";

// Lines of one file, each inside the <mark> of the first region that covers it (regions on one side may overlap);
// the first block of region i carries the id `<side>i` and a link to the other side's `<other>i`.
std::string file_listing(const SourceFile& file, const std::vector<std::pair<int, int>>& regions, char side, char other) {
  const std::size_t lines = file.starter.size();
  std::vector<int> region_of(lines, -1);
  for (std::size_t r = 0; r < regions.size(); ++r)
    for (int line = std::max(1, regions[r].first); line <= regions[r].second && static_cast<std::size_t>(line) <= lines; ++line)
      if (region_of[static_cast<std::size_t>(line - 1)] < 0) region_of[static_cast<std::size_t>(line - 1)] = static_cast<int>(r);
  std::vector<std::string> text(lines);
  {
    std::size_t start = 0, index = 0;
    while (index < lines && start <= file.text.size()) {
      const auto end = file.text.find('\n', start);
      text[index++] = file.text.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  std::vector<bool> anchored(regions.size(), false);
  std::string out = "<pre class=\"src\">";
  for (std::size_t i = 0; i < lines;) {
    const int region = region_of[i];
    std::size_t end = i;
    while (end < lines && region_of[end] == region) ++end;
    std::string block;
    for (std::size_t line = i; line < end; ++line)
      block += "<span class=\"line" + std::string(file.starter[line] ? " starter" : "") + "\"><span class=\"ln\">" +
               std::to_string(line + 1) + "</span>" + escape(text[line]) + "</span>";
    if (region < 0) {
      out += block;
    } else {
      const std::string number = std::to_string(region + 1);
      out += "<mark class=\"region" + std::string(region % 2 ? " odd" : "") + "\" data-region=\"" + number + "\"";
      if (!anchored[static_cast<std::size_t>(region)]) {
        out += " id=\"" + std::string(1, side) + number + "\"";
        anchored[static_cast<std::size_t>(region)] = true;
      }
      out += "><a class=\"jump\" href=\"#" + std::string(1, other) + number + "\">match " + number + " &#8596;</a>" + block +
             "</mark>";
    }
    i = end;
  }
  return out + "</pre>\n";
}

std::string side_html(const SubmissionText& submission, const PairScore& pair, bool first) {
  const char side = first ? 'a' : 'b', other = first ? 'b' : 'a';
  std::string out = "<section class=\"side\" data-side=\"" + std::string(1, side) + "\"><h2>" + escape(shown_id(submission)) +
                    "</h2><p class=\"meta\">" + percent(first ? pair.share_a() : pair.share_b()) + " of its own code matches (" +
                    std::to_string(first ? pair.matched_a : pair.matched_b) + " of " +
                    std::to_string(first ? pair.own_a : pair.own_b) + " tokens)</p>\n";
  for (std::size_t f = 0; f < submission.files.size(); ++f) {
    std::vector<std::pair<int, int>> regions(pair.regions.size(), {0, -1});  // indexed like pair.regions; empty elsewhere
    for (std::size_t r = 0; r < pair.regions.size(); ++r) {
      const auto& region = pair.regions[r];
      if ((first ? region.file_a : region.file_b) != f) continue;
      regions[r] = first ? std::pair{region.a_first, region.a_last} : std::pair{region.b_first, region.b_last};
    }
    const auto& matched = first ? pair.file_matched_a : pair.file_matched_b;
    const int own = submission.files[f].own_tokens(), file_matched = f < matched.size() ? matched[f] : 0;
    out += "<h3 data-file=\"" + escape(submission.files[f].name) + "\">" + escape(submission.files[f].name) +
           " <span class=\"meta\">" + (own > 0 ? percent(static_cast<double>(file_matched) / own) : std::string("0%")) +
           " of its own " + std::to_string(own) + " tokens match</span></h3>\n" + file_listing(submission.files[f], regions, side, other);
  }
  return out + "</section>\n";
}

std::string not_compared(const Corpus& corpus) {
  std::string rows;
  for (const auto& s : corpus.submissions)
    if (!s.problem.empty())
      rows += "<tr><td>" + escape(shown_id(s)) + "</td><td>" + escape(s.problem) + "</td><td>" +
              (s.files.empty() ? "not compared" : "compared without the files named") + "</td></tr>\n";
  if (rows.empty()) return "";
  return "<h2>Submissions not read whole</h2>\n<div class=\"scroll\"><table id=\"not-compared\"><tr><th>submission</th>"
         "<th>why</th><th></th></tr>\n" + rows + "</table></div>\n";
}

// How many pairs fall in each tenth of the score: where the class's own gap between honest and copied lies.
std::string score_bands(const SimilarityView& view) {
  int bands[10] = {};
  for (const auto& pair : view.pairs) ++bands[std::min(9, static_cast<int>(pair.score() * 10))];
  std::string head, counts;
  for (int i = 9; i >= 0; --i) {
    head += "<th>" + std::to_string(i * 10) + "-" + std::to_string(i == 9 ? 100 : i * 10 + 9) + "%</th>";
    counts += "<td>" + std::to_string(bands[i]) + "</td>";
  }
  return "<div class=\"scroll\"><table id=\"bands\"><tr><th>score</th>" + head + "</tr><tr><th>pairs</th>" + counts +
         "</tr></table></div>\n";
}

}  // namespace

bool flagged(const SimilarityView& view, const PairScore& pair) { return pair.score() >= view.threshold; }

std::string pair_page_name(const std::string& a, const std::string& b) {
  const auto [first, second] = pair_key(a, b);
  const std::string both = first + '\0' + second;
  return "pair-" + sha256_hex(std::as_bytes(std::span(both.data(), both.size()))).substr(0, 16) + ".html";
}

std::string similarity_index_html(const SimilarityView& view) {
  std::size_t current = 0, past = 0;
  for (const auto& s : view.corpus.submissions) ++(s.past ? past : current);
  std::string body = "<header><h1>" + escape(view.spec.name() + ": similar submissions") + "</h1><p class=\"meta\">" +
                     std::to_string(current) + " submissions" +
                     (past ? ", each also compared with " + std::to_string(past) + " past submissions" : std::string()) +
                     " &middot; pairs at or above " + percent(view.threshold) + " &middot; runs of at least " +
                     std::to_string(view.min_run) + " tokens (sim_c++) &middot; the lab's skeleton and headers left out"
                     "</p></header>\n";
  body += "<p>The score is the part of both submissions' own code (starter code left out) that lies in runs the two "
          "share, with identifiers, literals, comments and layout ignored. A high score says where to look, not that "
          "anyone copied: read both sides (docs/ta-guide.md, \"Similar submissions\").</p>\n";
  std::string rows;
  std::size_t shown = 0;
  const PairScore* highest_below = nullptr;
  for (const auto& pair : view.pairs) {
    if (!flagged(view, pair)) {
      if (!highest_below) highest_below = &pair;
      continue;
    }
    ++shown;
    const auto& a = view.corpus.submissions[pair.a];
    const auto& b = view.corpus.submissions[pair.b];
    const std::string* note = review_note(view, pair);
    rows += "<tr data-a=\"" + escape(a.id) + "\" data-b=\"" + escape(b.id) + "\" data-score=\"" + html::fixed(pair.score(), 4) +
            "\"" + (note ? " class=\"reviewed\"" : "") + "><td>" + std::to_string(shown) + "</td><td><a href=\"" +
            similarity_pages_folder + "/" + pair_page_name(a.id, b.id) + "\">" + escape(shown_id(a)) + " &amp; " +
            escape(shown_id(b)) + "</a></td><td><b>" + percent(pair.score()) + "</b></td><td>" + percent(pair.share_a()) +
            " / " + percent(pair.share_b()) + "</td><td>" + std::to_string(pair.regions.size()) + "</td><td>" +
            (note ? "<span class=\"status s-pass\">reviewed</span> " + escape(*note) : std::string()) + "</td></tr>\n";
  }
  body += "<h2>Pairs at or above " + percent(view.threshold) + "</h2>\n";
  if (rows.empty()) {
    body += "<p id=\"none-flagged\">No pair reaches the threshold.</p>\n";
  } else {
    body += "<div class=\"scroll\"><table id=\"pairs\"><tr><th>#</th><th>pair</th><th>score</th><th>share of each</th>"
            "<th>regions</th><th>review</th></tr>\n" + rows + "</table></div>\n";
  }
  body += "<p class=\"meta\">" +
          (highest_below ? "The highest pair below the threshold scores " + percent(highest_below->score()) + "."
                         : std::string("No pair below the threshold has anything in common.")) +
          " Mark a pair reviewed in " + reviewed_file_name + " (or with --mark-reviewed A,B); a rerun keeps the mark.</p>\n";
  body += "<h2>Every pair with something in common, by score</h2>\n" + score_bands(view);
  body += not_compared(view.corpus);
  return html::page(view.spec.name() + " similar submissions", body);
}

std::string pair_page_html(const SimilarityView& view, const PairScore& pair) {
  const auto& a = view.corpus.submissions[pair.a];
  const auto& b = view.corpus.submissions[pair.b];
  const std::string* note = review_note(view, pair);
  std::string body = pair_style;
  body += "<header><h1>" + escape(shown_id(a) + " & " + shown_id(b)) + ": " + percent(pair.score()) +
          "</h1><p class=\"meta\"><a href=\"../" + similarity_index_name + "\">all pairs</a> &middot; " + escape(view.spec.name()) +
          " &middot; " + std::to_string(pair.regions.size()) + " matched regions, each linked to its other half" +
          (note ? " &middot; <span class=\"status s-pass\">reviewed</span> " + escape(*note) : std::string()) + "</p>\n";
  body += "<p class=\"key meta\"><span><mark>&nbsp;matched&nbsp;</mark> a region both share (identifiers may differ)</span>"
          "<span class=\"starter\" style=\"color:#8c959f\">grey: starter code, not counted</span></p></header>\n";
  body += "<div class=\"sides\">\n" + side_html(a, pair, true) + side_html(b, pair, false) + "</div>\n";
  return html::page(shown_id(a) + " & " + shown_id(b) + " similarity", body);
}

std::string similarity_csv(const SimilarityView& view) {
  std::string csv = "student_a,student_b,score_percent,share_a_percent,share_b_percent,matched_tokens_a,own_tokens_a,"
                    "matched_tokens_b,own_tokens_b,b_is_past,above_threshold,reviewed,note,page\r\n";
  for (const auto& pair : view.pairs) {
    const auto& a = view.corpus.submissions[pair.a];
    const auto& b = view.corpus.submissions[pair.b];
    const std::string* note = review_note(view, pair);
    csv += csv_text_field(a.id) + "," + csv_text_field(b.id) + "," + html::fixed(100 * pair.score(), 1) + "," +
           html::fixed(100 * pair.share_a(), 1) + "," + html::fixed(100 * pair.share_b(), 1) + "," + std::to_string(pair.matched_a) + "," +
           std::to_string(pair.own_a) + "," + std::to_string(pair.matched_b) + "," + std::to_string(pair.own_b) + "," +
           (b.past ? "yes" : "no") + "," + (flagged(view, pair) ? "yes" : "no") + "," + (note ? "yes" : "no") + "," +
           csv_text_field(note ? *note : "") + "," +
           (flagged(view, pair) ? std::string(similarity_pages_folder) + "/" + pair_page_name(a.id, b.id) : "") + "\r\n";
  }
  return csv;
}

}  // namespace grader
