#include "util/dynamic_library.hpp"

#include <dlfcn.h>

namespace flashfit::util {

DynamicLibrary::~DynamicLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

Result<DynamicLibrary> DynamicLibrary::open(const std::string& name) {
  // RTLD_LOCAL keeps the vendor's symbols out of the global namespace, so they
  // cannot interpose on anything else in the process; RTLD_NOW surfaces a
  // broken install (missing dependencies) here rather than at the first call.
  dlerror();
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    std::string message = why != nullptr ? why : "dlopen failed";
    // dlerror() usually starts with the name itself; say it once.
    if (message.rfind(name + ": ", 0) == 0) message.erase(0, name.size() + 2);
    return fail(ErrorKind::failed, "cannot load " + name + ": " + message, name);
  }
  DynamicLibrary lib;
  lib.handle_ = handle;
  lib.name_ = name;
  return lib;
}

void* DynamicLibrary::raw_symbol(const char* name) const {
  if (handle_ == nullptr) return nullptr;
  return dlsym(handle_, name);
}

}  // namespace flashfit::util
