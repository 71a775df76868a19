// What is installed now; see installed_state.hpp.
#include "workflow/installed_state.hpp"

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "install/installed.hpp"
#include "pkg/name.hpp"
#include "util/strings.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;

// A distribution's METADATA, whole; nullopt when it cannot be read.
std::optional<std::string> read_metadata(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

// "name-version.dist-info", "name-version-py3.11.egg-info", "name.egg-info".
InstalledVersions installed_versions(const std::vector<std::string>& site_dirs) {
  InstalledVersions out;
  for (const std::string& site : site_dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(site, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string file = it->path().filename().string();
      std::string stem;
      if (util::ends_with(file, ".dist-info")) {
        stem = file.substr(0, file.size() - 10);
      } else if (util::ends_with(file, ".egg-info")) {
        stem = file.substr(0, file.size() - 9);
      } else {
        continue;
      }
      const auto dash = stem.find('-');
      const std::string name = pkg::canonicalize_name(stem.substr(0, dash));
      std::string version;
      if (dash != std::string::npos) {
        version = stem.substr(dash + 1);
        version = version.substr(0, version.find('-'));
      }
      out.emplace(name, version);  // the first site dir (import order) wins
    }
  }
  return out;
}

std::vector<UnmetDependency> unmet_after_install(const std::vector<InstalledCompiled>& packages,
                                                 const env::Interpreter& interpreter) {
  std::vector<UnmetDependency> out;
  const InstalledVersions now = installed_versions(interpreter.site_dirs);
  for (const InstalledCompiled& package : packages) {
    auto dist = install::find_installed(interpreter.site_dirs, package.name);
    if (!dist || dist->egg_info) continue;
    auto metadata = read_metadata(dist->dist_info / "METADATA");
    if (!metadata) continue;
    auto unmet = unmet_dependencies(package.name, requires_dist(*metadata), interpreter.markers,
                                    now, package.extras);
    out.insert(out.end(), unmet.begin(), unmet.end());
  }
  return out;
}

}  // namespace flashfit::workflow
