#pragma once
// Reading the process environment, in one place.

#include <optional>
#include <string>

namespace flashfit::util {

// The variable's value; nullopt when it is unset.
std::optional<std::string> getenv_opt(const char* name);

// The value when set and non-empty (an empty CUDA_HOME or HOME means unset).
std::optional<std::string> getenv_nonempty(const char* name);

}  // namespace flashfit::util
