#include "env/pep668.hpp"

#include <fmt/format.h>

#include <system_error>

namespace flashfit::env {

std::filesystem::path externally_managed_marker(const Interpreter& interpreter) {
  return std::filesystem::path(interpreter.base_prefix) / "lib" /
         fmt::format("python{}.{}", interpreter.major, interpreter.minor) / "EXTERNALLY-MANAGED";
}

bool externally_managed(const Interpreter& interpreter) {
  if (interpreter.in_venv || interpreter.base_prefix.empty()) return false;
  std::error_code ec;
  return std::filesystem::is_regular_file(externally_managed_marker(interpreter), ec);
}

}  // namespace flashfit::env
