#pragma once
// Rewriting one fact of a wheel: METADATA's Version, so that it agrees with
// the file name. Upstream flash-attn names its wheels 2.8.3+cu12torch2.8...
// but writes Version: 2.8.3, which pip refuses through an index or
// find-links ("inconsistent version"); publishing such a wheel as-is would
// publish a file pip will not install (docs/background.md §20).

#include <filesystem>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace flashfit::binary {

// METADATA text with its Version header set to `version` (the other headers
// and the body byte for byte). Refuses text without exactly one Version header.
util::Result<std::string> with_metadata_version(std::string_view metadata,
                                                std::string_view version);

// Writes a copy of `wheel` to `out` whose METADATA says `version` and whose
// RECORD row for METADATA has the new hash and size; every other member is
// copied unchanged, and the two rewritten keep their modification times, so
// the same input gives the same bytes on every run. On error `out` does not exist.
util::Result<void> rewrite_metadata_version(const std::filesystem::path& wheel,
                                            const std::filesystem::path& out,
                                            std::string_view version);

}  // namespace flashfit::binary
