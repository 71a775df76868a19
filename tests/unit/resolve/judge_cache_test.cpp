// The rules' memo: wheels that share a tag set none of the interpreter's tags
// match are rejected once per tag set and the codes replayed; each is judged
// exactly as with a cache of its own, in any order, and the explaining pass
// words each wheel's own tags.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "resolve/recipe.hpp"
#include "resolve/rules.hpp"
#include "targets.hpp"

namespace flashfit::resolve {
namespace {
using testing::make_target;

Candidate wheel(const std::string& filename) {
  return testing::wheel_from(filename);
}

std::string codes(const std::optional<Judged>& j) {
  std::string out;
  for (const Reason& r : j->reasons) out += std::string(to_string(r.code)) + " ";
  return out;
}

TEST(JudgeCache, ATagSetsRejectionIsReplayedExactlyForEveryWheelThatSharesIt) {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* fa = book.find("flash-attn");
  const Request request{"flash-attn", {}, "flash-attn"};
  const ResolveTarget target = make_target({});  // Python 3.12, glibc 2.35, x86_64
  const std::vector<Candidate> wheels = {
      // Two of Python 3.10's tag set (other versions), one of 3.9's.
      wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp310-cp310-linux_x86_64.whl"),
      wheel("flash_attn-2.8.2+cu12torch2.9cxx11abiTRUE-cp310-cp310-linux_x86_64.whl"),
      wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp39-cp39-linux_x86_64.whl"),
      // Another platform; a manylinux glibc newer than this one; both wrong at once.
      wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp312-cp312-macosx_14_0_arm64.whl"),
      wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp312-cp312-manylinux_2_39_x86_64.whl"),
      wheel("flash_attn-2.8.2+cu12torch2.9cxx11abiTRUE-cp312-cp312-manylinux_2_39_x86_64.whl"),
      wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp310-cp310-win_amd64.whl"),
      // One that fits the tags.
      wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl"),
  };
  std::vector<std::string> alone;
  for (const Candidate& c : wheels)
    alone.push_back(codes(judge(c, request, fa, target, {false, nullptr})));
  EXPECT_NE(alone[0].find("python"), std::string::npos);
  EXPECT_NE(alone[3].find("platform"), std::string::npos);
  EXPECT_NE(alone[4].find("glibc"), std::string::npos);
  EXPECT_EQ(alone[7].find("python"), std::string::npos);
  for (int reversed = 0; reversed < 2; ++reversed) {
    JudgeCache cache;
    for (std::size_t k = 0; k < wheels.size(); ++k) {
      const std::size_t i = reversed ? wheels.size() - 1 - k : k;
      EXPECT_EQ(codes(judge(wheels[i], request, fa, target, {false, &cache})), alone[i])
          << wheels[i].filename;
    }
    // Explained after the codes-only pass: each wheel's own words.
    auto second = judge(wheels[1], request, fa, target, {true, &cache});
    ASSERT_TRUE(second);
    bool worded = false;
    for (const Reason& r : second->reasons)
      worded |= r.code == ReasonCode::python && r.message.find("cp310") != std::string::npos;
    EXPECT_TRUE(worded);
  }
}

// Wheels of one version and source whose tag sets differ only in what the
// glibc rule reads (a plain linux_* tag), in what the pure-wheel rule reads
// (every tag py-none-any), or whose names a known-broken entry's pattern
// tells apart: each keeps its own verdict when a shared cache serves both,
// in either order.
TEST(JudgeCache, WheelsTheRulesTellApartKeepTheirOwnVerdicts) {
  RecipeBook book = RecipeBook::built_in();
  Recipe fa = *book.find("flash-attn");
  KnownBroken cp310_only;
  cp310_only.versions = *pkg::SpecifierSet::parse("==2.8.3");
  cp310_only.filename_glob = "*-cp310-cp310-manylinux*";
  cp310_only.reason = "a test's broken build";
  fa.known_broken.push_back(cp310_only);
  const Request request{"flash-attn", {}, "flash-attn"};
  // Python 3.12: the cp39 to cp311 and py2 wheels are rejected for their Python tags
  // alike; glibc 2.31 is older than what 2.8.3's upstream wheels need.
  const ResolveTarget target = make_target({.glibc = "2.31"});
  const std::vector<std::pair<Candidate, Candidate>> pairs = {
      {wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp311-cp311-linux_x86_64.whl"),
       wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp311-cp311-manylinux_2_28_x86_64.whl")},
      {wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-py2-none-any.whl"),
       wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp27-cp27mu-any.whl")},
      {wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp310-cp310-manylinux_2_28_x86_64.whl"),
       wheel("flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp39-cp39-manylinux_2_28_x86_64.whl")},
  };
  for (const auto& [a, b] : pairs) {
    const std::string alone_a = codes(judge(a, request, &fa, target, {false, nullptr}));
    const std::string alone_b = codes(judge(b, request, &fa, target, {false, nullptr}));
    EXPECT_NE(alone_a, alone_b) << a.filename << " and " << b.filename;
    for (bool a_first : {true, false}) {
      JudgeCache cache;
      const Candidate& first = a_first ? a : b;
      const Candidate& second = a_first ? b : a;
      const std::string first_codes = codes(judge(first, request, &fa, target, {false, &cache}));
      const std::string second_codes = codes(judge(second, request, &fa, target, {false, &cache}));
      EXPECT_EQ(first_codes, a_first ? alone_a : alone_b) << first.filename;
      EXPECT_EQ(second_codes, a_first ? alone_b : alone_a) << second.filename;
    }
  }
}

// A wheel with facts of its own for the rules to read (a build record's
// label and archs, a variant record's PTX or its doubt, an index's
// requires-python) is judged by them even when a shared cache already holds a
// verdict for a wheel of the same name and source without them, in either order.
// Its codes, assumptions and ABI.
std::string verdict(const std::optional<Judged>& j) {
  std::string out = codes(j) + "|";
  for (const Assumption& a : j->assumptions) out += " " + a.fact;
  return out + " | abi " + (j->cxx11_abi ? std::to_string(*j->cxx11_abi) : "?");
}

TEST(JudgeCache, AWheelsOwnFactsAreNeverTakenFromAnother) {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* fa = book.find("flash-attn");
  const Request request{"flash-attn", {}, "flash-attn"};
  // Python 3.12, torch 2.9 with CUDA 12.8, a T4 (7.5): no kernels for it in the release.
  const ResolveTarget target = make_target({.gpus = std::vector<std::string>{"7.5"}});
  const Candidate plain = wheel("flash_attn-2.8.3-cp312-cp312-linux_x86_64.whl");
  std::vector<Candidate> own(5, plain);
  own[0].built_variant = pkg::decode_variant("cu12torch2.8cxx11abiTRUE");
  own[1].built_archs = std::vector<std::string>{"sm_70"};
  own[2].built_ptx = {"sm_70"};
  own[3].record_doubt = "no variant record";
  own[4].requires_python = ">=3.13";
  const std::string alone_plain = verdict(judge(plain, request, fa, target, {false, nullptr}));
  for (const Candidate& c : own) {
    const std::string alone = verdict(judge(c, request, fa, target, {false, nullptr}));
    EXPECT_NE(alone, alone_plain);
    for (bool plain_first : {true, false}) {
      JudgeCache cache;
      const Candidate& first = plain_first ? plain : c;
      const Candidate& second = plain_first ? c : plain;
      const std::string first_codes = verdict(judge(first, request, fa, target, {false, &cache}));
      const std::string second_codes = verdict(judge(second, request, fa, target, {false, &cache}));
      EXPECT_EQ(first_codes, plain_first ? alone_plain : alone);
      EXPECT_EQ(second_codes, plain_first ? alone : alone_plain);
    }
  }
}

}  // namespace
}  // namespace flashfit::resolve
