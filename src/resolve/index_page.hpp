#pragma once
// Package index pages: PEP 503 simple HTML, PEP 691 simple JSON, and pip's
// --find-links HTML pages (any page of <a href> links). Pure parsers: the
// caller fetches; relative links resolve against the page's URL.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace flashfit::resolve {

struct IndexLink {
  std::string filename;                        // percent-decoded basename of the URL path
  std::string url;                             // absolute, fragment removed
  std::optional<std::string> sha256;           // #sha256=... or PEP 691 hashes, lower-case hex
  std::optional<std::string> requires_python;  // data-requires-python, HTML-unescaped
  bool yanked = false;
  std::string yanked_reason;
  // PEP 658 / 714: the index serves the wheel's METADATA at "<url>.metadata".
  // nullopt: not offered; "": offered, with no sha256 given; else its sha256 (lower-case hex).
  std::optional<std::string> core_metadata;
};

// PEP 503 / find-links HTML. Garbage HTML gives the links it has (browsers are
// lenient too); only non-text input (NUL bytes) or a page over the size limit
// is an error.
util::Result<std::vector<IndexLink>> parse_simple_html(std::string_view html,
                                                       std::string_view page_url);

// PEP 691 JSON (application/vnd.pypi.simple.v1+json). Malformed JSON or a
// wrong shape is an input error naming the page.
util::Result<std::vector<IndexLink>> parse_simple_json(std::string_view json,
                                                       std::string_view page_url);

// Wheels (*.whl) in a local directory (not recursive), as file paths.
util::Result<std::vector<IndexLink>> list_wheel_directory(const std::string& dir);

}  // namespace flashfit::resolve
