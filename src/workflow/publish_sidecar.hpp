#pragma once
// The variant record published beside each wheel (<file>.variant.json,
// docs/publish.md) in publish's terms: a PublishedWheel to and from the
// format's one home, store/variant_record.* (which resolve/ reads too).
// The tree's state is these records: pages are rebuilt from them.

#include <string>
#include <string_view>

#include "store/variant_record.hpp"
#include "util/error.hpp"
#include "workflow/publish_types.hpp"

namespace flashfit::workflow {

store::VariantRecord variant_record(const PublishedWheel& wheel);
std::string sidecar_json(const PublishedWheel& wheel);
// Refuses a record that is not one flashfit wrote (schema, required fields,
// a --for-torch placement that names no torch build).
util::Result<PublishedWheel> parse_sidecar(std::string_view text);

}  // namespace flashfit::workflow
