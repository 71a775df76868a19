#pragma once
// The variant record published beside each wheel (<file>.variant.json,
// docs/publish.md): what it was built for, where it came from, its sha256.
// The tree's state is these records: pages are rebuilt from them.

#include <string>
#include <string_view>

#include "util/error.hpp"
#include "workflow/publish_types.hpp"

namespace flashfit::workflow {

std::string sidecar_json(const PublishedWheel& wheel);
// Refuses a record that is not one flashfit wrote (schema, required fields).
util::Result<PublishedWheel> parse_sidecar(std::string_view text);

}  // namespace flashfit::workflow
