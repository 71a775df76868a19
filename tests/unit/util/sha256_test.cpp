// SHA-256 against FIPS 180-2 vectors and the RECORD spelling pip writes.
#include "util/sha256.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace flashfit;

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(util::sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(util::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, IncrementalEqualsOneShotAndResets) {
  const std::string text(3'000'001, 'x');
  util::Sha256 hasher;
  for (std::size_t i = 0; i < text.size(); i += 4097) {
    hasher.update(std::string_view(text).substr(i, 4097));
  }
  EXPECT_EQ(hasher.finish(), util::sha256(text));
  // finish() resets: the same object hashes the next input from scratch.
  hasher.update("abc");
  EXPECT_EQ(util::to_hex(hasher.finish()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, UrlsafeBase64NoPadAsRecordWritesIt) {
  // python3 -c "import
  // hashlib,base64;print(base64.urlsafe_b64encode(hashlib.sha256(b'').digest()).rstrip(b'='))"
  EXPECT_EQ(util::to_urlsafe_base64_nopad(util::sha256("")),
            "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
  EXPECT_EQ(util::to_urlsafe_base64_nopad(util::sha256("abc")),
            "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
}
