// pip's installation report; see pip_report.hpp.
#include "workflow/pip_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "pkg/name.hpp"
#include "store/cache_layout.hpp"

namespace flashfit::workflow {
namespace {

const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string string_member(const nlohmann::json* object, const char* key) {
  if (object == nullptr) return {};
  const auto* value = member(*object, key);
  return value && value->is_string() ? value->get<std::string>() : std::string{};
}

// The names a package's requires_dist entries start with (PEP 508: the name
// comes first), PEP 503-normalised; an entry that starts with none is skipped.
std::vector<std::string> required_names(const nlohmann::json* metadata) {
  std::vector<std::string> out;
  const auto* requires_dist = metadata ? member(*metadata, "requires_dist") : nullptr;
  if (requires_dist == nullptr || !requires_dist->is_array()) return out;
  for (const auto& entry : *requires_dist) {
    if (!entry.is_string()) continue;
    const std::string& text = entry.get_ref<const std::string&>();
    const auto end = std::find_if(text.begin(), text.end(), [](char c) {
      return !std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-';
    });
    std::string name = pkg::canonicalize_name(std::string_view(text.data(), end - text.begin()));
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(std::move(name));
  }
  return out;
}

}  // namespace

util::Result<std::vector<ReportedPackage>> parse_pip_report(std::string_view json_text) {
  const auto root = nlohmann::json::parse(json_text, nullptr, false);
  if (root.is_discarded() || !root.is_object()) {
    return util::input_error("pip's report is not a JSON object");
  }
  const auto version = string_member(&root, "version");
  if (version != "1") {
    return util::input_error(
        fmt::format("pip's report has version '{}', flashfit reads '1'", version));
  }
  const auto* install = member(root, "install");
  if (install == nullptr || !install->is_array()) {
    return util::input_error("pip's report has no 'install' list");
  }
  std::vector<ReportedPackage> out;
  for (const auto& entry : *install) {
    ReportedPackage package;
    const auto* metadata = member(entry, "metadata");
    const auto* download = member(entry, "download_info");
    package.name = string_member(metadata, "name");
    package.version = string_member(metadata, "version");
    package.url = string_member(download, "url");
    if (package.name.empty() || package.version.empty() || package.url.empty()) {
      return util::input_error(
          fmt::format("an entry of pip's report #{} lacks name, version or url", out.size() + 1));
    }
    // A VCS checkout or a local directory is no file: its URL alone is not what
    // pip installed (a git+ URL needs its commit), and no sha256 can hold it.
    for (const auto& [key, what] :
         {std::pair{"vcs_info", "a VCS checkout"}, std::pair{"dir_info", "a local directory"}}) {
      if (download != nullptr && member(*download, key) != nullptr) {
        return util::input_error(
            fmt::format("{}: pip resolved it from {} ({}), which has no file to lock by URL and "
                        "sha256",
                        package.name, what, package.url),
            {}, std::string(kNoFileToLockHint));
      }
    }
    const auto* archive = download ? member(*download, "archive_info") : nullptr;
    if (archive != nullptr) {
      std::string sha = string_member(member(*archive, "hashes"), "sha256");
      const auto legacy = string_member(archive, "hash");
      if (sha.empty() && legacy.rfind("sha256=", 0) == 0) sha = legacy.substr(7);
      std::transform(sha.begin(), sha.end(), sha.begin(),
                     [](char c) { return static_cast<char>(c >= 'A' && c <= 'F' ? c + 32 : c); });
      if (!sha.empty() && !store::detail::is_sha256_hex(sha)) {
        return util::input_error(
            fmt::format("pip's report gives {} a malformed sha256 '{}'", package.name, sha));
      }
      package.sha256 = sha;
    }
    package.requires_names = required_names(metadata);
    out.push_back(std::move(package));
  }
  return out;
}

}  // namespace flashfit::workflow
