// flashfit lock --format pylock: a LockDocument as PEP 751 pylock.toml text.
#include "workflow/pylock.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <vector>

#include "net/http.hpp"
#include "util/strings.hpp"

namespace flashfit::workflow {
namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\u{:04X}", byte);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "cp311" -> {"cpython", "3", "11"}; "cp313t" (free-threaded) -> {"cpython",
// "3", "13"}: PEP 508 has no marker for the flag, the key keeps it; nullopt for
// a tag PEP 508 cannot say.
struct PythonTag {
  std::string implementation;
  std::string major;
  std::string minor;
};
std::optional<PythonTag> python_tag(const std::optional<std::string>& tag) {
  if (!tag || tag->size() < 4) return std::nullopt;
  const std::string_view text(*tag);
  std::string implementation;
  if (util::starts_with(text, "cp")) implementation = "cpython";
  if (util::starts_with(text, "pp")) implementation = "pypy";
  // cp3 + minor: the tag writes the major as one digit ("cp311", "cp39").
  std::string_view minor = text.substr(3);
  if (implementation == "cpython" && util::ends_with(minor, "t")) minor.remove_suffix(1);
  if (implementation.empty() || text[2] != '3' || !all_digits(minor)) return std::nullopt;
  return PythonTag{implementation, "3", std::string(minor)};
}

// "manylinux_2_36_x86_64" -> {"linux", "x86_64"}; "macosx_14_0_arm64" ->
// {"darwin", ""} (a macOS machine can be universal2: not said); nullopt when unmapped.
std::optional<std::pair<std::string, std::string>> platform_parts(
    const std::optional<std::string>& tag) {
  if (!tag) return std::nullopt;
  const std::string_view text(*tag);
  for (const std::string_view legacy :
       {"manylinux1_", "manylinux2010_", "manylinux2014_", "linux_"}) {
    if (util::starts_with(text, legacy) && text.size() > legacy.size()) {
      return std::pair{std::string("linux"), std::string(text.substr(legacy.size()))};
    }
  }
  for (const std::string_view glibc : {"manylinux_", "musllinux_"}) {
    if (!util::starts_with(text, glibc)) continue;
    // manylinux_<major>_<minor>_<machine>: the machine is what follows two numbers.
    const std::vector<std::string_view> parts = util::split(text.substr(glibc.size()), '_');
    if (parts.size() < 3 || !all_digits(parts[0]) || !all_digits(parts[1])) return std::nullopt;
    const std::size_t skip = glibc.size() + parts[0].size() + parts[1].size() + 2;
    return std::pair{std::string("linux"), std::string(text.substr(skip))};
  }
  if (util::starts_with(text, "macosx_")) return std::pair{std::string("darwin"), std::string()};
  return std::nullopt;
}

// Text for a comment line: one line, printable (a note or origin read from
// another file may hold a newline, which would end the comment).
std::string comment_text(std::string_view text) {
  return util::printable(text, 1000);
}

// `wheels = [...]`, `sdist = {...}` or `archive = {...}` by the file's name:
// PEP 751 keeps an sdist's `name`, an archive (any other direct URL) has none.
std::string file_entry(const LockedLine& line) {
  const std::string name = net::url_file_name(line.url);
  const std::string hashes = fmt::format("hashes = {{ sha256 = {} }}", toml_string(*line.sha256));
  if (util::ends_with(name, ".whl")) {
    return fmt::format("wheels = [{{ name = {}, url = {}, {} }}]\n", toml_string(name),
                       toml_string(line.url), hashes);
  }
  if (util::ends_with(name, ".tar.gz") || util::ends_with(name, ".zip")) {
    return fmt::format("sdist = {{ name = {}, url = {}, {} }}\n", toml_string(name),
                       toml_string(line.url), hashes);
  }
  return fmt::format("archive = {{ url = {}, {} }}\n", toml_string(line.url), hashes);
}

void render_package(std::string& out, const LockedLine& line, std::string_view picked_by) {
  out += fmt::format("\n# {} {} ({})\n", comment_text(line.name), comment_text(line.version),
                     comment_text(line.origin));
  out += "[[packages]]\n";
  out += fmt::format("name = {}\n", toml_string(line.name));
  if (!line.version.empty()) out += fmt::format("version = {}\n", toml_string(line.version));
  out += file_entry(line);
  out += "[packages.tool.flashfit]\n";
  out += fmt::format("picked-by = {}\n", toml_string(picked_by));
  out += fmt::format("origin = {}\n", toml_string(line.origin));
}

}  // namespace

std::optional<std::string> pylock_environment_marker(const LockKey& key) {
  std::vector<std::string> parts;
  if (const auto python = python_tag(key.python)) {
    parts.push_back(fmt::format("implementation_name == \"{}\"", python->implementation));
    parts.push_back(fmt::format("python_version == \"{}.{}\"", python->major, python->minor));
  }
  if (const auto platform = platform_parts(key.platform)) {
    parts.push_back(fmt::format("sys_platform == \"{}\"", platform->first));
    if (!platform->second.empty()) {
      parts.push_back(fmt::format("platform_machine == \"{}\"", platform->second));
    }
  }
  if (parts.empty()) return std::nullopt;
  return util::join(parts, " and ");
}

std::optional<std::string> pylock_requires_python(const LockKey& key) {
  const auto python = python_tag(key.python);
  if (!python) return std::nullopt;
  return fmt::format("=={}.{}.*", python->major, python->minor);
}

util::Result<std::string> render_pylock(const LockDocument& document) {
  for (const auto* lines : {&document.flashfit, &document.installer}) {
    for (const LockedLine& line : *lines) {
      // TOML text is UTF-8; a file name is the URL's last segment decoded, and
      // `%c1` decodes to a byte no TOML string can hold.
      if (!util::valid_utf8(net::url_file_name(line.url))) {
        return util::fail(util::ErrorKind::failed,
                          fmt::format("{} {}: the file name in {} is not UTF-8 once "
                                      "percent-decoded, and a pylock.toml cannot hold it",
                                      util::printable(line.name), util::printable(line.version),
                                      util::printable(line.url)),
                          {}, "lock with --format requirements, which keeps the URL as it is");
      }
      if (line.sha256) continue;
      return util::fail(util::ErrorKind::failed,
                        fmt::format("{} {}: no sha256 is known for {}, and PEP 751 requires a "
                                    "hash for every file (installers refuse a pylock.toml "
                                    "without one)",
                                    line.name, line.version, line.url),
                        {},
                        "let flashfit download it to hash (no --no-download / --offline), or "
                        "lock with --format requirements, which leaves --hash out");
    }
  }
  std::string out =
      "# pylock.toml (PEP 751) written by `flashfit lock --format pylock` for the environment:\n";
  for (const auto& [name, value] : key_facts(document.key)) {
    out += fmt::format("#   {}: {}\n", name, comment_text(value.value_or("unknown")));
  }
  out +=
      "# [tool.flashfit.environment] holds the same key; `flashfit lock --check FILE` says "
      "whether it still fits.\n";
  for (const auto& note : document.notes) out += fmt::format("# note: {}\n", comment_text(note));
  out += "\nlock-version = \"1.0\"\n";
  if (const auto marker = pylock_environment_marker(document.key)) {
    out += fmt::format("environments = [{}]\n", toml_string(*marker));
  }
  if (const auto python = pylock_requires_python(document.key)) {
    out += fmt::format("requires-python = {}\n", toml_string(*python));
  }
  out += "created-by = \"flashfit\"\n";
  if (!document.flashfit.empty()) {
    out += "\n# compiled packages: the variant flashfit picked for this environment\n";
    for (const LockedLine& line : document.flashfit) render_package(out, line, "flashfit");
  }
  if (!document.installer.empty()) {
    out += "\n# the other lines: the installer's own resolution\n";
    for (const LockedLine& line : document.installer) render_package(out, line, "installer");
  }
  // PEP 751 requires [[packages]]; an empty lock still says so.
  if (document.flashfit.empty() && document.installer.empty()) out += "packages = []\n";
  out += "\n[tool.flashfit]\nlock-format = 1\n";
  std::vector<std::string> notes;
  for (const auto& note : document.notes) notes.push_back(toml_string(note));
  out += fmt::format("notes = [{}]\n", util::join(notes, ", "));
  out += "\n[tool.flashfit.environment]\n";
  for (const auto& [name, value] : key_facts(document.key)) {
    out += fmt::format("{} = {}\n", name, toml_string(value.value_or("unknown")));
  }
  return out;
}

}  // namespace flashfit::workflow
