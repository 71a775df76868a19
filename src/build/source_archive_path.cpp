// Entry-name rules for extract_archive (see source_archive_path.hpp).
#include "build/source_archive_path.hpp"

#include <fmt/format.h>

#include "util/strings.hpp"

namespace flashfit::build::detail {
namespace {

// NAME_MAX on Linux file systems; a longer component cannot be created anyway,
// and saying so here gives an input error instead of an errno.
constexpr std::size_t kMaxComponentBytes = 255;

}  // namespace

util::Result<std::vector<std::string>> split_entry_path(std::string_view name) {
  if (name.empty()) return util::input_error("the entry has an empty name");
  if (name.find('\0') != std::string_view::npos)
    return util::input_error("the entry name holds a NUL byte");
  if (name.front() == '/') return util::input_error("the entry has an absolute path");
  std::vector<std::string> parts;
  for (std::string_view part : util::split(name, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return util::input_error("the entry's path has a '..' component");
    if (part.size() > kMaxComponentBytes) {
      return util::input_error(fmt::format(
          "a component of the entry's path is longer than {} bytes", kMaxComponentBytes));
    }
    parts.emplace_back(part);
  }
  return parts;
}

util::Result<void> check_link_target(const std::vector<std::string>& link_dir,
                                     std::string_view target) {
  if (target.empty()) return util::input_error("the link has an empty target");
  if (target.find('\0') != std::string_view::npos)
    return util::input_error("the link target holds a NUL byte");
  if (target.front() == '/') {
    return util::input_error(
        fmt::format("the link points to the absolute path '{}'", util::printable(target)));
  }
  std::size_t depth = link_dir.size();
  for (std::string_view part : util::split(target, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (depth == 0) {
        return util::input_error(fmt::format("the link target '{}' points outside the archive",
                                             util::printable(target)));
      }
      --depth;
    } else {
      ++depth;
    }
  }
  return {};
}

std::string join_entry_path(const std::vector<std::string>& parts, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count && i < parts.size(); ++i) {
    if (i > 0) out += '/';
    out += parts[i];
  }
  return out;
}

}  // namespace flashfit::build::detail
