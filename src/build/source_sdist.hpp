#pragma once
// Finding the sdist of a requirement (`flash-attn==2.8.3`) in simple indexes
// and find-links, as pip would pick it: the highest version the specifier
// admits (pre-releases only as PEP 440 allows), yanked files skipped.
#include <optional>
#include <string>
#include <vector>

#include "pkg/requirement.hpp"
#include "pkg/version.hpp"
#include "resolve/index_page.hpp"
#include "util/error.hpp"

namespace flashfit::build::detail {

// The version an sdist file name gives for `project` (canonical name):
// "flash_attn-2.8.3.tar.gz", "Flash-Attn-2.8.3.zip" and "flash-attn-2.8.3.tgz"
// all give 2.8.3 for "flash-attn". nullopt for other projects, other file
// kinds and versions that do not parse.
std::optional<pkg::Version> sdist_version(const std::string& filename, const std::string& project);

struct SdistPick {
  resolve::IndexLink link;  // url is a URL, or a local path for find-links directories
  pkg::Version version;
  bool local = false;  // a file on disk (no download)
};

// Looks in every index root (<root>/<project>/) and find-links location (an
// index page URL or a local directory). No match is an input error whose
// message lists the versions found and whose hint says where flashfit looked;
// when no location could be read at all, the first failure's kind is kept.
util::Result<SdistPick> find_sdist(const pkg::Requirement& requirement,
                                   const std::vector<std::string>& index_urls,
                                   const std::vector<std::string>& find_links);

}  // namespace flashfit::build::detail
