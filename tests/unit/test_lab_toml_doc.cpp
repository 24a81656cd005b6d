#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "spec/lab_spec.h"

// docs/lab-toml.md is the lab author's reference; a key the parser accepts but the page does not name
// is a setting nobody can discover.
TEST_CASE("docs/lab-toml.md names every key the parser accepts, in backticks") {
  std::ifstream in(TESTS_DIR "/../docs/lab-toml.md");
  REQUIRE_MESSAGE(in.good(), "cannot open " TESTS_DIR "/../docs/lab-toml.md");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();

  REQUIRE_FALSE(grader::known_spec_keys().empty());
  for (const std::string& key : grader::known_spec_keys()) {
    INFO("key: " << key);
    CHECK(doc.find("`" + key + "`") != std::string::npos);
  }
}
