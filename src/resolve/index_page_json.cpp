// PEP 691 JSON project pages (application/vnd.pypi.simple.v1+json). Unlike
// HTML, JSON has a schema, so a page that breaks it is an error naming the
// field, not something to guess around.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "net/http.hpp"
#include "resolve/index_link_url.hpp"
#include "resolve/index_page.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

using nlohmann::json;

class JsonPage {
 public:
  explicit JsonPage(std::string_view page_url) : page_url_(page_url) {}

  tl::unexpected<util::Error> error(std::string message, std::string hint = {}) const {
    return util::input_error(std::move(message), util::printable(page_url_), std::move(hint));
  }
  tl::unexpected<util::Error> wrong_type(const std::string& field, std::string_view expected,
                                         const json& value) const {
    return error(fmt::format("'{}' must be {}, not {}", field, expected, value.type_name()));
  }

  // PEP 629 versions: "major.minor"; only major 1 exists, and a client must
  // not guess at a later major's meaning.
  util::Result<void> check_meta(const json& doc) const {
    auto meta = doc.find("meta");
    if (meta == doc.end()) return error("no 'meta' object: not a PEP 691 page");
    if (!meta->is_object()) return wrong_type("meta", "an object", *meta);
    auto version = meta->find("api-version");
    if (version == meta->end()) return error("no 'meta.api-version'");
    if (!version->is_string()) return wrong_type("meta.api-version", "a string", *version);
    const std::string& text = version->get_ref<const std::string&>();
    std::vector<std::string_view> parts = util::split(text, '.');
    bool well_formed = parts.size() <= 2;
    for (std::string_view part : parts) {
      well_formed = well_formed && !part.empty() && part.size() <= 9 &&
                    part.find_first_not_of("0123456789") == std::string_view::npos;
    }
    if (!well_formed) {
      return error(fmt::format("malformed 'meta.api-version' '{}'", util::printable(text)));
    }
    if (std::stoul(std::string(parts[0])) != 1) {
      return error(
          fmt::format("unsupported API version {} (flashfit reads 1.x)", util::printable(text)),
          "ask the index for HTML (Accept: text/html) or use an index that speaks v1");
    }
    return {};
  }

  util::Result<IndexLink> file(const json& entry, std::size_t index) {
    std::string where = fmt::format("files[{}]", index);
    if (!entry.is_object()) return wrong_type(where, "an object", entry);
    IndexLink link;

    auto filename = entry.find("filename");
    if (filename == entry.end()) return error(fmt::format("no '{}.filename'", where));
    if (!filename->is_string()) return wrong_type(where + ".filename", "a string", *filename);
    link.filename = filename->get<std::string>();
    // The name becomes a file in the cache: a path in it is an attack.
    if (!detail::is_safe_filename(link.filename)) {
      return error(fmt::format("unsafe '{}.filename' '{}': not a plain file name", where,
                               util::printable(link.filename)));
    }

    auto url = entry.find("url");
    if (url == entry.end()) return error(fmt::format("no '{}.url'", where));
    if (!url->is_string()) return wrong_type(where + ".url", "a string", *url);
    std::string_view url_text = util::trim(url->get_ref<const std::string&>());
    if (url_text.empty()) return error(fmt::format("empty '{}.url'", where));
    if (auto charged =
            detail::charge_link_bytes(spent_, page_url_.size() + url_text.size(), page_url_);
        !charged) {
      return tl::unexpected(std::move(charged.error()));
    }
    std::string resolved = net::resolve_url(page_url_, url_text);
    if (!detail::has_fetchable_scheme(resolved)) {
      return error(fmt::format("'{}.url' '{}' is not an http, https or file URL", where,
                               util::printable(resolved)));
    }
    link.url = detail::clean_url(resolved);

    if (auto hashes = entry.find("hashes"); hashes != entry.end()) {
      if (!hashes->is_object()) return wrong_type(where + ".hashes", "an object", *hashes);
      for (auto hash = hashes->begin(); hash != hashes->end(); ++hash) {
        std::string field = fmt::format("{}.hashes.{}", where, util::printable(hash.key()));
        if (!hash->is_string()) return wrong_type(field, "a string", *hash);
        if (hash.key() != "sha256") continue;  // other algorithms are not checked
        link.sha256 = detail::normalized_sha256(hash->get_ref<const std::string&>());
        if (!link.sha256) {
          return error(fmt::format("'{}' is not 64 hex digits", field),
                       "the index serves a corrupt hash; do not trust this file");
        }
      }
    }

    // Optional fields; PyPI writes null for "none".
    if (auto requires_python = entry.find("requires-python"); requires_python != entry.end()) {
      if (requires_python->is_string()) {
        if (!requires_python->get_ref<const std::string&>().empty()) {
          link.requires_python = requires_python->get<std::string>();
        }
      } else if (!requires_python->is_null()) {
        return wrong_type(where + ".requires-python", "a string or null", *requires_python);
      }
    }
    if (auto yanked = entry.find("yanked"); yanked != entry.end()) {
      // PEP 691: true, or a reason string. As pip: false and "" are not yanked.
      if (yanked->is_boolean()) {
        link.yanked = yanked->get<bool>();
      } else if (yanked->is_string()) {
        link.yanked_reason = yanked->get<std::string>();
        link.yanked = !link.yanked_reason.empty();
      } else if (!yanked->is_null()) {
        return wrong_type(where + ".yanked", "a boolean or a string", *yanked);
      }
    }
    // PEP 714's key, else PEP 658's: whether "<url>.metadata" is served, or its hashes.
    const char* metadata_key = "core-metadata";
    auto metadata = entry.find(metadata_key);
    if (metadata == entry.end()) metadata = entry.find(metadata_key = "dist-info-metadata");
    if (metadata != entry.end()) {
      const std::string field = fmt::format("{}.{}", where, metadata_key);
      if (metadata->is_boolean()) {
        if (metadata->get<bool>()) link.core_metadata = std::string();
      } else if (metadata->is_object()) {
        link.core_metadata = std::string();  // offered; only a sha256 is kept to check
        if (auto sha = metadata->find("sha256"); sha != metadata->end()) {
          if (!sha->is_string()) return wrong_type(field + ".sha256", "a string", *sha);
          link.core_metadata = detail::normalized_sha256(sha->get_ref<const std::string&>());
          if (!link.core_metadata) {
            return error(fmt::format("'{}.sha256' is not 64 hex digits", field),
                         "the index serves a corrupt hash; do not trust this file");
          }
        }
      } else if (!metadata->is_null()) {
        return wrong_type(field, "a boolean or an object of hashes", *metadata);
      }
    }
    return link;
  }

 private:
  std::string_view page_url_;
  std::size_t spent_ = 0;  // bytes of URLs resolved so far
};

}  // namespace

util::Result<std::vector<IndexLink>> parse_simple_json(std::string_view text,
                                                       std::string_view page_url) {
  if (auto checked = detail::check_page_text(text, page_url, "JSON index page"); !checked) {
    return tl::unexpected(std::move(checked.error()));
  }
  JsonPage page(page_url);
  // nlohmann 3.11 parses and destroys without recursion, so deep nesting costs
  // memory in proportion to the input, which is bounded above.
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return page.error("malformed JSON");
  if (!doc.is_object()) return page.wrong_type("the page", "a JSON object", doc);
  if (auto meta = page.check_meta(doc); !meta) return tl::unexpected(std::move(meta.error()));
  if (auto name = doc.find("name"); name != doc.end() && !name->is_string()) {
    return page.wrong_type("name", "a string", *name);
  }
  auto files = doc.find("files");
  if (files == doc.end()) {
    return page.error("no 'files' array: not a project page",
                      "the index's root page lists projects; ask for /<project>/");
  }
  if (!files->is_array()) return page.wrong_type("files", "an array", *files);

  std::vector<IndexLink> links;
  links.reserve(files->size());
  for (std::size_t i = 0; i < files->size(); ++i) {
    util::Result<IndexLink> link = page.file((*files)[i], i);
    if (!link) return tl::unexpected(std::move(link.error()));
    links.push_back(std::move(*link));
  }
  return links;
}

}  // namespace flashfit::resolve
