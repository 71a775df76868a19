#pragma once
// Incremental SHA-256 over OpenSSL's EVP API (docs/background.md §17: the
// low-level SHA256_* calls are deprecated in OpenSSL 3), with the two digest
// spellings flashfit needs: hex (pip's --hash, index pages) and URL-safe
// base64 without padding (wheel RECORD files: "sha256=<b64>").

#include <array>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace flashfit::util {

using Sha256Digest = std::array<unsigned char, 32>;

class Sha256 {
 public:
  // Loads libcrypto at the first use (dlopen; sha256.cpp says why). Throws
  // std::bad_alloc when OpenSSL cannot allocate a context, LibraryUnavailable
  // (util/dynamic_library.hpp) naming the package to install when libcrypto
  // cannot be loaded.
  Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;
  ~Sha256();

  void update(const void* data, std::size_t size);
  void update(std::string_view data) { update(data.data(), data.size()); }
  // Returns the digest and resets, so one object can hash several inputs.
  Sha256Digest finish();

 private:
  struct CtxDeleter {
    void operator()(void* ctx) const noexcept;
  };
  // void* keeps <openssl/evp.h> out of every includer.
  std::unique_ptr<void, CtxDeleter> ctx_;
};

std::string to_hex(const Sha256Digest& digest);
// RFC 4648 §5 alphabet ('-', '_'), '=' padding dropped, as PEP 376/427 RECORD uses.
std::string to_urlsafe_base64_nopad(const Sha256Digest& digest);

Sha256Digest sha256(std::string_view data);
inline std::string sha256_hex(std::string_view data) {
  return to_hex(sha256(data));
}

// The digests pip's --hash takes (its strong hashes).
enum class FileDigest { sha256, sha384, sha512 };

// A file's digest, hex, read in 1 MiB pieces; an error (failed, naming the
// file) when it cannot be read.
Result<std::string> file_digest_hex(const std::filesystem::path& file, FileDigest kind);
Result<std::string> file_sha256_hex(const std::filesystem::path& file);

}  // namespace flashfit::util
