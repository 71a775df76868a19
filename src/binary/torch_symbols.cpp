#include "binary/torch_symbols.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <system_error>

#include "binary/demangle.hpp"
#include "util/strings.hpp"

namespace flashfit::binary {

namespace {

bool consume(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

// The evidence of the interface torch sees: undefined names first (what the
// module asks of torch and libstdc++), its own definitions when those are mute.
AbiEvidence module_abi(const ElfFile& module) {
  AbiEvidence evidence = classify_cxx_abi(module.undefined_symbols);
  if (evidence.abi == CxxAbi::unknown && evidence.new_count == 0 && evidence.old_count == 0) {
    evidence = classify_cxx_abi(module.defined_symbols);
  }
  return evidence;
}

}  // namespace

util::Result<TorchLibrarySet> read_torch_libraries(const std::filesystem::path& lib_dir) {
  TorchLibrarySet set;
  std::vector<std::string_view> names;
  std::vector<ElfFile> files;  // kept alive: `names` views their symbol storage
  for (std::string_view library : kTorchLibraryNames) {
    const std::filesystem::path path = lib_dir / library;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      if (library == "libc10.so") {
        return util::input_error("torch's libc10.so is not there; is torch installed completely?",
                                 lib_dir.string());
      }
      continue;
    }
    auto elf = read_elf(path);
    if (!elf) return tl::unexpected(std::move(elf.error()));
    if (library == "libc10.so") set.abi = torch_cxx_abi(*elf).abi;
    set.libraries.emplace_back(library);
    files.push_back(std::move(*elf));
  }
  for (const ElfFile& file : files) {
    for (std::size_t i = 0; i < file.defined_symbols.size(); ++i) {
      names.push_back(file.defined_symbols[i]);
    }
  }
  set.defined = SymbolNames(std::move(names));  // copies the names into its own buffer
  return set;
}

bool is_torch_symbol(std::string_view mangled) {
  std::string_view rest = mangled;
  if (!consume(rest, "_Z")) return false;
  // Virtual tables, typeinfo and typeinfo names of torch classes.
  if (!(consume(rest, "TV") || consume(rest, "TI") || consume(rest, "TS"))) {
    if (rest.starts_with("T") || rest.starts_with("GV")) return false;  // thunks, guards
  }
  if (!consume(rest, "N")) return false;
  while (!rest.empty() && std::string_view("KVrRO").find(rest.front()) != std::string_view::npos) {
    rest.remove_prefix(1);  // cv- and ref-qualifiers of member functions
  }
  return rest.starts_with("3c10") || rest.starts_with("2at") || rest.starts_with("5torch") ||
         rest.starts_with("6caffe2");
}

namespace {
// c10::cuda::*, at::cuda::* and torch::cuda::* by their mangled prefixes
// (also inside a nested name: _ZNK, _ZN...).
bool is_cuda_symbol(std::string_view symbol) {
  return symbol.find("3c104cuda") != std::string_view::npos ||
         symbol.find("2at4cuda") != std::string_view::npos ||
         symbol.find("5torch4cuda") != std::string_view::npos;
}
}  // namespace

std::string_view to_string(SymbolDiagnosis diagnosis) {
  switch (diagnosis) {
    case SymbolDiagnosis::none:
      return "none";
    case SymbolDiagnosis::cxx11_abi_mismatch:
      return "cxx11-abi-mismatch";
    case SymbolDiagnosis::torch_version_mismatch:
      return "torch-version-mismatch";
    case SymbolDiagnosis::cpu_torch:
      return "cpu-torch";
  }
  return "none";
}

TorchSymbolReport check_torch_symbols(const ElfFile& module, const TorchLibrarySet& torch) {
  TorchSymbolReport report;
  report.module_abi = module_abi(module);
  bool other_abi_form = false;  // a missing name spelled with the ABI torch lacks
  for (std::size_t i = 0; i < module.undefined_symbols.size(); ++i) {
    const std::string_view symbol = module.undefined_symbols[i];
    if (!is_torch_symbol(symbol)) continue;
    ++report.checked;
    if (torch.defined.contains(symbol)) continue;
    const CxxAbi form = symbol_abi(symbol);
    if (form != CxxAbi::unknown && torch.abi != CxxAbi::unknown && form != torch.abi) {
      other_abi_form = true;
    }
    report.missing.push_back({std::string(symbol), demangle(symbol)});
  }
  if (report.missing.empty()) return report;

  const bool abi_differs = report.module_abi.abi != CxxAbi::unknown &&
                           torch.abi != CxxAbi::unknown && report.module_abi.abi != torch.abi;
  const std::string torch_name =
      torch.version ? fmt::format("torch {}", *torch.version) : std::string("the installed torch");
  if (other_abi_form || abi_differs) {
    report.diagnosis = SymbolDiagnosis::cxx11_abi_mismatch;
    // A missing name in the other form is proof even when the module's own
    // counts were mixed: its ABI is then the one torch lacks.
    CxxAbi built = report.module_abi.abi;
    if (built == CxxAbi::unknown) {
      built = torch.abi == CxxAbi::cxx11 ? CxxAbi::pre_cxx11 : CxxAbi::cxx11;
    }
    report.explanation = fmt::format(
        "the module was built with the {} C++ string ABI (_GLIBCXX_USE_CXX11_ABI={}), {} with the "
        "{} one (={})",
        to_string(built), built == CxxAbi::cxx11 ? 1 : 0, torch_name, to_string(torch.abi),
        torch.abi == CxxAbi::cxx11 ? 1 : 0);
  } else if (std::all_of(report.missing.begin(), report.missing.end(),
                         [](const MissingSymbol& m) { return is_cuda_symbol(m.symbol); }) &&
             !torch.defined.find_containing("_ZN3c104cuda") &&
             !torch.defined.find_containing("_ZN2at4cuda")) {
    // Another torch version would define c10::cuda functions too: this
    // torch defines none, so it is a build without CUDA.
    report.diagnosis = SymbolDiagnosis::cpu_torch;
    report.explanation = fmt::format(
        "{} defines no CUDA functions (a CPU build), and the module calls {} of them: it was "
        "built for a CUDA build of torch",
        torch_name, report.missing.size());
  } else {
    report.diagnosis = SymbolDiagnosis::torch_version_mismatch;
    report.explanation = fmt::format(
        "{} does not define {} of the torch functions the module calls: it was built against "
        "another torch version",
        torch_name, report.missing.size());
  }
  return report;
}

}  // namespace flashfit::binary
