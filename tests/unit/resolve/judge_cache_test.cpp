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

}  // namespace
}  // namespace flashfit::resolve
