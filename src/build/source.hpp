#pragma once
// Where a build's source comes from, and what is in it. `flashfit build`
// takes a source tree (a directory with setup.py or pyproject.toml), a local
// source archive, a URL of one, or a requirement (`flash-attn==2.8.3`),
// whose sdist is found in the given package indexes (PEP 503 / PEP 691) or
// find-links. Archives are downloaded (sha256 checked when the index gives
// one) and unpacked under the work dir.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace flashfit::build {

enum class SourceKind { directory, archive, url, requirement };
const char* to_string(SourceKind kind);  // "directory", "archive", "url", "requirement"

// What the build planner and preflight need to know about a source tree.
struct SourceScan {
  bool has_setup_py = false;
  bool has_pyproject = false;
  std::size_t cuda_files = 0;          // *.cu (CUDA translation units)
  std::size_t cpp_files = 0;           // *.cpp, *.cc, *.cxx, *.c (not headers)
  std::optional<std::string> name;     // from PKG-INFO (sdists), else pyproject [project] name
  std::optional<std::string> version;  // likewise
};

// Walks the tree (symlinks not followed, at most 100k entries, .git and
// build/ skipped). Never fails: unreadable parts are skipped.
SourceScan scan_source_tree(const std::filesystem::path& root);

// Every regular file of a source tree, for the scan and the recipe's globs:
// directory links are not entered, .git and a top-level build/ (a previous
// build's output) are skipped, and at most 100000 entries are looked at.
void for_each_source_file(const std::filesystem::path& root,
                          const std::function<void(const std::filesystem::path&)>& visit);

struct SourceRequest {
  std::string spec;                     // DIR, ARCHIVE, URL or requirement
  std::filesystem::path work_dir;       // exists; archives are downloaded and unpacked below it
  std::vector<std::string> index_urls;  // simple-index roots (".../simple"), for a requirement
  std::vector<std::string> find_links;  // pages or local directories, for a requirement
  bool quiet = false;                   // no download progress
};

struct SourceTree {
  SourceKind kind = SourceKind::directory;
  std::filesystem::path root;  // the directory to build (holds setup.py / pyproject.toml)
  std::string origin;          // the path or URL it came from
  std::optional<std::string> archive_sha256;  // of the archive, when there was one
  SourceScan scan;
};

// Errors: input when the spec is none of the four forms, the directory has no
// setup.py / pyproject.toml, the archive is bad or hostile, or no sdist
// matches (the message lists the versions found); failed when a download
// fails. The hint says what to pass instead.
util::Result<SourceTree> prepare_source(const SourceRequest& request);

}  // namespace flashfit::build
