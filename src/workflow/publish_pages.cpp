#include "workflow/publish_pages.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "net/http.hpp"

namespace flashfit::workflow {
namespace {

constexpr std::string_view kHead =
    "<!DOCTYPE html>\n<html>\n<head>\n<meta name=\"pypi:repository-version\" content=\"1.1\">\n";

// The metadata file's hash, for the PEP 658/714 attributes, or "" to leave
// them out: pip 23.0 compares METADATA's Name as written with the requirement
// as typed, unnormalised, and refuses "flash_attn" for "flash-attn"; without
// the attributes it reads the wheel's own METADATA and installs it. Left out
// too when the Name is unknown (a record written before it was kept).
std::string_view metadata_hash(const PublishedWheel& w) {
  if (w.facts.metadata_name.empty() || w.facts.metadata_name != w.facts.project) return {};
  return w.metadata_sha256;
}

std::string link(std::string_view prefix, const WheelFacts& w, std::string_view metadata_sha256) {
  std::string out =
      fmt::format("<a href=\"{}{}#sha256={}\"", prefix, net::percent_encode(w.filename), w.sha256);
  if (!w.requires_python.empty()) {
    out += fmt::format(" data-requires-python=\"{}\"", html_escape(w.requires_python));
  }
  if (!metadata_sha256.empty()) {
    // PEP 714's name and PEP 658's, for pip before 23.3 that reads only the old one.
    out += fmt::format(" data-core-metadata=\"sha256={0}\" data-dist-info-metadata=\"sha256={0}\"",
                       metadata_sha256);
  }
  out += fmt::format(">{}</a><br>\n", html_escape(w.filename));
  return out;
}

std::string dump(const nlohmann::json& doc) {
  return doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string wheel_path(std::string_view filename) {
  return fmt::format("files/{}", filename);
}
std::string metadata_path(std::string_view filename) {
  return fmt::format("files/{}.metadata", filename);
}
std::string sidecar_path(std::string_view filename) {
  return fmt::format("files/{}.variant.json", filename);
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string simple_root_html(const std::vector<std::string>& projects) {
  std::string out(kHead);
  out += "<title>Simple index</title>\n</head>\n<body>\n";
  for (const auto& p : projects)
    out += fmt::format("<a href=\"{0}/\">{0}</a><br>\n", html_escape(p));
  out += "</body>\n</html>\n";
  return out;
}

std::string simple_root_json(const std::vector<std::string>& projects) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& p : projects) list.push_back({{"name", p}});
  return dump({{"meta", {{"api-version", "1.1"}}}, {"projects", list}});
}

std::string simple_project_html(std::string_view project,
                                const std::vector<PublishedWheel>& wheels) {
  std::string out(kHead);
  out += fmt::format("<title>Links for {0}</title>\n</head>\n<body>\n<h1>Links for {0}</h1>\n",
                     html_escape(project));
  for (const auto& w : wheels) out += link("../../files/", w.facts, metadata_hash(w));
  out += "</body>\n</html>\n";
  return out;
}

std::string simple_project_json(std::string_view project,
                                const std::vector<PublishedWheel>& wheels) {
  nlohmann::json files = nlohmann::json::array();
  std::vector<std::string> versions;
  for (const auto& w : wheels) {
    nlohmann::json f = {{"filename", w.facts.filename},
                        {"url", "../../files/" + net::percent_encode(w.facts.filename)},
                        {"hashes", {{"sha256", w.facts.sha256}}},
                        {"size", w.facts.size}};
    if (!w.facts.requires_python.empty()) f["requires-python"] = w.facts.requires_python;
    if (const auto hash = metadata_hash(w); !hash.empty()) {
      f["core-metadata"] = {{"sha256", hash}};
      // Only PEP 714's key: pip 23.0 (Debian 12's) crashes on PEP 691's
      // "dist-info-metadata" as a dict, the bug PEP 714 renamed the key for.
    }
    files.push_back(std::move(f));
    if (std::find(versions.begin(), versions.end(), w.facts.version) == versions.end()) {
      versions.push_back(w.facts.version);
    }
  }
  return dump({{"meta", {{"api-version", "1.1"}}},
               {"name", project},
               {"versions", versions},
               {"files", files}});
}

std::string find_links_html(std::string_view title,
                            const std::vector<const PublishedWheel*>& wheels) {
  std::string out(kHead);
  out += fmt::format("<title>{0}</title>\n</head>\n<body>\n<h1>{0}</h1>\n", html_escape(title));
  // No metadata attributes here: pip 23.x on a find-links page compares the
  // file name's spelling ("ffext_abi1") with the metadata file's Name
  // ("ffext-abi1") without normalising and discards the wheel.
  for (const auto* w : wheels) out += link("files/", w->facts, {});
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace flashfit::workflow
