#pragma once
// The torch a failed preflight check tells the user to install: a CUDA build
// from download.pytorch.org whose CUDA major is the nvcc's here, for this
// Python, as one exact pip command (env/torch_releases.hpp has the table).

#include <optional>
#include <string>

#include "env/environment.hpp"

namespace flashfit::build::detail {

// nvcc's CUDA major, when nvcc was found and answered.
std::optional<int> preflight_nvcc_major(const env::Environment& env);

// "<python> -m pip install torch==2.9.1 --index-url https://download.pytorch.org/whl/cu130":
// the newest torch with a CUDA build of `cuda_major` (any when nullopt) for
// this Python, or with `keep_minor` the installed torch's minor when it has
// one. The CUDA minor is the nearest to nvcc's. nullopt when none fits.
std::optional<std::string> preflight_torch_command(const env::Environment& env,
                                                   const std::string& python,
                                                   std::optional<int> cuda_major,
                                                   bool keep_minor = false);

}  // namespace flashfit::build::detail
