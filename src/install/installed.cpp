#include "install/installed.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

#include "binary/wheel.hpp"
#include "pkg/name.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::install {
namespace fs = std::filesystem;

namespace {

// An egg-info's version when its name has none ("cryptography.egg-info").
std::string egg_info_version(const fs::path& egg_info) {
  std::error_code ec;
  const fs::path pkg_info = fs::is_directory(egg_info, ec) ? egg_info / "PKG-INFO" : egg_info;
  auto text = util::read_small_file(pkg_info, std::size_t{4} << 20);
  if (!text) return "";
  auto metadata = binary::parse_metadata_headers(*text);
  return metadata ? metadata->version : "";
}

}  // namespace

std::optional<InstalledDist> find_installed(const std::vector<std::string>& site_dirs,
                                            const std::string& name) {
  const std::string canonical_name = pkg::canonicalize_name(name);
  for (const std::string& site : site_dirs) {
    std::optional<InstalledDist> egg;
    std::error_code ec;
    for (fs::directory_iterator it(site, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string entry = it->path().filename().string();
      const bool dist_info = util::ends_with(entry, ".dist-info");
      if (!dist_info && !util::ends_with(entry, ".egg-info")) continue;
      const std::string stem =
          entry.substr(0, entry.size() - (dist_info ? 10 : 9));  // ".dist-info" / ".egg-info"
      const auto dash = stem.find('-');
      if (dist_info && dash == std::string::npos) continue;
      if (pkg::canonicalize_name(stem.substr(0, dash)) != canonical_name) continue;
      if (dist_info)
        return InstalledDist{site, it->path(), stem.substr(0, dash), stem.substr(dash + 1), false};
      if (!egg) {
        egg = InstalledDist{
            site, it->path(), stem.substr(0, dash),
            dash == std::string::npos ? egg_info_version(it->path()) : stem.substr(dash + 1), true};
      }
    }
    if (egg) return egg;
  }
  return std::nullopt;
}

util::Result<Backup> backup_installed(const InstalledDist& dist, const fs::path& backup_dir) {
  auto text = util::read_small_file(dist.dist_info / "RECORD", std::size_t{64} << 20);
  if (!text) {
    return util::fail(
        util::ErrorKind::failed, "cannot read the installed RECORD",
        (dist.dist_info / "RECORD").string(),
        "the installed distribution is damaged; flashfit will not replace what it cannot restore");
  }
  auto rows = binary::parse_record(*text);
  if (!rows)
    return tl::unexpected(
        std::move(rows.error()).with_context((dist.dist_info / "RECORD").string()));
  Backup backup{dist, backup_dir, {}};
  std::error_code ec;
  fs::create_directories(backup_dir, ec);
  if (ec)
    return util::fail(util::ErrorKind::failed,
                      "cannot create the backup directory: " + ec.message(), backup_dir.string());
  for (const binary::RecordRow& row : *rows) {
    if (row.path.empty() || row.path.find('\0') != std::string::npos || row.path.front() == '/') {
      return util::input_error(
          fmt::format("RECORD lists an unsafe path '{}'", util::printable(row.path)),
          (dist.dist_info / "RECORD").string());
    }
    const fs::path original = (dist.site_dir / row.path).lexically_normal();
    if (!fs::is_regular_file(original, ec)) continue;  // .pyc written later, or already gone
    const fs::path copy = backup_dir / std::to_string(backup.files.size());
    // A hard link keeps the bytes alive when pip unlinks the original, at no
    // copying cost (a flash-attn .so is hundreds of MB); copy across devices.
    fs::create_hard_link(original, copy, ec);
    if (ec) {
      ec.clear();
      fs::copy_file(original, copy, fs::copy_options::overwrite_existing, ec);
    }
    if (ec) {
      return util::fail(util::ErrorKind::failed,
                        fmt::format("cannot back up {}: {}", original.string(), ec.message()));
    }
    backup.files.push_back(original);
  }
  return backup;
}

util::Result<void> restore_backup(const Backup& backup) {
  for (std::size_t i = 0; i < backup.files.size(); ++i) {
    std::error_code ec;
    fs::create_directories(backup.files[i].parent_path(), ec);
    fs::remove(backup.files[i], ec);  // never write through a link into the backup
    ec.clear();
    fs::copy_file(backup.dir / std::to_string(i), backup.files[i],
                  fs::copy_options::overwrite_existing, ec);
    if (ec) {
      return util::fail(
          util::ErrorKind::failed,
          fmt::format("cannot restore {}: {}", backup.files[i].string(), ec.message()), {},
          fmt::format("the previous files are kept in {}", backup.dir.string()));
    }
  }
  return {};
}

std::vector<std::string> tree_fingerprint(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    auto size = it->file_size(ec);
    auto mtime = it->last_write_time(ec).time_since_epoch().count();
    out.push_back(fmt::format("{} {} {}", it->path().string(), size, mtime));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace flashfit::install
