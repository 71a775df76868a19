#include "env/asdf_shim.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "util/atomic_file.hpp"
#include "util/env_vars.hpp"
#include "util/files.hpp"
#include "util/strings.hpp"

namespace flashfit::env {
namespace fs = std::filesystem;

namespace {

// The plugin this resolver knows: asdf-python, whose executables are
// <data>/installs/python/<version>/bin/<name>.
constexpr std::string_view kPlugin = "python";

std::vector<std::string_view> lines_of(std::string_view text) {
  auto lines = util::split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the final newline
  return lines;
}

// A version both asdf lines read alike: letters, digits and . _ + - (bash
// splits on `|` and blanks, Go's TrimSpace also strips Unicode spaces).
bool plain_token(std::string_view token) {
  return !token.empty() && std::all_of(token.begin(), token.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '_' || ch == '+' || ch == '-';
  });
}

// Text both lines read alike: printable ASCII lines (grep takes a file with
// a NUL as binary and prints nothing; Go trims Unicode spaces bash keeps).
bool plain_text(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char ch) { return ch == '\n' || (ch >= ' ' && ch < 0x7f); });
}

// A path both lines take as it is: absolute, no `.`/`..`/empty component, no
// trailing slash (bash uses the text, Go cleans it, `~` only Go expands).
bool normal_path(std::string_view path) {
  // Not "/" (bash's "$HOME/.asdf" is then "//.asdf"), no ':' (it splits the
  // install's entry bash puts on PATH).
  return path.size() > 1 && path.front() == '/' && path.back() != '/' &&
         path.find(':') == std::string_view::npos &&
         fs::path(path).lexically_normal().string() == path &&
         path.find("//") == std::string_view::npos;
}

bool plain_path(std::string_view path) {
  return !path.empty() && path.front() == '/' &&
         path.find_first_of("$`\\\"' \t;&|<>(){}*?[]~") == std::string_view::npos;
}

// Present, or not known to be absent (a directory that cannot be read).
bool present(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() != fs::file_type::not_found;
}

struct ShimText {
  std::vector<std::string> versions;  // in the shim's line order
  // The asdf the shim execs: "asdf" (looked up on PATH) or an absolute path.
  std::string asdf;
};

// The shim's versions, when its text is exactly what asdf writes:
//   #!/usr/bin/env bash
//   # asdf-plugin: python 3.12.1          (one line per installed version)
//   exec asdf exec "python3" "$@"                                 (Go, 0.16 on)
//   exec /home/u/.asdf/bin/asdf exec "python3" "$@" # asdf_allow: ' asdf '  (bash)
std::optional<ShimText> parse_shim(std::string_view text, const std::string& name) {
  const auto lines = lines_of(text);
  if (lines.size() < 3 || lines.front() != "#!/usr/bin/env bash") return std::nullopt;
  const std::string go_exec = "exec asdf exec \"" + name + "\" \"$@\"";
  const std::string bash_tail = " exec \"" + name + "\" \"$@\" # asdf_allow: ' asdf '";
  const std::string_view last = lines.back();
  ShimText shim;
  if (last == go_exec) {
    shim.asdf = "asdf";
  } else if (util::starts_with(last, "exec /") && util::ends_with(last, bash_tail)) {
    shim.asdf = std::string(last.substr(5, last.size() - 5 - bash_tail.size()));
    if (!plain_path(shim.asdf) || !util::ends_with(shim.asdf, "/bin/asdf")) return std::nullopt;
  } else {
    return std::nullopt;
  }
  constexpr std::string_view kTag = "# asdf-plugin: ";
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!util::starts_with(line, kTag)) return std::nullopt;
    line.remove_prefix(kTag.size());
    const auto space = line.find(' ');
    if (space == std::string_view::npos || line.substr(0, space) != kPlugin) return std::nullopt;
    const std::string_view version = line.substr(space + 1);
    if (version.empty() || !plain_token(version)) return std::nullopt;
    shim.versions.emplace_back(version);
  }
  return shim;
}

// Whether a config file may make asdf pick or run differently: hooks
// (pre_python_python3, pre_asdf_exec_...) run before the interpreter and may
// change its environment; legacy version files (.python-version) are read
// through the plugin's own scripts. The bash line reads `key = value` lines
// with grep, the Go line an ini file (`:` too, quoted keys, sections): only
// lines both read alike and keys known to be harmless pass. A file that exists
// but cannot be read is as unsure.
bool config_may_choose(const fs::path& file) {
  if (!present(file)) return false;
  auto text = util::read_small_file(file, 1 << 16);
  if (!text || !plain_text(*text)) return true;
  static constexpr std::string_view kHarmless[] = {
      "always_keep_download", "use_release_candidates", "plugin_repository_last_check_duration",
      "disable_plugin_short_name_repository", "concurrency"};
  for (auto line : lines_of(*text)) {
    line = util::trim(line);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos || line.find(':') < eq) return true;
    const auto key = util::trim(line.substr(0, eq));
    const auto value = util::trim(line.substr(eq + 1));
    // A value go-ini cannot read (an unclosed quote) fails the Go line.
    if (!plain_token(value)) return true;
    if (key == "legacy_version_file") {
      if (value != "no") return true;
      continue;
    }
    if (std::find(std::begin(kHarmless), std::end(kHarmless), key) == std::end(kHarmless))
      return true;
  }
  return false;
}

enum class Named { no, yes, unsure };

// The python line of a .tool-versions (plain_text already: no tabs or
// carriage returns, which the two lines split differently): tokens split on
// spaces, `#` starts a comment (asdf's rule). A second python line or one
// with no version is read differently by the two lines: unsure.
Named python_line(std::string_view text, std::vector<std::string>& versions) {
  Named named = Named::no;
  for (auto line : lines_of(text)) {
    line = line.substr(0, line.find('#'));
    std::vector<std::string_view> tokens;
    for (auto token : util::split(line, ' ')) {
      if (!token.empty()) tokens.push_back(token);
    }
    if (tokens.empty()) continue;
    // A line starting with a blank is skipped by the bash line
    // (`grep "^python "`) and read by the Go line (it trims).
    if (line.front() == ' ') return Named::unsure;
    if (tokens.front() != kPlugin) continue;
    if (named != Named::no || tokens.size() < 2) return Named::unsure;
    if (!std::all_of(tokens.begin(), tokens.end(), plain_token)) return Named::unsure;
    versions.assign(tokens.begin() + 1, tokens.end());
    named = Named::yes;
  }
  return named;
}

// `file`'s python versions: Named::no when it is absent or does not name python.
Named read_tool_versions(const fs::path& file, std::vector<std::string>& versions) {
  std::error_code ec;
  const auto status = fs::status(file, ec);
  if (status.type() == fs::file_type::not_found) return Named::no;  // (a dangling link too)
  if (!fs::is_regular_file(status)) return Named::unsure;
  auto text = util::read_small_file(file, 1 << 20);
  if (!text || !plain_text(*text)) return Named::unsure;
  return python_line(*text, versions);
}

// The versions set for python: $ASDF_PYTHON_VERSION, else the nearest
// .tool-versions naming python from the working directory up. nullopt:
// unsure, or none set (the shim then says so itself).
std::optional<std::vector<std::string>> set_versions(const AsdfInputs& in) {
  std::vector<std::string> versions;
  if (in.python_version && !in.python_version->empty()) {
    for (auto token : util::split(*in.python_version, ' ')) {
      if (token.empty()) continue;
      if (!plain_token(token)) return std::nullopt;
      versions.emplace_back(token);
    }
    return versions;
  }
  if (in.cwd.empty() || !in.cwd.is_absolute() || in.cwd != in.cwd.lexically_normal())
    return std::nullopt;
  for (fs::path dir = in.cwd;; dir = dir.parent_path()) {
    // The bash line stops below `/`, the Go line reads it too.
    if (!dir.has_relative_path()) {
      if (read_tool_versions(dir / ".tool-versions", versions) != Named::no) return std::nullopt;
      break;
    }
    const Named named = read_tool_versions(dir / ".tool-versions", versions);
    if (named == Named::yes) return versions;
    if (named == Named::unsure) return std::nullopt;
  }
  // Nothing up the tree: asdf 0.16.1 on falls back to $HOME/.tool-versions,
  // 0.16.0 does not (a working directory under $HOME has read it above).
  return std::nullopt;
}

// PATH with the shims directory taken out, as the bash line does it: every
// occurrence of its text replaced by nothing, then "::" by ":" (so shims first
// leaves an empty entry: the working directory).
std::string bash_path_without(std::string_view path, const std::string& shims) {
  std::string out;
  for (std::size_t at = 0;;) {
    const auto found = shims.empty() ? std::string_view::npos : path.find(shims, at);
    out += path.substr(at, found == std::string_view::npos ? found : found - at);
    if (found == std::string_view::npos) break;
    at = found + shims.size();
  }
  std::string collapsed;
  for (std::size_t i = 0; i < out.size(); ++i) {
    collapsed += out[i];
    if (out[i] == ':' && i + 1 < out.size() && out[i + 1] == ':') ++i;
  }
  return collapsed;
}

// `command -v NAME` on PATH without the shims directory (asdf's `system`):
// the bash line's PATH (where an empty entry, left when the shims come first,
// is the working directory) and the Go line's (the entry removed exactly)
// must find the same file; relative entries are not settled here.
std::optional<fs::path> system_command(const std::string& name, const fs::path& shims,
                                       const AsdfInputs& in) {
  if (!in.path) return std::nullopt;
  std::string go_path;
  for (auto dir : util::split(*in.path, ':')) {
    if (dir == shims.string()) continue;
    if (dir.empty() || dir.front() != '/') return std::nullopt;
    if (!go_path.empty()) go_path += ':';
    go_path += dir;
  }
  const std::string without = bash_path_without(*in.path, shims.string());
  std::string bash_path;
  for (auto dir : util::split(without, ':')) {
    if (!dir.empty() && dir.front() != '/') return std::nullopt;
    if (!bash_path.empty()) bash_path += ':';
    bash_path += dir.empty() ? in.cwd.string() : std::string(dir);
  }
  if (go_path.empty() || bash_path.empty()) return std::nullopt;
  auto by_go = util::find_on_path(name, go_path);
  if (by_go != util::find_on_path(name, bash_path)) return std::nullopt;
  return by_go;
}

}  // namespace

AsdfInputs asdf_inputs_from_environment() {
  AsdfInputs in;
  in.data_dir = util::getenv_nonempty("ASDF_DATA_DIR");
  in.config_file = util::getenv_nonempty("ASDF_CONFIG_FILE");
  in.config_default_file = util::getenv_nonempty("ASDF_CONFIG_DEFAULT_FILE");
  in.asdf_dir = util::getenv_nonempty("ASDF_DIR");
  in.home = util::getenv_nonempty("HOME");
  in.python_version = util::getenv_nonempty("ASDF_PYTHON_VERSION");
  in.version_filename_set =
      util::getenv_nonempty("ASDF_TOOL_VERSIONS_FILENAME").has_value() ||
      util::getenv_nonempty("ASDF_DEFAULT_TOOL_VERSIONS_FILENAME").has_value();
  in.path = util::getenv_opt("PATH");
  // What bash reads at start before either line's code runs: a startup
  // file, exported functions (a `python3` function hides the executable
  // from `command -v`), shell options (nounset fails asdf's own script).
  for (const auto& entry : util::environment_with({}, {})) {
    if (entry.starts_with("BASH_ENV=") || entry.starts_with("ENV=") ||
        entry.starts_with("BASH_FUNC_") || entry.starts_with("SHELLOPTS=") ||
        entry.starts_with("BASHOPTS=")) {
      in.bash_startup_set = true;
      break;
    }
  }
  // Both lines take $PWD when it names the working directory (bash keeps it,
  // Go's os.Getwd checks it), so a directory reached through a symlink
  // searches the symlink's parents.
  std::error_code ec;
  in.cwd = fs::current_path(ec);
  const auto pwd = util::getenv_nonempty("PWD");
  struct stat here {};
  struct stat named {};
  if (pwd && pwd->front() == '/' && ::stat(".", &here) == 0 && ::stat(pwd->c_str(), &named) == 0 &&
      here.st_dev == named.st_dev && here.st_ino == named.st_ino) {
    in.cwd = *pwd;
  }
  return in;
}

std::optional<fs::path> resolve_asdf_shim(const fs::path& program, const AsdfInputs& in) {
  // Without $HOME the Go line fails before it reads anything.
  if (in.version_filename_set || !in.home || !normal_path(*in.home)) return std::nullopt;
  for (const auto* path : {&in.data_dir, &in.config_file, &in.config_default_file, &in.asdf_dir}) {
    if (*path && !normal_path(**path)) return std::nullopt;
  }
  const fs::path home = *in.home;
  const fs::path data = in.data_dir ? fs::path(*in.data_dir) : home / ".asdf";
  // (A `~` the Go line would expand, a relative path: not settled here.)
  if (!data.is_absolute()) return std::nullopt;
  const fs::path shims = data / "shims";
  // asdf reads the shim under its data directory, whatever file ran it.
  if (program.parent_path().lexically_normal() != shims.lexically_normal()) return std::nullopt;
  const std::string name = program.filename().string();
  auto text = util::read_small_file(program, 1 << 16);
  if (!text) return std::nullopt;
  const auto installed = parse_shim(*text, name);
  if (!installed) return std::nullopt;
  // The bash (`#!/usr/bin/env bash`) and the asdf it execs must be there,
  // or the shim fails instead; an asdf that is itself a shim loops.
  if (in.bash_startup_set || !in.path || !util::find_on_path("bash", *in.path)) return std::nullopt;
  std::optional<fs::path> asdf = fs::path(installed->asdf);
  if (installed->asdf == "asdf") {
    asdf = util::find_on_path("asdf", *in.path);
  } else if (!util::is_executable_file(*asdf)) {
    asdf.reset();
  }
  if (!asdf || asdf->parent_path().lexically_normal() == shims.lexically_normal())
    return std::nullopt;
  // $ASDF_DIR picks the bash line's own code (lib/commands/command-exec.bash):
  // it must be the install whose asdf runs.
  std::error_code ec;
  if (in.asdf_dir) {
    const auto named = fs::canonical(*in.asdf_dir, ec);
    const auto real = fs::canonical(*asdf, ec);
    if (ec || named != real.parent_path().parent_path()) return std::nullopt;
  }

  // Anything of the plugin's that changes the executable or its environment.
  const fs::path plugin = data / "plugins" / std::string(kPlugin);
  if (!fs::is_directory(plugin, ec)) return std::nullopt;
  for (const char* callback : {"bin/exec-env", "bin/exec-path", "bin/list-bin-paths", "shims"}) {
    if (present(plugin / callback)) return std::nullopt;
  }
  // Every config either line may read: $ASDF_CONFIG_FILE or ~/.asdfrc (both),
  // an .asdfrc up the tree from the working directory and the install's
  // `defaults` or $ASDF_CONFIG_DEFAULT_FILE (the bash line).
  std::vector<fs::path> configs;
  if (in.config_file) {
    configs.emplace_back(*in.config_file);
  } else {
    configs.push_back(home / ".asdfrc");
  }
  if (in.config_default_file) {
    configs.emplace_back(*in.config_default_file);
  } else {
    // The bash line's install: $ASDF_DIR, else where its bin/asdf is.
    if (in.asdf_dir) configs.push_back(fs::path(*in.asdf_dir) / "defaults");
    configs.push_back(asdf->parent_path().parent_path() / "defaults");
    const auto real = fs::canonical(*asdf, ec);
    if (!ec) configs.push_back(real.parent_path().parent_path() / "defaults");
  }
  if (in.cwd.empty() || !in.cwd.is_absolute()) return std::nullopt;
  for (fs::path dir = in.cwd;; dir = dir.parent_path()) {
    configs.push_back(dir / ".asdfrc");
    if (!dir.has_relative_path()) break;
  }
  for (const auto& config : configs) {
    if (config_may_choose(config)) return std::nullopt;
  }

  const auto versions = set_versions(in);
  if (!versions || versions->empty()) return std::nullopt;
  // The Go line tries `system` after the other versions, the bash line where
  // it stands; `path:`/`ref:` installs are elsewhere.
  for (std::size_t i = 0; i < versions->size(); ++i) {
    const std::string& v = (*versions)[i];
    if (v == "system" && i + 1 != versions->size()) return std::nullopt;
    // (`path` and `ref` alone are read as those kinds, with an empty value.)
    if (v.find(':') != std::string::npos || v.find('/') != std::string::npos || v == ".." ||
        v == "path" || v == "ref")
      return std::nullopt;
  }
  // asdf 0.16.0 to 0.16.7 tried the set versions in the shim's line order,
  // the others in the order they are set: with two or more of them in the
  // shim, those orders must pick the same one.
  const auto set_first = std::find_first_of(versions->begin(), versions->end(),
                                            installed->versions.begin(), installed->versions.end());
  const auto shim_first = std::find_first_of(installed->versions.begin(), installed->versions.end(),
                                             versions->begin(), versions->end());
  if (set_first != versions->end() && *set_first != *shim_first) return std::nullopt;
  for (const auto& v : *versions) {
    if (v == "system") return system_command(name, shims, in);
    if (std::find(installed->versions.begin(), installed->versions.end(), v) ==
        installed->versions.end())
      continue;
    // Named and listed: the bash line takes it whether or not the file is
    // there (then looks on PATH), the Go line goes on to the next version.
    fs::path exe = data / "installs" / std::string(kPlugin) / v / "bin" / name;
    if (util::is_executable_file(exe)) return exe;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace flashfit::env
