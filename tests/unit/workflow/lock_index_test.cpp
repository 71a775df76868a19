// lock --dir's index: rendered and parsed back, updated one environment at a
// time without losing the others, searched for this environment, and
// hostile or hand-broken indexes refused.
#include "workflow/lock_index.hpp"

#include <gtest/gtest.h>

#include <string>

namespace flashfit::workflow {
namespace {

LockKey key_with(std::string gpus) {
  LockKey key;
  key.python = "cp311";
  key.platform = "manylinux_2_36_x86_64";
  key.torch = "2.8.0+cu128";
  key.cuda = "12.8";
  key.cxx11_abi = "true";
  key.gpu_archs = std::move(gpus);
  return key;
}

LockIndexEntry entry_for(const LockKey& key) {
  return {key, lock_file_name(key)};
}

TEST(LockIndex, RendersAndParsesBack) {
  LockKey unknown_gpus = key_with("none");
  unknown_gpus.gpu_archs.reset();
  const std::vector<LockIndexEntry> entries{entry_for(key_with("sm_80")), entry_for(unknown_gpus)};
  const std::string text = render_lock_index(entries);
  EXPECT_NE(text.find("\"gpu-archs\": null"), std::string::npos) << text;
  auto parsed = parse_lock_index(text, "flashfit-locks.json");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(*parsed, entries);
}

TEST(LockIndex, AddsReplacesAndKeepsTheOthers) {
  const LockIndexEntry a = entry_for(key_with("sm_80"));
  const LockIndexEntry b = entry_for(key_with("sm_90"));
  auto one = with_lock({}, a);
  ASSERT_TRUE(one);
  auto two = with_lock(*one, b);
  ASSERT_TRUE(two);
  EXPECT_EQ(*two, (std::vector<LockIndexEntry>{a, b}));
  auto again = with_lock(*two, a);  // the same environment locked again: still two
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, (std::vector<LockIndexEntry>{a, b}));
  // Another key claiming a file that is already some key's.
  LockIndexEntry clash = entry_for(key_with("sm_70"));
  clash.file = a.file;
  auto refused = with_lock(*two, clash);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("another environment key"), std::string::npos);
}

TEST(LockIndex, ChoosesTheEqualKeyOrSaysWhatDiffers) {
  const std::vector<LockIndexEntry> entries{entry_for(key_with("sm_80")),
                                            entry_for(key_with("sm_90"))};
  LockChoice choice = choose_lock(entries, key_with("sm_90"));
  ASSERT_TRUE(choice.match);
  EXPECT_EQ(*choice.match, 1U);
  EXPECT_EQ(choice.differences[1].size(), 0U);

  LockKey here = key_with("sm_89");
  here.torch = "2.9.1+cu128";
  choice = choose_lock(entries, here);
  EXPECT_FALSE(choice.match);
  ASSERT_EQ(choice.differences.size(), 2U);
  ASSERT_EQ(choice.differences[0].size(), 2U);
  EXPECT_EQ(choice.differences[0][0].describe(), "torch: locked 2.8.0+cu128, here 2.9.1+cu128");
  EXPECT_EQ(choice.differences[0][1].describe(), "gpu-archs: locked sm_80, here sm_89");
  EXPECT_EQ(choice.differences[1][1].describe(), "gpu-archs: locked sm_90, here sm_89");

  // An unknown fact in the lock never matches a known one here.
  LockKey unknown = key_with("sm_90");
  unknown.cxx11_abi.reset();
  choice = choose_lock({entry_for(unknown)}, key_with("sm_90"));
  EXPECT_FALSE(choice.match);
  // Nor one unknown here too.
  choice = choose_lock({entry_for(unknown)}, unknown);
  EXPECT_FALSE(choice.match);
  ASSERT_EQ(choice.differences.at(0).size(), 1U);
  EXPECT_EQ(choice.differences[0][0].fact, "cxx11-abi");
  EXPECT_TRUE(choose_lock({}, here).differences.empty());
}

TEST(LockIndex, RefusesBrokenIndexes) {
  const std::string good = render_lock_index({entry_for(key_with("sm_80"))});
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  struct Case {
    std::string text;
    std::string message;
  };
  const std::string file = lock_file_name(key_with("sm_80"));
  for (const Case& c : std::vector<Case>{
           {"", "not JSON"},
           {"{\"locks\": [", "not JSON"},
           {"[]", "no \"flashfit-locks\""},
           {replaced("\"flashfit-locks\": 1", "\"flashfit-locks\": 2"), "format 2"},
           {replaced("\"flashfit-locks\": 1", "\"flashfit-locks\": \"1\""), "format \"1\""},
           {"{\"flashfit-locks\": 1}", "\"locks\" is not a list"},
           {"{\"flashfit-locks\": 1, \"locks\": [{\"file\": 3, \"key\": {}}]}",
            "without a \"file\""},
           {replaced(file, "../" + file), "not a requirements-*.txt"},
           {replaced(file, "requirements-x.whl"), "not a requirements-*.txt"},
           {replaced(file, "notes.txt"), "not a requirements-*.txt"},
           {replaced("\"torch\": ", "\"torcch\": "), "unknown fact 'torcch'"},
           {replaced("\"2.8.0+cu128\"", "\"2.8 ; rm -rf\""), "malformed value"},
           {replaced("\"2.8.0+cu128\"", "28"), "neither a string nor null"},
           {replaced("\"cuda\": \"12.8\",", ""), "does not name 'cuda'"},
       }) {
    auto parsed = parse_lock_index(c.text, "flashfit-locks.json");
    ASSERT_FALSE(parsed) << c.text;
    EXPECT_NE(parsed.error().message.find(c.message), std::string::npos)
        << c.text << "\n-> " << parsed.error().message;
    EXPECT_EQ(parsed.error().context, "flashfit-locks.json");
  }
  // The same file, or the same key, twice.
  LockIndexEntry a = entry_for(key_with("sm_80"));
  LockIndexEntry b = entry_for(key_with("sm_90"));
  b.file = a.file;
  auto twice = parse_lock_index(render_lock_index({a, b}), "i.json");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("listed twice"), std::string::npos);
  b = entry_for(key_with("sm_80"));
  b.file = "requirements-other.txt";
  auto same_key = parse_lock_index(render_lock_index({a, b}), "i.json");
  ASSERT_FALSE(same_key);
  EXPECT_NE(same_key.error().message.find("the key of another file"), std::string::npos);
  auto big = parse_lock_index(std::string((1 << 20) + 1, ' '), "i.json");
  ASSERT_FALSE(big);
}

}  // namespace
}  // namespace flashfit::workflow
