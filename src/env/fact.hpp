#pragma once
// One fact about the environment, with where it came from. A fact that could
// not be determined is "unknown" with the reason, never a guess, so doctor
// can always finish and say what it could not learn.

#include <optional>
#include <string>
#include <utility>

namespace flashfit::env {

template <class T>
struct Fact {
  std::optional<T> value;
  std::string source;          // "/proc/meminfo", "cgroup v2 memory.max", "NVML", "--torch"
  std::string unknown_reason;  // why value is empty (empty when known)
  bool overridden = false;     // set by a what-if flag rather than probed

  bool known() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }

  // The strings are taken by reference: clang-tidy 14 misreads a moved
  // by-value parameter of a class template's static member as a copy.
  static Fact of(T value, const std::string& source) {
    Fact f;
    f.value = std::move(value);
    f.source = source;
    return f;
  }
  static Fact unknown(const std::string& reason, const std::string& source = {}) {
    Fact f;
    f.unknown_reason = reason;
    f.source = source;
    return f;
  }
  // A what-if value replacing whatever was probed; `flag` is the option that set it.
  static Fact overridden_by(T value, const std::string& flag) {
    Fact f = of(std::move(value), flag);
    f.overridden = true;
    return f;
  }
};

}  // namespace flashfit::env
