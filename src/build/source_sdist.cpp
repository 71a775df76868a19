// Picking a requirement's sdist from indexes and find-links (see
// source_sdist.hpp). Every location is read; one that fails is reported in
// the error only if nothing else offered a match, as pip does.
#include "build/source_sdist.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "build/archive.hpp"
#include "pkg/name.hpp"
#include "resolve/index_fetch.hpp"
#include "util/strings.hpp"

namespace flashfit::build::detail {
namespace {

namespace fs = std::filesystem;

// sdists keep the ".tar.gz" that PEP 625 requires first; other kinds are
// older or unusual, and only chosen when a version has nothing better.
int extension_rank(const std::string& filename) {
  const std::string lower = util::ascii_lower(filename);
  const char* order[] = {".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".zip"};
  for (int i = 0; i < 5; ++i) {
    if (util::ends_with(lower, order[i])) return i;
  }
  return 5;
}

std::size_t extension_length(const std::string& filename) {
  const std::string lower = util::ascii_lower(filename);
  for (const char* ext : {".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".zip"}) {
    if (util::ends_with(lower, ext)) return std::string_view(ext).size();
  }
  return 0;
}

bool is_url(const std::string& text) {
  return util::starts_with(text, "http://") || util::starts_with(text, "https://") ||
         util::starts_with(text, "file://");
}

struct Found {
  resolve::IndexLink link;
  pkg::Version version;
  bool local = false;
  std::size_t source = 0;  // position of the location that offered it
};

// Source archives in a local directory (not recursive), as file paths.
util::Result<std::vector<resolve::IndexLink>> list_archive_directory(const std::string& dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status)) return util::input_error("no such directory", util::printable(dir));
  if (!fs::is_directory(status)) return util::input_error("not a directory", util::printable(dir));
  const fs::path root = fs::absolute(dir, ec);
  std::vector<resolve::IndexLink> links;
  fs::directory_iterator it(root, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_source_archive_name(name)) continue;
    std::error_code file_ec;
    if (!it->is_regular_file(file_ec) || file_ec) continue;
    resolve::IndexLink link;
    link.filename = name;
    link.url = (root / name).string();
    links.push_back(std::move(link));
  }
  if (ec)
    return util::input_error(fmt::format("cannot list the directory: {}", ec.message()),
                             util::printable(dir));
  std::sort(links.begin(), links.end(),
            [](const resolve::IndexLink& a, const resolve::IndexLink& b) {
              return a.filename < b.filename;
            });
  return links;
}

}  // namespace

std::optional<pkg::Version> sdist_version(const std::string& filename, const std::string& project) {
  const std::size_t ext = extension_length(filename);
  if (ext == 0 || filename.size() <= ext) return std::nullopt;
  const std::string_view stem = std::string_view(filename).substr(0, filename.size() - ext);
  // Older sdists spell the name with '-' inside it ("flash-attn-2.0.0"), so
  // every dash is a possible split; the first whose left side is the project
  // and whose right side is a version wins.
  for (std::size_t dash = stem.find('-', 1); dash != std::string_view::npos;
       dash = stem.find('-', dash + 1)) {
    if (pkg::canonicalize_name(stem.substr(0, dash)) != project) continue;
    if (auto version = pkg::Version::parse(stem.substr(dash + 1))) return std::move(*version);
  }
  return std::nullopt;
}

util::Result<SdistPick> find_sdist(const pkg::Requirement& requirement,
                                   const std::vector<std::string>& index_urls,
                                   const std::vector<std::string>& find_links) {
  const std::string project = pkg::canonicalize_name(requirement.name);
  std::vector<Found> found;
  std::vector<std::string> looked;  // "<where> (<what it gave>)"
  std::optional<util::Error> first_failure;
  std::size_t readable = 0;

  auto take = [&](const std::vector<resolve::IndexLink>& links, std::size_t source, bool local) {
    std::size_t count = 0;
    for (const resolve::IndexLink& link : links) {
      auto version = sdist_version(link.filename, project);
      if (!version) continue;
      found.push_back(Found{link, std::move(*version), local, source});
      ++count;
    }
    return count;
  };
  auto failed = [&](const std::string& where, util::Error error) {
    looked.push_back(fmt::format("{} ({})", where, error.message));
    if (!first_failure) first_failure = std::move(error);
  };

  std::size_t source = 0;
  for (const std::string& index : index_urls) {
    std::string root = index;
    while (!root.empty() && root.back() == '/') root.pop_back();
    const std::string url = root + "/" + project + "/";
    auto page = resolve::fetch_index_links(url, true);
    if (!page) {
      failed(util::printable(url), std::move(page.error()));
    } else if (!*page) {
      ++readable;
      looked.push_back(fmt::format("{} (not found)", util::printable(url)));
    } else {
      ++readable;
      looked.push_back(
          fmt::format("{} ({} sdists)", util::printable(url), take(**page, source, false)));
    }
    ++source;
  }
  for (const std::string& location : find_links) {
    auto links = is_url(location)
                     ? resolve::fetch_index_links(location, false)
                     : list_archive_directory(location).map([](std::vector<resolve::IndexLink> l) {
                         return std::optional<std::vector<resolve::IndexLink>>(std::move(l));
                       });
    if (!links) {
      failed(util::printable(location), std::move(links.error()));
    } else {
      ++readable;
      const std::size_t count = *links ? take(**links, source, !is_url(location)) : 0;
      looked.push_back(fmt::format("{} ({} sdists)", util::printable(location), count));
    }
    ++source;
  }

  // Versions offered, yanked files aside (PEP 592: an installer ignores them
  // unless nothing else matches an exact pin; a build source never needs that).
  std::vector<pkg::Version> versions;
  for (const Found& f : found) {
    if (f.link.yanked) continue;
    if (std::find(versions.begin(), versions.end(), f.version) == versions.end())
      versions.push_back(f.version);
  }
  std::sort(versions.begin(), versions.end());
  const std::vector<pkg::Version> admitted = requirement.specifier.filter(versions);

  if (!admitted.empty()) {
    const pkg::Version& best = *std::max_element(admitted.begin(), admitted.end());
    const Found* pick = nullptr;
    for (const Found& f : found) {
      if (f.link.yanked || !(f.version == best)) continue;
      if (pick == nullptr ||
          std::make_pair(extension_rank(f.link.filename), f.source) <
              std::make_pair(extension_rank(pick->link.filename), pick->source)) {
        pick = &f;
      }
    }
    return SdistPick{pick->link, pick->version, pick->local};
  }

  const std::string wanted = requirement.specifier.empty()
                                 ? requirement.name
                                 : requirement.name + requirement.specifier.str();
  const std::string where = fmt::format("looked in: {}", util::join(looked, "; "));
  if (found.empty() && readable == 0 && first_failure) {
    util::Error error = std::move(*first_failure);
    error.message = fmt::format("cannot look up the source distributions of {}: {}",
                                requirement.name, error.message);
    error.hint = where;
    return tl::unexpected(std::move(error));
  }
  std::vector<std::string> listed;
  for (const pkg::Version& v : versions) listed.push_back(v.str());
  for (const Found& f : found) {
    std::string text = f.version.str() + " (yanked)";
    if (f.link.yanked && std::find(listed.begin(), listed.end(), text) == listed.end() &&
        std::find(versions.begin(), versions.end(), f.version) == versions.end()) {
      listed.push_back(std::move(text));
    }
  }
  const std::string message =
      listed.empty() ? fmt::format("no source distribution of {} found", requirement.name)
                     : fmt::format("no source distribution matches {}; versions found: {}", wanted,
                                   util::join(listed, ", "));
  return util::input_error(message, wanted, where);
}

}  // namespace flashfit::build::detail
