#pragma once
// The environment a lock's key is read from, for `lock`, `lock --check` and
// `install --lock`: one probe, so that the three agree on what "here" is.
#include "cli/what_if_flags.hpp"
#include "env/environment.hpp"
#include "util/error.hpp"

namespace flashfit::cli {

// Probed (GPUs included, no toolkit) with the what-if flags laid over, torch's
// ABI derived where not probed; an interpreter that cannot be asked is an error.
util::Result<env::Environment> probe_for_key(const EnvironmentFlags& flags);

}  // namespace flashfit::cli
