// Evaluator for tags_cases.py: one JSON case per stdin line, answering
// "<count> <sha256 of the newline-joined tag list> <best rank or -1>".

#include <array>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pkg/tag.hpp"
#include "pkg/tags.hpp"

#include "line_evaluator.hpp"

namespace {

using flashfit::pkg::InterpreterTagFacts;
using flashfit::pkg::LibcVersion;
using Json = nlohmann::json;

// FIPS 180-4 SHA-256, enough to compare digests with Python's hashlib
// without linking a crypto library into a test.
class Sha256 {
 public:
  void update(const std::string& data) {
    for (unsigned char byte : data) {
      block_[block_size_++] = byte;
      if (block_size_ == 64) {
        compress();
        block_size_ = 0;
      }
    }
    length_ += data.size();
  }

  std::string hex_digest() {
    const std::uint64_t bits = length_ * 8;
    block_[block_size_++] = 0x80;
    if (block_size_ > 56) {
      while (block_size_ < 64) block_[block_size_++] = 0;
      compress();
      block_size_ = 0;
    }
    while (block_size_ < 56) block_[block_size_++] = 0;
    for (int i = 7; i >= 0; --i) block_[block_size_++] = static_cast<std::uint8_t>(bits >> (i * 8));
    compress();
    std::string out;
    char buffer[9];
    for (auto word : state_) {
      std::snprintf(buffer, sizeof buffer, "%08x", static_cast<unsigned>(word));
      out += buffer;
    }
    return out;
  }

 private:
  static std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

  void compress() {
    static constexpr std::array<std::uint32_t, 64> kRound = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    std::array<std::uint32_t, 64> w{};
    for (std::size_t i = 0; i < 16; ++i) {
      w[i] = (std::uint32_t{block_[i * 4]} << 24) | (std::uint32_t{block_[i * 4 + 1]} << 16) |
             (std::uint32_t{block_[i * 4 + 2]} << 8) | std::uint32_t{block_[i * 4 + 3]};
    }
    for (std::size_t i = 16; i < 64; ++i) {
      const auto s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const auto s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    auto [a, b, c, d, e, f, g, h] = state_;
    for (std::size_t i = 0; i < 64; ++i) {
      const auto t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                      kRound[i] + w[i];
      const auto t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    const std::array<std::uint32_t, 8> add{a, b, c, d, e, f, g, h};
    for (std::size_t i = 0; i < 8; ++i) state_[i] += add[i];
  }

  std::array<std::uint32_t, 8> state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<std::uint8_t, 64> block_{};
  std::size_t block_size_ = 0;
  std::uint64_t length_ = 0;
};

// Python truthiness of a JSON config value (null, 0/1, true/false).
std::optional<bool> optional_truth(const Json& value) {
  if (value.is_null()) return std::nullopt;
  if (value.is_boolean()) return value.get<bool>();
  return value.get<long long>() != 0;
}

std::optional<LibcVersion> libc(const Json& value) {
  if (value.is_null()) return std::nullopt;
  return LibcVersion{value.at(0).get<int>(), value.at(1).get<int>()};
}

InterpreterTagFacts facts_from(const Json& json) {
  InterpreterTagFacts facts;
  facts.implementation = json.at("impl").get<std::string>();
  facts.python_major = json.at("major").get<int>();
  facts.python_minor = json.at("minor").get<int>();
  if (!json.at("nodot").is_null()) facts.py_version_nodot = json.at("nodot").get<std::string>();
  facts.py_debug = optional_truth(json.at("debug"));
  facts.has_gettotalrefcount = json.at("refcount").get<bool>();
  facts.has_d_pyd_suffix = json.at("d_pyd").get<bool>();
  facts.with_pymalloc = optional_truth(json.at("pymalloc"));
  if (!json.at("unicode_size").is_null()) facts.py_unicode_size = json.at("unicode_size").get<int>();
  facts.max_unicode_is_ucs4 = json.at("ucs4").get<bool>();
  facts.gil_disabled = optional_truth(json.at("gil")).value_or(false);
  if (!json.at("soabi").is_null()) facts.soabi = json.at("soabi").get<std::string>();
  facts.system = json.at("system").get<std::string>();
  facts.platform = json.at("platform").get<std::string>();
  facts.is_32bit = json.at("is_32bit").get<bool>();
  facts.glibc = libc(json.at("glibc"));
  facts.musl = libc(json.at("musl"));
  facts.executable_is_armhf = json.at("armhf").get<bool>();
  facts.executable_is_i686 = json.at("i686").get<bool>();
  for (const auto& version : json.at("vetoed")) facts.manylinux_vetoed.push_back(*libc(version));
  return facts;
}

std::string answer(const std::string& line) {
  const auto json = Json::parse(line);
  const auto rules = json.at("rules").get<std::string>() == "pip"
                         ? flashfit::pkg::TagRules::pip_packaging_21_3
                         : flashfit::pkg::TagRules::packaging_21_3_sys_tags;
  const flashfit::pkg::SupportedTags supported(
      flashfit::pkg::supported_tags(facts_from(json.at("facts")), rules));
  Sha256 sha;
  for (std::size_t i = 0; i < supported.size(); ++i) {
    sha.update(i == 0 ? supported.tags()[i].str() : "\n" + supported.tags()[i].str());
  }
  const auto wheel = flashfit::pkg::parse_tag_set(json.at("wheel").get<std::string>());
  if (!wheel) return "error: " + wheel.error().message;
  const auto rank = supported.best_rank(*wheel);
  return std::to_string(supported.size()) + " " + sha.hex_digest() + " " +
         (rank ? std::to_string(*rank) : "-1");
}

}  // namespace

int main() { return run_line_evaluator(answer); }
