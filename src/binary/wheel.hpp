#pragma once
// Reading wheels (PEP 427) through libzip, without extracting them: the member
// list, the one *.dist-info directory and its WHEEL, METADATA and RECORD files,
// extension modules, RECORD verification in constant memory, and one-member
// extraction for ELF analysis.
//
// Hostile archives are refused at open_wheel, before anything is read or
// written: zip-slip names, duplicates, absurd declared sizes or member counts,
// encrypted members, corrupt central directories. A Wheel wraps one libzip
// handle and is therefore not thread-safe; open one per thread.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binary/wheel_bytes.hpp"
#include "pkg/tag.hpp"
#include "pkg/wheel_name.hpp"
#include "util/error.hpp"

struct zip;  // libzip's zip_t, kept out of includers

namespace flashfit::binary {

// Defaults are far above any real wheel (flash-attn's largest are ~0.5 GB);
// tests lower them to exercise the checks without multi-GB fixtures.
struct WheelLimits {
  std::uint64_t max_members = 100'000;
  std::uint64_t max_member_size = std::uint64_t{8} << 30;           // declared, uncompressed
  std::uint64_t max_total_size = std::uint64_t{8} << 30;            // declared, uncompressed
  std::uint64_t max_dist_info_file_size = std::uint64_t{64} << 20;  // WHEEL, METADATA, RECORD
};

struct WheelMember {
  std::string name;         // as stored (validated: relative, no "..", no backslash)
  std::uint64_t index = 0;  // libzip index
  std::uint64_t size = 0;   // declared uncompressed size
  std::uint64_t compressed_size = 0;
  std::uint16_t compression = 0;  // ZIP_CM_* (0 stored, 8 deflate)
  bool encrypted = false;         // always false once open_wheel succeeded
  bool is_directory() const { return !name.empty() && name.back() == '/'; }
};

struct WheelFields {  // the dist-info WHEEL file
  std::string wheel_version;
  std::string generator;
  bool root_is_purelib = false;
  std::vector<pkg::Tag> tags;  // from every Tag line, sorted, without duplicates
};

struct WheelMetadata {  // the dist-info METADATA file (headers only)
  std::string name;
  std::string version;
  std::vector<std::string> requires_dist;
};

struct RecordRow {
  std::string path;
  std::string hash;  // "sha256=<urlsafe b64 nopad>", empty for RECORD itself
  std::optional<std::uint64_t> size;
};

struct RecordProblem {
  enum class Kind {
    hash_mismatch,     // content differs from RECORD's hash
    size_mismatch,     // content length differs from RECORD's size
    not_in_record,     // a member RECORD does not list
    missing_member,    // RECORD lists a file the archive lacks
    no_hash,           // RECORD lists the member without a hash
    unsupported_hash,  // an algorithm other than sha256
    unreadable,        // libzip could not read it (CRC error, corrupt data)
  };
  Kind kind;
  std::string path;
  std::string detail;
};

struct WheelFinding {
  enum class Kind {
    tags_differ,           // file name tags != WHEEL Tag lines
    version_differs,       // file name version != METADATA Version
    local_label_only,      // differs only by a local label: upstream flash-attn, a note
    pure_with_extensions,  // py3-none-any / purelib wheel carrying compiled .so
  };
  Kind kind;
  bool note = false;  // informational, expected for some legitimate wheels
  std::string message;
};

// What one streaming pass over a wheel found: RECORD problems, and the
// members asked for, each in a new temporary file the caller owns.
struct VerifiedWheel {
  std::vector<RecordProblem> problems;
  std::vector<std::pair<std::string, std::filesystem::path>> extracted;  // member, temp file
};

class Wheel {
 public:
  Wheel(Wheel&&) noexcept;
  Wheel& operator=(Wheel&&) noexcept;
  ~Wheel();

  const std::filesystem::path& path() const { return path_; }
  const pkg::WheelName& filename() const { return filename_; }
  const std::vector<WheelMember>& members() const { return members_; }
  const WheelMember* find(std::string_view name) const;

  const std::string& dist_info() const { return dist_info_; }  // "flash_attn-2.8.3.dist-info"
  const WheelFields& wheel_fields() const { return wheel_fields_; }
  const WheelMetadata& metadata() const { return metadata_; }
  const std::vector<RecordRow>& record() const { return record_; }

  // Members that are Python extension modules (*.so, which covers
  // *.cpython-312-x86_64-linux-gnu.so and *.abi3.so).
  std::vector<const WheelMember*> extension_modules() const;
  // Whether `module` is present as an extension module: a bare name
  // ("flash_attn_2_cuda") matches at any depth, a dotted one ("pkg.mod")
  // matches the member's path.
  bool has_extension_module(std::string_view module) const;

  // Disagreements between file name, WHEEL, METADATA and contents.
  std::vector<WheelFinding> findings() const;

  // Streams every member through SHA-256 (1 MiB buffer) and compares with
  // RECORD; an empty list means the wheel is intact. Errors only when the
  // archive itself cannot be read.
  util::Result<std::vector<RecordProblem>> verify_records() const;

  // verify_records and extract_member_to in one pass, so each member is
  // inflated once: the members named in `extract` are written to temporary
  // files in `dir` while they are hashed. On error no temporary file is left.
  util::Result<VerifiedWheel> verify_records_extracting(const std::vector<std::string>& extract,
                                                        const std::filesystem::path& dir) const;

  // Streams one member to a new temporary file inside `dir` and returns its
  // path; the caller owns (and removes) the file.
  util::Result<std::filesystem::path> extract_member_to(std::string_view name,
                                                        const std::filesystem::path& dir) const;

  // A whole member in memory, refused past `max_size`: for small text files.
  util::Result<std::string> read_member(std::string_view name, std::uint64_t max_size) const;

 private:
  friend util::Result<Wheel> open_wheel(const std::filesystem::path&, const WheelLimits&);
  friend util::Result<Wheel> open_wheel_dist_info(const std::filesystem::path&, const WheelLimits&);
  friend util::Result<Wheel> open_wheel_bytes(const std::filesystem::path&,
                                              std::shared_ptr<const WheelBytes>,
                                              const WheelLimits&);
  static util::Result<Wheel> open_file(const std::filesystem::path& path, const WheelLimits& limits,
                                       int zip_flags);
  // The checks and dist-info reads once the archive is open (file or memory).
  static util::Result<Wheel> read_structure(Wheel wheel, const WheelLimits& limits);
  struct ZipCloser {
    void operator()(::zip* archive) const noexcept;
  };
  Wheel() = default;

  // The bytes libzip reads from, for a wheel opened in memory (declared
  // before zip_: they outlive the archive that points into them).
  std::shared_ptr<const WheelBytes> bytes_;
  std::unique_ptr<::zip, ZipCloser> zip_;
  std::filesystem::path path_;
  pkg::WheelName filename_;
  std::vector<WheelMember> members_;  // sorted by name for find()
  std::string dist_info_;
  WheelFields wheel_fields_;
  WheelMetadata metadata_;
  std::vector<RecordRow> record_;
};

util::Result<Wheel> open_wheel(const std::filesystem::path& path, const WheelLimits& limits = {});
// The same, reading only the central directory and the dist-info files, for a
// file of which only those bytes are present (the rest zeros: `lock`'s ranged
// read of a remote wheel's tail). The members' local headers are not compared
// with the central directory (open_wheel does: a spliced archive), so the
// Wheel is for its dist-info alone: not to verify, extract or install.
util::Result<Wheel> open_wheel_dist_info(const std::filesystem::path& path,
                                         const WheelLimits& limits = {});
// The same over a wheel's bytes already in memory: publish reads a wheel once
// and hashes the file over the same bytes libzip then reads (no second read,
// no seeks). `path` is the wheel's name in messages and its file name is
// parsed as open_wheel's is.
util::Result<Wheel> open_wheel_bytes(const std::filesystem::path& path,
                                     std::shared_ptr<const WheelBytes> bytes,
                                     const WheelLimits& limits = {});

// Parsers of the dist-info files, exposed for tests and for other readers
// (an installed environment's dist-info directories).
util::Result<WheelFields> parse_wheel_file(std::string_view text);
util::Result<WheelMetadata> parse_metadata_headers(std::string_view text);
util::Result<std::vector<RecordRow>> parse_record(std::string_view text);

// Checks a member name for zip-slip; returns the reason it is refused, or empty.
std::string unsafe_member_name_reason(std::string_view name);
// "./a//b" -> "a/b": what duplicate detection compares.
std::string normalise_member_name(std::string_view name);

}  // namespace flashfit::binary
