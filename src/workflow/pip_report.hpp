#pragma once
// pip's installation report (`pip install --dry-run --report FILE`, pip >=
// 22.2, format version "1"): what `flashfit lock` takes from it for each
// package the installer resolved. Pure: parses the JSON text.

#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::workflow {

// What to do about a requirement the resolver takes from a VCS checkout or a
// local directory, which has no file a lock can name by URL and sha256.
inline constexpr std::string_view kNoFileToLockHint =
    "build a wheel of it and require that (a URL, an index or --find-links), or leave it out of "
    "the lock";

struct ReportedPackage {
  std::string name;     // metadata.name, as written
  std::string version;  // metadata.version
  std::string url;      // download_info.url
  std::string sha256;   // lower-case hex; empty when the resolver gave none
  // The PEP 503 names metadata.requires_dist lists (markers and extras not
  // evaluated): which package may have brought this one's dependencies in.
  // Empty from uv, whose pylock does not say.
  std::vector<std::string> requires_names;

  bool operator==(const ReportedPackage&) const = default;
};

// archive_info.hashes.sha256 (pip >= 23.1) or archive_info.hash "sha256=<hex>"
// (pip 22.2-23.0); the names metadata.requires_dist starts with. Errors: not
// JSON, an unknown report version, an install entry without name/version/url,
// a sha256 that is not 64 hex digits, a VCS or directory source (vcs_info,
// dir_info: no file to lock; the error names the package).
util::Result<std::vector<ReportedPackage>> parse_pip_report(std::string_view json_text);

}  // namespace flashfit::workflow
