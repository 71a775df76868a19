#pragma once
// An installed distribution (its *.dist-info and the files its RECORD lists),
// and a backup of those files taken before flashfit replaces it, so a failed
// install can put the previous version back exactly as it was, even when no
// wheel of it exists anywhere.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace flashfit::install {

struct InstalledDist {
  std::filesystem::path site_dir;
  // <site>/<name>-<version>.dist-info, or an egg-info: <name>[-<version>].egg-info,
  // a directory (PKG-INFO inside) or a file (PKG-INFO itself), as setuptools
  // and distutils installs (Debian's python3-torch, python3-numpy) leave them.
  std::filesystem::path dist_info;
  std::string name;  // as in the directory name
  std::string version;
  bool egg_info = false;
};

// The first site dir (import order) holding the package's metadata (any
// spelling of its name), found the way importlib.metadata finds it: a
// *.dist-info directory, or a *.egg-info directory or file (its version from
// PKG-INFO when the name carries none). Within a site dir a dist-info wins.
std::optional<InstalledDist> find_installed(const std::vector<std::string>& site_dirs,
                                            const std::string& name);

struct Backup {
  InstalledDist dist;
  std::filesystem::path dir;                 // holds the copies: <dir>/<n>
  std::vector<std::filesystem::path> files;  // originals, absolute; copy n is files[n]
};

// Copies every file RECORD lists (paths relative to the site dir, scripts
// included) into `backup_dir`. A RECORD naming files outside any sane place
// (absolute paths, NUL) is refused.
util::Result<Backup> backup_installed(const InstalledDist& dist,
                                      const std::filesystem::path& backup_dir);

// Puts every backed-up file back (after the failed version was uninstalled).
util::Result<void> restore_backup(const Backup& backup);

// Names of the files (absolute) and their sizes + mtimes, to prove a tree
// untouched (torch before and after an install).
std::vector<std::string> tree_fingerprint(const std::filesystem::path& dir);

}  // namespace flashfit::install
