// The wheel reader (zip central directory, dist-info WHEEL / METADATA /
// RECORD, RECORD verification, one-member extraction): hostile archives are
// refused or read, never crash; every member name that got through is safe;
// extraction writes only a new file inside the directory asked for.
#include <set>

#include "binary/wheel.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace flashfit::binary;
  namespace fs = std::filesystem;
  const auto& dir = flashfit::fuzz::scratch();
  const fs::path file = dir / "demo-1.0-py3-none-any.whl";
  const fs::path out = dir / "out";
  flashfit::fuzz::write_file(file, flashfit::fuzz::as_text(data, size));
  fs::create_directories(out);

  WheelLimits limits;  // small, so the limits are reachable
  limits.max_members = 64;
  limits.max_member_size = 1 << 20;
  limits.max_total_size = 4 << 20;
  limits.max_dist_info_file_size = 1 << 16;
  auto wheel = open_wheel(file, limits);
  if (!wheel) {
    FUZZ_CHECK(!wheel.error().message.empty(), "an error without a message");
    return 0;
  }
  std::set<std::string> normalised;
  for (const WheelMember& member : wheel->members()) {
    FUZZ_CHECK(unsafe_member_name_reason(member.name).empty(),
               "unsafe member kept: " + member.name);
    FUZZ_CHECK(normalised.insert(normalise_member_name(member.name)).second,
               "duplicate member kept: " + member.name);
    FUZZ_CHECK(!member.encrypted, "encrypted member kept: " + member.name);
    FUZZ_CHECK(wheel->find(member.name) == &member, "find() misses " + member.name);
  }
  (void)wheel->findings();
  (void)wheel->extension_modules();
  (void)wheel->verify_records();
  // Extract up to two file members: each lands in a new file directly in `out`.
  std::vector<std::string> wanted;
  for (const WheelMember& member : wheel->members()) {
    if (!member.is_directory() && wanted.size() < 2) wanted.push_back(member.name);
  }
  if (auto verified = wheel->verify_records_extracting(wanted, out)) {
    for (const auto& [member, path] : verified->extracted) {
      FUZZ_CHECK(path.parent_path() == out, "extracted outside: " + path.string());
    }
  }
  if (!wanted.empty()) {
    if (auto path = wheel->extract_member_to(wanted.front(), out)) {
      FUZZ_CHECK(path->parent_path() == out, "extracted outside: " + path->string());
    }
    (void)wheel->read_member(wanted.front(), 1 << 16);
  }
  // Nothing but the extracted files, all directly in `out`.
  for (const auto& item : fs::recursive_directory_iterator(dir)) {
    const fs::path& p = item.path();
    FUZZ_CHECK(p == file || p == out || p.parent_path() == out, "written outside: " + p.string());
    FUZZ_CHECK(!item.is_symlink(), "a symlink appeared: " + p.string());
  }
  fs::remove_all(out);
  return 0;
}
