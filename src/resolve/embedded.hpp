#pragma once
// Files built into the binary (cmake/embed_files.cmake): the recipes under
// recipes/ and the catalogs under data/.
#include <span>
#include <string_view>

namespace flashfit::resolve {

struct EmbeddedFile {
  std::string_view name;  // the file name, without directories: "flash-attn.toml"
  std::string_view text;
};

std::span<const EmbeddedFile> embedded_recipes();
std::span<const EmbeddedFile> embedded_catalogs();

// The embedded file of that name, or nullptr.
const EmbeddedFile* find_embedded(std::span<const EmbeddedFile> files, std::string_view name);

}  // namespace flashfit::resolve
