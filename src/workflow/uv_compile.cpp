// lock --resolver uv: uv pip compile's pylock.toml read back as the files
// this interpreter would install.
#include "workflow/uv_compile.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "net/http.hpp"
#include "pkg/wheel_name.hpp"
#include "resolve/toml_reader.hpp"
#include "store/cache_layout.hpp"
#include "util/strings.hpp"

namespace flashfit::workflow {
namespace {

using resolve::detail::index_path;
using resolve::detail::key_path;
using resolve::detail::TomlReader;

// One file entry (a wheel, the sdist, the archive): its URL and sha256.
bool read_file(TomlReader& reader, const toml::table& file, const std::string& path,
               ReportedPackage& out) {
  const auto url = reader.string(file, path, "url");
  if (!reader.ok()) return false;
  if (!url) {
    reader.fail(&file, key_path(path, "url"),
                "missing: flashfit locks files by URL (uv wrote a local path?)");
    return false;
  }
  out.url = *url;
  out.sha256.clear();
  if (const toml::table* hashes = reader.table(file, path, "hashes")) {
    const auto sha256 = reader.string(*hashes, key_path(path, "hashes"), "sha256");
    if (!reader.ok()) return false;
    if (sha256) {
      const std::string hex = util::ascii_lower(*sha256);
      if (!store::detail::is_sha256_hex(hex)) {
        reader.fail(hashes->get("sha256"), key_path(path, "hashes.sha256"),
                    fmt::format("'{}' is not 64 hex digits", util::printable(*sha256, 80)));
        return false;
      }
      out.sha256 = hex;
    }
  }
  return reader.ok();
}

// The wheel pip (and uv) would install here: the lowest best_rank; ties keep
// uv's order. nullopt when none is installable.
std::optional<std::size_t> best_wheel(const toml::array& wheels, const pkg::SupportedTags& tags) {
  std::optional<std::size_t> best;
  std::size_t best_rank = 0;
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    const toml::table* wheel = wheels[i].as_table();
    std::string name;
    if (const auto* n = wheel->get_as<std::string>("name")) {
      name = n->get();
    } else if (const auto* u = wheel->get_as<std::string>("url")) {
      name = net::url_file_name(u->get());
    }
    auto parsed = pkg::parse_wheel_filename(name);
    if (!parsed) continue;
    const auto rank = tags.best_rank(parsed->tags);
    if (rank && (!best || *rank < best_rank)) {
      best = i;
      best_rank = *rank;
    }
  }
  return best;
}

}  // namespace

std::string_view to_string(LineResolver resolver) {
  return resolver == LineResolver::uv ? "uv" : "pip";
}

util::Result<LineResolver> choose_line_resolver(const std::optional<std::string>& asked,
                                                bool uv_on_path) {
  if (!asked) return uv_on_path ? LineResolver::uv : LineResolver::pip;
  if (*asked == "pip") return LineResolver::pip;
  if (*asked == "uv") {
    if (uv_on_path) return LineResolver::uv;
    return util::fail(util::ErrorKind::usage, "--resolver uv: uv is not on PATH", {},
                      "put uv on PATH, or lock with --resolver pip");
  }
  return util::fail(util::ErrorKind::usage,
                    fmt::format("unknown resolver '{}'", util::printable(*asked, 40)), {},
                    "give --resolver pip or --resolver uv");
}

std::vector<std::string> uv_compile_argv(const std::string& uv, const std::string& python,
                                         const std::string& requirements, const std::string& output,
                                         const std::string& constraints) {
  std::vector<std::string> argv = {uv,         "pip",         "compile", "--python",      python,
                                   "--format", "pylock.toml", "--quiet", "--no-progress", "-o",
                                   output,     requirements};
  if (!constraints.empty()) argv.insert(argv.end(), {"-c", constraints});
  return argv;
}

util::Result<std::vector<ReportedPackage>> parse_uv_resolution(std::string_view text,
                                                               std::string_view origin,
                                                               const pkg::SupportedTags& tags) {
  auto root = resolve::detail::parse_toml(text, origin);
  if (!root) return tl::unexpected(root.error());
  TomlReader reader{std::string(origin)};
  const auto version = reader.string(*root, "", "lock-version");
  if (reader.ok() && (!version || !util::starts_with(*version, "1."))) {
    reader.fail(root->get("lock-version"), "lock-version",
                fmt::format("'{}' (this flashfit reads 1.x)",
                            util::printable(version.value_or("missing"), 40)));
  }
  const toml::array* packages = reader.ok() ? reader.table_array(*root, "", "packages") : nullptr;
  std::vector<ReportedPackage> out;
  for (std::size_t i = 0; reader.ok() && packages != nullptr && i < packages->size(); ++i) {
    const std::string path = index_path("packages", i);
    const toml::table& package = *(*packages)[i].as_table();
    ReportedPackage reported;
    reported.name = reader.required(package, path, "name");
    reported.version = reader.required(package, path, "version");
    if (!reader.ok()) break;
    if (package.contains("marker")) {
      reader.fail(package.get("marker"), key_path(path, "marker"),
                  "a marker: uv resolved for several environments, flashfit locks this one");
      break;
    }
    if (package.contains("vcs") || package.contains("directory")) {
      reader.fail(
          &package, path,
          fmt::format("{}: a vcs or directory source, which has no file to hash", reported.name),
          std::string(kNoFileToLockHint));
      break;
    }
    const toml::array* wheels = reader.table_array(package, path, "wheels");
    const toml::table* sdist = reader.table(package, path, "sdist");
    const toml::table* archive = reader.table(package, path, "archive");
    if (!reader.ok()) break;
    const auto wheel = wheels != nullptr ? best_wheel(*wheels, tags) : std::nullopt;
    if (wheel) {
      read_file(reader, *(*wheels)[*wheel].as_table(), index_path(key_path(path, "wheels"), *wheel),
                reported);
    } else if (sdist != nullptr) {
      read_file(reader, *sdist, key_path(path, "sdist"), reported);
    } else if (archive != nullptr) {
      read_file(reader, *archive, key_path(path, "archive"), reported);
    } else {
      reader.fail(
          &package, path,
          fmt::format("{} {}: none of uv's {} files installs on this interpreter", reported.name,
                      reported.version, wheels != nullptr ? wheels->size() : 0));
    }
    if (reader.ok()) out.push_back(std::move(reported));
  }
  if (!reader.ok()) return tl::unexpected(reader.error());
  return out;
}

}  // namespace flashfit::workflow
