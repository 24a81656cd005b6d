// The similarity stage's own parts: reading the engine's output, blanking starter lines, the reviewed marks, the
// pair pages' names. The engine itself runs in tests/similarity.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "similarity/compare.h"
#include "similarity/engine.h"
#include "similarity/report.h"
#include "similarity/reviewed.h"

namespace fs = std::filesystem;
using namespace grader;

TEST_CASE("the engine's runs are read from its -n output, every other line skipped") {
  const std::string output =
      "File s0f0.cpp: 859 tokens, 79 lines\n"
      "File s1f0.cu: 772 tokens, 71 lines\n"
      "Total input: 2 files (2 new, 0 old), 1631 tokens\n\n"
      "s0f0.cpp: line 34-40                   |s1f0.cu: line 31-37                [81]\n\n"
      "s0f0.cpp: line 5-5 |s1f0.cu: line 120-131 [24]\n"
      "garbage: line x-3 |s1f0.cu: line 1-2 [30]\n";
  const auto runs = parse_runs(output);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].a == "s0f0.cpp");
  CHECK(runs[0].a_first == 34);
  CHECK(runs[0].a_last == 40);
  CHECK(runs[0].b == "s1f0.cu");
  CHECK(runs[0].b_first == 31);
  CHECK(runs[0].b_last == 37);
  CHECK(runs[0].tokens == 81);
  CHECK(runs[1].b_first == 120);
  CHECK(runs[1].tokens == 24);
}

TEST_CASE("tokens per line come from the engine's token stream") {
  const std::string output =
      "File a.cu: showing the token stream\n"
      "line # = 1, token # = 0:\n"
      "line # = 2, token # = 0:\n"
      " __global__ -> IDF\n"
      " void -> NORM(V)\n"
      " k -> IDF\n"
      "line # = 3, token # = 3:\n"
      "line # = 4, token # = 3:\n"
      " < -> <\n"
      "File b.cpp: showing the token stream\n"
      "line # = 1, token # = 0:\n"
      " int -> CTRL(I)\n";
  const auto counts = parse_token_counts(output);
  REQUIRE(counts.count("a.cu") == 1);
  CHECK(counts.at("a.cu") == std::vector<int>{0, 3, 0, 1});
  CHECK(counts.at("b.cpp") == std::vector<int>{1});
}

TEST_CASE("starter lines are blanked whole, but never a comment's opening or closing line at a run's edge") {
  const std::vector<std::string> lines = {"int a = 1;  /* my own", "comment */ int b = 2;", "int c = 3;", "int d = 4; /* opens",
                                          "still a comment */"};
  std::vector<bool> starter;
  mark_starter_lines(lines, 2, 4, starter);
  // Line 2 closes a comment that line 1 opened: blanking it would turn "my own" into code. Line 4 opens one.
  CHECK(starter == std::vector<bool>{false, false, true, false, false});
  mark_starter_lines(lines, 3, 3, starter);
  mark_starter_lines(lines, 1, 5, starter);  // a run over the whole file blanks the comment with both its ends
  CHECK(starter == std::vector<bool>{true, true, true, true, true});
}

TEST_CASE("reviewed marks: added, replaced, read back in either order, formula-like cells escaped and unescaped") {
  const fs::path folder = fs::temp_directory_path() / ("test_similarity_" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path file = folder / reviewed_file_name;
  CHECK(read_reviewed(file).empty());
  mark_reviewed(file, "bob", "alice", "explained, in person");
  mark_reviewed(file, "=evil", "carol", "+1");
  mark_reviewed(file, "alice", "bob", "second look: fine");
  const auto marks = read_reviewed(file);
  CHECK(marks.size() == 2);
  CHECK(marks.at(pair_key("alice", "bob")) == "second look: fine");
  CHECK(marks.at(pair_key("carol", "=evil")) == "+1");
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"'=evil\"") != std::string::npos);
  {
    std::ofstream broken(file, std::ios::app);
    broken << "dave,\r\n";
  }
  CHECK_THROWS_WITH_AS(read_reviewed(file), doctest::Contains("line 4 does not name two students"), std::runtime_error);
  {
    std::ofstream wrong(file, std::ios::trunc);
    wrong << "a,b\r\nalice,bob\r\n";
  }
  CHECK_THROWS_WITH_AS(read_reviewed(file), doctest::Contains("student_a,student_b,note"), std::runtime_error);
  fs::remove_all(folder);
}

TEST_CASE("a pair's page name is the same in either order, differs between pairs, and is safe whatever the ids") {
  CHECK(pair_page_name("alice", "bob") == pair_page_name("bob", "alice"));
  CHECK(pair_page_name("alice", "bob") != pair_page_name("alice", "bobb"));
  CHECK(pair_page_name("a--", "b") != pair_page_name("a", "--b"));
  const std::string name = pair_page_name("../../etc/x y<z>", "\"q\"");
  CHECK(name.starts_with("pair-"));
  CHECK(name.find_first_not_of("abcdef0123456789pair-.html") == std::string::npos);
}

TEST_CASE("a pair's score counts both sides' own tokens, whichever is named first") {
  PairScore pair;
  pair.matched_a = 90, pair.own_a = 100, pair.matched_b = 90, pair.own_b = 200;
  CHECK(pair.share_a() == doctest::Approx(0.9));
  CHECK(pair.share_b() == doctest::Approx(0.45));
  CHECK(pair.score() == doctest::Approx(0.6));
  PairScore nothing;  // two unchanged skeletons: no own code at all
  CHECK(nothing.score() == 0);
}
