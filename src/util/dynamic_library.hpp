#pragma once
// A dlopen handle that closes itself. Used for vendor libraries (NVML, the
// CUDA driver) that flashfit may only load at run time: the tool must work on
// machines without them, so they are never linked.

#include <stdexcept>
#include <string>
#include <utility>

#include "util/error.hpp"

namespace flashfit::util {

// Thrown where a library loaded at its first use cannot be loaded, from code
// that has no error path of its own (util::Sha256's constructor); the
// command's edge (cli) reports `error` as it is: a missing package to install,
// not an internal error.
class LibraryUnavailable : public std::runtime_error {
 public:
  explicit LibraryUnavailable(Error error)
      : std::runtime_error(error.message), error_(std::move(error)) {}
  const Error& error() const noexcept { return error_; }

 private:
  Error error_;
};

class DynamicLibrary {
 public:
  DynamicLibrary() = default;
  ~DynamicLibrary();
  DynamicLibrary(DynamicLibrary&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), name_(std::move(other.name_)) {}
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // dlopen(name, RTLD_NOW | RTLD_LOCAL) through the normal loader search; a
  // library that is absent or unloadable is an error carrying dlerror()'s text.
  static Result<DynamicLibrary> open(const std::string& name);

  // The address of an exported symbol, or nullptr when the library lacks it.
  // The caller names the real C signature: `lib.symbol<int(int*)>("cuInit")`.
  template <class Signature>
  Signature* symbol(const char* name) const {
    return reinterpret_cast<Signature*>(raw_symbol(name));
  }

  // Gives up ownership without dlclose, for a library that cannot be safely
  // unloaded once used (the CUDA driver has no shutdown call and may run
  // threads of its own). The library stays loaded for the process's life.
  void keep_loaded() { handle_ = nullptr; }

  const std::string& name() const { return name_; }
  bool is_open() const { return handle_ != nullptr; }

 private:
  void* raw_symbol(const char* name) const;

  void* handle_ = nullptr;
  std::string name_;
};

}  // namespace flashfit::util
