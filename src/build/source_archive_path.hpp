#pragma once
// The name checks of archive extraction, kept pure so that every hostile
// spelling can be tested without writing an archive: which entry names are
// paths inside the destination, and which link targets stay inside it.
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::build::detail {

// The components of an entry name: "./pkg//src/" -> {"pkg", "src"}. Empty
// names, absolute paths, ".." components, NUL bytes and components longer
// than a file name may be are input errors (the message says which; the
// caller names the entry). An empty result is the archive's root itself ("./").
util::Result<std::vector<std::string>> split_entry_path(std::string_view name);

// Whether a symbolic link in directory `link_dir` (components below the
// root) whose target is `target` points inside the tree, read as written:
// absolute targets and ones that climb above the root are input errors. The
// extractor also resolves every link once all entries are out, since a
// target can pass through other links.
util::Result<void> check_link_target(const std::vector<std::string>& link_dir,
                                     std::string_view target);

// "a/b/c" from {"a", "b", "c"}.
std::string join_entry_path(const std::vector<std::string>& parts, std::size_t count);

}  // namespace flashfit::build::detail
