#pragma once
// Test helper: writes wheels with libzip at test time (no committed blobs),
// with a correct RECORD unless told otherwise, and byte-level patching for
// what libzip refuses to write (duplicate or hostile names, lying sizes).

#include <zip.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/sha256.hpp"

namespace flashfit::wheel_fixture {

struct WheelEntry {
  std::string name;
  std::string content;
  bool in_record = true;
  bool compress = true;
  bool encrypt = false;
};

struct WheelSpec {
  std::string filename = "demo_pkg-1.0-cp312-cp312-linux_x86_64.whl";
  std::string dist_info = "demo_pkg-1.0.dist-info";
  std::string wheel_tags = "cp312-cp312-linux_x86_64";  // Tag lines, ',' separated
  std::string metadata_version = "1.0";
  bool purelib = false;
  std::vector<WheelEntry> files;
  std::map<std::string, std::string> record_hash_override;  // name -> hash field
  std::vector<std::string> extra_record_rows;
  bool dist_info_first = false;  // written before `files` (bdist_wheel writes it last)
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Replaces every occurrence (local header and central directory alike).
inline void patch_bytes(const std::filesystem::path& path, const std::string& from,
                        const std::string& to) {
  std::string bytes = read_file(path);
  std::size_t count = 0;
  for (std::size_t at = bytes.find(from); at != std::string::npos; at = bytes.find(from, at + 1)) {
    bytes.replace(at, from.size(), to);
    ++count;
  }
  if (count == 0) throw std::runtime_error("patch_bytes: pattern not found");
  write_file(path, bytes);
}

inline std::filesystem::path build_wheel(const std::filesystem::path& dir, const WheelSpec& spec) {
  std::vector<WheelEntry> files = spec.files;
  std::string wheel = "Wheel-Version: 1.0\nGenerator: flashfit-test\nRoot-Is-Purelib: ";
  wheel += spec.purelib ? "true\n" : "false\n";
  std::string tags = spec.wheel_tags;
  for (std::size_t start = 0; start <= tags.size();) {
    std::size_t end = tags.find(',', start);
    if (end == std::string::npos) end = tags.size();
    if (end > start) wheel += "Tag: " + tags.substr(start, end - start) + "\n";
    start = end + 1;
  }
  files.push_back({spec.dist_info + "/WHEEL", wheel});
  files.push_back({spec.dist_info + "/METADATA",
                   "Metadata-Version: 2.1\nName: demo-pkg\nVersion: " + spec.metadata_version +
                       "\nRequires-Dist: torch\nRequires-Dist: einops ; extra == \"x\"\n"
                       "Summary: a long\n  folded summary\n\nBody: not a header\n"});
  std::string record;
  for (const WheelEntry& e : files) {
    if (!e.in_record) continue;
    auto it = spec.record_hash_override.find(e.name);
    const std::string hash =
        it != spec.record_hash_override.end()
            ? it->second
            : "sha256=" + util::to_urlsafe_base64_nopad(util::sha256(e.content));
    record += "\"" + e.name + "\"," + hash + "," + std::to_string(e.content.size()) + "\n";
  }
  for (const std::string& row : spec.extra_record_rows) record += row + "\n";
  record += spec.dist_info + "/RECORD,,\n";
  files.push_back({spec.dist_info + "/RECORD", record, false});
  if (spec.dist_info_first) {
    std::rotate(files.begin(), files.end() - 3, files.end());  // WHEEL, METADATA, RECORD
  }

  const std::filesystem::path path = dir / spec.filename;
  std::filesystem::remove(path);
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_EXCL, &error);
  if (archive == nullptr) throw std::runtime_error("zip_open failed");
  for (const WheelEntry& e : files) {
    zip_source_t* source = zip_source_buffer(archive, e.content.data(), e.content.size(), 0);
    const zip_int64_t index = zip_file_add(archive, e.name.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) throw std::runtime_error("zip_file_add failed: " + e.name);
    zip_set_file_compression(archive, static_cast<zip_uint64_t>(index),
                             e.compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
    if (e.encrypt && zip_file_set_encryption(archive, static_cast<zip_uint64_t>(index),
                                             ZIP_EM_AES_128, "pw") != 0) {
      throw std::runtime_error("zip_file_set_encryption failed");
    }
  }
  if (zip_close(archive) != 0) throw std::runtime_error("zip_close failed");
  return path;
}

}  // namespace flashfit::wheel_fixture
