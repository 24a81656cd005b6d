#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "spec/lab_spec.h"
#include "spec/mutants.h"

namespace {

std::string lab_toml_doc() {
  std::ifstream in(TESTS_DIR "/../docs/lab-toml.md");
  REQUIRE_MESSAGE(in.good(), "cannot open " TESTS_DIR "/../docs/lab-toml.md");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

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

// A key is only half documented when the values that mean something are not: `compare = ["candidate:<variant>"]`
// times the student's own variant, and an author who never reads that form cannot use it.
TEST_CASE("docs/lab-toml.md shows every value form the parser gives a meaning, in backticks (quoted or not)") {
  const std::string doc = lab_toml_doc();
  REQUIRE_FALSE(grader::known_spec_value_forms().empty());
  for (const auto& [key, forms] : grader::known_spec_value_forms())
    for (const auto& form : forms) {
      INFO("key: " << key << ", value: " << form);
      CHECK((doc.find("`" + form + "`") != std::string::npos || doc.find("`\"" + form + "\"`") != std::string::npos));
    }
}

TEST_CASE("docs/lab-toml.md names every key of a mutant.toml, in backticks") {
  const std::string doc = lab_toml_doc();
  CHECK(doc.find("mutant.toml") != std::string::npos);
  for (const auto& key : grader::known_mutant_keys()) {
    INFO("key: " << key);
    CHECK(doc.find("`" + key + "`") != std::string::npos);
  }
}
