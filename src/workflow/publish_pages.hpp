#pragma once
// The pages of a published tree (docs/publish.md, "Layout"): a PEP 503 simple
// index with PEP 658/714 metadata attributes, its PEP 691 JSON twin, and
// find-links pages per torch build. Pure: facts in, bytes out.

#include <string>
#include <string_view>
#include <vector>

#include "workflow/publish_types.hpp"

namespace flashfit::workflow {

// Where a wheel and its companions live in the tree (relative paths).
std::string wheel_path(std::string_view filename);     // "files/<filename>"
std::string metadata_path(std::string_view filename);  // "files/<filename>.metadata"
std::string sidecar_path(std::string_view filename);   // "files/<filename>.variant.json"

std::string html_escape(std::string_view text);

// simple/index.html and simple/index.json over every project.
std::string simple_root_html(const std::vector<std::string>& projects);
std::string simple_root_json(const std::vector<std::string>& projects);
// simple/<project>/index.html and .json; `wheels` are that project's, with
// the sha256 of each one's metadata file.
std::string simple_project_html(std::string_view project,
                                const std::vector<PublishedWheel>& wheels);
std::string simple_project_json(std::string_view project,
                                const std::vector<PublishedWheel>& wheels);
// A find-links page at the tree's root listing `wheels`.
std::string find_links_html(std::string_view title,
                            const std::vector<const PublishedWheel*>& wheels);

}  // namespace flashfit::workflow
