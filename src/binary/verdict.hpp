#pragma once
// The inspect verdict: will this wheel / extension module load and run in a
// given environment? Each question is a Check with a status, a one-line
// summary, details and a fix. The environment comes in as a LoadHost, a plain
// value the caller builds (env/load_host.cpp turns a probed or what-if
// Environment into one), so the checks never probe by themselves.

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "binary/cxx_abi.hpp"
#include "binary/elf.hpp"
#include "binary/fatbin.hpp"
#include "binary/library_search.hpp"
#include "binary/torch_symbols.hpp"
#include "binary/wheel.hpp"
#include "pkg/tags.hpp"

namespace flashfit::binary {

enum class CheckStatus { pass, note, warn, fail, skip };
std::string_view to_string(CheckStatus status);  // "pass", "note", "warn", "fail", "skip"

struct Check {
  std::string id;  // "record", "wheel", "tags", "needed-libraries", "symbol-versions",
                   // "torch-symbols", "pybind11", "kernel-images"
  CheckStatus status = CheckStatus::skip;
  std::string summary;               // one line
  std::vector<std::string> details;  // one line each
  std::string fix;                   // empty when there is nothing to do
};

struct GpuTarget {
  std::string label;  // "GPU 0 (NVIDIA H100 80GB HBM3)", "what-if GPU"
  int major = 0;
  int minor = 0;
};

// What the checks compare against. Unknown parts carry the reason, and the
// checks that need them are skipped with it.
struct LoadHost {
  std::optional<std::string> arch;  // "x86_64"
  std::string arch_unknown_reason;
  std::optional<std::string> glibc_override;  // --glibc: "2.31", checked instead of libc's own

  std::optional<pkg::SupportedTags> tags;  // the interpreter's, best first
  std::string tags_unknown_reason;
  std::string interpreter;                 // "CPython 3.11.2 (/usr/bin/python3)"
  std::optional<std::string> ext_suffix;   // ".cpython-311-x86_64-linux-gnu.so"
  std::optional<std::filesystem::path> install_dir;  // platlib: where a wheel's files land

  bool torch_installed = false;
  std::optional<TorchLibrarySet> torch;  // its libraries' symbols; nullopt: not read
  std::string torch_unknown_reason;      // why not (not installed, --torch, unreadable)
  CxxAbi torch_abi = CxxAbi::unknown;    // known even without libraries (--cxx11-abi)
  std::optional<std::string> torch_version;
  std::optional<std::string> torch_pybind11_id;

  std::optional<std::vector<GpuTarget>> gpus;  // known-empty: no GPU
  std::string gpus_unknown_reason;
  std::optional<CudaVersion> driver_cuda;

  LibrarySearch search;  // how the dynamic loader finds NEEDED libraries here
};

struct GpuKernel {
  GpuTarget gpu;
  KernelVerdict verdict;
};

// One extension module (a shared object) and what the checks found in it.
struct ModuleReport {
  std::string member;          // its path in the wheel / distribution, or the file given
  std::filesystem::path file;  // where it was read (a temporary file for wheels)
  ElfFile elf;                 // NEEDED, RPATH/RUNPATH, symbols, version needs
  AbiEvidence abi;             // its C++ string ABI, from its symbol names
  std::vector<NeededLibrary> resolved;
  std::optional<TorchSymbolReport> torch;  // when torch's libraries were there to check
  std::optional<std::string> pybind11_id;
  std::vector<FatbinEntry> fatbin;
  std::vector<GpuKernel> kernels;
  std::vector<Check> checks;
};

enum class TargetKind { wheel, library, installed };
std::string_view to_string(TargetKind kind);  // "wheel", "library", "installed"

struct InspectReport {
  TargetKind kind = TargetKind::library;
  std::filesystem::path path;  // the .whl, the .so, or the dist-info directory
  std::string name;            // distribution name, when there is one
  std::string version;
  std::vector<pkg::Tag> tags;  // a wheel's, from its file name
  std::vector<Check> checks;   // about the whole target: record, wheel, tags
  std::vector<ModuleReport> modules;

  // No check failed anywhere.
  bool compatible() const;
};

// Modules that a package's Python code imports and that only a binary wheel
// carries (docs/background.md §15: the flash_attn_2_cuda trap).
struct RequiredModule {
  std::string_view distribution;  // canonical name
  std::string_view module;
};
std::span<const RequiredModule> required_modules();

// ------------------------------------------------------------ the checks
// Pure functions of what was read and the host; exposed for tests.

// ELF machine against the host's, and the module file name's EXT_SUFFIX
// against the interpreter's (a cpython-312 module cannot load in 3.11).
Check check_module_platform(const ModuleReport& module, const LoadHost& host);
// Every NEEDED library found (module.resolved filled by the caller).
Check check_needed_libraries(const ModuleReport& module, const LoadHost& host);
// Symbol versions the module needs (GLIBC_2.32, GLIBCXX_3.4.30) against the
// versions the resolved libraries define; `defined` maps a resolved path to
// its version definitions.
struct DefinedVersions {
  std::string file;  // NEEDED name: "libc.so.6"
  std::vector<std::string> versions;
};
Check check_symbol_versions(const ModuleReport& module, const std::vector<DefinedVersions>& defined,
                            const LoadHost& host);
// Fills module.torch when the host has torch's libraries.
Check check_torch(ModuleReport& module, const LoadHost& host);
Check check_pybind11(const ModuleReport& module, const LoadHost& host);
// Per GPU: SASS, PTX JIT only (warn) or no kernel image (fail).
Check check_kernel_images(ModuleReport& module, const LoadHost& host);

// A wheel's tags against the interpreter's supported tags.
Check check_wheel_tags(const std::vector<pkg::Tag>& tags, const LoadHost& host);
Check check_record(const std::vector<RecordProblem>& problems);
// File name / WHEEL / METADATA disagreements, and the pure-wheel trap: a
// known CUDA package (flash-attn, causal-conv1d, mamba-ssm) without its
// compiled module.
Check check_wheel_contents(const Wheel& wheel);

}  // namespace flashfit::binary
