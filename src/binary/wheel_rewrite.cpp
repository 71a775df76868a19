#include "binary/wheel_rewrite.hpp"

#include <fmt/core.h>

#include <system_error>

#include "binary/wheel.hpp"
#include "binary/zip_library.hpp"
#include "util/sha256.hpp"

namespace flashfit::binary {
namespace {

namespace fs = std::filesystem;

// Replaces a member's bytes and keeps its modification time: libzip would
// stamp the current time, and the same input would give other bytes on every
// run (a re-publish would then look like a different file).
util::Result<void> replace_member(zip_t* archive, const std::string& name, std::string& bytes) {
  const zip_int64_t index = detail::zip().name_locate(archive, name.c_str(), 0);
  if (index < 0) return util::input_error(fmt::format("no member {}", name));
  const auto at = static_cast<zip_uint64_t>(index);
  zip_stat_t stat;
  detail::zip().stat_init(&stat);
  if (detail::zip().stat_index(archive, at, ZIP_FL_UNCHANGED, &stat) != 0 ||
      (stat.valid & ZIP_STAT_MTIME) == 0) {
    return util::fail(util::ErrorKind::failed, fmt::format("cannot read the time of {}: {}", name,
                                                           detail::zip().strerror(archive)));
  }
  zip_source_t* source = detail::zip().source_buffer(archive, bytes.data(), bytes.size(), 0);
  if (source == nullptr || detail::zip().file_replace(archive, at, source, 0) != 0) {
    if (source != nullptr) detail::zip().source_free(source);
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot replace {}: {}", name, detail::zip().strerror(archive)));
  }
  if (detail::zip().file_set_mtime(archive, at, stat.mtime, 0) != 0) {
    return util::fail(util::ErrorKind::failed, fmt::format("cannot keep the time of {}: {}", name,
                                                           detail::zip().strerror(archive)));
  }
  return {};
}

}  // namespace

util::Result<std::string> with_metadata_version(std::string_view metadata,
                                                std::string_view version) {
  std::string out;
  int found = 0;
  bool in_headers = true;
  std::size_t pos = 0;
  while (pos < metadata.size()) {
    auto end = metadata.find('\n', pos);
    const bool last = end == std::string_view::npos;
    if (last) end = metadata.size();
    std::string_view line = metadata.substr(pos, end - pos);
    const std::string_view cr = (!line.empty() && line.back() == '\r') ? "\r" : "";
    std::string_view bare = line.substr(0, line.size() - cr.size());
    if (bare.empty()) in_headers = false;
    if (in_headers && bare.size() >= 8 &&
        (bare.substr(0, 8) == "Version:" || bare.substr(0, 8) == "version:")) {
      ++found;
      out += fmt::format("Version: {}{}", version, cr);
    } else {
      out += line;
    }
    if (!last) out += '\n';
    pos = end + 1;
  }
  if (found != 1)
    return util::input_error(fmt::format("METADATA has {} Version headers, not one", found));
  return out;
}

util::Result<void> rewrite_metadata_version(const fs::path& wheel, const fs::path& out,
                                            std::string_view version) {
  auto source = open_wheel(wheel);
  if (!source) return tl::unexpected(source.error());
  const std::string metadata_name = source->dist_info() + "/METADATA";
  const std::string record_name = source->dist_info() + "/RECORD";
  auto metadata = source->read_member(metadata_name, std::uint64_t{16} << 20);
  if (!metadata) return tl::unexpected(metadata.error());
  auto rewritten = with_metadata_version(*metadata, version);
  if (!rewritten) return tl::unexpected(rewritten.error());
  const std::string hash = "sha256=" + util::to_urlsafe_base64_nopad(util::sha256(*rewritten));
  std::string record;
  bool listed = false;
  for (const auto& row : source->record()) {
    if (row.path.find_first_of(",\"\n") != std::string::npos) {
      return util::input_error(
          fmt::format("RECORD path needs CSV quoting, not rewritten: {}", row.path));
    }
    if (row.path == metadata_name) {
      listed = true;
      record += fmt::format("{},{},{}\n", row.path, hash, rewritten->size());
    } else {
      record +=
          fmt::format("{},{},{}\n", row.path, row.hash, row.size ? std::to_string(*row.size) : "");
    }
  }
  if (!listed) return util::input_error("RECORD does not list METADATA");

  std::error_code ec;
  fs::copy_file(wheel, out, fs::copy_options::overwrite_existing, ec);
  if (ec)
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot copy the wheel: {}", ec.message()));
  auto remove_out = [&] { fs::remove(out, ec); };
  int code = 0;
  const auto zip_library = detail::load_zip_library();
  if (!zip_library) return tl::unexpected(zip_library.error());
  zip_t* archive = (*zip_library)->open(out.c_str(), 0, &code);
  if (archive == nullptr) {
    remove_out();
    return util::fail(util::ErrorKind::failed, "cannot reopen the wheel copy for writing");
  }
  for (auto [name, bytes] :
       {std::pair{&metadata_name, &*rewritten}, std::pair{&record_name, &record}}) {
    if (auto replaced = replace_member(archive, *name, *bytes); !replaced) {
      detail::zip().discard(archive);
      remove_out();
      return replaced;
    }
  }
  if (detail::zip().close(archive) != 0) {
    const std::string why = detail::zip().strerror(archive);
    detail::zip().discard(archive);
    remove_out();
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot write the rewritten wheel: {}", why));
  }
  return {};
}

}  // namespace flashfit::binary
