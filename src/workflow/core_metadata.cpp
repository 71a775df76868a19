#include "workflow/core_metadata.hpp"

#include <fmt/core.h>

#include "binary/wheel.hpp"
#include "net/http.hpp"
#include "pkg/name.hpp"
#include "pkg/wheel_name.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace flashfit::workflow {

util::Result<std::vector<std::string>> served_requires_dist(const resolve::Candidate& pick,
                                                            std::string_view metadata) {
  const std::string where = pick.url + ".metadata";
  if (pick.core_metadata && !pick.core_metadata->empty()) {
    const std::string got = util::sha256_hex(metadata);
    if (got != *pick.core_metadata) {
      return util::fail(util::ErrorKind::failed,
                        fmt::format("the index's METADATA for {} does not match the sha256 its "
                                    "page gives ({}, expected {})",
                                    pick.filename, got, *pick.core_metadata),
                        where, "the index is inconsistent or was tampered with: tell its keeper");
    }
  }
  auto fields = binary::parse_metadata_headers(metadata);
  if (!fields) return tl::unexpected(std::move(fields.error()).with_context(where));
  return requires_dist_of_pick(pick, std::move(*fields), "the index's METADATA", where);
}

util::Result<std::vector<std::string>> requires_dist_of_pick(const resolve::Candidate& pick,
                                                             binary::WheelMetadata fields,
                                                             std::string_view what,
                                                             const std::string& where) {
  auto wheel = pkg::parse_wheel_filename(pick.filename);
  if (!wheel) return tl::unexpected(std::move(wheel.error()).with_context(pick.filename));
  const auto version = pkg::Version::parse(fields.version);
  const bool same_name = pkg::canonicalize_name(fields.name) == wheel->canonical_name;
  const bool same_version =
      version && (*version == wheel->version ||
                  (!version->has_local() && std::is_eq(version->compare_public(wheel->version))));
  if (!same_name || !same_version) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("{} for {} is for {} {}, not this wheel", what, pick.filename,
                                  util::printable(fields.name), util::printable(fields.version)),
                      where, "the file served is not the wheel its name says: tell its keeper");
  }
  return std::move(fields.requires_dist);
}

util::Result<std::optional<std::vector<std::string>>> fetch_core_metadata(
    const resolve::Candidate& pick) {
  if (!pick.core_metadata) return std::nullopt;
  net::HttpRequest request;
  request.url = pick.url + ".metadata";
  request.max_bytes = 16u << 20;  // METADATA is kilobytes; a long description, a few hundred
  auto response = net::http_get(request);
  if (!response) return tl::unexpected(std::move(response.error()));
  if (response->status != 200) return std::nullopt;
  auto required = served_requires_dist(pick, response->body);
  if (!required) return tl::unexpected(std::move(required.error()));
  return std::optional(std::move(*required));
}

}  // namespace flashfit::workflow
