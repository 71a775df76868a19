#include "util/sha256.hpp"

#include <openssl/evp.h>

#include <fstream>
#include <mutex>
#include <new>
#include <optional>
#include <type_traits>
#include <vector>

#include "util/dynamic_library.hpp"
#include "util/strings.hpp"

namespace flashfit::util {

namespace {

// OpenSSL's libcrypto, loaded at the first hash (dlopen) instead of at every
// start: mapping and relocating it cost each command about half a
// millisecond (bench/README.md, process floor), and many commands hash
// nothing. libcrypto.so.3 is OpenSSL 3's soname (Debian's libssl3, which the
// .deb Depends on); it stays loaded for the process's life.
struct Crypto {
  decltype(&::EVP_MD_CTX_new) ctx_new = nullptr;
  decltype(&::EVP_MD_CTX_free) ctx_free = nullptr;
  decltype(&::EVP_DigestInit_ex) init = nullptr;
  decltype(&::EVP_DigestUpdate) update = nullptr;
  decltype(&::EVP_DigestFinal_ex) final = nullptr;
  decltype(&::EVP_sha256) sha256 = nullptr;
  decltype(&::EVP_sha384) sha384 = nullptr;
  decltype(&::EVP_sha512) sha512 = nullptr;
};

Crypto g_crypto{};

std::optional<std::string> load_crypto() {
  auto lib = DynamicLibrary::open("libcrypto.so.3");
  if (!lib) return lib.error().message;
  std::optional<std::string> missing;
  const auto bind = [&](auto& slot, const char* name) {
    slot = lib->symbol<std::remove_pointer_t<std::remove_reference_t<decltype(slot)>>>(name);
    if (slot == nullptr && !missing) missing = std::string("libcrypto.so.3 has no ") + name;
  };
  bind(g_crypto.ctx_new, "EVP_MD_CTX_new");
  bind(g_crypto.ctx_free, "EVP_MD_CTX_free");
  bind(g_crypto.init, "EVP_DigestInit_ex");
  bind(g_crypto.update, "EVP_DigestUpdate");
  bind(g_crypto.final, "EVP_DigestFinal_ex");
  bind(g_crypto.sha256, "EVP_sha256");
  bind(g_crypto.sha384, "EVP_sha384");
  bind(g_crypto.sha512, "EVP_sha512");
  if (missing) {
    g_crypto = Crypto{};
    return missing;
  }
  lib->keep_loaded();
  return std::nullopt;
}

const Crypto& crypto() {
  static std::once_flag once;
  static std::optional<std::string> error;
  std::call_once(once, [] { error = load_crypto(); });
  if (error) {
    throw LibraryUnavailable(
        Error{ErrorKind::failed, "cannot compute SHA-256: " + *error, "",
              "install OpenSSL's library (Debian/Ubuntu: apt install libssl3)"});
  }
  return g_crypto;
}

EVP_MD_CTX* as_ctx(void* ctx) {
  return static_cast<EVP_MD_CTX*>(ctx);
}

// Lower-case hex, two digits a byte (pip's --hash, index pages).
std::string hex_of(const unsigned char* bytes, std::size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0xF]);
  }
  return out;
}

void init(EVP_MD_CTX* ctx) {
  // Only fails on allocation failure or a broken OpenSSL build.
  if (crypto().init(ctx, crypto().sha256(), nullptr) != 1) throw std::bad_alloc();
}

}  // namespace

void Sha256::CtxDeleter::operator()(void* ctx) const noexcept {
  // A context exists only once the library was loaded.
  g_crypto.ctx_free(static_cast<EVP_MD_CTX*>(ctx));
}

Sha256::Sha256() : ctx_(crypto().ctx_new()) {
  if (!ctx_) throw std::bad_alloc();
  init(as_ctx(ctx_.get()));
}

Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;
Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t size) {
  if (size == 0) return;
  if (crypto().update(as_ctx(ctx_.get()), data, size) != 1) throw std::bad_alloc();
}

Sha256Digest Sha256::finish() {
  Sha256Digest digest{};
  unsigned int length = 0;
  if (crypto().final(as_ctx(ctx_.get()), digest.data(), &length) != 1 || length != digest.size()) {
    throw std::bad_alloc();
  }
  init(as_ctx(ctx_.get()));
  return digest;
}

std::string to_hex(const Sha256Digest& digest) {
  return hex_of(digest.data(), digest.size());
}

std::string to_urlsafe_base64_nopad(const Sha256Digest& digest) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::size_t i = 0;
  for (; i + 3 <= digest.size(); i += 3) {
    const unsigned value = (digest[i] << 16) | (digest[i + 1] << 8) | digest[i + 2];
    out.push_back(kAlphabet[(value >> 18) & 63]);
    out.push_back(kAlphabet[(value >> 12) & 63]);
    out.push_back(kAlphabet[(value >> 6) & 63]);
    out.push_back(kAlphabet[value & 63]);
  }
  const std::size_t rest = digest.size() - i;  // 32 = 10*3 + 2
  if (rest == 1) {
    const unsigned value = digest[i] << 16;
    out.push_back(kAlphabet[(value >> 18) & 63]);
    out.push_back(kAlphabet[(value >> 12) & 63]);
  } else if (rest == 2) {
    const unsigned value = (digest[i] << 16) | (digest[i + 1] << 8);
    out.push_back(kAlphabet[(value >> 18) & 63]);
    out.push_back(kAlphabet[(value >> 12) & 63]);
    out.push_back(kAlphabet[(value >> 6) & 63]);
  }
  return out;
}

Sha256Digest sha256(std::string_view data) {
  Sha256 hasher;
  hasher.update(data);
  return hasher.finish();
}

Result<std::string> file_digest_hex(const std::filesystem::path& file, FileDigest kind) {
  const Crypto& lib = crypto();
  const std::unique_ptr<EVP_MD_CTX, decltype(lib.ctx_free)> ctx(lib.ctx_new(), lib.ctx_free);
  const EVP_MD* md = kind == FileDigest::sha512   ? lib.sha512()
                     : kind == FileDigest::sha384 ? lib.sha384()
                                                  : lib.sha256();
  if (!ctx || lib.init(ctx.get(), md, nullptr) != 1) throw std::bad_alloc();
  std::ifstream in(file, std::ios::binary);
  std::vector<char> buffer(std::size_t{1} << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > 0 && lib.update(ctx.get(), buffer.data(), got) != 1) throw std::bad_alloc();
  }
  if (!in.eof() || in.bad())
    return fail(ErrorKind::failed, "cannot read the file", printable(file.string()));
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (lib.final(ctx.get(), digest.data(), &length) != 1) throw std::bad_alloc();
  return hex_of(digest.data(), length);
}

Result<std::string> file_sha256_hex(const std::filesystem::path& file) {
  return file_digest_hex(file, FileDigest::sha256);
}

}  // namespace flashfit::util
