#pragma once
// Which libstdc++ string ABI (_GLIBCXX_USE_CXX11_ABI) a binary was built with,
// read from its mangled symbol names (docs/background.md §5). A flash-attn
// extension and torch must agree, or the import fails with an undefined
// c10::Error / torchCheckFail symbol.

#include <cstddef>
#include <string>
#include <string_view>

#include "binary/elf.hpp"

namespace flashfit::binary {

enum class CxxAbi {
  cxx11,      // _GLIBCXX_USE_CXX11_ABI=1: std::__cxx11::basic_string, "B5cxx11" tags
  pre_cxx11,  // _GLIBCXX_USE_CXX11_ABI=0: std::string mangled as "Ss"
  unknown,    // no string in any interface, or both forms (mixed)
};

// "cxx11", "pre-cxx11", "unknown": for messages and --json.
std::string_view to_string(CxxAbi abi);

struct AbiEvidence {
  CxxAbi abi = CxxAbi::unknown;
  std::size_t new_count = 0;  // names with a new-ABI form
  std::size_t old_count = 0;  // names with an old-ABI form
  std::string sample;         // one symbol that decided it (empty when unknown and none seen)
  std::string reason;         // one sentence: why this verdict
};

// Whether one mangled name uses the new (cxx11) or old ("Ss") string form;
// unknown when it involves std::string in neither way.
CxxAbi symbol_abi(std::string_view mangled);

// Counts both forms over a set of names: all new → cxx11, all old →
// pre_cxx11, none or both → unknown (a library mixing both is possible, since
// libstdc++ itself exports both, so "both" is not a verdict).
AbiEvidence classify_cxx_abi(const SymbolNames& names);

// The torch-specific check, stronger than counting: which variant of
// c10::detail::torchCheckFail(const char*, const char*, unsigned, const std::string&)
// and c10::Error::Error(SourceLocation, std::string) the library defines
// (libc10). Falls back to classify_cxx_abi over the defined names when
// neither probe symbol is there (libtorch_cpu, or a renamed function).
AbiEvidence torch_cxx_abi(const ElfFile& library);

// The exact probe names (for tests and for resolving an extension's needs).
namespace torch_symbols {
inline constexpr std::string_view kCheckFailCxx11 =
    "_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE";
inline constexpr std::string_view kCheckFailPreCxx11 = "_ZN3c106detail14torchCheckFailEPKcS2_jRKSs";
inline constexpr std::string_view kErrorCtorCxx11 =
    "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE";
inline constexpr std::string_view kErrorCtorPreCxx11 = "_ZN3c105ErrorC2ENS_14SourceLocationESs";
}  // namespace torch_symbols

}  // namespace flashfit::binary
