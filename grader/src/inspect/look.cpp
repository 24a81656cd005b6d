#include "inspect/look.h"

#include "inspect/fact_list.h"
#include "inspect/x86_instruction.h"

namespace grader {

CodeLook make_look(const std::optional<VariantFacts>& yours, const std::optional<VariantFacts>& reference,
                   const std::string& note, const Variables& your_counters, const Variables& reference_counters) {
  CodeLook look;
  look.note = note;
  Variables mine = yours ? fact_variables(*yours) : Variables{};
  Variables theirs = reference ? fact_variables(*reference) : Variables{};
  mine.insert(your_counters.begin(), your_counters.end());
  theirs.insert(reference_counters.begin(), reference_counters.end());
  if (yours) {
    look.function = plain_name(yours->function);
    for (const Kernel* kernel : yours->kernels) look.kernels.push_back(plain_name(kernel->symbol));
  }
  for (const auto& fact : fact_definitions()) {
    const auto own = mine.find(std::string(fact.key));
    const auto other = theirs.find(std::string(fact.key));
    if (own == mine.end() && other == theirs.end()) continue;
    FactRow row;
    row.key = std::string(fact.key);
    row.label = std::string(fact.label);
    if (own != mine.end()) {
      row.yours = format_fact(fact, own->second);
      row.yours_value = own->second;
    }
    if (other != theirs.end()) {
      row.reference = format_fact(fact, other->second);
      row.reference_value = other->second;
    }
    look.facts.push_back(std::move(row));
  }
  if (!yours) return look;
  // Each line with what it does after it, where the facts count it.
  const auto annotated = [](const std::string& line, const std::string& words, const char* marker) {
    if (words.empty()) return line;
    return line + std::string(line.size() < 48 ? 48 - line.size() : 1, ' ') + marker + " " + words;
  };
  if (yours->hot_loop) {
    look.listing_title = "hot loop of " + plain_name(yours->hot_loop->function) + " (x86-64, objdump)";
    for (const auto& line : yours->hot_loop->listing) look.listing.push_back(annotated(line, describe_x86(decode_x86(line)), "#"));
  } else if (!yours->kernels.empty()) {
    const Kernel& first = *yours->kernels.front();
    look.listing_title = "PTX of " + plain_name(first.symbol);
    for (const auto& line : first.listing)
      look.listing.push_back(line.back() == ':' ? line : "  " + annotated(line, describe_ptx(line), "//"));
  }
  if (look.listing.size() > listing_lines) {
    look.listing.resize(listing_lines);
    look.listing.push_back("... (cut at " + std::to_string(listing_lines) + " lines)");
  }
  return look;
}

}  // namespace grader
