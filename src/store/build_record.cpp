#include "store/build_record.hpp"

namespace flashfit::store {

std::string to_string(const BuiltCuda& cuda) {
  return cuda.version ? cuda.version->str() : "cpu";
}

std::optional<BuiltCuda> parse_built_cuda(std::string_view text) {
  if (text == "cpu") return BuiltCuda{};
  if (auto version = pkg::parse_cuda_version(text)) return BuiltCuda{*version};
  return std::nullopt;
}

std::string to_string(const EntryOrigin& origin) {
  switch (origin.kind) {
    case EntryOrigin::Kind::fetched:
      return origin.source;
    case EntryOrigin::Kind::built:
      return "build";
    case EntryOrigin::Kind::added:
      return "add";
  }
  return origin.source;
}

EntryOrigin parse_entry_origin(std::string_view text) {
  if (text == "build") return EntryOrigin::built();
  if (text == "add") return EntryOrigin::added();
  return EntryOrigin::fetched_from(std::string(text));
}

}  // namespace flashfit::store
