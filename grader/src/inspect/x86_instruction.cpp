#include "inspect/x86_instruction.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>

namespace grader {

namespace {

constexpr std::array<std::string_view, 22> prefixes = {
    "data16", "cs", "ds", "es", "ss", "fs", "gs", "lock", "rep", "repz", "repe", "repnz", "repne", "notrack", "bnd",
    "addr32", "rex", "rex.W", "{vex}", "{vex3}", "{evex}", "xrelease"};

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// The operands split at commas outside parentheses and braces, each trimmed, without objdump's "# comment".
std::vector<std::string> split_operands(std::string_view operands) {
  if (const auto hash = operands.find('#'); hash != std::string_view::npos) operands = operands.substr(0, hash);
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : operands) {
    if (c == '(' || c == '{') ++depth;
    if (c == ')' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  parts.push_back(current);
  for (auto& part : parts) {
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back()))) part.pop_back();
    part.erase(0, part.find_first_not_of(" \t"));
  }
  if (parts.size() == 1 && parts[0].empty()) parts.clear();
  return parts;
}

bool is_memory(const std::string& operand) { return operand.find('(') != std::string::npos; }

// "%ymm3{%k1}{z}" -> "v3"; "%xmm3" and "%zmm3" are the same register. Other registers as written, without '%'.
std::string register_of(std::string operand) {
  if (const auto brace = operand.find('{'); brace != std::string::npos) operand.erase(brace);
  if (operand.empty() || operand[0] != '%') return {};
  const std::string name = operand.substr(1);
  for (std::string_view vector : {"xmm", "ymm", "zmm"})
    if (starts_with(name, vector)) return "v" + name.substr(3);
  return name;
}

// "vfmadd231pd" -> the FMA's form (231) and its type letters, when it is one.
bool is_fma(std::string_view base, std::string_view& tail) {
  for (std::string_view stem : {"fmaddsub", "fmsubadd", "fnmadd", "fnmsub", "fmadd", "fmsub"}) {
    if (!starts_with(base, stem)) continue;
    tail = base.substr(stem.size());
    return tail.size() == 5 && std::isdigit(static_cast<unsigned char>(tail[0]));
  }
  return false;
}

}  // namespace

X86Instruction decode_x86(const std::string& text) {
  X86Instruction x;
  std::string_view rest = text;
  while (true) {
    rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    const auto end = rest.find_first_of(" \t");
    const std::string_view word = rest.substr(0, end);
    if (std::find(prefixes.begin(), prefixes.end(), word) != prefixes.end() && end != std::string_view::npos) {
      rest.remove_prefix(end);
      continue;
    }
    x.mnemonic = std::string(word);
    x.operands = end == std::string_view::npos ? "" : std::string(rest.substr(end));
    x.operands.erase(0, x.operands.find_first_not_of(" \t"));
    break;
  }
  const std::string& m = x.mnemonic;
  x.padding = starts_with(m, "nop") || m == "int3" || m == "fnop" || (m == "xchg" && x.operands == "%ax,%ax");
  if (x.padding) return x;
  x.is_jump = !m.empty() && m[0] == 'j';
  x.is_call = starts_with(m, "call");

  const std::vector<std::string> operands = split_operands(x.operands);
  if (!operands.empty()) x.destination = register_of(operands.back());

  // Floating-point arithmetic: [v]<op><p|s><s|d|h>, or an FMA [v]f[n]m<add|sub><132|213|231><p|s><s|d|h>.
  const std::string_view base = m.size() > 1 && m[0] == 'v' ? std::string_view(m).substr(1) : std::string_view(m);
  std::string_view tail;
  bool arithmetic = false, fma = false, adds = false;
  if (is_fma(base, tail)) {
    arithmetic = fma = true;
    tail = tail.substr(3);
  } else {
    for (std::string_view op : {"addsub", "hadd", "hsub", "sqrt", "add", "sub", "mul", "div", "min", "max"}) {
      if (!starts_with(base, op) || base.size() != op.size() + 2) continue;
      tail = base.substr(op.size());
      arithmetic = true;
      adds = op == "add" || op == "sub";
      break;
    }
  }
  if (arithmetic && (tail[0] == 'p' || tail[0] == 's') && (tail[1] == 's' || tail[1] == 'd' || tail[1] == 'h')) {
    const bool packed = tail[0] == 'p';
    if (!packed) ++x.fp.scalar;
    else if (x.operands.find("%zmm") != std::string::npos) ++x.fp.packed512;
    else if (x.operands.find("%ymm") != std::string::npos) ++x.fp.packed256;
    else ++x.fp.packed128;
    if (fma) {
      ++x.fp.fma;
      if (!packed) ++x.fp.fma_scalar;
    }
    // An FMA of form 231 adds the product to its destination; an add whose destination is one of its sources
    // (addsd %xmm1,%xmm0 or vaddpd %ymm0,%ymm1,%ymm1) adds to it.
    // Without the VEX 'v' (addsd %xmm1,%xmm0) the destination is always a source too.
    const bool adds_to_destination = fma ? base.find("231") != std::string_view::npos : adds;
    const bool two_operand = m[0] != 'v';
    if (adds_to_destination && !x.destination.empty() && operands.size() >= 2)
      for (std::size_t i = 0; i + 1 < operands.size(); ++i)
        if (register_of(operands[i]) == x.destination) x.accumulates = true;
    if ((fma || two_operand) && adds_to_destination) x.accumulates = !x.destination.empty();
  }

  // Memory: AT&T puts the destination last. lea computes an address and reads nothing; prefetches are hints.
  if (m != "lea" && !starts_with(m, "prefetch") && !starts_with(m, "clflush")) {
    for (std::size_t i = 0; i < operands.size(); ++i) {
      if (!is_memory(operands[i])) continue;
      const bool last = i + 1 == operands.size() && operands.size() > 1;
      if (!last) {
        x.loads = true;
        continue;
      }
      const bool only_writes = starts_with(m, "mov") || starts_with(m, "vmov") || starts_with(m, "vextract") ||
                               starts_with(m, "set") || starts_with(m, "pextr") || starts_with(m, "vpextr") ||
                               starts_with(m, "vpscatter") || starts_with(m, "vscatter") || starts_with(m, "stos");
      const bool only_reads = starts_with(m, "cmp") || starts_with(m, "test") || starts_with(m, "bt") ||
                              starts_with(m, "ucomis") || starts_with(m, "vucomis") || starts_with(m, "comis") ||
                              starts_with(m, "vcomis") || starts_with(m, "vptest");
      x.stores = !only_reads;
      x.loads = x.loads || !only_writes;
    }
    if (is_memory(x.destination)) x.destination.clear();
  }
  if (!operands.empty() && is_memory(operands.back())) x.destination.clear();
  return x;
}

std::string normalise_operands(const std::string& operands) {
  std::string text = operands;
  if (const auto hash = text.find('#'); hash != std::string::npos) text.erase(hash);
  // "140 <_Z8four_dotPKdS0_l+0x4>": the address and the name both say where the code lies; the caller adds the
  // target it resolved.
  if (const auto angle = text.find(" <"); angle != std::string::npos) {
    auto start = text.find_last_of(" \t", angle - 1);
    start = start == std::string::npos ? 0 : start + 1;
    text.erase(start);
  }
  // "-0x39b(%rip)" -> "(%rip)"
  for (auto at = text.find("(%rip)"); at != std::string::npos; at = text.find("(%rip)", at + 1)) {
    auto start = at;
    while (start > 0 && (std::isxdigit(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == 'x' || text[start - 1] == '-'))
      --start;
    text.erase(start, at - start);
    at = start;
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

CpuLoop summarise_loop(const std::vector<const X86Instruction*>& body) {
  CpuLoop loop;
  std::set<std::string> accumulating, overwritten;
  for (const X86Instruction* x : body) {
    ++loop.instructions;
    loop.fp += x->fp;
    loop.loads += x->loads ? 1 : 0;
    loop.stores += x->stores ? 1 : 0;
    if (!x->destination.empty()) (x->accumulates ? accumulating : overwritten).insert(x->destination);
    loop.listing.push_back(x->operands.empty() ? x->mnemonic : x->mnemonic + " " + x->operands);
    loop.listing_sources.push_back(x->source);
  }
  // A running sum is written only by the adds that add to it: a register also loaded or computed afresh in the
  // loop holds a temporary.
  for (const auto& reg : accumulating)
    if (!overwritten.count(reg)) ++loop.accumulators;
  return loop;
}

std::string describe_x86(const X86Instruction& x) {
  std::string words;
  const auto add = [&](const std::string& word) { words += (words.empty() ? "" : ", ") + word; };
  if (x.fp.total() > 0) {
    const std::string width = x.fp.scalar ? "scalar" : "packed " + std::to_string(x.fp.widest_bits()) + "-bit";
    add(width + (x.fp.fma ? " FMA" : " FP"));
  }
  if (x.loads) add("load");
  if (x.stores) add("store");
  if (x.accumulates) add("running sum in " + x.destination);
  if (x.is_call) add("call");
  return words;
}

bool hotter(const CpuLoop& a, const CpuLoop& b) {
  // Work per pass, in 64-bit lanes: a vectorised loop and its scalar remainder both hold one FMA, and the vector
  // one is where the time goes.
  const auto lanes = [](const FpMix& fp) { return fp.scalar + 2 * fp.packed128 + 4 * fp.packed256 + 8 * fp.packed512; };
  if (lanes(a.fp) != lanes(b.fp)) return lanes(a.fp) > lanes(b.fp);
  return a.instructions > b.instructions;
}

std::string register_kinds(const std::string& operands) {
  std::string out;
  for (std::size_t i = 0; i < operands.size();) {
    if (operands[i] != '%') {
      out += operands[i++];
      continue;
    }
    std::size_t end = i + 1;
    while (end < operands.size() && std::isalnum(static_cast<unsigned char>(operands[end]))) ++end;
    const std::string name = operands.substr(i + 1, end - i - 1);
    i = end;
    std::string kind;
    if (name == "rip" || name == "rsp") kind = name;
    else if (name.rfind("xmm", 0) == 0 || name.rfind("ymm", 0) == 0 || name.rfind("zmm", 0) == 0) kind = name.substr(0, 3);
    else if (name.size() >= 2 && name[0] == 'k' && std::isdigit(static_cast<unsigned char>(name[1]))) kind = "k";
    else if (name[0] == 'e' || (name[0] == 'r' && name.back() == 'd')) kind = "r32";
    else if (name[0] == 'r' && name.back() == 'w') kind = "r16";
    else if (name[0] == 'r' && name.back() == 'b') kind = "r8";
    else if (name[0] == 'r') kind = "r64";
    else if (name.back() == 'l' || name.back() == 'h') kind = "r8";
    else kind = "r16";
    out += "%" + kind;
  }
  return out;
}

bool does_nothing(const X86Instruction& x) {
  const auto comma = x.operands.find(',');
  if (comma == std::string::npos) return false;
  const std::string from = x.operands.substr(0, comma), to = x.operands.substr(comma + 1);
  if (x.mnemonic.rfind("mov", 0) == 0 && x.mnemonic.find('s') == std::string::npos && from == to) return true;
  return x.mnemonic == "lea" && (from == "(" + to + ")" || from == "0x0(" + to + ")");
}

}  // namespace grader
