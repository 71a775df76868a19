// Streaming members out of a wheel: RECORD verification and single-member
// extraction, both through a fixed 1 MiB buffer so a multi-GB member never
// sits in memory.

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "binary/wheel.hpp"
#include "binary/wheel_zip.hpp"
#include "util/interrupt.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/write_all.hpp"

namespace flashfit::binary {

namespace {

using util::printable;

// The chunk buffer, one per thread for its lifetime: a fresh 1 MiB per member
// cost a page fault and a zeroed page per 4 KiB (perf of publishing 200 wheels
// of 1 MiB: 10-19% of the CPU cleared those pages; about 1% with this buffer).
// Not zeroed. stream_member is never re-entered on a thread (its sinks read
// no member).
char* stream_buffer() {
  thread_local const auto buffer = std::make_unique_for_overwrite<char[]>(detail::kStreamBuffer);
  return buffer.get();
}

// Reads a member chunk by chunk into `sink`; returns libzip's words on error.
template <class Sink>
std::string stream_member(zip_t* archive, const WheelMember& member, Sink&& sink) {
  detail::ZipFile file(detail::zip().fopen_index(archive, member.index, 0));
  if (!file) return detail::zip_error_words(detail::zip().get_error(archive));
  char* const buffer = stream_buffer();
  std::uint64_t total = 0;
  for (;;) {
    const zip_int64_t n = detail::zip().fread(file.get(), buffer, detail::kStreamBuffer);
    if (n < 0) return detail::zip_error_words(detail::zip().file_get_error(file.get()));
    if (n == 0) break;
    // Ctrl-C stops a multi-GB member between chunks; callers clean up.
    if (util::interrupted()) return "interrupted";
    total += static_cast<std::uint64_t>(n);
    // libzip stops at the declared size; this guards the sink regardless.
    if (total > member.size) return "member is longer than its declared size";
    if (std::string error = sink(buffer, static_cast<std::size_t>(n)); !error.empty()) {
      return error;
    }
  }
  return {};
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

// Writes all of `data` to `fd`; returns the error words, or empty.
std::string write_all(int fd, const char* data, std::size_t n, const std::string& where) {
  if (util::write_all(fd, data, n)) return {};
  return fmt::format("cannot write {}: {}", where, std::strerror(errno));
}

// mkstemp: a fresh name the caller cannot race with, never the member's own
// name, so nothing from the archive decides where bytes land.
util::Result<std::pair<int, std::string>> make_temp_file(const std::filesystem::path& dir) {
  std::string pattern = (dir / ".flashfit-member-XXXXXX").string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) {
    return util::fail(util::ErrorKind::failed,
                      fmt::format("cannot create a temporary file: {}", std::strerror(errno)),
                      dir.string());
  }
  return std::pair{fd, pattern};
}

}  // namespace

util::Result<std::string> Wheel::read_member(std::string_view name, std::uint64_t max_size) const {
  const WheelMember* member = find(name);
  if (member == nullptr) return util::input_error(fmt::format("no member '{}'", printable(name)));
  if (member->size > max_size) {
    return util::input_error(fmt::format("member '{}' is {} bytes, more than the {} expected",
                                         printable(name), member->size, max_size));
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(member->size));
  const std::string error =
      stream_member(zip_.get(), *member, [&](const char* data, std::size_t n) {
        text.append(data, n);
        return std::string{};
      });
  if (!error.empty()) {
    return util::input_error(fmt::format("cannot read member '{}': {}", printable(name), error));
  }
  return text;
}

util::Result<std::vector<RecordProblem>> Wheel::verify_records() const {
  auto result = verify_records_extracting({}, {});
  if (!result) return tl::unexpected(std::move(result.error()));
  return std::move(result->problems);
}

util::Result<VerifiedWheel> Wheel::verify_records_extracting(
    const std::vector<std::string>& extract, const std::filesystem::path& dir) const {
  using Kind = RecordProblem::Kind;
  VerifiedWheel out;
  std::vector<RecordProblem>& problems = out.problems;
  const std::string record_name = dist_info_ + "/RECORD";
  std::map<std::string, const RecordRow*> rows;  // by normalised path
  for (const RecordRow& row : record_) rows.emplace(normalise_member_name(row.path), &row);
  for (const std::string& name : extract) {
    const WheelMember* member = find(name);
    if (member == nullptr || member->is_directory()) {
      return util::input_error(fmt::format("no file member '{}'", printable(name)), path_.string());
    }
  }
  // Extracted files are removed again if anything fails half-way.
  struct Cleanup {
    std::vector<std::pair<std::string, std::filesystem::path>>* files;
    bool keep = false;
    ~Cleanup() {
      if (keep) return;
      for (const auto& entry : *files) ::unlink(entry.second.c_str());
    }
  } cleanup{&out.extracted};

  util::Sha256 hasher;
  for (const WheelMember& member : members_) {
    if (member.is_directory()) continue;
    int fd = -1;
    std::string temp_name;
    if (std::find(extract.begin(), extract.end(), member.name) != extract.end()) {
      auto temp = make_temp_file(dir);
      if (!temp) return tl::unexpected(std::move(temp.error()));
      std::tie(fd, temp_name) = *temp;
      out.extracted.emplace_back(member.name, temp_name);
    }
    FdCloser closer{fd};
    // RECORD cannot hash itself; signatures of RECORD are written after it.
    const bool unhashed = member.name == record_name || member.name == record_name + ".jws" ||
                          member.name == record_name + ".p7s";
    auto it = unhashed ? rows.end() : rows.find(normalise_member_name(member.name));
    const RecordRow* row = it == rows.end() ? nullptr : it->second;
    if (row != nullptr) rows.erase(it);
    const bool hash_it = row != nullptr && util::starts_with(row->hash, "sha256=");
    if (!unhashed) {
      if (row == nullptr) {
        problems.push_back({Kind::not_in_record, member.name, "not listed in RECORD"});
      } else if (row->hash.empty()) {
        problems.push_back({Kind::no_hash, member.name, "RECORD lists it without a hash"});
      } else if (!hash_it) {
        problems.push_back({Kind::unsupported_hash, member.name,
                            fmt::format("hash '{}' is not sha256", printable(row->hash, 40))});
      }
    }
    if (!hash_it && fd < 0) continue;
    // One pass over the bytes both hashes and extracts: a 1 GB member is
    // inflated once.
    std::uint64_t length = 0;
    const std::string error =
        stream_member(zip_.get(), member, [&](const char* data, std::size_t n) {
          if (hash_it) hasher.update(data, n);
          length += n;
          return fd >= 0 ? write_all(fd, data, n, temp_name) : std::string{};
        });
    const std::string actual = "sha256=" + util::to_urlsafe_base64_nopad(hasher.finish());
    if (!error.empty()) {
      if (fd >= 0) {
        return util::input_error(
            fmt::format("cannot extract '{}': {}", printable(member.name), error), path_.string());
      }
      problems.push_back({Kind::unreadable, member.name, error});
      continue;
    }
    if (!hash_it) continue;
    if (actual != row->hash) {
      problems.push_back(
          {Kind::hash_mismatch, member.name,
           fmt::format("RECORD says {}, content is {}", printable(row->hash), actual)});
    }
    if (row->size && *row->size != length) {
      problems.push_back({Kind::size_mismatch, member.name,
                          fmt::format("RECORD says {} bytes, content is {}", *row->size, length)});
    }
  }
  for (const auto& [path, row] : rows) {
    if (path == record_name || util::ends_with(path, "/")) continue;
    if (find(row->path) == nullptr) {
      problems.push_back(
          {Kind::missing_member, row->path, "listed in RECORD but not in the archive"});
    }
  }
  cleanup.keep = true;
  return out;
}

util::Result<std::filesystem::path> Wheel::extract_member_to(
    std::string_view name, const std::filesystem::path& dir) const {
  const WheelMember* member = find(name);
  if (member == nullptr || member->is_directory()) {
    return util::input_error(fmt::format("no file member '{}'", printable(name)), path_.string());
  }
  auto temp = make_temp_file(dir);
  if (!temp) return tl::unexpected(std::move(temp.error()));
  // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
  const int fd = temp->first;
  const std::string& pattern = temp->second;
  FdCloser closer{fd};
  const std::string error = stream_member(
      zip_.get(), *member,
      [&](const char* data, std::size_t n) { return write_all(fd, data, n, pattern); });
  if (!error.empty()) {
    ::unlink(pattern.c_str());
    return util::input_error(fmt::format("cannot extract '{}': {}", printable(name), error),
                             path_.string());
  }
  return std::filesystem::path(pattern);
}

}  // namespace flashfit::binary
