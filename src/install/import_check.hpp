#pragma once
// Proof that an installed binary works: a fresh interpreter imports torch,
// then each module (the recipe's binary module, or every extension module
// and top-level package the wheel holds), in a subprocess with a timeout, from
// a neutral directory so nothing local shadows them. With a GPU present and a
// known smoke test (flash-attn), one tiny attention call is compared with
// PyTorch's own attention.
#include <chrono>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace flashfit::install {

struct ModuleResult {
  std::string module;
  bool ok = false;
  std::string error;  // "ImportError: ...undefined symbol: _ZN3c10..."
};

struct ImportCheck {
  bool torch_ok = false;
  std::string torch_version;
  std::string torch_error;
  std::vector<ModuleResult> modules;
  std::string gpu_test;  // "passed", "skipped: no GPU", "skipped: no smoke test for this package",
                         // or the failure
  bool gpu_test_failed = false;
  bool ok() const;
  std::string first_failure() const;
};

struct ImportCheckOptions {
  std::string python;
  std::vector<std::string> modules;
  bool gpu_present = false;
  bool import_torch = true;  // torch extensions need torch imported first; plain packages do not
  std::chrono::seconds timeout{120};
};

util::Result<ImportCheck> check_imports(const ImportCheckOptions& options);

// Extension modules and top-level packages of a wheel, as import names:
// "pkg/sub/_C.cpython-311-x86_64-linux-gnu.so" -> "pkg.sub._C". The top-level
// names are top_level.txt's, else derived from the members' paths (a wheel
// without top_level.txt still has its packages imported). Empty: the wheel
// holds nothing importable.
std::vector<std::string> module_names(const std::vector<std::string>& members,
                                      const std::vector<std::string>& top_level);

}  // namespace flashfit::install
