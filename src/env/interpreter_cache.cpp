#include "env/interpreter_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "env/interpreter_script.hpp"
#include "util/atomic_file.hpp"
#include "util/env_vars.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"

namespace flashfit::env {
namespace {

using nlohmann::json;

json stamp_json(const InterpreterStamp& s) {
  return json{{"program", s.program},
              {"resolved", s.resolved},
              {"size", s.size},
              {"mtime_ns", s.mtime_ns},
              {"inode", s.inode},
              {"environment", s.environment},
              {"script_version", s.script_version}};
}

}  // namespace

std::optional<InterpreterStamp> stamp_interpreter(const std::string& program) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(program, ec);
  if (ec) return std::nullopt;
  const auto resolved = std::filesystem::canonical(absolute, ec);
  if (ec) return std::nullopt;
  struct stat st {};
  if (::stat(resolved.c_str(), &st) != 0) return std::nullopt;
  // Only a real executable is cached. A script (a pyenv shim, a wrapper)
  // picks its interpreter at run time (.python-version, PYENV_VERSION, its
  // own logic) without its file changing, so its answer cannot be reused.
  char magic[4] = {};
  const int fd = ::open(resolved.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  const bool elf = ::read(fd, magic, sizeof magic) == 4 && std::memcmp(magic,
                                                                       "\x7f"
                                                                       "ELF",
                                                                       4) == 0;
  ::close(fd);
  if (!elf) return std::nullopt;
  InterpreterStamp stamp;
  stamp.program = absolute.string();
  stamp.resolved = resolved.string();
  stamp.size = static_cast<std::uintmax_t>(st.st_size);
  stamp.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  stamp.inode = static_cast<std::uint64_t>(st.st_ino);
  // What else decides sys.path: the user site's place (HOME, PYTHONUSERBASE) and
  // whether it is used at all (PYTHONNOUSERSITE).
  stamp.environment.clear();
  for (const char* name :
       {"PYTHONHOME", "PYTHONPATH", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "HOME"}) {
    if (!stamp.environment.empty()) stamp.environment += '\n';
    const auto value =
        std::string_view(name) == "PYTHONPATH" ? absolute_pythonpath() : util::getenv_opt(name);
    stamp.environment += std::string(name) + "=" + value.value_or("");
  }
  stamp.script_version = kInterpreterScriptVersion;
  return stamp;
}

std::optional<std::string> absolute_pythonpath() {
  auto value = util::getenv_opt("PYTHONPATH");
  if (!value) return value;
  std::error_code ec;
  const auto cwd = std::filesystem::current_path(ec);
  std::string out;
  bool first = true;
  for (auto entry : util::split(*value, ':')) {
    if (!first) out += ':';
    first = false;
    if (!entry.empty() && entry.front() != '/' && !ec)
      out += (cwd / std::string(entry)).lexically_normal().string();
    else
      out += entry;
  }
  return out;
}

std::filesystem::path InterpreterCache::entry_path(const InterpreterStamp& stamp) const {
  // The name only spreads entries over files; the full stamp inside the entry
  // is what decides a hit (so a non-cryptographic hash: libcrypto stays unloaded).
  return root_ / "interpreters" / (util::name_hash_hex(stamp.program) + ".json");
}

std::optional<std::string> InterpreterCache::load(const InterpreterStamp& stamp) const {
  auto text = util::read_small_file(entry_path(stamp), std::size_t{4} << 20);
  if (!text) return std::nullopt;
  json entry = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (entry.is_discarded() || !entry.is_object()) return std::nullopt;
  auto key = entry.find("stamp");
  auto answer = entry.find("answer");
  if (key == entry.end() || answer == entry.end() || !answer->is_string()) return std::nullopt;
  if (*key != stamp_json(stamp)) return std::nullopt;
  return answer->get<std::string>();
}

namespace {
// Entries named by the SHA-256 of the path (flashfit before 2026-11-27):
// never read again, since names are FNV-1a now.
bool old_entry_name(const std::string& name) {
  constexpr std::size_t kHex = 64;
  return name.size() == kHex + 5 && name.ends_with(".json") &&
         name.find_first_not_of("0123456789abcdef") == kHex;
}
}  // namespace

void InterpreterCache::store(const InterpreterStamp& stamp, std::string_view answer) const {
  const auto path = entry_path(stamp);
  if (!util::ensure_cache_dir(root_, path.parent_path())) return;
  const json entry{{"stamp", stamp_json(stamp)}, {"answer", std::string(answer)}};
  if (!util::write_file_atomic(path, entry.dump())) return;
  // A store is a miss (rare): the moment to drop what older flashfit left.
  std::error_code ec;
  for (const auto& file : std::filesystem::directory_iterator(path.parent_path(), ec)) {
    if (old_entry_name(file.path().filename().string())) std::filesystem::remove(file.path(), ec);
  }
}

}  // namespace flashfit::env
