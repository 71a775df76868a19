// A pylock.toml from `flashfit lock --format pylock` read back, strictly:
// the environment key from [tool.flashfit], each package's one file with its
// sha256 and which section (flashfit's pick or the installer's line) it is.
// Other tools' pylock files hold no environment key flashfit can check, so
// they are refused with that reason rather than installed on trust.
#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "net/http.hpp"
#include "pkg/name.hpp"
#include "resolve/toml_reader.hpp"
#include "store/cache_layout.hpp"
#include "util/strings.hpp"
#include "workflow/pylock.hpp"

namespace flashfit::workflow {
namespace {

using resolve::detail::index_path;
using resolve::detail::key_path;
using resolve::detail::TomlReader;

std::string line_of(const toml::node& node, std::string_view origin) {
  return fmt::format("{}:{}", origin, node.source().begin.line);
}

// lock-version "1.x": PEP 751 lets a reader go on over a newer minor version
// and requires an error for another major one.
void check_lock_version(TomlReader& reader, const toml::table& root) {
  const auto version = reader.string(root, "", "lock-version");
  if (!reader.ok()) return;
  if (!version) {
    reader.fail(&root, "lock-version", "missing (required): not a PEP 751 pylock.toml");
    return;
  }
  const std::string_view v(*version);
  const bool one = util::starts_with(v, "1.") && v.size() > 2 &&
                   std::all_of(v.begin() + 2, v.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!one) {
    reader.fail(
        root.get("lock-version"), "lock-version",
        fmt::format("unknown version '{}' (this flashfit reads 1.x)", util::printable(v, 40)));
  }
}

// [tool.flashfit]: lock-format 1, the six facts by their header names, notes.
void read_flashfit_table(TomlReader& reader, const toml::table& root, LockDocument& document) {
  const toml::table* tool = reader.table(root, "", "tool");
  const toml::table* flashfit = tool != nullptr ? reader.table(*tool, "tool", "flashfit") : nullptr;
  if (flashfit == nullptr) {
    reader.fail(&root, "tool.flashfit",
                "missing: this pylock.toml holds no flashfit environment key (torch, CUDA, ABI, "
                "GPU archs), so flashfit cannot tell whether it fits here",
                "write it with `flashfit lock --format pylock`, or install it with its own tool");
    return;
  }
  reader.check_keys(*flashfit, "tool.flashfit", {"lock-format", "notes", "environment"});
  const auto format = reader.integer(*flashfit, "tool.flashfit", "lock-format");
  if (reader.ok() && format != 1) {
    reader.fail(flashfit, "tool.flashfit.lock-format",
                format ? fmt::format("unknown format {} (this flashfit reads 1)", *format)
                       : std::string("missing (required)"));
  }
  if (const auto notes = reader.strings(*flashfit, "tool.flashfit", "notes")) {
    for (const auto& note : *notes) document.notes.push_back(note.value);
  }
  const toml::table* facts = reader.table(*flashfit, "tool.flashfit", "environment");
  if (!reader.ok()) return;
  if (facts == nullptr) {
    reader.fail(flashfit, "tool.flashfit.environment", "missing (required): the environment key");
    return;
  }
  const std::string path = "tool.flashfit.environment";
  for (auto&& [name, node] : *facts) {
    const auto value = reader.string(*facts, path, name.str());
    if (!reader.ok()) return;
    auto set =
        set_key_fact(document.key, name.str(),
                     *value == "unknown" ? std::nullopt : std::optional<std::string>(*value));
    if (!set) {
      reader.fail(&node, key_path(path, name.str()), set.error().message);
      return;
    }
  }
  for (const auto& [name, value] : key_facts(document.key)) {
    if (!facts->contains(name)) {
      reader.fail(facts, key_path(path, name), "missing: the key names every fact");
      return;
    }
  }
}

// The one file of a package: `wheels` (exactly one), `sdist` or `archive`.
void read_file(TomlReader& reader, const toml::table& package, const std::string& path,
               LockedLine& line) {
  if (package.contains("vcs") || package.contains("directory")) {
    reader.fail(&package, path,
                "a vcs or directory source: flashfit locks files, each checked by its sha256");
    return;
  }
  const toml::table* file = nullptr;
  std::string where;
  int kinds = 0;
  if (const toml::array* wheels = reader.table_array(package, path, "wheels")) {
    ++kinds;
    if (wheels->size() != 1 || !wheels->front().is_table()) {
      reader.fail(wheels, key_path(path, "wheels"),
                  fmt::format("{} wheels: flashfit locks one file per package", wheels->size()));
      return;
    }
    file = wheels->front().as_table();
    where = index_path(key_path(path, "wheels"), 0);
  }
  for (const std::string_view kind : {"sdist", "archive"}) {
    if (const toml::table* one = reader.table(package, path, kind)) {
      ++kinds;
      file = one;
      where = key_path(path, kind);
    }
  }
  if (!reader.ok()) return;
  if (kinds != 1) {
    reader.fail(&package, path,
                kinds == 0 ? "no file (wheels, sdist or archive)"
                           : "more than one of wheels, sdist and archive: which file is locked?");
    return;
  }
  if (file->contains("path") && !file->contains("url")) {
    reader.fail(file, key_path(where, "path"),
                "a local path: flashfit's locks name files by URL (file:// for a local one)");
    return;
  }
  line.url = reader.required(*file, where, "url");
  if (!reader.ok()) return;
  if (!util::starts_with(line.url, "https://") && !util::starts_with(line.url, "http://") &&
      !util::starts_with(line.url, "file://")) {
    reader.fail(
        file->get("url"), key_path(where, "url"),
        fmt::format("'{}' is not an http(s):// or file:// URL", util::printable(line.url, 80)));
    return;
  }
  // The file a URL names is its percent-decoded last segment: no file name
  // of a wheel or sdist decodes to bytes that are not UTF-8 ("%c1").
  if (!util::valid_utf8(net::url_file_name(line.url))) {
    reader.fail(file->get("url"), key_path(where, "url"),
                fmt::format("'{}' names a file that is not UTF-8 once percent-decoded",
                            util::printable(line.url, 80)));
    return;
  }
  const toml::table* hashes = reader.table(*file, where, "hashes");
  if (!reader.ok()) return;
  if (hashes == nullptr) {
    reader.fail(file, key_path(where, "hashes"),
                "missing: PEP 751 requires the file's hashes (flashfit checks its sha256)");
    return;
  }
  const auto sha256 = reader.string(*hashes, key_path(where, "hashes"), "sha256");
  if (!reader.ok()) return;
  if (!sha256) {
    reader.fail(hashes, key_path(where, "hashes.sha256"),
                "missing: flashfit checks a file's bytes by their sha256");
    return;
  }
  const std::string hex = util::ascii_lower(*sha256);
  if (!store::detail::is_sha256_hex(hex)) {
    reader.fail(hashes->get("sha256"), key_path(where, "hashes.sha256"),
                fmt::format("'{}' is not 64 hex digits", util::printable(*sha256, 80)));
    return;
  }
  line.sha256 = hex;
}

}  // namespace

util::Result<ParsedLock> parse_pylock(std::string_view text, std::string_view origin) {
  auto root = resolve::detail::parse_toml(text, origin);
  if (!root) return tl::unexpected(root.error());
  TomlReader reader{std::string(origin)};
  ParsedLock out;
  check_lock_version(reader, *root);
  if (!reader.ok()) return tl::unexpected(reader.error());
  read_flashfit_table(reader, *root, out.document);
  if (!reader.ok()) return tl::unexpected(reader.error());
  const toml::array* packages = reader.table_array(*root, "", "packages");
  if (!reader.ok()) return tl::unexpected(reader.error());
  if (packages == nullptr) {
    return util::input_error("packages: missing (required by PEP 751)", std::string(origin));
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < packages->size(); ++i) {
    const std::string path = index_path("packages", i);
    const toml::table* package = (*packages)[i].as_table();
    if (package == nullptr) {
      reader.fail(&(*packages)[i], path, "expected a table");
      break;
    }
    LockedLine line;
    line.name = reader.required(*package, path, "name");
    line.version = reader.string(*package, path, "version").value_or("");
    if (!reader.ok()) break;
    if (!names.insert(pkg::canonicalize_name(line.name)).second) {
      reader.fail(package, path, fmt::format("{} is locked twice", util::printable(line.name, 80)));
      break;
    }
    read_file(reader, *package, path, line);
    const toml::table* tool = reader.table(*package, path, "tool");
    const toml::table* ours =
        tool != nullptr ? reader.table(*tool, key_path(path, "tool"), "flashfit") : nullptr;
    if (!reader.ok()) break;
    const std::string tool_path = key_path(path, "tool.flashfit");
    const auto picked =
        ours != nullptr ? reader.string(*ours, tool_path, "picked-by") : std::nullopt;
    if (!reader.ok()) break;
    if (!picked || (*picked != "flashfit" && *picked != "installer")) {
      reader.fail(ours != nullptr ? static_cast<const toml::node*>(ours) : package,
                  key_path(tool_path, "picked-by"),
                  "missing or not \"flashfit\" / \"installer\": which section is this package in?");
      break;
    }
    // As parse_lock: the section is the origin install --lock reports.
    line.origin = *picked;
    const std::string where = line_of(*package, origin);
    if (*picked == "flashfit") {
      out.document.flashfit.push_back(std::move(line));
      out.flashfit_where.push_back(where);
    } else {
      out.document.installer.push_back(std::move(line));
      out.installer_where.push_back(where);
    }
  }
  if (!reader.ok()) return tl::unexpected(reader.error());
  return out;
}

util::Result<ParsedLock> parse_lock_by_name(std::string_view text, std::string_view origin) {
  const auto slash = origin.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? origin : origin.substr(slash + 1);
  return is_pylock_name(name) ? parse_pylock(text, origin) : parse_lock(text, origin);
}

}  // namespace flashfit::workflow
