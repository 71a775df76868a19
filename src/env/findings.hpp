#pragma once
// What is wrong with an environment for flash-attn-style packages, each
// finding with a concrete fix. A pure function of the Environment, so what-if
// environments get the same advice. Findings are advice, not failures.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/environment.hpp"

namespace flashfit::env {

enum class Severity {
  problem,  // flash-attn cannot work until this is fixed
  warning,  // it works, but something will go wrong (a source build, a future install)
  note,     // worth knowing
};
std::string_view to_string(Severity severity);

struct Finding {
  std::string id;  // stable, kebab-case: "cpu-only-torch" (docs/json.md lists them)
  Severity severity = Severity::note;
  std::string message;
  std::string fix;  // a command or a concrete change; may be empty for notes
};

std::vector<Finding> diagnose(const Environment& env);

// The PyTorch wheel index for the newest CUDA this driver runs
// ("https://download.pytorch.org/whl/cu128"); nullopt when the driver's CUDA
// is unknown or older than every index.
std::optional<std::string> torch_index_for_driver(
    const std::optional<pkg::CudaVersion>& driver_cuda);

}  // namespace flashfit::env
