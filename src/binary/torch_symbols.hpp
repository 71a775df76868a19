#pragma once
// Would an extension's references into torch resolve against the installed
// torch (docs/background.md §5, §7)? Every undefined symbol in torch's
// namespaces (c10, at, torch, caffe2) must be defined by one of torch's
// libraries. The loader names only the first miss at import time; this lists
// them all and says why: the other C++11 ABI, or another torch version.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binary/cxx_abi.hpp"
#include "binary/elf.hpp"
#include "util/error.hpp"

namespace flashfit::binary {

// The installed torch as the check sees it: what its libraries define.
struct TorchLibrarySet {
  std::vector<std::string> libraries;  // file names read, for reports: "libc10.so"
  SymbolNames defined;                 // the union of their defined dynamic symbols
  CxxAbi abi = CxxAbi::unknown;        // from libc10 (torch_cxx_abi)
  std::optional<std::string> version;  // "2.8.0+cu128", when the caller knows it
};

// The libraries an extension may link against (cpp_extension's -lc10 -ltorch
// -ltorch_cpu -ltorch_python, and the CUDA ones), in that order.
inline constexpr std::string_view kTorchLibraryNames[] = {
    "libc10.so",      "libtorch_cpu.so",  "libtorch.so",   "libtorch_python.so",
    "libc10_cuda.so", "libtorch_cuda.so", "libc10_hip.so", "libtorch_hip.so",
};

// Reads those of kTorchLibraryNames present in `lib_dir` (symlinks followed).
// An error when libc10.so is missing or any present library is unreadable.
util::Result<TorchLibrarySet> read_torch_libraries(const std::filesystem::path& lib_dir);

// Whether a mangled name lives in torch's namespaces: functions and data
// (`_ZN3c10…`, `_ZNK2at…`), and vtables / typeinfo of their classes
// (`_ZTVN3c105ErrorE`).
bool is_torch_symbol(std::string_view mangled);

enum class SymbolDiagnosis {
  none,                    // nothing missing
  cxx11_abi_mismatch,      // the module uses the other std::string ABI
  torch_version_mismatch,  // same ABI, but torch does not define them: built for another torch
  cpu_torch,  // they are torch's CUDA functions (c10::cuda, at::cuda) and this torch has none
};
std::string_view to_string(SymbolDiagnosis diagnosis);  // "cxx11-abi-mismatch", ...

struct MissingSymbol {
  std::string symbol;     // mangled, as the import error prints it
  std::string demangled;  // for people
};

struct TorchSymbolReport {
  std::size_t checked = 0;             // undefined torch symbols of the module
  std::vector<MissingSymbol> missing;  // sorted by mangled name
  SymbolDiagnosis diagnosis = SymbolDiagnosis::none;
  AbiEvidence module_abi;   // the module's own string ABI, from its symbol names
  std::string explanation;  // one sentence for the diagnosis; empty when none
};

// Pure: the module's undefined torch symbols against torch's defined ones.
TorchSymbolReport check_torch_symbols(const ElfFile& module, const TorchLibrarySet& torch);

}  // namespace flashfit::binary
