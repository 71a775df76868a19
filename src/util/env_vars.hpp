#pragma once
// Reading the process environment, in one place.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace flashfit::util {

// The variable's value; nullopt when it is unset.
std::optional<std::string> getenv_opt(const char* name);

// The value when set and non-empty (an empty CUDA_HOME or HOME means unset).
std::optional<std::string> getenv_nonempty(const char* name);

// "NAME=value" strings for a child: this process's environment with `unset`
// removed and `set` applied (later entries win), sorted by name.
std::vector<std::string> environment_with(
    const std::vector<std::string>& unset,
    const std::vector<std::pair<std::string, std::string>>& set);

}  // namespace flashfit::util
