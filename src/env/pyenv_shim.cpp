#include "env/pyenv_shim.hpp"

#include <unistd.h>

#include <string_view>
#include <vector>

#include "util/atomic_file.hpp"
#include "util/env_vars.hpp"

namespace flashfit::env {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_on(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find(sep, start);
    out.emplace_back(text.substr(start, end == std::string_view::npos ? text.npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

// The root the shim exports: pyenv writes `export PYENV_ROOT="<root>"` into
// every shim and execs "<root>/libexec/pyenv" (or its install prefix's)
// `exec "$program"`. Both must be there for the file to count as a shim.
std::optional<fs::path> shim_root(const fs::path& program) {
  auto text = util::read_small_file(program, 8192);
  if (!text || !text->starts_with("#!")) return std::nullopt;
  if (text->find("pyenv\" exec \"$program\"") == std::string::npos) return std::nullopt;
  constexpr std::string_view key = "export PYENV_ROOT=\"";
  const auto at = text->find(key);
  if (at == std::string::npos) return std::nullopt;
  const auto end = text->find('"', at + key.size());
  if (end == std::string::npos) return std::nullopt;
  std::string root = text->substr(at + key.size(), end - at - key.size());
  // A root with shell expansions in it is not a plain path.
  if (root.empty() || root.front() != '/' || root.find_first_of("$`\\") != std::string::npos) {
    return std::nullopt;
  }
  return fs::path(root);
}

// A `which` hook runs after pyenv's own search. One whose whole body sits
// under `if [ ! -x "${PYENV_COMMAND_PATH}" ]` (as pyenv-virtualenv's all do)
// only acts when that search found nothing, so it cannot change an answer
// found here; any other hook might.
bool guarded_by_not_found(const fs::path& hook) {
  auto text = util::read_small_file(hook, 1 << 16);
  if (!text) return false;
  std::vector<std::string> code;
  for (auto line : split_on(*text, '\n')) {
    const auto start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    const auto end = line.find_last_not_of(" \t\r");
    code.push_back(line.substr(start, end - start + 1));
  }
  if (code.empty()) return true;
  if (!code.front().starts_with("if [ ! -x \"${PYENV_COMMAND_PATH}\" ]") || code.back() != "fi")
    return false;
  int depth = 0;
  for (std::size_t i = 0; i < code.size(); ++i) {
    const auto& l = code[i];
    if (l.starts_with("if ") || l == "if") ++depth;
    if (l == "fi" || l.starts_with("fi ") || l.starts_with("fi;")) --depth;
    if (depth <= 0 && i + 1 < code.size()) return false;  // code after the guard's fi
  }
  return depth == 0;
}

// pyenv sources `which` and `version-name` hooks that may choose another
// interpreter; with one that might, the rules here are not the whole story.
bool has_choosing_hooks(const fs::path& root, const PyenvInputs& in) {
  std::vector<fs::path> dirs;
  if (in.hook_path) {
    for (const auto& d : split_on(*in.hook_path, ':')) {
      if (!d.empty()) dirs.emplace_back(d);
    }
  }
  for (const char* d :
       {"/usr/etc/pyenv.d", "/usr/local/etc/pyenv.d", "/etc/pyenv.d", "/usr/lib/pyenv/hooks"}) {
    dirs.emplace_back(d);
  }
  dirs.push_back(root / "pyenv.d");
  std::error_code ec;
  for (const auto& plugin : fs::directory_iterator(root / "plugins", ec)) {
    dirs.push_back(plugin.path() / "etc" / "pyenv.d");
  }
  for (const auto& dir : dirs) {
    for (const std::string_view hook : {"which", "version-name"}) {
      std::error_code it_ec;
      for (const auto& entry : fs::directory_iterator(dir / hook, it_ec)) {
        if (entry.path().extension() != ".bash") continue;
        if (hook == "which" && guarded_by_not_found(entry.path())) continue;
        return true;
      }
    }
  }
  return false;
}

// pyenv-version-file: .python-version from $PYENV_DIR up to /, then from the
// working directory up, then $PYENV_ROOT/version.
fs::path version_file(const fs::path& root, const PyenvInputs& in) {
  const auto find_up = [](fs::path dir) -> std::optional<fs::path> {
    for (;;) {
      std::error_code ec;
      auto candidate = dir / ".python-version";
      if (fs::is_regular_file(candidate, ec)) return candidate;
      if (!dir.has_relative_path()) return std::nullopt;
      dir = dir.parent_path();
    }
  };
  const fs::path pyenv_dir =
      in.pyenv_dir && !in.pyenv_dir->empty() ? fs::path(*in.pyenv_dir) : in.cwd;
  if (auto f = find_up(pyenv_dir)) return *f;
  if (pyenv_dir != in.cwd) {
    if (auto f = find_up(in.cwd)) return *f;
  }
  return root / "version";
}

// pyenv-version-file-read: the first word of each line, blank lines and
// comments skipped. nullopt marks a name pyenv treats specially (a path).
std::optional<std::vector<std::string>> read_version_file(const fs::path& file) {
  std::vector<std::string> versions;
  auto text = util::read_small_file(file, 1 << 16);
  if (!text) return versions;
  for (auto line : split_on(*text, '\n')) {
    const auto start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos) continue;
    const auto end = line.find_first_of(" \t\r", start);
    std::string word = line.substr(start, end == std::string::npos ? end : end - start);
    if (word.starts_with('#')) continue;
    if (word == ".." || word.find('/') != std::string::npos) return std::nullopt;
    versions.push_back(std::move(word));
  }
  return versions;
}

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// `command -v` on PATH without the shims directory.
std::optional<fs::path> system_command(const std::string& command, const fs::path& shims,
                                       const PyenvInputs& in) {
  for (const auto& dir : split_on(in.path.value_or("/bin:/usr/bin"), ':')) {
    if (dir.empty() || fs::path(dir) == shims) continue;
    auto candidate = fs::path(dir) / command;
    if (is_executable_file(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

PyenvInputs pyenv_inputs_from_environment() {
  PyenvInputs in;
  in.pyenv_version = util::getenv_opt("PYENV_VERSION");
  in.pyenv_dir = util::getenv_opt("PYENV_DIR");
  in.path = util::getenv_opt("PATH");
  in.hook_path = util::getenv_opt("PYENV_HOOK_PATH");
  std::error_code ec;
  in.cwd = fs::current_path(ec);
  return in;
}

std::optional<fs::path> resolve_pyenv_shim(const fs::path& program, const PyenvInputs& in) {
  const auto root = shim_root(program);
  if (!root) return std::nullopt;
  const fs::path shims = *root / "shims";
  // A shim copied elsewhere takes its extra search rules (_PYENV_SHIM_PATH).
  if (program.parent_path() != shims) return std::nullopt;
  if (in.cwd.empty() || has_choosing_hooks(*root, in)) return std::nullopt;
  const std::string command = program.filename().string();

  std::vector<std::string> versions;
  if (in.pyenv_version && !in.pyenv_version->empty()) {
    versions = split_on(*in.pyenv_version, ':');
  } else {
    auto read = read_version_file(version_file(*root, in));
    if (!read) return std::nullopt;
    versions = std::move(*read);
  }
  versions.emplace_back("system");  // pyenv-which always tries it last
  for (const auto& version : versions) {
    if (version.empty()) continue;
    if (version == "system") {
      if (auto found = system_command(command, shims, in)) return found;
      continue;
    }
    if (version.find('/') != std::string::npos || version == "..") return std::nullopt;
    std::error_code ec;
    const fs::path dir = *root / "versions" / version;
    // pyenv would expand a prefix ("3.11") or strip "python-": let it.
    if (!fs::is_directory(dir, ec)) return std::nullopt;
    auto candidate = dir / "bin" / command;
    if (is_executable_file(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace flashfit::env
