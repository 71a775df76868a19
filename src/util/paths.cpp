#include "util/paths.hpp"

#include <cstdlib>

#include "util/atomic_file.hpp"

namespace flashfit::util {
namespace {

std::optional<std::string> nonempty_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

constexpr const char* kCacheDirTag =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by flashfit.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n";

}  // namespace

std::optional<std::filesystem::path> cache_root() {
  if (auto dir = nonempty_env("FLASHFIT_CACHE_DIR")) return std::filesystem::path(*dir);
  if (auto xdg = nonempty_env("XDG_CACHE_HOME")) return std::filesystem::path(*xdg) / "flashfit";
  if (auto home = nonempty_env("HOME")) return std::filesystem::path(*home) / ".cache" / "flashfit";
  return std::nullopt;
}

bool ensure_cache_dir(const std::filesystem::path& root, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return false;
  const auto tag = root / "CACHEDIR.TAG";
  if (!std::filesystem::exists(tag, ec)) (void)write_file_atomic(tag, kCacheDirTag);
  return true;
}

}  // namespace flashfit::util
