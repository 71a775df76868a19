// What is in a source tree, for the planner and preflight: whether it has
// CUDA sources (the CUDA checks apply), how many translation units (the time
// estimate), and the package's name and version (the cache key). The tree
// may be anything a user points at, so the walk is bounded and never follows
// links, and unreadable metadata just leaves the field unknown.
#include <toml++/toml.h>

#include <cctype>
#include <exception>
#include <filesystem>

#include "build/source.hpp"
#include "pkg/name.hpp"
#include "pkg/version.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxEntries = 100000;
constexpr std::size_t kMaxMetadataBytes = std::size_t{1} << 20;

bool is_printable(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

std::optional<std::string> checked_name(std::string_view text) {
  text = util::trim(text);
  if (text.empty() || !pkg::is_valid_project_name(text)) return std::nullopt;
  return std::string(text);
}

std::optional<std::string> checked_version(std::string_view text) {
  text = util::trim(text);
  if (text.empty() || !is_printable(text)) return std::nullopt;
  auto version = pkg::Version::parse(text);
  if (!version) return std::nullopt;
  return version->str();
}

// PKG-INFO is RFC 822 headers then a body: the first Name and Version before
// the first blank line count; continuation lines and other headers are skipped.
void read_pkg_info(const fs::path& file, SourceScan& scan) {
  std::optional<std::string> text = util::read_small_file(file, kMaxMetadataBytes);
  if (!text) return;
  std::optional<std::string> name;
  std::optional<std::string> version;
  for (std::string_view line : util::split(*text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    if (line.front() == ' ' || line.front() == '\t') continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string key = util::ascii_lower(util::trim(line.substr(0, colon)));
    const std::string_view value = line.substr(colon + 1);
    if (key == "name" && !name) name = checked_name(value);
    if (key == "version" && !version) version = checked_version(value);
  }
  if (name) scan.name = std::move(name);
  if (version) scan.version = std::move(version);
}

// A source checkout (flash-attn's git tree) has neither PKG-INFO nor a
// [project] name: setup.py states it, usually as a string literal, either
// `PACKAGE_NAME = "flash_attn"` (flash-attn, causal-conv1d) or
// `setup(name="x", ...)`. Only a plain literal counts; setup.py is never run.
std::optional<std::string> literal_after(std::string_view text, std::string_view key) {
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    // A whole word: not "my_name=" nor "PACKAGE_NAME_SUFFIX".
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_'))
      continue;
    std::size_t i = at + key.size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size() || text[i] != '=' || (i + 1 < text.size() && text[i + 1] == '=')) continue;
    ++i;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size() || (text[i] != '"' && text[i] != '\'')) continue;
    const char quote = text[i];
    const std::size_t end = text.find(quote, i + 1);
    if (end == std::string_view::npos || end - i > 200) continue;
    if (auto name = checked_name(text.substr(i + 1, end - i - 1))) return name;
  }
  return std::nullopt;
}

void read_setup_py_name(const fs::path& file, SourceScan& scan) {
  std::optional<std::string> text = util::read_small_file(file, kMaxMetadataBytes);
  if (!text) return;
  if (auto name = literal_after(*text, "PACKAGE_NAME")) {
    scan.name = std::move(name);
  } else if (auto plain = literal_after(*text, "name")) {
    scan.name = std::move(plain);
  }
}

// pyproject.toml's [project] table (PEP 621); a dynamic version is simply absent.
void read_pyproject(const fs::path& file, SourceScan& scan) {
  std::optional<std::string> text = util::read_small_file(file, kMaxMetadataBytes);
  if (!text || text->find('\0') != std::string::npos) return;
  try {
    toml::table doc = toml::parse(*text, file.string());
    if (!scan.name) {
      if (auto name = doc["project"]["name"].value<std::string>()) scan.name = checked_name(*name);
    }
    if (!scan.version) {
      if (auto version = doc["project"]["version"].value<std::string>())
        scan.version = checked_version(*version);
    }
  } catch (const std::exception&) {
    // Unparsable TOML: the fields stay unknown; the build itself will say more.
  }
}

bool has_extension(const std::string& name, std::initializer_list<const char*> extensions) {
  for (const char* ext : extensions) {
    if (util::ends_with(name, ext) && name.size() > std::string_view(ext).size()) return true;
  }
  return false;
}

}  // namespace

SourceScan scan_source_tree(const fs::path& root) {
  SourceScan scan;
  std::error_code ec;
  scan.has_setup_py = fs::is_regular_file(root / "setup.py", ec);
  scan.has_pyproject = fs::is_regular_file(root / "pyproject.toml", ec);
  if (fs::is_regular_file(root / "PKG-INFO", ec)) read_pkg_info(root / "PKG-INFO", scan);
  if (scan.has_pyproject && (!scan.name || !scan.version))
    read_pyproject(root / "pyproject.toml", scan);
  if (!scan.name && scan.has_setup_py) read_setup_py_name(root / "setup.py", scan);

  for_each_source_file(root, [&](const fs::path& path) {
    const std::string name = path.filename().string();
    if (has_extension(name, {".cu"})) {
      ++scan.cuda_files;
    } else if (has_extension(name, {".cpp", ".cc", ".cxx", ".c"})) {
      ++scan.cpp_files;
    }
  });
  return scan;
}

void for_each_source_file(const fs::path& root, const std::function<void(const fs::path&)>& visit) {
  std::error_code ec;
  // directory_options::none: directory links are not entered.
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  std::size_t seen = 0;
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++seen > kMaxEntries) break;
    std::error_code entry_ec;
    const fs::file_status status = it->symlink_status(entry_ec);
    if (entry_ec) continue;
    if (fs::is_directory(status)) {
      // A previous build's output and version control hold no sources of the package.
      const std::string name = it->path().filename().string();
      if (name == ".git" || (name == "build" && it.depth() == 0)) it.disable_recursion_pending();
      continue;
    }
    if (fs::is_regular_file(status)) visit(it->path());
  }
}

}  // namespace flashfit::build
