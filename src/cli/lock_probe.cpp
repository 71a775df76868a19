// The probe behind every lock key: lock, lock --check, install --lock.
#include "cli/lock_probe.hpp"

#include "resolve/target.hpp"

namespace flashfit::cli {

util::Result<env::Environment> probe_for_key(const EnvironmentFlags& flags) {
  auto probe = probe_options_from(flags);
  if (!probe) return tl::unexpected(probe.error());
  probe->probe_toolkit = false;
  env::Environment environment = env::probe_environment(*probe);
  resolve::fill_derived_torch_abi(environment);
  if (auto usable = require_interpreter(environment, flags, WithoutInterpreter::refuse); !usable)
    return tl::unexpected(usable.error());
  return environment;
}

}  // namespace flashfit::cli
