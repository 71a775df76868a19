#include "binary/wheel.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>
#include <system_error>

#include "binary/wheel_zip.hpp"
#include "pkg/name.hpp"
#include "pkg/version.hpp"
#include "util/strings.hpp"

namespace flashfit::binary {

namespace detail {

std::string zip_error_words(int code) {
  switch (code) {
    case ZIP_ER_NOZIP:
      return "not a zip archive (or truncated: no end-of-central-directory record)";
    case ZIP_ER_INCONS:
      return "inconsistent zip archive (corrupt or truncated central directory)";
    case ZIP_ER_EOF:
      return "premature end of file (truncated archive)";
    case ZIP_ER_CRC:
      return "CRC mismatch (corrupt member data)";
    case ZIP_ER_ZLIB:
    case ZIP_ER_COMPRESSED_DATA:
      return "corrupt compressed data";
    case ZIP_ER_READ:
      return "read error";
    case ZIP_ER_SEEK:
      return "seek error (truncated archive?)";
    case ZIP_ER_OPEN:
      return "cannot open file";
    case ZIP_ER_NOENT:
      return "no such file";
    // libzip's own duplicate check at open, before list_members sees names.
    case ZIP_ER_EXISTS:
      return "duplicate member names in the archive";
    case ZIP_ER_MEMORY:
      return "out of memory";
    case ZIP_ER_MULTIDISK:
      return "multi-disk zip archives are not supported";
    case ZIP_ER_COMPNOTSUPP:
      return "compression method not supported";
    case ZIP_ER_ENCRNOTSUPP:
      return "encryption method not supported";
    case ZIP_ER_NOPASSWD:
    case ZIP_ER_WRONGPASSWD:
      return "member is encrypted";
    default:
      return fmt::format("libzip error {}", code);
  }
}

std::string zip_error_words(zip_error_t* error) {
  return zip_error_words(detail::zip().error_code_zip(error));
}

}  // namespace detail

void Wheel::ZipCloser::operator()(::zip* archive) const noexcept {
  detail::zip().discard(archive);
}

Wheel::Wheel(Wheel&&) noexcept = default;
Wheel& Wheel::operator=(Wheel&&) noexcept = default;
Wheel::~Wheel() = default;

std::string unsafe_member_name_reason(std::string_view name) {
  if (name.empty()) return "empty member name";
  if (name.find('\0') != std::string_view::npos) return "NUL byte in member name";
  if (name.find('\\') != std::string_view::npos) return "backslash in member name";
  if (name.front() == '/') return "absolute member path";
  if (name.size() >= 2 && name[1] == ':') return "drive-letter member path";
  for (std::string_view part : util::split(name, '/')) {
    if (part == "..") return "'..' component in member path";
  }
  return {};
}

std::string normalise_member_name(std::string_view name) {
  std::vector<std::string> parts;
  for (std::string_view part : util::split(name, '/')) {
    if (part.empty() || part == ".") continue;
    parts.emplace_back(part);
  }
  std::string out = util::join(parts, "/");
  // A directory keeps its slash, but "./" names the root itself: "" (never "/",
  // an absolute name; found by fuzz.dist_info).
  if (!out.empty() && name.back() == '/') out += '/';
  return out;
}

const WheelMember* Wheel::find(std::string_view name) const {
  auto it = std::lower_bound(members_.begin(), members_.end(), name,
                             [](const WheelMember& m, std::string_view n) { return m.name < n; });
  return it != members_.end() && it->name == name ? &*it : nullptr;
}

namespace {

using util::printable;

util::Result<std::vector<WheelMember>> list_members(zip_t* archive, const WheelLimits& limits) {
  const zip_int64_t count = detail::zip().get_num_entries(archive, 0);
  if (count < 0) return util::input_error("cannot count the archive's members");
  if (static_cast<std::uint64_t>(count) > limits.max_members) {
    return util::input_error(
        fmt::format("{} members, more than the {} a wheel may have", count, limits.max_members));
  }
  std::vector<WheelMember> members;
  members.reserve(static_cast<std::size_t>(count));
  std::set<std::string> seen;  // normalised names
  std::uint64_t total = 0;
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t st;
    detail::zip().stat_init(&st);
    if (detail::zip().stat_index(archive, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW, &st) != 0) {
      return util::input_error(
          fmt::format("cannot read member {}: {}", i,
                      detail::zip_error_words(detail::zip().get_error(archive))));
    }
    WheelMember member;
    member.name = st.name ? st.name : "";
    member.index = static_cast<std::uint64_t>(i);
    member.size = st.size;
    member.compressed_size = st.comp_size;
    member.compression = st.comp_method;
    member.encrypted =
        (st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE;
    const std::string quoted = printable(member.name);
    if (std::string reason = unsafe_member_name_reason(member.name); !reason.empty()) {
      return util::input_error(fmt::format("unsafe member name '{}': {}", quoted, reason), {},
                               "the archive may be trying to write outside its directory");
    }
    if (!seen.insert(normalise_member_name(member.name)).second) {
      return util::input_error(fmt::format("duplicate member '{}'", quoted), {},
                               "which copy an installer picks is undefined; rebuild the wheel");
    }
    if (member.encrypted) {
      return util::input_error(fmt::format("member '{}' is encrypted", quoted), {},
                               "wheels are never encrypted; this is not a usable wheel");
    }
    if (detail::zip().compression_method_supported(st.comp_method, 0) == 0) {
      return util::input_error(fmt::format("member '{}' uses unsupported compression method {}",
                                           quoted, st.comp_method));
    }
    if (member.size > limits.max_member_size) {
      return util::input_error(
          fmt::format("member '{}' declares {} bytes, more than the {} allowed", quoted,
                      member.size, limits.max_member_size),
          {}, "a zip bomb or a corrupt archive");
    }
    total += member.size;
    if (total > limits.max_total_size) {
      return util::input_error(
          fmt::format("members declare more than {} bytes in total", limits.max_total_size), {},
          "a zip bomb or a corrupt archive");
    }
    members.push_back(std::move(member));
  }
  std::sort(members.begin(), members.end(),
            [](const WheelMember& a, const WheelMember& b) { return a.name < b.name; });
  return members;
}

// PEP 427: exactly one top-level "{name}-{version}.dist-info" whose name and
// version are the file name's. The version may lack the file name's local
// label: upstream flash-attn renames its wheels to add "+cu12torch…" after
// building them.
util::Result<std::string> find_dist_info(const std::vector<WheelMember>& members,
                                         const pkg::WheelName& filename) {
  std::set<std::string> dirs;
  for (const WheelMember& m : members) {
    const std::string_view name = m.name;
    const std::size_t slash = name.find('/');
    if (slash == std::string_view::npos) continue;
    const std::string_view top = name.substr(0, slash);
    if (util::ends_with(top, ".dist-info")) dirs.emplace(top);
  }
  if (dirs.empty()) return util::input_error("no .dist-info directory");
  if (dirs.size() > 1) {
    std::vector<std::string> quoted;
    quoted.reserve(dirs.size());
    for (const std::string& d : dirs) quoted.push_back("'" + printable(d) + "'");
    return util::input_error(
        fmt::format("{} .dist-info directories: {}", dirs.size(), util::join(quoted, ", ")), {},
        "a wheel must contain exactly one");
  }
  const std::string dir = *dirs.begin();
  const std::string_view stem = std::string_view(dir).substr(0, dir.size() - 10);
  const std::size_t dash = stem.rfind('-');
  if (dash == std::string_view::npos) {
    return util::input_error(
        fmt::format("malformed .dist-info directory name '{}'", printable(dir)));
  }
  if (pkg::canonicalize_name(stem.substr(0, dash)) != filename.canonical_name) {
    return util::input_error(fmt::format("'{}' does not match the file name's project '{}'",
                                         printable(dir), filename.name));
  }
  auto version = pkg::Version::parse(stem.substr(dash + 1));
  if (!version || (*version != filename.version && *version != filename.version.without_local())) {
    return util::input_error(fmt::format("'{}' does not match the file name's version {}",
                                         printable(dir), filename.version.str()));
  }
  return dir;
}

}  // namespace

util::Result<Wheel> Wheel::read_structure(Wheel wheel, const WheelLimits& limits) {
  const std::string where = wheel.path_.string();
  auto members = list_members(wheel.zip_.get(), limits);
  if (!members) return tl::unexpected(std::move(members.error()).with_context(where));
  wheel.members_ = std::move(*members);
  auto dist_info = find_dist_info(wheel.members_, wheel.filename_);
  if (!dist_info) return tl::unexpected(std::move(dist_info.error()).with_context(where));
  wheel.dist_info_ = std::move(*dist_info);

  auto read_dist_file = [&](const char* file) -> util::Result<std::string> {
    const std::string name = wheel.dist_info_ + "/" + file;
    if (wheel.find(name) == nullptr) {
      return util::input_error(fmt::format("missing {}", name), where);
    }
    auto text = wheel.read_member(name, limits.max_dist_info_file_size);
    if (!text) return tl::unexpected(std::move(text.error()).with_context(where));
    return text;
  };
  auto wheel_text = read_dist_file("WHEEL");
  if (!wheel_text) return tl::unexpected(std::move(wheel_text.error()));
  auto fields = parse_wheel_file(*wheel_text);
  if (!fields) return tl::unexpected(std::move(fields.error()).with_context(where + ": WHEEL"));
  wheel.wheel_fields_ = std::move(*fields);

  auto metadata_text = read_dist_file("METADATA");
  if (!metadata_text) return tl::unexpected(std::move(metadata_text.error()));
  auto metadata = parse_metadata_headers(*metadata_text);
  if (!metadata) {
    return tl::unexpected(std::move(metadata.error()).with_context(where + ": METADATA"));
  }
  wheel.metadata_ = std::move(*metadata);

  auto record_text = read_dist_file("RECORD");
  if (!record_text) return tl::unexpected(std::move(record_text.error()));
  auto record = parse_record(*record_text);
  if (!record) return tl::unexpected(std::move(record.error()).with_context(where + ": RECORD"));
  wheel.record_ = std::move(*record);
  return wheel;
}

namespace {
// ZIP_CHECKCONS compares every local header with the central directory, so
// a truncated or spliced archive fails at the open rather than half-way
// through; a wheel of which only the tail is present opens without it.
constexpr int kWholeArchive = ZIP_RDONLY | ZIP_CHECKCONS;
constexpr int kTailOnly = ZIP_RDONLY;
}  // namespace

util::Result<Wheel> open_wheel(const std::filesystem::path& path, const WheelLimits& limits) {
  return Wheel::open_file(path, limits, kWholeArchive);
}

util::Result<Wheel> open_wheel_dist_info(const std::filesystem::path& path,
                                         const WheelLimits& limits) {
  return Wheel::open_file(path, limits, kTailOnly);
}

util::Result<Wheel> Wheel::open_file(const std::filesystem::path& path, const WheelLimits& limits,
                                     int zip_flags) {
  const std::string where = path.string();
  auto filename = pkg::parse_wheel_filename(path.filename().string());
  if (!filename) return tl::unexpected(std::move(filename.error()).with_context(where));
  std::error_code ec;
  const auto file_size = std::filesystem::file_size(path, ec);
  if (ec) return util::input_error(fmt::format("cannot read: {}", ec.message()), where);
  // libzip opens an empty file as an empty archive; for us it is no wheel.
  if (file_size == 0) return util::input_error("empty file, not a zip archive", where);

  int code = 0;
  const auto zip_library = detail::load_zip_library();
  if (!zip_library) return tl::unexpected(zip_library.error());
  zip_t* raw = (*zip_library)->open(where.c_str(), zip_flags, &code);
  if (raw == nullptr) return util::input_error(detail::zip_error_words(code), where);
  Wheel wheel;
  wheel.zip_.reset(raw);
  wheel.path_ = path;
  wheel.filename_ = std::move(*filename);
  return Wheel::read_structure(std::move(wheel), limits);
}

util::Result<Wheel> open_wheel_bytes(const std::filesystem::path& path,
                                     std::shared_ptr<const WheelBytes> bytes,
                                     const WheelLimits& limits) {
  const std::string where = path.string();
  auto filename = pkg::parse_wheel_filename(path.filename().string());
  if (!filename) return tl::unexpected(std::move(filename.error()).with_context(where));
  if (!bytes || bytes->size == 0) return util::input_error("empty file, not a zip archive", where);

  const auto loaded = detail::load_zip_library();
  if (!loaded) return tl::unexpected(loaded.error());
  const detail::ZipLibrary& zip = **loaded;
  zip_error_t error;
  zip.error_init(&error);
  // freep 0: the bytes stay the caller's (the Wheel holds them).
  zip_source_t* source = zip.source_buffer_create(bytes->data.get(), bytes->size, 0, &error);
  if (source == nullptr) {
    std::string words = detail::zip_error_words(&error);
    zip.error_fini(&error);
    return util::input_error(std::move(words), where);
  }
  zip_t* raw = zip.open_from_source(source, kWholeArchive, &error);
  if (raw == nullptr) {
    zip.source_free(source);  // still ours when the open failed
    std::string words = detail::zip_error_words(&error);
    zip.error_fini(&error);
    return util::input_error(std::move(words), where);
  }
  zip.error_fini(&error);
  Wheel wheel;
  wheel.bytes_ = std::move(bytes);
  wheel.zip_.reset(raw);
  wheel.path_ = path;
  wheel.filename_ = std::move(*filename);
  return Wheel::read_structure(std::move(wheel), limits);
}

}  // namespace flashfit::binary
