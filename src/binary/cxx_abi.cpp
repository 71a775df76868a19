#include "binary/cxx_abi.hpp"

#include <fmt/core.h>

#include <array>
#include <vector>

#include "util/strings.hpp"

namespace flashfit::binary {

namespace {

bool contains(std::string_view text, std::string_view fragment) {
  return text.find(fragment) != std::string_view::npos;
}

// Mangled forms of the old std::string ("Ss" is its standard abbreviation,
// "Sb" that of std::basic_string, which the new ABI spells
// St7__cxx1112basic_string): members of std::string itself, and the
// abbreviations after a reference, pointer or the end of a nested name, which
// is where a parameter type starts.
constexpr std::array<std::string_view, 11> kOldForms = {
    "_ZNSs", "_ZNKSs", "RKSs", "RSs", "PKSs", "OSs", "ESs", "RSbI", "KSbI", "PSbI", "ESbI"};

}  // namespace

std::string_view to_string(CxxAbi abi) {
  switch (abi) {
    case CxxAbi::cxx11:
      return "cxx11";
    case CxxAbi::pre_cxx11:
      return "pre-cxx11";
    case CxxAbi::unknown:
      break;
  }
  return "unknown";
}

CxxAbi symbol_abi(std::string_view mangled) {
  if (!util::starts_with(mangled, "_Z")) return CxxAbi::unknown;
  if (contains(mangled, "St7__cxx11") || contains(mangled, "B5cxx11")) return CxxAbi::cxx11;
  for (auto form : kOldForms) {
    if (contains(mangled, form)) return CxxAbi::pre_cxx11;
  }
  return CxxAbi::unknown;
}

AbiEvidence classify_cxx_abi(const SymbolNames& names) {
  AbiEvidence out;
  std::string_view new_sample;
  std::string_view old_sample;
  for (std::size_t i = 0; i < names.size(); ++i) {
    switch (symbol_abi(names[i])) {
      case CxxAbi::cxx11:
        if (out.new_count++ == 0) new_sample = names[i];
        break;
      case CxxAbi::pre_cxx11:
        if (out.old_count++ == 0) old_sample = names[i];
        break;
      case CxxAbi::unknown:
        break;
    }
  }
  if (out.new_count > 0 && out.old_count == 0) {
    out.abi = CxxAbi::cxx11;
    out.sample = std::string(new_sample);
    out.reason =
        fmt::format("{} symbols use std::__cxx11 strings and none the old form", out.new_count);
  } else if (out.old_count > 0 && out.new_count == 0) {
    out.abi = CxxAbi::pre_cxx11;
    out.sample = std::string(old_sample);
    out.reason = fmt::format("{} symbols use the old std::string form (Ss) and none std::__cxx11",
                             out.old_count);
  } else if (out.new_count == 0) {
    out.reason = "no symbol involves std::string";
  } else {
    out.sample = std::string(new_sample);
    out.reason = fmt::format("mixed: {} symbols use std::__cxx11 strings and {} the old form",
                             out.new_count, out.old_count);
  }
  return out;
}

AbiEvidence torch_cxx_abi(const ElfFile& library) {
  const auto& defined = library.defined_symbols;
  // C1 (complete object) and C2 (base object) constructors: g++ emits both,
  // usually as aliases, but a stripped-down build may keep just one.
  auto with_c1 = [](std::string_view c2) {
    std::string name(c2);
    name.replace(name.find("C2E"), 3, "C1E");
    return name;
  };
  struct Probe {
    std::string name;
    CxxAbi abi;
  };
  const std::vector<Probe> probes = {
      {std::string(torch_symbols::kCheckFailCxx11), CxxAbi::cxx11},
      {std::string(torch_symbols::kCheckFailPreCxx11), CxxAbi::pre_cxx11},
      {std::string(torch_symbols::kErrorCtorCxx11), CxxAbi::cxx11},
      {with_c1(torch_symbols::kErrorCtorCxx11), CxxAbi::cxx11},
      {std::string(torch_symbols::kErrorCtorPreCxx11), CxxAbi::pre_cxx11},
      {with_c1(torch_symbols::kErrorCtorPreCxx11), CxxAbi::pre_cxx11},
  };
  AbiEvidence out;
  for (const auto& probe : probes) {
    if (!defined.contains(probe.name)) continue;
    (probe.abi == CxxAbi::cxx11 ? out.new_count : out.old_count)++;
    if (out.sample.empty()) out.sample = probe.name;
  }
  if (out.new_count > 0 && out.old_count == 0) {
    out.abi = CxxAbi::cxx11;
    out.reason = "defines the std::__cxx11::string variant of c10's error entry points";
    return out;
  }
  if (out.old_count > 0 && out.new_count == 0) {
    out.abi = CxxAbi::pre_cxx11;
    out.reason = "defines the old std::string (Ss) variant of c10's error entry points";
    return out;
  }
  // Both probes or neither: count all exported names instead.
  AbiEvidence counted = classify_cxx_abi(defined);
  if (out.new_count > 0) {
    counted.reason =
        "defines both string variants of c10's error entry points; by count, " + counted.reason;
    counted.abi = CxxAbi::unknown;
  }
  return counted;
}

}  // namespace flashfit::binary
