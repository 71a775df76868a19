#pragma once
// Unpacking source distributions (.tar.gz, .tar.bz2, .tar.xz, .tgz, .zip)
// with libarchive, safely: absolute paths, ".." components, links that point
// outside the destination, device files, FIFOs, entries over a size or count
// limit and a total over the limit (declared or actual) are refused with an
// error naming the entry; on any error the destination holds nothing of the
// archive (it is extracted into a fresh temp dir first, then renamed).

#include <cstdint>
#include <filesystem>

#include "util/error.hpp"

namespace flashfit::build {

struct ExtractLimits {
  std::uint64_t max_entries = 200000;
  std::uint64_t max_entry_bytes = std::uint64_t{2} << 30;  // one file
  std::uint64_t max_total_bytes = std::uint64_t{8}
                                  << 30;  // all files (flash-attn's sdist with cutlass: ~100 MB)
};

// Extracts `archive` into `destination` (which must not exist; its parent
// must). Returns the source root: the single top-level directory when the
// archive has one (as sdists do), else `destination`. Errors: input (bad or
// hostile archive), failed (disk full, permissions).
util::Result<std::filesystem::path> extract_archive(const std::filesystem::path& archive,
                                                    const std::filesystem::path& destination,
                                                    const ExtractLimits& limits = {});

// Whether a file name looks like an archive extract_archive reads.
bool is_source_archive_name(const std::string& filename);

}  // namespace flashfit::build
