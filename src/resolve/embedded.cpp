#include "resolve/embedded.hpp"

namespace flashfit::resolve {

const EmbeddedFile* find_embedded(std::span<const EmbeddedFile> files, std::string_view name) {
  for (const EmbeddedFile& file : files) {
    if (file.name == name) return &file;
  }
  return nullptr;
}

}  // namespace flashfit::resolve
