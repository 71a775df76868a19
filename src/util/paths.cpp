#include "util/paths.hpp"

#include <string>

#include "util/atomic_file.hpp"
#include "util/env_vars.hpp"

namespace flashfit::util {
namespace {

constexpr const char* kCacheDirTag =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by flashfit.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n";

}  // namespace

std::optional<std::filesystem::path> cache_root() {
  if (auto dir = getenv_nonempty("FLASHFIT_CACHE_DIR")) return std::filesystem::path(*dir);
  if (auto xdg = getenv_nonempty("XDG_CACHE_HOME")) return std::filesystem::path(*xdg) / "flashfit";
  if (auto home = getenv_nonempty("HOME"))
    return std::filesystem::path(*home) / ".cache" / "flashfit";
  return std::nullopt;
}

std::string cache_root_origin() {
  // The same order as cache_root().
  if (getenv_nonempty("FLASHFIT_CACHE_DIR")) return "$FLASHFIT_CACHE_DIR";
  if (getenv_nonempty("XDG_CACHE_HOME")) return "$XDG_CACHE_HOME";
  if (getenv_nonempty("HOME")) return "$HOME";
  return "";
}

bool ensure_cache_dir(const std::filesystem::path& root, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return false;
  const auto tag = root / "CACHEDIR.TAG";
  // A marker, not data: written without an fsync (a journal commit on every
  // new cache), and written again whenever it is missing or not whole (a crash
  // can leave it empty), so no crash leaves a cache without its tag for long.
  const auto size = std::filesystem::file_size(tag, ec);
  if (ec || size != std::char_traits<char>::length(kCacheDirTag))
    (void)write_file_atomic(tag, kCacheDirTag, Durability::atomic_only);
  return true;
}

Result<std::filesystem::path> require_cache_root(std::string_view purpose) {
  if (auto root = cache_root()) return *root;
  std::string message = "no cache directory";
  if (!purpose.empty()) message += " " + std::string(purpose);
  return fail(ErrorKind::failed, message, {}, "set FLASHFIT_CACHE_DIR or HOME");
}

}  // namespace flashfit::util
