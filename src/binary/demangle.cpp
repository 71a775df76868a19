#include "binary/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace flashfit::binary {

std::string demangle(std::string_view mangled) {
  // libstdc++'s demangler: the one the toolchain that wrote these names uses.
  if (!mangled.starts_with("_Z")) return std::string(mangled);
  const std::string name(mangled);  // NUL-terminated copy for the C API
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || text == nullptr) return name;
  return std::string(text.get());
}

}  // namespace flashfit::binary
