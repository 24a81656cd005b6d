#include "inspect/look.h"

#include <algorithm>
#include <cstdlib>

#include "inspect/fact_list.h"
#include "inspect/x86_instruction.h"

namespace grader {

namespace {

// Each line with what it does after it, where the facts count it.
std::string annotated_line(const std::string& line, const std::string& words, const char* marker) {
  if (words.empty()) return line;
  return line + std::string(line.size() < 48 ? 48 - line.size() : 1, ' ') + marker + " " + words;
}

}  // namespace

std::vector<SourceLine> source_listing(const CpuLoop& loop, const SourceFiles& sources) {
  if (std::all_of(loop.listing_sources.begin(), loop.listing_sources.end(), [](const auto& s) { return s.empty(); }))
    return {};
  std::vector<std::string> files;  // in the order the loop first reaches them
  std::map<std::pair<std::string, long>, SourceLine> lines;
  for (std::size_t i = 0; i < loop.listing.size(); ++i) {
    const std::string location = i < loop.listing_sources.size() ? loop.listing_sources[i] : std::string();
    const auto colon = location.rfind(':');
    const std::string file = colon == std::string::npos ? std::string() : location.substr(0, colon);
    const long number = colon == std::string::npos ? 0 : std::atol(location.c_str() + colon + 1);
    if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
    SourceLine& line = lines[{file, number}];
    if (line.location.empty() && !location.empty()) {
      line.location = location;
      if (const auto found = sources.find(file); found != sources.end() && number >= 1 &&
                                                   static_cast<std::size_t>(number) <= found->second.size())
        line.text = found->second[number - 1];
    }
    const X86Instruction x = decode_x86(loop.listing[i]);
    line.instructions.push_back({annotated_line(loop.listing[i], describe_x86(x), "#"), x.fp.total() > 0});
  }
  std::vector<SourceLine> ordered;
  for (const auto& file : files)
    for (auto& [key, line] : lines)
      if (key.first == file) ordered.push_back(std::move(line));
  return ordered;
}

CodeLook make_look(const std::optional<VariantFacts>& yours, const std::optional<VariantFacts>& reference,
                   const std::string& note, const Variables& your_counters, const Variables& reference_counters,
                   const SourceFiles& sources) {
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
  const auto annotated = annotated_line;
  if (yours->hot_loop) {
    look.listing_title = "hot loop of " + plain_name(yours->hot_loop->function) + " (x86-64, objdump)";
    for (const auto& line : yours->hot_loop->listing) look.listing.push_back(annotated(line, describe_x86(decode_x86(line)), "#"));
    look.source_listing = source_listing(*yours->hot_loop, sources);
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
