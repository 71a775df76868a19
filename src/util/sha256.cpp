#include "util/sha256.hpp"

#include <openssl/evp.h>

#include <new>

namespace flashfit::util {

namespace {

EVP_MD_CTX* as_ctx(void* ctx) {
  return static_cast<EVP_MD_CTX*>(ctx);
}

void init(EVP_MD_CTX* ctx) {
  // Only fails on allocation failure or a broken OpenSSL build.
  if (EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1) throw std::bad_alloc();
}

}  // namespace

void Sha256::CtxDeleter::operator()(void* ctx) const noexcept {
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx));
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_) throw std::bad_alloc();
  init(as_ctx(ctx_.get()));
}

Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;
Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t size) {
  if (size == 0) return;
  if (EVP_DigestUpdate(as_ctx(ctx_.get()), data, size) != 1) throw std::bad_alloc();
}

Sha256Digest Sha256::finish() {
  Sha256Digest digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(as_ctx(ctx_.get()), digest.data(), &length) != 1 ||
      length != digest.size()) {
    throw std::bad_alloc();
  }
  init(as_ctx(ctx_.get()));
  return digest;
}

std::string to_hex(const Sha256Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(digest.size() * 2);
  for (unsigned char byte : digest) {
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xF]);
  }
  return out;
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

}  // namespace flashfit::util
