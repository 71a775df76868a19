// From what the user typed to a source tree on disk: a directory is used as
// it is, an archive is unpacked (downloaded first when it is a URL or a
// requirement's sdist), and whatever the form, the result holds setup.py or
// pyproject.toml or is an error that says what to pass instead.
#include "build/source.hpp"

#include <fmt/format.h>

#include "build/archive.hpp"
#include "build/source_sdist.hpp"
#include "net/download.hpp"
#include "pkg/requirement.hpp"
#include "resolve/index_fetch.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSpecHint =
    "pass a source directory (with setup.py or pyproject.toml), a source archive (.tar.gz, .tgz, "
    ".tar.bz2, "
    ".tar.xz, .zip), its http(s) URL, or a requirement such as 'flash-attn==2.8.3'";

bool is_url(const std::string& text) {
  return util::starts_with(text, "http://") || util::starts_with(text, "https://") ||
         util::starts_with(text, "file://");
}

bool has_build_file(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "setup.py", ec) ||
         fs::is_regular_file(dir / "pyproject.toml", ec);
}

// "source", then "source-2", ...: one work dir can hold several preparations.
fs::path fresh_child(const fs::path& dir, const std::string& stem) {
  std::error_code ec;
  fs::path candidate = dir / stem;
  for (int i = 2; fs::exists(fs::symlink_status(candidate, ec)); ++i) {
    candidate = dir / fmt::format("{}-{}", stem, i);
  }
  return candidate;
}

util::Result<SourceTree> from_directory(const fs::path& dir, const std::string& spec) {
  std::error_code ec;
  fs::path root = fs::canonical(dir, ec);
  if (ec)
    return util::input_error(fmt::format("cannot resolve the directory: {}", ec.message()), spec);
  if (!has_build_file(root)) {
    return util::input_error(
        "the directory has neither setup.py nor pyproject.toml", util::printable(spec),
        "pass the top directory of the package's source (where setup.py or pyproject.toml "
        "is), or a source archive or requirement");
  }
  SourceTree tree;
  tree.kind = SourceKind::directory;
  tree.origin = root.string();
  tree.root = root;
  tree.scan = scan_source_tree(root);
  return tree;
}

// Unpacks `archive` below the work dir and checks that it is a package.
util::Result<SourceTree> unpack(const fs::path& archive, const fs::path& work_dir, SourceKind kind,
                                std::string origin, std::string sha256) {
  const fs::path destination = fresh_child(work_dir, "source");
  auto root = extract_archive(archive, destination);
  if (!root) return tl::unexpected(std::move(root.error()));
  if (!has_build_file(*root)) {
    std::error_code ec;
    fs::remove_all(destination, ec);
    return util::input_error(
        "the archive has neither setup.py nor pyproject.toml at its top", util::printable(origin),
        "a source distribution holds one directory with setup.py or pyproject.toml");
  }
  SourceTree tree;
  tree.kind = kind;
  tree.root = *root;
  tree.origin = std::move(origin);
  tree.archive_sha256 = std::move(sha256);
  tree.scan = scan_source_tree(*root);
  return tree;
}

util::Result<SourceTree> from_local_archive(const fs::path& archive, const fs::path& work_dir,
                                            SourceKind kind, const std::string& origin) {
  auto sha256 = util::file_sha256_hex(archive);
  if (!sha256) return tl::unexpected(std::move(sha256.error()));
  return unpack(archive, work_dir, kind, origin, std::move(*sha256));
}

util::Result<SourceTree> from_link(const resolve::IndexLink& link, const SourceRequest& request,
                                   SourceKind kind) {
  if (!is_source_archive_name(link.filename)) {
    return util::input_error(
        fmt::format("'{}' is not a source archive", util::printable(link.filename)),
        util::printable(link.url),
        util::ends_with(link.filename, ".whl")
            ? "a wheel is installed with 'flashfit install', not built"
            : kSpecHint);
  }
  net::DownloadRequest download;
  download.url = link.url;
  download.destination = request.work_dir / link.filename;
  download.expected_sha256 = link.sha256;
  download.label = link.filename;
  download.quiet = request.quiet;
  auto done = net::download_file(download);
  if (!done) return tl::unexpected(std::move(done.error()));
  auto tree = unpack(download.destination, request.work_dir, kind, link.url, done->sha256);
  // The unpacked tree is what the build needs; the archive's hash is kept.
  std::error_code ec;
  fs::remove(download.destination, ec);
  return tree;
}

util::Result<SourceTree> from_requirement(const pkg::Requirement& requirement,
                                          const SourceRequest& request) {
  if (requirement.url) {
    auto link = resolve::link_from_url(*requirement.url);
    if (!link)
      return util::input_error("the requirement's URL names no file",
                               util::printable(*requirement.url), kSpecHint);
    return from_link(*link, request, SourceKind::requirement);
  }
  if (request.index_urls.empty() && request.find_links.empty()) {
    return util::input_error(
        fmt::format("no package index to find the source of '{}' in", requirement.name),
        requirement.str(),
        "pass --index-url URL (a simple index) or --find-links DIR|URL, or a path to a source tree "
        "or archive");
  }
  auto pick = detail::find_sdist(requirement, request.index_urls, request.find_links);
  if (!pick) return tl::unexpected(std::move(pick.error()));
  if (pick->local)
    return from_local_archive(pick->link.url, request.work_dir, SourceKind::requirement,
                              pick->link.url);
  return from_link(pick->link, request, SourceKind::requirement);
}

}  // namespace

const char* to_string(SourceKind kind) {
  switch (kind) {
    case SourceKind::directory:
      return "directory";
    case SourceKind::archive:
      return "archive";
    case SourceKind::url:
      return "url";
    case SourceKind::requirement:
      return "requirement";
  }
  return "unknown";
}

util::Result<SourceTree> prepare_source(const SourceRequest& request) {
  const std::string spec(util::trim(request.spec));
  if (spec.empty()) return util::input_error("no source given", {}, kSpecHint);
  std::error_code ec;
  if (!fs::is_directory(request.work_dir, ec)) {
    return util::fail(util::ErrorKind::internal, "the work directory does not exist",
                      util::printable(request.work_dir.string()));
  }

  if (is_url(spec)) {
    auto link = resolve::link_from_url(spec);
    if (!link) return util::input_error("the URL names no file", util::printable(spec), kSpecHint);
    return from_link(*link, request, SourceKind::url);
  }

  const fs::file_status status = fs::status(spec, ec);
  // A bare name that happens to be a directory without setup.py here is
  // meant as a requirement (pip reads it the same way).
  const bool bare_name = spec.find('/') == std::string::npos && spec != "." && spec != "..";
  if (fs::is_directory(status) &&
      !(bare_name && !has_build_file(spec) && pkg::parse_requirement(spec))) {
    return from_directory(spec, spec);
  }
  if (fs::exists(status) && !fs::is_directory(status)) {
    if (!fs::is_regular_file(status))
      return util::input_error("not a regular file", util::printable(spec), kSpecHint);
    if (is_source_archive_name(spec)) {
      fs::path absolute = fs::absolute(spec, ec);
      return from_local_archive(absolute, request.work_dir, SourceKind::archive, absolute.string());
    }
    return util::input_error("not a source archive", util::printable(spec),
                             util::ends_with(spec, ".whl")
                                 ? "a wheel is installed with 'flashfit install', not built"
                                 : kSpecHint);
  }
  auto requirement = pkg::parse_requirement(spec);
  // A file name that does not exist is a typo, not a package called "x.tar.gz".
  const bool file_like = is_source_archive_name(spec) || util::ends_with(spec, ".whl");
  if (requirement && file_like && !requirement->url) {
    return util::input_error("no such file", util::printable(spec), kSpecHint);
  }
  if (!requirement) {
    const bool path_like = file_like || spec.find('/') != std::string::npos ||
                           spec.front() == '.' || spec.front() == '~';
    if (path_like)
      return util::input_error("no such file or directory", util::printable(spec), kSpecHint);
    return util::input_error(fmt::format("not a directory, source archive, URL or requirement ({})",
                                         requirement.error().message),
                             util::printable(spec), kSpecHint);
  }
  return from_requirement(*requirement, request);
}

}  // namespace flashfit::build
