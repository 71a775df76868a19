// `flashfit catalog update`: a source's release listing from a GitHub-style
// releases API, page by page, written to the cache dir only when all of it
// was read and made sense.
#include <fmt/format.h>
#include <time.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "net/http.hpp"
#include "resolve/catalog.hpp"
#include "resolve/catalog_cache.hpp"
#include "resolve/url_check.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"
#include "util/utc_time.hpp"

namespace flashfit::resolve {
namespace {

using nlohmann::json;

constexpr std::string_view kApiEvidence = "release-api-listing";
constexpr std::size_t kMaxPageBytes = std::size_t{32} << 20;

std::string page_url(const std::string& base, std::size_t page) {
  return fmt::format("{}{}per_page=100&page={}", base,
                     base.find('?') == std::string::npos ? '?' : '&', page);
}

// A hint for an HTTP status GitHub answers with.
std::string status_hint(const net::HttpResponse& response, bool have_token) {
  const bool limited = response.header("x-ratelimit-remaining") == "0" ||
                       !response.header("retry-after").empty() || response.status == 429;
  if ((response.status == 403 || response.status == 429) && limited) {
    std::string when;
    const std::string reset = response.header("x-ratelimit-reset");
    if (!reset.empty() && reset.size() < 12 &&
        reset.find_first_not_of("0123456789") == std::string::npos) {
      const std::time_t at = static_cast<std::time_t>(std::stoll(reset));
      std::tm parts{};
      char text[32];
      ::gmtime_r(&at, &parts);
      std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &parts);
      when = fmt::format(" (it resets at {})", text);
    }
    return have_token ? fmt::format("GitHub's API rate limit is used up{}: try again later", when)
                      : fmt::format(
                            "GitHub's API rate limit is used up{}: set GITHUB_TOKEN to a "
                            "token for a higher limit",
                            when);
  }
  if (response.status == 401) return "the token was refused: check GITHUB_TOKEN";
  if (response.status == 404) return "check the source's repository and api_url";
  return "try again later; the previous catalog stays in use";
}

// The "sha256:<hex>" digest GitHub gives newer assets; other algorithms are not kept.
util::Result<std::optional<std::string>> asset_sha256(const json& asset) {
  const auto digest = asset.find("digest");
  if (digest == asset.end() || digest->is_null()) return std::nullopt;
  if (!digest->is_string()) return util::input_error("'digest' is not a string");
  const std::string& text = digest->get_ref<const std::string&>();
  if (!util::starts_with(text, "sha256:")) return std::nullopt;
  std::string hex = util::ascii_lower(std::string_view(text).substr(7));
  if (hex.size() != 64 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return util::input_error(fmt::format("bad digest '{}'", util::printable(text)));
  }
  return std::optional<std::string>(std::move(hex));
}

const std::string* string_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

// The source's api_url with {api} and {repository} filled in. An api_url
// spelled with GitHub's own address instead of {api} still follows an
// overridden api_base, so $FLASHFIT_GITHUB_API works for either spelling.
std::string releases_url(const RecipeSource& source, std::string api_base) {
  while (!api_base.empty() && api_base.back() == '/') api_base.pop_back();
  std::string pattern = source.api_url;
  constexpr std::string_view kGitHubApi = "https://api.github.com";
  if (pattern.find("{api}") == std::string::npos && util::starts_with(pattern, kGitHubApi) &&
      (pattern.size() == kGitHubApi.size() || pattern[kGitHubApi.size()] == '/')) {
    pattern.replace(0, kGitHubApi.size(), "{api}");
  }
  return substitute(pattern, {{"{api}", api_base}, {"{repository}", source.repository}});
}

}  // namespace

util::Result<void> collect_releases_page(const json& page, ReleaseListing& out) {
  for (std::size_t r = 0; r < page.size(); ++r) {
    const json& release = page[r];
    if (!release.is_object())
      return util::input_error(fmt::format("release {} is not an object", r));
    const std::string* tag = string_field(release, "tag_name");
    if (tag == nullptr)
      return util::input_error(fmt::format("release {} has no string 'tag_name'", r));
    if (auto problem = tag_problem(*tag))
      return util::input_error(fmt::format("release {}: {}", r, *problem));
    const auto assets = release.find("assets");
    if (assets == release.end() || !assets->is_array()) {
      return util::input_error(
          fmt::format("release {} ({}) has no 'assets' array", r, util::printable(*tag)));
    }
    ++out.releases;
    for (std::size_t a = 0; a < assets->size(); ++a) {
      const json& asset = (*assets)[a];
      const auto where = [&] {
        return fmt::format("release {} ({}) asset {}", r, util::printable(*tag), a);
      };
      if (!asset.is_object()) return util::input_error(where() + " is not an object");
      const std::string* name = string_field(asset, "name");
      const std::string* url = string_field(asset, "browser_download_url");
      if (name == nullptr || url == nullptr) {
        return util::input_error(where() + " lacks a string 'name' or 'browser_download_url'");
      }
      auto sha256 = asset_sha256(asset);
      if (!sha256) return util::input_error(where() + ": " + sha256.error().message);
      ++out.assets;
      if (!util::ends_with(*name, ".whl")) continue;  // sdists, checksums, logs
      std::optional<std::string> problem = filename_problem(*name);
      if (!problem) problem = url_problem(*url);
      if (problem) return util::input_error(where() + ": " + *problem);
      if (!out.urls.insert(*url).second) continue;
      out.entries.push_back(
          CatalogEntry{*url, *name, *tag, std::string(kApiEvidence), std::move(*sha256)});
    }
  }
  return {};
}

util::Result<CatalogUpdateResult> update_catalog(const Recipe& recipe, const RecipeSource& source,
                                                 const std::filesystem::path& cache_root,
                                                 const CatalogUpdateOptions& options) {
  const std::string what = fmt::format("updating the '{}' catalog of {}", source.name, recipe.name);
  auto path = catalog_cache_path(cache_root, recipe.name, source.name);
  if (!path) return tl::unexpected(std::move(path.error()).with_context(what));
  if (source.api_url.empty()) {
    return util::input_error(
        fmt::format("source '{}' has no api_url to list its releases", source.name), what);
  }
  const std::string base = releases_url(source, options.api_base);

  net::HttpRequest request;
  request.max_bytes = kMaxPageBytes;
  request.headers = {"Accept: application/vnd.github+json", "X-GitHub-Api-Version: 2022-11-28"};
  if (options.token && !options.token->empty()) {
    request.headers.push_back("Authorization: Bearer " + *options.token);
  }

  ReleaseListing collected;
  std::size_t page = 1;
  for (; page <= options.max_pages; ++page) {
    request.url = page_url(base, page);
    auto response = net::http_get(request);
    if (!response) return tl::unexpected(std::move(response.error()).with_context(what));
    if (response->status != 200) {
      return util::fail(util::ErrorKind::failed,
                        fmt::format("{} answered HTTP {}; keeping the previous catalog",
                                    request.url, response->status),
                        what, status_hint(*response, options.token.has_value()));
    }
    // Iterative parser: deep nesting is an error, not a stack overflow.
    const json parsed = json::parse(response->body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_array()) {
      return util::input_error(
          fmt::format(
              "page {} ({}) is {}, not a JSON array of releases; keeping the previous catalog",
              page, request.url,
              parsed.is_discarded() ? "not valid JSON"
                                    : fmt::format("a JSON {}", parsed.type_name())),
          what);
    }
    if (parsed.empty()) break;
    if (auto ok = collect_releases_page(parsed, collected); !ok) {
      return util::input_error(fmt::format("page {} ({}): {}; keeping the previous catalog", page,
                                           request.url, ok.error().message),
                               what);
    }
    if (options.progress) {
      options.progress(fmt::format("page {}: {} releases, {} wheels so far", page,
                                   collected.releases, collected.entries.size()));
    }
  }
  if (page > options.max_pages && options.progress) {
    options.progress(fmt::format("stopped after {} pages", options.max_pages));
  }
  if (collected.entries.empty()) {
    return util::fail(
        util::ErrorKind::failed, "the listing has no wheels; keeping the previous catalog", what,
        fmt::format("check that {} publishes wheels as release assets", source.repository));
  }

  CatalogUpdateResult result;
  result.catalog.recipe = recipe.name;
  result.catalog.source = source.name;
  result.catalog.origin = path->string();
  result.catalog.updated_at = util::now_utc();
  result.catalog.entries = std::move(collected.entries);
  result.releases = collected.releases;
  result.assets = collected.assets;
  result.wheels = result.catalog.entries.size();
  result.written = *path;
  if (!util::ensure_cache_dir(cache_root, path->parent_path())) {
    return util::fail(util::ErrorKind::failed, "cannot create the cache directory",
                      path->parent_path().string(), "check FLASHFIT_CACHE_DIR and its permissions");
  }
  if (auto written = util::write_file_atomic(*path, format_catalog_cache(result.catalog));
      !written) {
    return tl::unexpected(std::move(written.error()).with_context(what));
  }
  // What was learnt about the old rows' URLs is asked again under the new listing.
  if (auto checks = url_checks_path(cache_root, recipe.name, source.name)) {
    std::error_code ec;
    std::filesystem::remove(*checks, ec);
  }
  return result;
}

}  // namespace flashfit::resolve
