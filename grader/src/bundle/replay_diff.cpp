#include "bundle/replay_diff.h"

#include <cstdio>
#include <map>

namespace grader {

using json = nlohmann::json;

namespace {

std::string number(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string status_of(const json& entry) { return entry.value("status", std::string("?")); }

// "1.93 [1.88-1.99]"
std::string metric_text(const json& m) {
  const json interval = m.value("metric_interval", json::array({0, 0}));
  return number(m.value("metric_value", 0.0), 3) + " [" + number(interval[0].get<double>(), 3) + "-" +
         number(interval[1].get<double>(), 3) + "]";
}

std::string score_text(const json& entry) {
  return number(entry.value("score", 0.0), 2) + "/" + number(entry.value("max_score", 0.0), 2);
}

void compare_correctness(const std::string& name, const json& then, const json& now, ReplayDiff& diff) {
  bool same = status_of(then) == status_of(now);
  if (!same) diff.differences.push_back("correctness '" + name + "': " + status_of(then) + " then, " + status_of(now) + " now");
  std::map<std::string, std::string> now_cases;
  for (const auto& c : now.value("cases", json::array()))
    now_cases[c.value("name", "") + " [" + c.value("variant", "") + "]"] = status_of(c);
  for (const auto& c : then.value("cases", json::array())) {
    const std::string key = c.value("name", "") + " [" + c.value("variant", "") + "]";
    auto found = now_cases.find(key);
    const std::string was = status_of(c), is = found == now_cases.end() ? "not run" : found->second;
    if (was != is) {
      same = false;
      diff.differences.push_back("correctness '" + name + "': case " + key + " was " + was + ", now " + is);
    }
    if (found != now_cases.end()) now_cases.erase(found);
  }
  for (const auto& [key, status] : now_cases) {
    same = false;
    diff.differences.push_back("correctness '" + name + "': case " + key + " is new (" + status + ")");
  }
  if (same) diff.same.push_back("correctness '" + name + "': " + status_of(now) + ", every case as before");
}

void compare_performance(const std::string& name, const json& then, const json& now, ReplayDiff& diff) {
  const bool timed_then = then.contains("measurement"), timed_now = now.contains("measurement");
  const std::string scores = "; " + score_text(then) + " then, " + score_text(now) + " now";
  if (!timed_then || !timed_now) {
    if (status_of(then) == status_of(now) && timed_then == timed_now)
      diff.same.push_back("performance '" + name + "': " + status_of(now) + " (not timed)" + scores);
    else
      diff.differences.push_back("performance '" + name + "': " + status_of(then) + (timed_then ? " (timed)" : "") + " then, " +
                                 status_of(now) + (timed_now ? " (timed)" : "") + " now" + scores);
    return;
  }
  // Passed and below_threshold differ only by how many points the metric earned: that is the timing's to judge.
  const auto scored = [](const std::string& status) { return status == "passed" || status == "below_threshold"; };
  if (status_of(then) != status_of(now) && !(scored(status_of(then)) && scored(status_of(now)))) {
    diff.differences.push_back("performance '" + name + "': " + status_of(then) + " then, " + status_of(now) + " now" + scores);
    return;
  }
  const json& a = then["measurement"];
  const json& b = now["measurement"];
  const json ia = a.value("metric_interval", json::array({a.value("metric_value", 0.0), a.value("metric_value", 0.0)}));
  const json ib = b.value("metric_interval", json::array({b.value("metric_value", 0.0), b.value("metric_value", 0.0)}));
  const std::string figures = "metric " + metric_text(a) + " then, " + metric_text(b) + " now" + scores;
  if (intervals_overlap(ia[0].get<double>(), ia[1].get<double>(), ib[0].get<double>(), ib[1].get<double>()))
    diff.same.push_back("performance '" + name + "': same within noise: " + figures);
  else
    diff.differences.push_back("performance '" + name + "': beyond noise (the 95% intervals do not meet): " + figures);
}

}  // namespace

bool intervals_overlap(double low_a, double high_a, double low_b, double high_b) {
  return low_a <= high_b && low_b <= high_a;
}

ReplayDiff compare_reports(const json& then, const json& now) {
  ReplayDiff diff;
  if (status_of(then) != status_of(now))
    diff.differences.push_back("the submission as a whole: " + status_of(then) + " then, " + status_of(now) + " now (" +
                               now.value("status_details", "") + ")");
  std::map<std::string, json> now_tests;  // copies: value() returns the list by value
  for (const auto& test : now.value("tests", json::array())) now_tests[test.value("name", "")] = test;
  for (const auto& test : then.value("tests", json::array())) {
    const std::string name = test.value("name", "");
    auto found = now_tests.find(name);
    if (found == now_tests.end()) {
      diff.differences.push_back("'" + name + "' was graded then and is not in the replay");
      continue;
    }
    if (test.value("kind", "") == "correctness") compare_correctness(name, test, found->second, diff);
    else compare_performance(name, test, found->second, diff);
    now_tests.erase(found);
  }
  for (const auto& [name, test] : now_tests) diff.differences.push_back("'" + name + "' is graded now and was not then");
  return diff;
}

}  // namespace grader
