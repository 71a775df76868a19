#pragma once
// Pieces of download_file shared by the HTTP path (download.cpp) and the
// local-copy path (download_local.cpp). Internal to net/.
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "net/download.hpp"
#include "util/error.hpp"
#include "util/sha256.hpp"
#include "util/unique_fd.hpp"

namespace flashfit::net::detail {

using util::UniqueFd;

// `<destination>.part`.
std::filesystem::path part_path(const std::filesystem::path& destination);

// The end of every download: fdatasync and close the part file, compare the
// digest with the expected one (a mismatch deletes the part: ErrorKind::input),
// rename it to `destination` and, when `sync_directory`, fsync the directory.
// Returns the hex digest.
util::Result<std::string> commit_part(UniqueFd fd, const std::filesystem::path& part,
                                      const std::filesystem::path& destination,
                                      util::Sha256& hasher,
                                      const std::optional<std::string>& expected_sha256,
                                      std::string_view where, bool sync_directory);

// download_file for a local source: copy and hash with the same temp + rename discipline.
util::Result<DownloadResult> copy_local(const DownloadRequest& request);

}  // namespace flashfit::net::detail
