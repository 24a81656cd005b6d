// spec_variants.cpp: every variant lab.toml names, checked against the lab's sources (spec/lab_sources.h) where it is
// read, so its error points at the name.
#include "spec/spec_items.h"

namespace grader {

void check_variant(const SpecField& field, const std::string& variant, const LabSources& sources, VariantRunner runs) {
  if (!sources.knows_variant(variant)) {
    field.fail("no variant '" + variant + "' in the lab's harness: \"" + variant +
               "\" is no string literal of the lab's sources, where the harness's variants() lists "
               "the names it runs");
  }
  if (runs == VariantRunner::candidate && !sources.header_declares(variant)) {
    field.fail("variant '" + variant + "' runs the student's code, but the lab's header declares no function for it "
               "(one named '" + variant + "' or with it as a word of its name, as matvec_unrolled is for \"unrolled\"); "
               "a variant only the judge has can be a baseline, a cap, a bound or a compare");
  }
}

}  // namespace grader
