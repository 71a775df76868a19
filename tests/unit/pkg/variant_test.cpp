// Unit tests for src/pkg/variant.cpp: each dialect, the digit-splitting rules,
// and hostile input. The data-file sweep lives in variant_data_test.cpp.
//
// Suite names carry a lower-case "variant" so `ctest -R variant` selects them.

#include "pkg/variant.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace flashfit::pkg {
namespace {

std::string lowered(std::string text) {
  for (auto& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// Writes a decoded label back in its dialect's canonical (lower-case) spelling.
// Decoding accepts only canonical digits (no leading zeros), so for any label it
// recognises, encode(decode(x)) must equal lower(x): a strong check that no
// field was dropped or mis-split.
std::string encode(const VariantLabel& v) {
  const auto cuda = [&] {
    return std::to_string(v.cuda->major) + (v.cuda->minor ? std::to_string(*v.cuda->minor) : "");
  };
  const auto dotted_torch = [&] {
    return std::to_string(v.torch->major) + "." + std::to_string(v.torch->minor);
  };
  const auto abi = [&] {
    return v.cxx11_abi ? std::string("cxx11abi") + (*v.cxx11_abi ? "true" : "false") : "";
  };
  switch (v.scheme) {
    case VariantScheme::upstream:
    case VariantScheme::community:
      return "cu" + cuda() + "torch" + dotted_torch() + abi() +
             (v.git_hash ? "git" + *v.git_hash : "");
    case VariantScheme::rocm:
      return "rocm" + std::to_string(v.rocm->major) + std::to_string(v.rocm->minor) + "torch" +
             dotted_torch() + abi();
    case VariantScheme::pyg:
      return "pt" + std::to_string(v.torch->major) + std::to_string(v.torch->minor) +
             (v.cpu_only ? "cpu" : "cu" + cuda());
    case VariantScheme::none:
    case VariantScheme::unknown:
      break;
  }
  return "";
}

void expect_unknown(const std::string& label) {
  SCOPED_TRACE("label of " + std::to_string(label.size()) + " bytes: " + label.substr(0, 80));
  const VariantLabel v = decode_variant(label);
  EXPECT_EQ(v.scheme, VariantScheme::unknown);
  EXPECT_FALSE(v.known());
  // No half-decoded guesses: an unknown label carries nothing but itself.
  EXPECT_FALSE(v.cuda);
  EXPECT_FALSE(v.torch);
  EXPECT_FALSE(v.cxx11_abi);
  EXPECT_FALSE(v.rocm);
  EXPECT_FALSE(v.git_hash);
  EXPECT_FALSE(v.cpu_only);
  EXPECT_EQ(v.raw, label);
  EXPECT_NE(v.describe().find("unrecognised variant label"), std::string::npos);
}

TEST(variant_decode, UpstreamMajorOnlyCuda) {
  const VariantLabel v = decode_variant("cu12torch2.8cxx11abiTRUE");
  EXPECT_EQ(v.scheme, VariantScheme::upstream);
  ASSERT_TRUE(v.cuda);
  EXPECT_EQ(v.cuda->major, 12);
  EXPECT_FALSE(v.cuda->minor);  // cu12 promises any 12.x, not 12.0
  EXPECT_EQ(v.torch, (TorchVersion{2, 8}));
  EXPECT_EQ(v.cxx11_abi, true);
  EXPECT_FALSE(v.rocm);
  EXPECT_FALSE(v.git_hash);
  EXPECT_FALSE(v.cpu_only);
  EXPECT_EQ(v.raw, "cu12torch2.8cxx11abiTRUE");
  EXPECT_EQ(v.describe(), "CUDA 12.x, torch 2.8, C++11 ABI");
  EXPECT_TRUE(v.known());
}

TEST(variant_decode, UpstreamIgnoresCaseAndKeepsRaw) {
  const VariantLabel from_name = decode_variant("cu12torch2.8cxx11abiFALSE");
  const VariantLabel from_local = decode_variant("cu12torch2.8cxx11abifalse");  // Version::local()
  const VariantLabel shouting = decode_variant("CU12TORCH2.8CXX11ABIFALSE");
  EXPECT_EQ(from_name.cxx11_abi, false);
  EXPECT_EQ(from_name.describe(), "CUDA 12.x, torch 2.8, pre-C++11 ABI");
  for (const VariantLabel* other : {&from_local, &shouting}) {
    VariantLabel same = *other;
    same.raw = from_name.raw;
    EXPECT_EQ(same, from_name);
  }
  EXPECT_EQ(shouting.raw, "CU12TORCH2.8CXX11ABIFALSE");
}

TEST(variant_decode, UpstreamEveryCudaTokenEver) {
  // docs/background.md §9: the CUDA token changed four times.
  struct Case {
    const char* label;
    CudaVersion cuda;
    TorchVersion torch;
  };
  const std::vector<Case> cases = {
      {"cu116torch1.12cxx11abiTRUE", {11, 6}, {1, 12}},   // v2.3
      {"cu117torch1.13cxx11abiFALSE", {11, 7}, {1, 13}},  // v2.3
      {"cu121torch2.1cxx11abiTRUE", {12, 1}, {2, 1}},     // v2.3
      {"cu118torch2.0cxx11abiTRUE", {11, 8}, {2, 0}},     // v2.3.6-v2.6.3
      {"cu122torch2.3cxx11abiFALSE", {12, 2}, {2, 3}},    // v2.3.6-v2.6.0.post1
      {"cu123torch2.4cxx11abiTRUE", {12, 3}, {2, 4}},     // v2.6.1-v2.6.3
      {"cu11torch2.5cxx11abiFALSE", {11, {}}, {2, 5}},    // v2.7.0-
      {"cu13torch2.10cxx11abiTRUE", {13, {}}, {2, 10}},   // v2.8.3.post1-
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    const VariantLabel v = decode_variant(c.label);
    EXPECT_EQ(v.scheme, VariantScheme::upstream);
    EXPECT_EQ(v.cuda, c.cuda);
    EXPECT_EQ(v.torch, c.torch);
    EXPECT_EQ(encode(v), lowered(c.label));
  }
  EXPECT_EQ(decode_variant("cu118torch2.1cxx11abiTRUE").describe(),
            "CUDA 11.8, torch 2.1, C++11 ABI");
}

TEST(variant_decode, Community) {
  const VariantLabel v = decode_variant("cu128torch2.8");
  EXPECT_EQ(v.scheme, VariantScheme::community);
  EXPECT_EQ(v.cuda, (CudaVersion{12, 8}));
  EXPECT_EQ(v.torch, (TorchVersion{2, 8}));
  EXPECT_FALSE(v.cxx11_abi);  // not stated, which is not "false"
  EXPECT_FALSE(v.git_hash);
  EXPECT_EQ(v.describe(), "CUDA 12.8, torch 2.8");

  EXPECT_EQ(decode_variant("cu130torch2.9").cuda, (CudaVersion{13, 0}));
  EXPECT_EQ(decode_variant("cu132torch2.13").torch, (TorchVersion{2, 13}));
}

TEST(variant_decode, CommunityGitSuffixAfterTwoDigitTorchMinor) {
  const VariantLabel v = decode_variant("cu128torch2.10gite2743ab");
  EXPECT_EQ(v.scheme, VariantScheme::community);
  EXPECT_EQ(v.cuda, (CudaVersion{12, 8}));
  EXPECT_EQ(v.torch, (TorchVersion{2, 10}));
  EXPECT_EQ(v.git_hash, "e2743ab");
  EXPECT_EQ(v.describe(), "CUDA 12.8, torch 2.10, git e2743ab");
  // A hash of digits only still ends the torch minor at "git".
  EXPECT_EQ(decode_variant("cu128torch2.8git1234567").torch, (TorchVersion{2, 8}));
  EXPECT_EQ(decode_variant("cu128torch2.8GITE2743AB").git_hash, "e2743ab");
  EXPECT_EQ(decode_variant("cu128torch2.8git" + std::string(40, 'f')).git_hash,
            std::string(40, 'f'));
}

TEST(variant_decode, CommunityMajorOnlyCudaIsStillDecoded) {
  // Nobody publishes this today; it is read by the same rules rather than guessed at.
  const VariantLabel v = decode_variant("cu12torch2.8");
  EXPECT_EQ(v.scheme, VariantScheme::community);
  EXPECT_EQ(v.cuda, (CudaVersion{12, {}}));
}

TEST(variant_decode, PyG) {
  struct Case {
    const char* label;
    TorchVersion torch;
    std::optional<CudaVersion> cuda;
  };
  const std::vector<Case> cases = {
      {"pt21cu121", {2, 1}, CudaVersion{12, 1}},   {"pt112cu113", {1, 12}, CudaVersion{11, 3}},
      {"pt113cu117", {1, 13}, CudaVersion{11, 7}}, {"pt20cu118", {2, 0}, CudaVersion{11, 8}},
      {"pt25cu124", {2, 5}, CudaVersion{12, 4}},   {"pt210cu128", {2, 10}, CudaVersion{12, 8}},
      {"pt211cu128", {2, 11}, CudaVersion{12, 8}}, {"pt110cu111", {1, 10}, CudaVersion{11, 1}},
      {"pt18cu102", {1, 8}, CudaVersion{10, 2}},   {"pt17cu92", {1, 7}, CudaVersion{9, 2}},
      {"pt113cpu", {1, 13}, std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    const VariantLabel v = decode_variant(c.label);
    EXPECT_EQ(v.scheme, VariantScheme::pyg);
    EXPECT_EQ(v.torch, c.torch);
    EXPECT_EQ(v.cuda, c.cuda);
    EXPECT_EQ(v.cpu_only, !c.cuda);
    EXPECT_FALSE(v.cxx11_abi);
    EXPECT_EQ(encode(v), c.label);
  }
  EXPECT_EQ(decode_variant("pt21cu121").describe(), "CUDA 12.1, torch 2.1");
  EXPECT_EQ(decode_variant("PT113CPU").describe(), "CPU only, torch 1.13");
}

TEST(variant_decode, Rocm) {
  const VariantLabel v = decode_variant("rocm62torch2.5cxx11abiFALSE");
  EXPECT_EQ(v.scheme, VariantScheme::rocm);
  EXPECT_EQ(v.rocm, (RocmVersion{6, 2}));
  EXPECT_FALSE(v.cuda);
  EXPECT_EQ(v.torch, (TorchVersion{2, 5}));
  EXPECT_EQ(v.cxx11_abi, false);
  EXPECT_EQ(v.describe(), "ROCm 6.2, torch 2.5, pre-C++11 ABI");

  // mjun0812's ROCm builds drop the ABI token, like their CUDA ones.
  const VariantLabel community = decode_variant("rocm61torch2.6");
  EXPECT_EQ(community.scheme, VariantScheme::rocm);
  EXPECT_EQ(community.rocm, (RocmVersion{6, 1}));
  EXPECT_FALSE(community.cxx11_abi);

  EXPECT_EQ(decode_variant("rocm610torch2.9cxx11abiTRUE").rocm, (RocmVersion{6, 10}));
  EXPECT_EQ(decode_variant("rocm70torch2.9cxx11abiTRUE").rocm, (RocmVersion{7, 0}));
  // Their Triton back end is a different binary; not decoded rather than mistaken.
  expect_unknown("rocm62torch2.5triton");
}

TEST(variant_decode, EmptyIsNone) {
  const VariantLabel v = decode_variant("");
  EXPECT_EQ(v.scheme, VariantScheme::none);
  EXPECT_FALSE(v.known());
  EXPECT_FALSE(v.cuda);
  EXPECT_FALSE(v.torch);
  EXPECT_EQ(v.describe(), "no variant label");
}

TEST(variant_decode, SchemeNames) {
  EXPECT_EQ(to_string(VariantScheme::none), "none");
  EXPECT_EQ(to_string(VariantScheme::upstream), "upstream");
  EXPECT_EQ(to_string(VariantScheme::community), "community");
  EXPECT_EQ(to_string(VariantScheme::pyg), "pyg");
  EXPECT_EQ(to_string(VariantScheme::rocm), "rocm");
  EXPECT_EQ(to_string(VariantScheme::unknown), "unknown");
}

TEST(variant_decode, CudaDigitSplit) {
  struct Case {
    const char* digits;
    std::optional<CudaVersion> cuda;
  };
  const std::vector<Case> cases = {
      {"92", CudaVersion{9, 2}},     {"100", CudaVersion{10, 0}}, {"102", CudaVersion{10, 2}},
      {"11", CudaVersion{11, {}}},   {"118", CudaVersion{11, 8}}, {"12", CudaVersion{12, {}}},
      {"128", CudaVersion{12, 8}},   {"130", CudaVersion{13, 0}}, {"13", CudaVersion{13, {}}},
      {"1210", CudaVersion{12, 10}},  // no such CUDA yet; read as 12.10, not 121.0
      {"1", std::nullopt},           {"0", std::nullopt},         {"012", std::nullopt},
      {"1205", std::nullopt},        {"12345", std::nullopt},     {"", std::nullopt},
  };
  for (const Case& c : cases) {
    const std::string label = std::string("cu") + c.digits + "torch2.8";
    SCOPED_TRACE(label);
    if (c.cuda) {
      EXPECT_EQ(decode_variant(label).cuda, c.cuda);
      EXPECT_EQ(decode_variant(label).cuda->str(),
                c.cuda->minor ? std::to_string(c.cuda->major) + "." + std::to_string(*c.cuda->minor)
                              : std::to_string(c.cuda->major) + ".x");
    } else {
      expect_unknown(label);
    }
  }
}

TEST(variant_decode, TorchDigitsMustBeCanonical) {
  for (const char* label :
       {"cu128torch2.08", "cu128torch02.8", "cu128torch2.100", "cu128torch100.1", "cu128torch.8",
        "cu128torch2", "cu128torch2..8", "cu128torch2.8.1", "pt2cu121", "pt2100cu121", "pt021cu121",
        "pt201cu121", "rocm6torch2.5", "rocm6100torch2.5", "rocm062torch2.5", "rocm601torch2.5"}) {
    expect_unknown(label);
  }
}

TEST(variant_garbage, NamedCasesAreUnknown) {
  for (const char* label : {"cu",
                            "cutorch",
                            "cu12torch",
                            "cu12torch2.",
                            "torch2.8cu12",
                            "cu12torch2.8cxx11abi",
                            "cu12torch2.8cxx11abiyes",
                            "cu12torch2.8cxx11abiTRUEx",
                            "cu12torch2.8cxx11abiTRUEgitabcd",
                            "cu12torch2.8cxx11abiTRUE.post1",
                            "cu128torch2.8git",
                            "cu128torch2.8gitxyz",
                            "cu128torch2.8git123",
                            "cu128torch2.8gite2743ab.1",
                            "pt",
                            "pt21",
                            "pt21cu",
                            "pt21cpux",
                            "pt21rocm62",
                            "rocm",
                            "rocmtorch2.5",
                            "cpu",
                            "abc",
                            "12",
                            "cu12torch2.8 ",
                            " cu12torch2.8",
                            "cu12-torch2.8",
                            "cu12.torch2.8",
                            "cu12torch2-8",
                            "cu12_torch2.8",
                            "+cu12torch2.8",
                            "20251229.cu128torch291cxx11abitrue.58fe37"}) {
    expect_unknown(label);
  }
  expect_unknown("cu128torch2.8git" + std::string(41, 'a'));  // longer than a SHA-1
}

TEST(variant_garbage, NonAsciiAndNul) {
  expect_unknown("cu12torch2.8cxx11abiTRU\xc3\x89");     // É
  expect_unknown("cu\xef\xbc\x91\xef\xbc\x92torch2.8");  // full-width digits
  expect_unknown("\xff\xfe\xfd");
  expect_unknown(std::string("cu12torch2.8\0", 13));
  expect_unknown(std::string("cu12\0torch2.8", 13));
  expect_unknown(std::string("\0", 1));
  expect_unknown(std::string(64, '\0'));
}

TEST(variant_garbage, TenKilobytesOfJunk) {
  constexpr std::size_t kTenKilobytes = 10240;
  std::mt19937 random(20260822);
  std::string junk(kTenKilobytes, '\0');
  for (auto& c : junk) c = static_cast<char>(random() & 0xff);
  expect_unknown(junk);
  // A valid label followed by a long tail, and a long run of digits where a
  // version belongs (must not overflow an int).
  expect_unknown("cu12torch2.8cxx11abiTRUE" + std::string(kTenKilobytes, 'x'));
  expect_unknown("cu12torch2." + std::string(kTenKilobytes, '9'));
  expect_unknown("pt" + std::string(kTenKilobytes, '1') + "cu121");
}

TEST(variant_garbage, EveryPrefixOfARealLabelIsSafe) {
  for (const std::string label : {"cu12torch2.8cxx11abiTRUE", "cu128torch2.10gite2743ab",
                                  "pt112cu113", "rocm62torch2.5cxx11abiFALSE"}) {
    for (std::size_t n = 1; n < label.size(); ++n) {
      const VariantLabel v = decode_variant(label.substr(0, n));
      // Some prefixes are labels in their own right ("cu12torch2.8",
      // "pt112cu11"); whatever decodes must spell back exactly.
      if (v.known()) {
        EXPECT_EQ(encode(v), lowered(label.substr(0, n)));
      } else {
        expect_unknown(label.substr(0, n));
      }
    }
  }
}

// Random strings over the alphabet the dialects use, so many of them are near
// misses. Checks the decoder's invariants rather than particular answers.
TEST(variant_garbage, RandomNearMissesKeepInvariants) {
  const std::string alphabet = "cuCUtorchpirmgabexTRUEFALS0123456789.-_+";
  const std::vector<std::string> seeds = {"cu", "cu12torch2.", "pt2", "rocm6", "cu128torch2.1"};
  std::mt19937 random(7);
  int known = 0;
  for (int i = 0; i < 100000; ++i) {
    std::string label = seeds[random() % seeds.size()];
    const std::size_t extra = random() % 16;
    for (std::size_t k = 0; k < extra; ++k) label += alphabet[random() % alphabet.size()];
    const VariantLabel v = decode_variant(label);
    ASSERT_EQ(v.raw, label);
    if (v.known()) {
      ++known;
      ASSERT_EQ(encode(v), lowered(label)) << label;
      ASSERT_FALSE(v.describe().empty());
    } else {
      ASSERT_EQ(v.scheme, VariantScheme::unknown) << label;
      ASSERT_FALSE(v.cuda || v.torch || v.cxx11_abi || v.rocm || v.git_hash || v.cpu_only) << label;
    }
  }
  EXPECT_GT(known, 100);  // the generator does reach valid labels
}

}  // namespace
}  // namespace flashfit::pkg
