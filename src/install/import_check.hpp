#pragma once
// Proof that an installed binary works: a fresh interpreter imports torch,
// then each module (the recipe's binary module, or every extension module
// and top-level package the wheel holds), in a subprocess with a timeout, from
// a neutral directory so nothing local shadows them. With a GPU present and a
// known smoke test (flash-attn), one tiny attention call is compared with
// PyTorch's own attention.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "util/process.hpp"

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
  // Where it ran: false, a fresh interpreter started after the installer;
  // true, one started before (it imported torch while the installer ran) and
  // proven to have loaded nothing the installer changed.
  bool preloaded = false;
  // Set when the one started before was set aside and this check ran fresh: why.
  std::string redone_because;
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

// Runs the check in a fresh interpreter.
util::Result<ImportCheck> check_imports(const ImportCheckOptions& options);

// The check's interpreter: started with whether it imports torch first and
// whether it is preloaded (started before the installer ran: it then proves
// that nothing it loaded changed before it imports anything); told the
// modules on its stdin (check_request) once they are installed.
util::ProcessSpec check_process(const std::string& python, bool import_torch, bool preloaded);
std::string check_request(const ImportCheckOptions& options);

// The interpreter's answer, read from its output (pure).
struct CheckAnswer {
  ImportCheck check;
  // A preloaded interpreter's evidence that something it had loaded changed
  // ("/x/torch/version.py changed"): it imported nothing, and its answer is void.
  std::optional<std::string> stale;
  bool complete = false;   // it exited 0 with a result for torch and every module
  bool timed_out = false;  // it ran past the check's timeout
  // It said torch's result: a preloaded interpreter does so only after proving
  // that nothing it had loaded changed, so from there it is as good as fresh.
  bool torch_said = false;
};
CheckAnswer read_check_output(const util::ProcessResult& run, const ImportCheckOptions& options);

// Extension modules and top-level packages of a wheel, as import names:
// "pkg/sub/_C.cpython-311-x86_64-linux-gnu.so" -> "pkg.sub._C". The top-level
// names are top_level.txt's, else derived from the members' paths (a wheel
// without top_level.txt still has its packages imported). Empty: the wheel
// holds nothing importable.
std::vector<std::string> module_names(const std::vector<std::string>& members,
                                      const std::vector<std::string>& top_level);

}  // namespace flashfit::install
